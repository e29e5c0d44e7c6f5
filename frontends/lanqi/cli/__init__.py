"""The ``lanqi`` command line: one module per subcommand."""
