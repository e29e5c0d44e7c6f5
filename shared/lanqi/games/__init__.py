"""The rules core: xiangqi and gomoku as pure Python, with no I/O.

Use :func:`lanqi.games.registry.create_game` for any variant by name, or the
boards directly: ``lanqi.games.xiangqi.Board`` and ``lanqi.games.gomoku.Board``.
"""
