"""How a player's clicks, drags and keys on the board become moves, one class a variant.

- :class:`XiangqiInput`: pick a piece up and put it down, by click-click, by
  drag and drop, or with the keyboard cursor (Enter or Space picks up and puts
  down); the legal targets of a picked-up piece are marked.
- :class:`GomokuInput`: a click (or Enter on the cursor) places a stone.

A controller holds the input state (picked-up piece, drag, cursor) and talks to
the game screen through :class:`Table`; only legal moves reach the session, an
illegal try shows the rules' reason.  The game screen picks the controller from
the variant registry (:mod:`lanqi.gui.variants`), never by testing the variant.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from lanqi.games import gomoku, xiangqi
from lanqi.gui.board_view import BoardView, Marks
from lanqi.gui.model import GameModel, seat_name
from lanqi.gui.sessions import Session

__all__ = ["BoardInput", "Drag", "GomokuInput", "Table", "XiangqiInput"]

#: squared pixels the mouse must travel before a press becomes a drag
DRAG_START = 25


class Table(Protocol):
    """What an input controller needs of the game screen."""

    session: Session
    view: BoardView

    @property
    def model(self) -> GameModel: ...

    def interactive(self) -> bool:
        """Can the local player move now, on the live position?"""

    def playing(self) -> bool:
        """Is there a local seat in a game that goes on (arrows move the cursor)?"""

    def reviewing(self) -> bool:
        """Is an earlier position shown (not the live one)?"""

    def why_not(self) -> None:
        """Say why the player cannot move now."""


@dataclass(slots=True)
class Drag:
    point: int
    start: tuple[int, int]
    pos: tuple[int, int]
    moving: bool = False


class BoardInput:
    """The input state on the board and what every variant does with it."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.selected: int | None = None
        self.drag: Drag | None = None
        self.cursor: int | None = None
        #: the cursor is shown (the last input was a key)
        self.keyboard = False
        #: the last move was dropped where it lands (no need to slide it there)
        self.dropped = False

    # ------------------------------------------------------------ state

    def holding(self) -> bool:
        """Is a piece picked up or being dragged?"""
        return self.selected is not None or self.drag is not None

    def clear(self) -> None:
        """Put down whatever is picked up."""
        self.selected = None
        self.drag = None

    def new_position(self) -> None:
        """The live position changed (a move, a takeback, a new game)."""
        if self.drag is not None and not self.table.interactive():
            self.drag = None

    def legal_targets(self, point: int) -> list[int]:
        """The points the piece on ``point`` may move to (none where nothing moves)."""
        return []

    # ------------------------------------------------------------ input

    def press(self, pos: tuple[int, int]) -> None:
        """The left button goes down on the board at ``pos``."""
        self.keyboard = False
        point = self.table.view.point_at(pos)
        if point is None:
            self.selected = None
            return
        self.cursor = point
        if self.activate(point):
            self.drag = Drag(point, pos, pos)

    def motion(self, pos: tuple[int, int]) -> None:
        drag = self.drag
        if drag is not None:
            drag.pos = pos
            dx, dy = pos[0] - drag.start[0], pos[1] - drag.start[1]
            if dx * dx + dy * dy > DRAG_START:
                drag.moving = True

    def release(self, pos: tuple[int, int]) -> None:
        """The left button comes up at ``pos``: a drag ends where it is dropped."""
        drag, self.drag = self.drag, None
        if drag is None or not drag.moving:
            return
        target = self.table.view.point_at(pos)
        if target is None or target == drag.point:
            return  # dropped back: the piece stays picked up (click-click goes on)
        self.dropped = True
        self.try_move(drag.point, target)

    def move_cursor(self, dx: int, dy: int) -> None:
        self.keyboard = True
        if self.cursor is None:
            self.cursor = self.start_cursor()
            return
        self.cursor = self.table.view.step(self.cursor, dx, dy)

    def enter(self) -> None:
        """Enter or Space: show the cursor, or act on the point under it."""
        if self.cursor is None:
            self.move_cursor(0, 0)
        else:
            self.keyboard = True
            self.activate(self.cursor)

    def activate(self, point: int) -> bool:
        """A click (or Enter) on ``point``; True if a piece is now picked up."""
        if self.table.reviewing():
            self.table.session.notice("reviewing an earlier move: End returns to the game")
            return False
        return self.pick(point)

    # ------------------------------------------------------------ per variant

    def start_cursor(self) -> int:
        """Where the keyboard cursor first shows."""
        raise NotImplementedError

    def pick(self, point: int) -> bool:
        """Act on ``point`` of the live position; True if a piece is now picked up."""
        raise NotImplementedError

    def try_move(self, frm: int, to: int) -> None:
        """Play ``frm`` -> ``to`` (variants whose pieces move)."""

    def marks(self, marks: Marks) -> None:
        """Add the input state (picked-up piece, targets, drag, cursor) to ``marks``."""
        table = self.table
        if not table.reviewing() and table.interactive():
            if self.selected is not None:
                marks.selected = self.selected
                marks.targets = tuple(self.legal_targets(self.selected))
            if self.drag is not None and self.drag.moving:
                marks.drag = (self.drag.point, self.drag.pos)
                marks.selected = None
                marks.targets = tuple(self.legal_targets(self.drag.point))
        if self.keyboard and self.cursor is not None and table.playing():
            marks.cursor = self.cursor


class XiangqiInput(BoardInput):
    """Pick up a piece (click, drag or keys) and put it down on a legal point."""

    def __init__(self, table: Table) -> None:
        super().__init__(table)
        self._legal: dict[int, list[int]] = {}
        self._legal_of: tuple[GameModel, int] | None = None

    def _board(self) -> xiangqi.Board:
        board = self.table.model.board
        assert isinstance(board, xiangqi.Board)
        return board

    def start_cursor(self) -> int:
        if self.selected is not None:
            return self.selected
        board = self._board()
        return board.king(board.turn)

    def legal_targets(self, point: int) -> list[int]:
        model = self.table.model
        seen = self._legal_of
        if seen is None or seen[0] is not model or seen[1] != model.version:
            self._legal = {}
            if not model.finished:
                for move in self._board().legal_moves():
                    self._legal.setdefault(move.from_square, []).append(move.to_square)
            self._legal_of = (model, model.version)
        return self._legal.get(point, [])

    def new_position(self) -> None:
        if self.selected is not None:
            board = self._board()
            piece = board.piece_at(self.selected)
            if piece is None or piece.color is not board.turn or not self.table.interactive():
                self.selected = None
        super().new_position()

    def pick(self, point: int) -> bool:
        table = self.table
        board = self._board()
        piece = board.piece_at(point)
        own = piece is not None and piece.color is board.turn
        if self.selected is not None:
            if point == self.selected:
                self.selected = None
                return False
            if own:
                self.selected = point
                return True
            self.try_move(self.selected, point)
            return False
        if piece is None:
            return False
        if not table.interactive():
            table.why_not()
            return False
        if not own:
            side = seat_name(table.model.variant, int(board.turn))
            table.session.notice(f"that is not your piece: {side} to move", error=True)
            return False
        self.selected = point
        return True

    def try_move(self, frm: int, to: int) -> None:
        """Play ``frm`` -> ``to`` if legal; otherwise say why (the rules' reason)."""
        self.selected = None
        if not self.table.interactive():
            self.table.why_not()
            return
        text = xiangqi.square_name(frm) + xiangqi.square_name(to)
        if not self.table.session.play(text):
            self.dropped = False


class GomokuInput(BoardInput):
    """A click, or Enter on the cursor, places a stone."""

    def start_cursor(self) -> int:
        view = self.table.view
        last = self.table.model.position().last_move
        if last:
            return view.point(last[0])
        n = view.files
        return (n // 2) * n + n // 2

    def pick(self, point: int) -> bool:
        table = self.table
        if table.interactive():
            n = table.view.files
            table.session.play(str(gomoku.Move(point % n, point // n)))
        else:
            table.why_not()
        return False
