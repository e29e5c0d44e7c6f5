"""Drawing the boards, and the geometry between points and pixels.

A view is laid out in a rectangle (:meth:`BoardView.layout`, on every window
resize), maps pixels to points (:meth:`BoardView.point_at`) and back
(:meth:`BoardView.center`), and draws a position with its marks.  Points are
the rules core's squares: ``rank * 9 + file`` in xiangqi, ``y * size + x`` in
gomoku.  The wooden board is drawn once per size into a cached surface; pieces
are cached sprites.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

import pygame

from lanqi.games import gomoku, xiangqi
from lanqi.games.base import Game, Point, Position
from lanqi.gui import theme
from lanqi.gui.fonts import BOARD_FONT, UI_FONT, font
from lanqi.gui.widgets import draw_text

__all__ = ["BoardView", "GomokuBoardView", "Marks", "PointsBoardView", "XiangqiBoardView"]

#: index = piece type (KING = 1 ... PAWN = 7)
RED_CHARS = " 帥仕相傌俥炮兵"
BLACK_CHARS = " 將士象馬車砲卒"
LATIN = " KAEHRCP"
RED_FILES = "九八七六五四三二一"  # Red's files from its left (file a) to its right
BLACK_FILES = "１２３４５６７８９"  # Black's files, numbered from its right (file a)


@dataclass(slots=True)
class Marks:
    """What to draw over the position."""

    last: tuple[int, ...] = ()  # from/to squares (xiangqi) or the last stone (gomoku)
    selected: int | None = None
    targets: tuple[int, ...] = ()
    check: int | None = None
    cursor: int | None = None
    drag: tuple[int, tuple[int, int]] | None = None  # (point, mouse position)
    sliding: tuple[int, tuple[int, int]] | None = None  # (point, where its piece is now)
    win_line: tuple[int, ...] = ()
    numbers: dict[int, int] = field(default_factory=dict)
    forbidden: tuple[int, ...] = ()  # points the side to move may not play (renju)
    premove: tuple[int, ...] = ()  # a premove's from/to (xiangqi) or point (gomoku)


def _blend(a: theme.Color, b: theme.Color, t: float) -> theme.Color:
    return (
        round(a[0] + (b[0] - a[0]) * t),
        round(a[1] + (b[1] - a[1]) * t),
        round(a[2] + (b[2] - a[2]) * t),
    )


def _wood(size: tuple[int, int], seed: int = 7) -> pygame.Surface:
    """A wooden panel: a warm base with fine grain lines."""
    surface = pygame.Surface(size)
    w, h = size
    surface.fill(theme.WOOD)
    rng = random.Random(seed)
    tones = [_blend(theme.WOOD, theme.WOOD_DARK, t) for t in (0.35, 0.6, 0.9)]
    for _ in range(max(16, h // 5)):
        y = rng.uniform(0, h)
        amplitude = rng.uniform(1.0, 4.0)
        period = rng.uniform(120, 400)
        phase = rng.uniform(0, 6.28)
        points = [
            (x, round(y + amplitude * math.sin(phase + x / period * 6.28)))
            for x in range(0, w + 24, 24)
        ]
        if len(points) > 1:
            pygame.draw.lines(surface, rng.choice(tones), False, points)
    return surface


class BoardView:
    """What both boards share: the layout rectangle, flipping, Latin labels, sprites."""

    files = 9
    ranks = 10

    def __init__(self) -> None:
        self.flipped = False
        self.latin = False
        self.area = pygame.Rect(0, 0, 100, 100)
        self.cell = 10.0
        self.x0 = 0
        self.y0 = 0
        self.rect = pygame.Rect(0, 0, 0, 0)
        self._background: pygame.Surface | None = None
        self._background_key: tuple[object, ...] = ()
        self._sprites: dict[tuple[object, ...], pygame.Surface] = {}
        #: the words printed on the board, on screen, by kind ("river", "labels"): what
        #: a banner must leave readable (filled in when the board is drawn)
        self.words: dict[str, list[pygame.Rect]] = {}
        #: where the last frame drew each piece or stone, on screen (what nothing may cover)
        self.pieces: list[pygame.Rect] = []

    # ------------------------------------------------------------ geometry

    def layout(self, area: pygame.Rect) -> None:
        raise NotImplementedError

    def col_row(self, point: int) -> tuple[int, int]:
        raise NotImplementedError

    def point_of(self, col: int, row: int) -> int:
        raise NotImplementedError

    def center(self, point: int) -> tuple[int, int]:
        col, row = self.col_row(point)
        return round(self.x0 + col * self.cell), round(self.y0 + row * self.cell)

    def point_at(self, pos: tuple[int, int]) -> int | None:
        """The point nearest to ``pos`` if it is within half a cell, else None."""
        col = round((pos[0] - self.x0) / self.cell)
        row = round((pos[1] - self.y0) / self.cell)
        if not (0 <= col < self.files and 0 <= row < self.ranks):
            return None
        cx = self.x0 + col * self.cell
        cy = self.y0 + row * self.cell
        if abs(pos[0] - cx) > self.cell * 0.5 or abs(pos[1] - cy) > self.cell * 0.5:
            return None
        return self.point_of(col, row)

    def step(self, point: int, dx: int, dy: int) -> int:
        """The point ``dx`` columns right and ``dy`` rows down on screen (clamped)."""
        col, row = self.col_row(point)
        col = max(0, min(self.files - 1, col + dx))
        row = max(0, min(self.ranks - 1, row + dy))
        return self.point_of(col, row)

    def background(self) -> pygame.Surface:
        key = (self.rect.size, self.cell, self.flipped, self.latin)
        if self._background is None or key != self._background_key:
            self.words = {"river": [], "labels": []}
            self._background = self._draw_background()
            self._background_key = key
            self._sprites.clear()
        return self._background

    def _draw_background(self) -> pygame.Surface:
        raise NotImplementedError

    def draw(self, surface: pygame.Surface, board: Game[Any], marks: Marks) -> None:
        raise NotImplementedError

    # ------------------------------------------------------------ what differs by variant

    def point(self, cell: Point) -> int:
        """The point of a position's ``(file, rank)`` cell."""
        file, rank = cell
        return rank * self.files + file

    def position_marks(self, position: Position, marks: Marks) -> None:
        """Mark what the position shows: its last move, a general in check, a winning row."""
        marks.last = tuple(self.point(cell) for cell in position.last_move)
        check = position.markers.get("check", ())
        if check:
            marks.check = self.point(check[0])
        marks.win_line = tuple(self.point(cell) for cell in position.markers.get("line", ()))
        marks.forbidden = tuple(self.point(cell) for cell in position.markers.get("forbidden", ()))

    def draw_seat_icon(
        self, surface: pygame.Surface, center: tuple[int, int], radius: int, seat: int
    ) -> None:
        """The small piece or stone that stands for ``seat`` on a player card."""
        raise NotImplementedError

    @property
    def radius(self) -> int:
        raise NotImplementedError

    def _piece_rect(self, center: tuple[int, int]) -> pygame.Rect:
        """The square a piece (or stone) centred on ``center`` is drawn in."""
        r = self.radius + 1
        return pygame.Rect(center[0] - r, center[1] - r, 2 * r + 1, 2 * r + 1)

    def piece_rects(self, position: Position) -> list[pygame.Rect]:
        """Where the pieces (or stones) of ``position`` are drawn, on screen."""
        return [self._piece_rect(self.center(self.point(cell))) for cell in position.cells]

    def banner_area(self, position: Position, *, least_width: int = 0) -> pygame.Rect | None:
        """Where a banner over ``position`` may go without hiding a piece, a stone or
        a word printed on the board (the coordinates, the river's 楚河 汉界): a band
        along one row of points, between the pieces of the rows above and below it,
        as wide as the empty points of that row allow.  The widest such band wins
        (one nearer the middle of the board among those wide enough); None when no
        band is ``least_width`` wide (the screen then says it off the board)."""
        self.background()  # the words' places
        c, pad = self.cell, 2
        height = round(2 * (c - self.radius - 1)) - 2 * pad
        if height < 12:
            return None
        obstacles = self.piece_rects(position)
        for rects in self.words.values():
            obstacles.extend(rects)
        left_edge = round(self.x0 - 0.45 * c)
        right_edge = round(self.x0 + (self.files - 1 + 0.45) * c)
        enough = max(least_width, round(5 * c))
        middle = (self.ranks - 1) / 2
        best: tuple[tuple[int, float], pygame.Rect] | None = None
        for row in range(self.ranks):
            top = round(self.y0 + row * c) - height // 2
            blocked = sorted(
                (o.left - pad, o.right + pad)
                for o in obstacles
                if o.bottom > top and o.top < top + height
            )
            x = left_edge
            for a, b in [*blocked, (right_edge, right_edge)]:
                right = min(a, right_edge)
                if right - x >= max(least_width, 1):
                    band = pygame.Rect(x, top, right - x, height)
                    score = (min(band.width, enough), -abs(row - middle))
                    if best is None or score > best[0]:
                        best = (score, band)
                x = max(x, b)
                if x >= right_edge:
                    break
        return best[1] if best is not None else None

    # ------------------------------------------------------------ test probes

    def piece_probe(self, point: int) -> tuple[int, int]:
        """A pixel that shows the colour of the piece (or stone) on ``point``."""
        raise NotImplementedError

    def last_move_probe(self, point: int) -> tuple[int, int]:
        """A pixel that shows the last-move mark of ``point``."""
        raise NotImplementedError

    def premove_probe(self, point: int) -> tuple[int, int]:
        """A pixel on the premove ring of ``point`` (its top)."""
        cx, cy = self.center(point)
        radius, width = self._premove_ring()
        return cx, cy - radius + width // 2

    # ------------------------------------------------------------ helpers

    def _premove_ring(self) -> tuple[int, int]:
        """(radius, width) of the ring around a premove's points."""
        width = max(3, round(self.cell / 14))
        return round(self.cell * 0.5) - width // 2, width

    def draw_premove(self, surface: pygame.Surface, points: tuple[int, ...]) -> None:
        """A premove: a ring on each of its points and a faint line from its piece to
        its target."""
        if not points:
            return
        radius, width = self._premove_ring()
        if len(points) >= 2:  # from ring to ring, clear of the pieces
            (ax, ay), (bx, by) = self.center(points[0]), self.center(points[-1])
            dx, dy = bx - ax, by - ay
            length = math.hypot(dx, dy)
            if length > 2 * radius:
                ux, uy = dx / length * radius, dy / length * radius
                ox, oy = self.rect.topleft
                layer = pygame.Surface(self.rect.size, pygame.SRCALPHA)
                start = (round(ax + ux) - ox, round(ay + uy) - oy)
                end = (round(bx - ux) - ox, round(by - uy) - oy)
                pygame.draw.line(layer, (*theme.PREMOVE, 170), start, end, width * 2)
                surface.blit(layer, self.rect)
        for point in points:
            pygame.draw.circle(surface, theme.PREMOVE, self.center(point), radius, width)

    def _line(
        self, surface: pygame.Surface, a: tuple[float, float], b: tuple[float, float], width: int
    ) -> None:
        pygame.draw.line(
            surface, theme.GRID, (round(a[0]), round(a[1])), (round(b[0]), round(b[1])), width
        )

    def _text(
        self,
        surface: pygame.Surface,
        text: str,
        center: tuple[float, float],
        size: float,
        color: theme.Color,
        *,
        name: str = BOARD_FONT,
        word: str = "",
    ) -> None:
        """Draw ``text`` centred on ``center``; ``word``: it is printed on the board's
        background, and its place is kept under that kind in :attr:`words`."""
        image = font(name, round(size)).render(text, True, color)
        bounds = image.get_bounding_rect()
        if bounds.width == 0:
            return
        target = bounds.copy()
        target.center = (round(center[0]), round(center[1]))
        surface.blit(image, target, bounds)
        if word:
            self.words.setdefault(word, []).append(target.move(self.rect.topleft))


# ================================================================ xiangqi


class XiangqiBoardView(BoardView):
    """The 9 x 10 xiangqi board with river, palaces and position marks."""

    files = 9
    ranks = 10

    def layout(self, area: pygame.Rect) -> None:
        self.area = pygame.Rect(area)
        self.cell = max(12.0, min(area.width / 9.7, area.height / 11.0))
        grid_w, grid_h = 8 * self.cell, 9 * self.cell
        self.x0 = round(area.centerx - grid_w / 2)
        self.y0 = round(area.centery - grid_h / 2)
        margin_x, margin_y = 0.82 * self.cell, 1.0 * self.cell
        self.rect = pygame.Rect(
            round(self.x0 - margin_x),
            round(self.y0 - margin_y),
            round(grid_w + 2 * margin_x),
            round(grid_h + 2 * margin_y),
        )

    def col_row(self, point: int) -> tuple[int, int]:
        file, rank = point % 9, point // 9
        if self.flipped:
            return 8 - file, rank
        return file, 9 - rank

    def point_of(self, col: int, row: int) -> int:
        if self.flipped:
            return row * 9 + (8 - col)
        return (9 - row) * 9 + col

    @property
    def radius(self) -> int:
        return round(self.cell * theme.PIECE_RADIUS)

    def _grid_xy(self, col: float, row: float, ox: int, oy: int) -> tuple[float, float]:
        return (self.x0 - ox + col * self.cell, self.y0 - oy + row * self.cell)

    def _draw_background(self) -> pygame.Surface:
        rect = self.rect
        surface = _wood(rect.size)
        ox, oy = rect.x, rect.y
        c = self.cell
        lw = max(1, round(c / 32))
        p = self._grid_xy
        pygame.draw.rect(surface, theme.WOOD_EDGE, surface.get_rect(), max(3, round(c / 14)))
        # the bold frame just outside the grid
        pad = max(4, round(c * 0.07))
        frame_w = max(2, lw * 2)
        out = pad + frame_w
        frame = pygame.Rect(
            round(self.x0 - ox - out),
            round(self.y0 - oy - out),
            round(8 * c + 2 * out),
            round(9 * c + 2 * out),
        )
        pygame.draw.rect(surface, theme.GRID, frame, frame_w)
        for row in range(10):
            self._line(surface, p(0, row, ox, oy), p(8, row, ox, oy), lw)
        for col in range(9):
            if col in (0, 8):
                self._line(surface, p(col, 0, ox, oy), p(col, 9, ox, oy), lw)
            else:
                self._line(surface, p(col, 0, ox, oy), p(col, 4, ox, oy), lw)
                self._line(surface, p(col, 5, ox, oy), p(col, 9, ox, oy), lw)
        for top in (0, 7):  # palaces
            self._line(surface, p(3, top, ox, oy), p(5, top + 2, ox, oy), lw)
            self._line(surface, p(5, top, ox, oy), p(3, top + 2, ox, oy), lw)
        for col, row in _MARK_POINTS:
            self._position_mark(surface, p(col, row, ox, oy), col, lw)
        # the river
        river_y = self.y0 - oy + 4.5 * c
        size = c * 0.62
        left, right = "楚 河", "汉 界"
        for text, file in ((left, 2.0), (right, 6.0)):
            at = (self.x0 - ox + file * c, river_y)
            self._text(surface, text, at, size, theme.RIVER_TEXT, word="river")
        self._labels(surface, ox, oy)
        return surface

    def _position_mark(
        self, surface: pygame.Surface, at: tuple[float, float], col: int, lw: int
    ) -> None:
        c = self.cell
        gap, arm = c * 0.08, c * 0.2
        x, y = at
        for dx in (-1, 1):
            if (col == 0 and dx < 0) or (col == 8 and dx > 0):
                continue
            for dy in (-1, 1):
                corner = (x + dx * gap, y + dy * gap)
                self._line(surface, corner, (corner[0] + dx * arm, corner[1]), lw)
                self._line(surface, corner, (corner[0], corner[1] + dy * arm), lw)

    def _labels(self, surface: pygame.Surface, ox: int, oy: int) -> None:
        c = self.cell
        top_y = self.y0 - oy - 0.72 * c
        bottom_y = self.y0 - oy + 9 * c + 0.72 * c
        size = c * (0.3 if self.latin else 0.34)
        for col in range(9):
            x = self.x0 - ox + col * c
            file = 8 - col if self.flipped else col
            if self.latin:
                letter = "abcdefghi"[file]
                for y in (top_y, bottom_y):
                    self._text(
                        surface, letter, (x, y), size, theme.LABEL, name=UI_FONT, word="labels"
                    )
                continue
            red, black = RED_FILES[file], BLACK_FILES[file]
            top, bottom = (red, black) if self.flipped else (black, red)
            for text, y in ((top, top_y), (bottom, bottom_y)):
                self._text(surface, text, (x, y), size, theme.LABEL, name=UI_FONT, word="labels")
        if self.latin:
            for row in range(10):
                rank = row if self.flipped else 9 - row
                y = self.y0 - oy + row * c
                x = self.x0 - ox - 0.66 * c
                self._text(
                    surface, str(rank), (x, y), c * 0.26, theme.LABEL, name=UI_FONT, word="labels"
                )

    # ------------------------------------------------------------ pieces

    def sprite(self, piece: xiangqi.Piece, *, ghost: bool = False) -> pygame.Surface:
        r = self.radius
        key = (piece.code, r, self.latin, ghost)
        image = self._sprites.get(key)
        if image is None:
            image = self._draw_piece(piece, r)
            if ghost:
                image.set_alpha(90)
            self._sprites[key] = image
        return image

    def _draw_piece(self, piece: xiangqi.Piece, r: int) -> pygame.Surface:
        size = 2 * r + 2
        mid = r + 1
        image = pygame.Surface((size, size), pygame.SRCALPHA)
        ink = theme.RED if piece.color is xiangqi.Color.RED else theme.BLACK
        pygame.draw.circle(image, theme.PIECE_RIM, (mid, mid), r)
        face_r = max(2, round(r * 0.95))
        steps = 8
        for i in range(steps):  # a soft bevel: darker edge, lighter middle
            t = i / (steps - 1)
            radius = round(face_r - (face_r - r * theme.BAND_OUTER) * t)
            color = _blend(theme.PIECE_FACE_EDGE, theme.PIECE_FACE, t)
            pygame.draw.circle(image, color, (mid, mid), radius)
        pygame.draw.circle(image, ink, (mid, mid), round(r * theme.BAND_OUTER))
        pygame.draw.circle(image, theme.PIECE_FACE, (mid, mid), round(r * theme.BAND_INNER))
        if self.latin:
            letter = LATIN[piece.piece_type]
            self._text(image, letter, (mid, mid + 0.5), r * 1.05, ink)
        else:
            chars = RED_CHARS if piece.color is xiangqi.Color.RED else BLACK_CHARS
            self._text(image, chars[piece.piece_type], (mid, mid + 0.5), r * 1.1, ink)
        return image

    def _shadow(self, lifted: bool) -> pygame.Surface:
        r = self.radius
        key = ("shadow", r, lifted)
        image = self._sprites.get(key)
        if image is None:
            grow = 3 if lifted else 1
            image = pygame.Surface((2 * (r + grow) + 2, 2 * (r + grow) + 2), pygame.SRCALPHA)
            mid = r + grow + 1
            pygame.draw.circle(image, (0, 0, 0, 60 if lifted else 70), (mid, mid), r + grow)
            self._sprites[key] = image
        return image

    def _blit_piece(
        self,
        surface: pygame.Surface,
        piece: xiangqi.Piece,
        center: tuple[int, int],
        *,
        lifted: bool = False,
        ghost: bool = False,
    ) -> None:
        r = self.radius
        cx, cy = center
        if not ghost:
            shadow = self._shadow(lifted)
            offset = (4, 5) if lifted else (2, 2)
            half = shadow.get_width() // 2
            surface.blit(shadow, (cx - half + offset[0], cy - half + offset[1]))
        lift = -3 if lifted else 0
        surface.blit(self.sprite(piece, ghost=ghost), (cx - r - 1, cy - r - 1 + lift))

    # ------------------------------------------------------------ drawing

    def draw(self, surface: pygame.Surface, board: Game[Any], marks: Marks) -> None:
        assert isinstance(board, xiangqi.Board)
        surface.blit(self.background(), self.rect)
        c = self.cell
        r = self.radius
        for point in marks.last:
            self._corner_marks(surface, self.center(point), theme.LAST_MOVE)
        if len(marks.last) == 2 and board.piece_at(marks.last[0]) is None:
            pygame.draw.circle(
                surface, theme.LAST_MOVE, self.center(marks.last[0]), round(c * 0.13), 0
            )
        dragged = marks.drag[0] if marks.drag else None
        sliding = marks.sliding[0] if marks.sliding else None
        self.pieces = []
        for sq, piece in board.piece_map().items():
            if sq in (marks.selected, dragged, sliding):
                continue
            self._blit_piece(surface, piece, self.center(sq))
            self.pieces.append(self._piece_rect(self.center(sq)))
        if marks.sliding is not None:
            moving = board.piece_at(marks.sliding[0])
            if moving is not None:
                self._blit_piece(surface, moving, marks.sliding[1], lifted=True)
        for sq in marks.targets:
            center = self.center(sq)
            if board.piece_at(sq) is None:
                pygame.draw.circle(surface, theme.TARGET, center, max(3, round(c * 0.11)))
            else:
                pygame.draw.circle(surface, theme.TARGET, center, r + 3, max(2, round(c / 20)))
        if marks.check is not None:
            center = self.center(marks.check)
            pygame.draw.circle(surface, theme.CHECK, center, r + 4, max(3, round(c / 16)))
        if marks.selected is not None and marks.selected != dragged:
            chosen = board.piece_at(marks.selected)
            if chosen is not None:
                center = self.center(marks.selected)
                self._blit_piece(surface, chosen, center, lifted=True)
                lifted = (center[0], center[1] - 3)
                pygame.draw.circle(surface, theme.SELECT, lifted, r + 2, max(2, round(c / 22)))
        self.draw_premove(surface, marks.premove)
        if marks.cursor is not None:
            cx, cy = self.center(marks.cursor)
            half = round(c * 0.5)
            box = pygame.Rect(cx - half, cy - half, 2 * half, 2 * half)
            pygame.draw.rect(surface, theme.CURSOR, box, max(2, round(c / 24)), border_radius=4)
        if marks.drag is not None:
            sq, pos = marks.drag
            held = board.piece_at(sq)
            if held is not None:
                self._blit_piece(surface, held, self.center(sq), ghost=True)
                self._blit_piece(surface, held, pos, lifted=True)

    def draw_seat_icon(
        self, surface: pygame.Surface, center: tuple[int, int], radius: int, seat: int
    ) -> None:
        ink = theme.RED if seat == 0 else theme.BLACK
        pygame.draw.circle(surface, theme.PIECE_RIM, center, radius)
        pygame.draw.circle(surface, theme.PIECE_FACE, center, radius - 2)
        pygame.draw.circle(surface, ink, center, radius - 4, 2)
        char = "K" if self.latin else ("帥" if seat == 0 else "將")
        draw_text(surface, char, center, 22, ink, anchor="center", name=BOARD_FONT)

    def _mark_geometry(self) -> tuple[int, int, int]:
        c = self.cell
        return round(theme.MARK_OFFSET * c), round(theme.MARK_ARM * c), max(2, round(c / 18))

    def _corner_marks(
        self, surface: pygame.Surface, center: tuple[int, int], color: theme.Color
    ) -> None:
        off, arm, width = self._mark_geometry()
        cx, cy = center
        for dx in (-1, 1):
            for dy in (-1, 1):
                hx = cx - off if dx < 0 else cx + off - arm
                vx = cx - off if dx < 0 else cx + off - width
                hy = cy - off if dy < 0 else cy + off - width
                vy = cy - off if dy < 0 else cy + off - arm
                pygame.draw.rect(surface, color, (hx, hy, arm, width))
                pygame.draw.rect(surface, color, (vx, vy, width, arm))

    def piece_probe(self, point: int) -> tuple[int, int]:
        cx, cy = self.center(point)
        col, row = self.col_row(point)
        r = self.radius
        band = (round(r * theme.BAND_INNER) + round(r * theme.BAND_OUTER)) / 2
        # inwards from the edges and away from the river: clear of lines, marks, words
        dx = 1 if col < 4 else -1
        dy = 1 if row <= 3 or row == 5 else -1
        return round(cx + dx * band * 0.34), round(cy + dy * band * 0.94)

    def last_move_probe(self, point: int) -> tuple[int, int]:
        off, arm, width = self._mark_geometry()
        cx, cy = self.center(point)
        return cx - off + width // 2, cy - off + arm // 2


_MARK_POINTS = tuple(
    (col, row)
    for row in (2, 7)
    for col in (1, 7)  # cannons
) + tuple((col, row) for row in (3, 6) for col in (0, 2, 4, 6, 8))  # soldiers


# ================================================================ gomoku


class GomokuBoardView(BoardView):
    """A square gomoku board of 15, 19 or 20 lines with star points and stones."""

    def __init__(self, size: int = 15) -> None:
        super().__init__()
        self.size = size
        self.files = size
        self.ranks = size

    def layout(self, area: pygame.Rect) -> None:
        self.area = pygame.Rect(area)
        n = self.size - 1
        self.cell = max(8.0, min(area.width, area.height) / (n + 2.2))
        grid = n * self.cell
        self.x0 = round(area.centerx - grid / 2)
        self.y0 = round(area.centery - grid / 2)
        margin = 1.05 * self.cell
        self.rect = pygame.Rect(
            round(self.x0 - margin),
            round(self.y0 - margin),
            round(grid + 2 * margin),
            round(grid + 2 * margin),
        )

    def col_row(self, point: int) -> tuple[int, int]:
        n = self.size
        x, y = point % n, point // n
        if self.flipped:
            return n - 1 - x, y
        return x, n - 1 - y

    def point_of(self, col: int, row: int) -> int:
        n = self.size
        if self.flipped:
            return row * n + (n - 1 - col)
        return (n - 1 - row) * n + col

    @property
    def radius(self) -> int:
        return round(self.cell * 0.46)

    def star_points(self) -> list[tuple[int, int]]:
        n = self.size
        if n == 19:
            return [(x, y) for x in (3, 9, 15) for y in (3, 9, 15)]
        edge = 3
        far = n - 1 - edge
        return [(edge, edge), (far, edge), (edge, far), (far, far), (n // 2, n // 2)]

    def _draw_background(self) -> pygame.Surface:
        rect = self.rect
        surface = _wood(rect.size, seed=11)
        ox, oy = rect.x, rect.y
        c, n = self.cell, self.size
        lw = max(1, round(c / 34))
        pygame.draw.rect(surface, theme.WOOD_EDGE, surface.get_rect(), max(3, round(c / 12)))
        for i in range(n):
            a = self.x0 - ox + i * c
            self._line(surface, (a, self.y0 - oy), (a, self.y0 - oy + (n - 1) * c), lw)
            b = self.y0 - oy + i * c
            self._line(surface, (self.x0 - ox, b), (self.x0 - ox + (n - 1) * c, b), lw)
        frame = pygame.Rect(
            self.x0 - ox, self.y0 - oy, round((n - 1) * c) + 1, round((n - 1) * c) + 1
        )
        pygame.draw.rect(surface, theme.GRID, frame, max(2, lw * 2))
        for x, y in self.star_points():
            cx, cy = self.center(y * n + x)
            pygame.draw.circle(surface, theme.GRID, (cx - ox, cy - oy), max(2, round(c * 0.1)))
        size = c * 0.36
        near, far = -0.62 * c, (n - 1 + 0.62) * c
        for i in range(n):
            along = i * c
            letter = gomoku.COLUMNS[n - 1 - i if self.flipped else i]
            number = str(i + 1 if self.flipped else n - i)
            for text, (dx, dy) in (
                (letter, (along, near)),
                (letter, (along, far)),
                (number, (near, along)),
                (number, (far, along)),
            ):
                at = (self.x0 - ox + dx, self.y0 - oy + dy)
                self._text(surface, text, at, size, theme.LABEL, name=UI_FONT, word="labels")
        return surface

    def stone(self, color: gomoku.Color, *, ghost: bool = False) -> pygame.Surface:
        r = self.radius
        key = (int(color), r, ghost)
        image = self._sprites.get(key)
        if image is None:
            image = pygame.Surface((2 * r + 2, 2 * r + 2), pygame.SRCALPHA)
            mid = r + 1
            if color is gomoku.Color.BLACK:
                edge, light = theme.STONE_BLACK, (92, 92, 98)
            else:
                edge, light = (196, 196, 188), theme.STONE_WHITE
            pygame.draw.circle(image, edge, (mid, mid), r)
            steps = 10
            for i in range(1, steps):  # light from the upper left
                t = i / steps
                radius = round(r * (1 - t) * 0.9)
                shift = round(r * 0.28 * t)
                if radius < 1:
                    break
                tint = _blend(edge, light, t * (0.7 if color is gomoku.Color.BLACK else 1.0))
                pygame.draw.circle(image, tint, (mid - shift, mid - shift), radius)
            if ghost:
                image.set_alpha(110)
            self._sprites[key] = image
        return image

    def draw(self, surface: pygame.Surface, board: Game[Any], marks: Marks) -> None:
        assert isinstance(board, gomoku.Board)
        surface.blit(self.background(), self.rect)
        n, r, c = self.size, self.radius, self.cell
        self.pieces = []
        shadow = self._sprites.get(("shadow", r))
        if shadow is None:
            shadow = pygame.Surface((2 * r + 2, 2 * r + 2), pygame.SRCALPHA)
            pygame.draw.circle(shadow, (0, 0, 0, 70), (r + 1, r + 1), r)
            self._sprites[("shadow", r)] = shadow
        for color in (gomoku.Color.BLACK, gomoku.Color.WHITE):
            image = self.stone(color)
            for move in board.stones(color):
                cx, cy = self.center(move.y * n + move.x)
                surface.blit(shadow, (cx - r + 1, cy - r + 2))
                surface.blit(image, (cx - r - 1, cy - r - 1))
                self.pieces.append(self._piece_rect((cx, cy)))
        for point, number in marks.numbers.items():
            stone = board.stone_at(point % n, point // n)
            ink = theme.STONE_WHITE if stone is gomoku.Color.BLACK else theme.STONE_BLACK
            self._text(surface, str(number), self.center(point), c * 0.36, ink, name=UI_FONT)
        arm = max(3, round(c * 0.16))
        for point in marks.forbidden:  # a small cross: clear, and the grid shows through
            cx, cy = self.center(point)
            width = max(2, round(c / 14))
            pygame.draw.line(
                surface, theme.FORBIDDEN, (cx - arm, cy - arm), (cx + arm, cy + arm), width
            )
            pygame.draw.line(
                surface, theme.FORBIDDEN, (cx - arm, cy + arm), (cx + arm, cy - arm), width
            )
        for point in marks.last:
            dot = max(3, round(c * 0.13))
            pygame.draw.circle(surface, theme.WIN_LINE, self.center(point), dot)
        if len(marks.win_line) >= 2:
            a, b = self.center(marks.win_line[0]), self.center(marks.win_line[-1])
            pygame.draw.line(surface, theme.WIN_LINE, a, b, max(3, round(c / 9)))
        for point in marks.targets:
            pygame.draw.circle(surface, theme.TARGET, self.center(point), max(3, round(c * 0.12)))
        for point in marks.premove:  # the stone to come, faint, in the player's colour
            if board.stone_at(point % n, point // n) is None:
                cx, cy = self.center(point)
                surface.blit(self.stone(board.turn.other, ghost=True), (cx - r - 1, cy - r - 1))
        self.draw_premove(surface, marks.premove)
        if marks.cursor is not None:
            cx, cy = self.center(marks.cursor)
            stone_here = board.stone_at(marks.cursor % n, marks.cursor // n)
            if stone_here is None and marks.selected is None:
                ghost = self.stone(board.turn, ghost=True)
                surface.blit(ghost, (cx - r - 1, cy - r - 1))
            half = round(c * 0.5)
            box = pygame.Rect(cx - half, cy - half, 2 * half, 2 * half)
            pygame.draw.rect(surface, theme.CURSOR, box, max(2, round(c / 20)), border_radius=3)

    def draw_seat_icon(
        self, surface: pygame.Surface, center: tuple[int, int], radius: int, seat: int
    ) -> None:
        color = theme.STONE_BLACK if seat == 0 else theme.STONE_WHITE
        pygame.draw.circle(surface, color, center, radius - 2)
        pygame.draw.circle(surface, theme.PANEL_LINE, center, radius - 2, 1)

    def piece_probe(self, point: int) -> tuple[int, int]:
        cx, cy = self.center(point)
        return cx + round(self.radius * 0.3), cy + round(self.radius * 0.55)

    def last_move_probe(self, point: int) -> tuple[int, int]:
        return self.center(point)

    def forbidden_probe(self, point: int) -> tuple[int, int]:
        """A pixel on the cross of a forbidden point (off the grid lines)."""
        cx, cy = self.center(point)
        step = max(2, round(self.cell * 0.09))
        return cx + step, cy + step


# ================================================================ any other variant


class PointsBoardView(BoardView):
    """A variant with no drawer of its own, drawn from its :class:`Position`: the
    points of a ``files`` x ``ranks`` grid with their names, each token a disc in
    its seat's colour (a neutral one for nobody's), the last move's points dotted."""

    #: the disc of a token of nobody's
    NEUTRAL: theme.Color = (150, 104, 60)

    def __init__(self, start: Position) -> None:
        super().__init__()
        self.files = start.files
        self.ranks = start.ranks
        self.file_names = start.file_names
        self.rank_names = start.rank_names

    def layout(self, area: pygame.Rect) -> None:
        self.area = pygame.Rect(area)
        across, down = self.files - 1, self.ranks - 1
        self.cell = max(8.0, min(area.width / (across + 2.2), area.height / (down + 2.2)))
        self.x0 = round(area.centerx - across * self.cell / 2)
        self.y0 = round(area.centery - down * self.cell / 2)
        margin = 1.05 * self.cell
        self.rect = pygame.Rect(
            round(self.x0 - margin),
            round(self.y0 - margin),
            round(across * self.cell + 2 * margin),
            round(down * self.cell + 2 * margin),
        )

    def col_row(self, point: int) -> tuple[int, int]:
        file, rank = point % self.files, point // self.files
        if self.flipped:
            return self.files - 1 - file, rank
        return file, self.ranks - 1 - rank

    def point_of(self, col: int, row: int) -> int:
        if self.flipped:
            return row * self.files + (self.files - 1 - col)
        return (self.ranks - 1 - row) * self.files + col

    @property
    def radius(self) -> int:
        return round(self.cell * 0.42)

    def _draw_background(self) -> pygame.Surface:
        surface = _wood(self.rect.size, seed=5)
        ox, oy, c = self.rect.x, self.rect.y, self.cell
        pygame.draw.rect(surface, theme.WOOD_EDGE, surface.get_rect(), max(3, round(c / 12)))
        for point in range(self.files * self.ranks):
            cx, cy = self.center(point)
            pygame.draw.circle(surface, theme.GRID, (cx - ox, cy - oy), max(2, round(c * 0.08)))
        size = c * 0.34
        for file, name in enumerate(self.file_names):
            cx, _ = self.center(self.point((file, 0)))
            at = (float(cx - ox), self.y0 - oy + (self.ranks - 1 + 0.62) * c)
            self._text(surface, name, at, size, theme.LABEL, name=UI_FONT, word="labels")
        for rank, name in enumerate(self.rank_names):
            _, cy = self.center(self.point((0, rank)))
            at = (self.x0 - ox - 0.62 * c, float(cy - oy))
            self._text(surface, name, at, size, theme.LABEL, name=UI_FONT, word="labels")
        return surface

    def _ink(self, seat: int | None) -> theme.Color:
        if seat is None:
            return self.NEUTRAL
        return theme.STONE_BLACK if seat == 0 else theme.STONE_WHITE

    def draw(self, surface: pygame.Surface, board: Game[Any], marks: Marks) -> None:
        surface.blit(self.background(), self.rect)
        position = board.position()
        self.pieces = []
        for cell, token in position.cells.items():
            center = self.center(self.point(cell))
            pygame.draw.circle(surface, self._ink(token.seat), center, self.radius)
            pygame.draw.circle(surface, theme.GRID, center, self.radius, 1)
            self.pieces.append(self._piece_rect(center))
        dot = max(3, round(self.cell * 0.13))
        for point in marks.last:
            pygame.draw.circle(surface, theme.WIN_LINE, self.center(point), dot)
        for point in marks.targets:
            pygame.draw.circle(surface, theme.TARGET, self.center(point), dot)
        if marks.cursor is not None:
            cx, cy = self.center(marks.cursor)
            half = round(self.cell * 0.5)
            box = pygame.Rect(cx - half, cy - half, 2 * half, 2 * half)
            pygame.draw.rect(surface, theme.CURSOR, box, max(2, round(self.cell / 20)))

    def draw_seat_icon(
        self, surface: pygame.Surface, center: tuple[int, int], radius: int, seat: int
    ) -> None:
        pygame.draw.circle(surface, self._ink(seat), center, radius - 2)
        pygame.draw.circle(surface, theme.PANEL_LINE, center, radius - 2, 1)

    def piece_probe(self, point: int) -> tuple[int, int]:
        cx, cy = self.center(point)
        return cx + round(self.radius * 0.5), cy

    def last_move_probe(self, point: int) -> tuple[int, int]:
        return self.center(point)
