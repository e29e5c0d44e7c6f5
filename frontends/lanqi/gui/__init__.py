"""The pygame GUI of lanqi: play online, two on one computer, against the built-in AIs,
watch games live and review records.

Nothing here runs at import time: no ``pygame.init()``, no window.  Start it with
``lanqi gui`` (see ``docs/gui.md``) or :func:`lanqi.gui.app.main`.
"""
