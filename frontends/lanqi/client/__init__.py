"""Clients of the lanqi services for bots, the GUI and tests (``lanqi.client.referee``)."""
