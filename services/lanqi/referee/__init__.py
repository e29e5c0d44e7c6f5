"""The referee service: authoritative games over ZeroMQ."""
