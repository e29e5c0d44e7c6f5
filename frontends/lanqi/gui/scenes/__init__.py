"""The screens of the GUI: menu, connect, lobby, game, review."""
