"""How a player's clicks, drags and keys on the board become moves, one class a variant.

- :class:`XiangqiInput`: pick a piece up and put it down, by click-click, by
  drag and drop, or with the keyboard cursor (Enter or Space picks up and puts
  down); the legal targets of a picked-up piece are marked.
- :class:`GomokuInput`: a click (or Enter on the cursor) places a stone.
- :class:`PointInput`: any other variant: a click on a point plays the move that
  touches it.

In an online game, during the opponent's turn, the same clicks, drags and keys
make a premove (:mod:`lanqi.gui.premove`) instead: shown on the board, played
when the turn comes if it is still legal, cancelled by a right click, ``Esc``
or a click on its piece (or point) again.

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
from lanqi.gui.premove import Fate, Premove, settle
from lanqi.gui.sessions import Session
from lanqi.i18n import Term, tr

__all__ = ["BoardInput", "Drag", "GomokuInput", "PointInput", "Table", "XiangqiInput"]

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

    def premoving(self) -> bool:
        """Is it the opponent's turn in an online game of ours (a click makes a premove)?"""

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
        #: the move to play when the opponent has moved (online games)
        self.premove: Premove | None = None

    # ------------------------------------------------------------ state

    def holding(self) -> bool:
        """Is a piece picked up or being dragged, or a premove waiting?"""
        return self.selected is not None or self.drag is not None or self.premove is not None

    def clear(self) -> None:
        """Put down whatever is picked up."""
        self.selected = None
        self.drag = None

    def cancel(self) -> None:
        """Right click or Esc: put down what is picked up and cancel the premove."""
        self.clear()
        if self.premove is not None:
            self.premove = None
            self.table.session.notice(tr("premove_cancelled"))

    # ------------------------------------------------------------ premoves

    def set_premove(self, move: str, points: tuple[int, ...]) -> None:
        """Keep ``move`` to play when the turn comes (replacing any other premove)."""
        self.selected = None
        self.dropped = False
        self.premove = Premove.on(self.table.model, move, points)
        self.table.session.notice(tr("premove_set", move=move))

    def follow_premove(self) -> None:
        """Every frame: play the premove once it is our turn, or drop it."""
        premove = self.premove
        if premove is None:
            return
        table = self.table
        model, session = table.model, table.session
        fate = settle(premove, model, my_turn=session.can_move())
        if fate is Fate.WAIT:
            return
        self.premove = None
        if fate is Fate.STALE:
            session.notice(f"{tr('premove_dropped', move=premove.move)}: {tr('position_changed')}")
        elif fate is Fate.PLAY:
            reason = model.legal_reason(premove.move)
            if reason is not None:
                session.notice(f"{tr('premove_dropped', move=premove.move)}: {reason}")
            else:
                session.play(premove.move)

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
            self.table.session.notice(tr("reviewing_earlier"))
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
        if not table.reviewing() and (table.interactive() or table.premoving()):
            # a premove's piece has no targets: its moves depend on the reply
            if self.selected is not None:
                marks.selected = self.selected
                marks.targets = tuple(self.legal_targets(self.selected))
            if self.drag is not None and self.drag.moving:
                marks.drag = (self.drag.point, self.drag.pos)
                marks.selected = None
                marks.targets = tuple(self.legal_targets(self.drag.point))
        premove = self.premove
        if premove is not None and premove.model is table.model and not table.reviewing():
            marks.premove = premove.points
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
        seats = self.table.session.my_seats
        # your own general (also during the opponent's turn, for a premove)
        side = xiangqi.Color(next(iter(seats))) if len(seats) == 1 else board.turn
        return board.king(side)

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

    def _mine(self, point: int) -> bool:
        """Is there a piece of a local seat on ``point``?"""
        piece = self._board().piece_at(point)
        return piece is not None and int(piece.color) in self.table.session.my_seats

    def new_position(self) -> None:
        if self.selected is not None:
            board = self._board()
            piece = board.piece_at(self.selected)
            movable = piece is not None and piece.color is board.turn and self.table.interactive()
            # a piece picked up for a premove stays up while it is still ours
            if not movable and not (self.table.premoving() and self._mine(self.selected)):
                self.selected = None
        super().new_position()

    def _pick_premove(self, point: int) -> bool:
        """A click during the opponent's turn: pick a piece and its target."""
        premove = self.premove
        if self.selected is None and premove is not None and point in premove.points:
            self.cancel()  # a click on the premove's piece (or target) again
            return False
        if self._mine(point):
            if point == self.selected:
                self.selected = None
                return False
            self.selected = point
            return True
        if self.selected is not None:
            self.try_move(self.selected, point)
        elif self._board().piece_at(point) is not None:
            self.table.why_not()
        return False

    def pick(self, point: int) -> bool:
        table = self.table
        if table.premoving() and not table.interactive():
            return self._pick_premove(point)
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
            side = Term(f"side.{seat_name(table.model.variant, int(board.turn)).lower()}")
            table.session.notice(tr("not_your_piece", side=side), error=True)
            return False
        self.selected = point
        return True

    def try_move(self, frm: int, to: int) -> None:
        """Play ``frm`` -> ``to`` if legal; otherwise say why (the rules' reason)."""
        self.selected = None
        text = xiangqi.square_name(frm) + xiangqi.square_name(to)
        if not self.table.interactive():
            if self.table.premoving():
                self.set_premove(text, (frm, to))
            else:
                self.table.why_not()
            return
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
        n = table.view.files
        text = str(gomoku.Move(point % n, point // n))
        if table.interactive():
            table.session.play(text)
        elif not table.premoving():
            table.why_not()
        elif self.premove is not None and point in self.premove.points:
            self.cancel()  # a click on the premove's point again
        else:
            board = table.model.board
            assert isinstance(board, gomoku.Board)
            if board.stone_at(point % n, point // n) is None:
                self.set_premove(text, (point,))
            else:
                table.session.notice(tr("point_taken"), error=True)
        return False


class PointInput(BoardInput):
    """Any other variant: a click (or Enter on the cursor) on a point plays the move
    that touches it, the one touching the fewest points where several do (the rules
    say which points a move touches: its position's ``last_move``)."""

    def start_cursor(self) -> int:
        view = self.table.view
        return (view.ranks // 2) * view.files + view.files // 2

    def _moves_at(self, point: int) -> list[str]:
        board = self.table.model.board
        view = self.table.view
        touching: list[tuple[int, str]] = []
        for move in board.legal_moves():
            after = board.copy()
            after.push(move)
            points = {view.point(cell) for cell in after.position().last_move}
            if point in points:
                touching.append((len(points), str(move)))
        fewest = min((count for count, _ in touching), default=0)
        return [move for count, move in touching if count == fewest]

    def pick(self, point: int) -> bool:
        table = self.table
        if not table.interactive():
            table.why_not()
            return False
        moves = self._moves_at(point)
        if len(moves) == 1:
            table.session.play(moves[0])
        else:
            table.session.notice(tr("no_move_here"), error=True)
        return False
