"""Colours and proportions of the GUI, in one place (tests sample these colours)."""

from __future__ import annotations

Color = tuple[int, int, int]

# ------------------------------------------------------------ window and panel
BACKGROUND: Color = (46, 38, 33)
PANEL: Color = (60, 50, 43)
PANEL_DARK: Color = (40, 33, 29)
PANEL_LINE: Color = (92, 78, 66)
TEXT: Color = (238, 228, 210)
TEXT_DIM: Color = (170, 158, 140)
TEXT_DARK: Color = (40, 30, 20)
ACCENT: Color = (214, 160, 64)
ERROR: Color = (240, 110, 80)
GOOD: Color = (120, 200, 120)
BUTTON: Color = (96, 74, 56)
BUTTON_HOVER: Color = (128, 98, 70)
BUTTON_PRIMARY: Color = (158, 52, 40)
BUTTON_DISABLED: Color = (70, 62, 56)
INPUT: Color = (30, 25, 22)
SELECTED_ROW: Color = (120, 90, 50)
CLOCK_ACTIVE: Color = (250, 236, 200)
CLOCK_LOW: Color = (255, 90, 70)

# ------------------------------------------------------------ boards
WOOD: Color = (222, 184, 118)
WOOD_DARK: Color = (204, 163, 96)
WOOD_EDGE: Color = (120, 78, 40)
GRID: Color = (84, 52, 24)
RIVER_TEXT: Color = (110, 70, 34)
LABEL: Color = (96, 62, 30)

# ------------------------------------------------------------ xiangqi pieces
PIECE_FACE: Color = (246, 226, 182)
PIECE_FACE_EDGE: Color = (226, 200, 150)
PIECE_RIM: Color = (176, 130, 74)
RED: Color = (192, 32, 28)
BLACK: Color = (28, 28, 28)
SHADOW = (0, 0, 0, 80)

# ------------------------------------------------------------ gomoku stones
STONE_BLACK: Color = (22, 22, 24)
STONE_WHITE: Color = (242, 242, 236)
WIN_LINE: Color = (214, 40, 40)

# ------------------------------------------------------------ marks
LAST_MOVE: Color = (24, 110, 220)
TARGET: Color = (34, 150, 72)
SELECT: Color = (250, 200, 40)
CHECK: Color = (230, 30, 30)
CURSOR: Color = (250, 120, 20)
#: a renju point Black may not play: a small cross
FORBIDDEN: Color = (178, 48, 40)
PREMOVE: Color = (150, 70, 200)

#: radius of a piece, in cells
PIECE_RADIUS = 0.45
#: the coloured band of a piece runs between these fractions of its radius
BAND_INNER = 0.74
BAND_OUTER = 0.90
#: last-move corner marks: distance from the point and arm length, in cells
MARK_OFFSET = 0.47
MARK_ARM = 0.17
