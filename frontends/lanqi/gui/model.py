"""What the game screen shows, as plain data: no pygame, no sockets.

A :class:`GameModel` is the screen's view of one game: the folded
:class:`~lanqi.gamestate.GameState` a table gives (status, result, offers, clocks)
plus what only a screen needs (the rules object at the shown position, the clocks
counted down, the message box, a record's tags).  The sessions
(:mod:`lanqi.gui.sessions`) show it a table's state; the game scene draws it.
"""

from __future__ import annotations

import datetime
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from lanqi.games.base import Game, IllegalMoveError, MoveError, Position, ResultText, winner_of
from lanqi.games.registry import VARIANTS, create_game, read_records, variant_spec
from lanqi.gamestate import GameState
from lanqi.i18n import CATALOGUE, Term, en, tr, zh
from lanqi.phrases import termination_words, time_left_ms
from lanqi.protocol import (
    ChatLine,
    ClockInfo,
    GameStatus,
    TimeControl,
    legacy_termination,
    termination_label,
)

__all__ = [
    "ClockView",
    "GameModel",
    "Pending",
    "RecordSummary",
    "SystemLine",
    "clock_view",
    "describe_result",
    "illegal_text",
    "load_record",
    "record_error",
    "record_summary",
    "seat_name",
    "termination_text",
]


def seat_name(variant: str, seat: int, *, chinese: bool = False) -> str:
    """What the variant calls ``seat`` (seat 0 moves first): ``Red``/``Black`` in
    xiangqi, ``Black``/``White`` in gomoku; in Chinese (红方) with ``chinese``."""
    name = variant_spec(variant).seat_names[seat]
    return zh(f"side.{name.lower()}") if chinese else name


def termination_text(termination: str | None, variant: str | None = None, reason: str = "") -> str:
    """A termination code for people: ``绝杀 checkmate``; the variant's own words
    where the catalogue has none (:func:`lanqi.phrases.termination_words`), and the
    referee's free-text ``reason`` after it (``认输 resignation (crash)``)."""
    if not termination:
        return ""
    key = f"termination.{termination}"
    words = tr(key) if key in CATALOGUE else termination_words(termination, variant)
    return f"{words} ({reason})" if reason else words


def illegal_text(error: IllegalMoveError) -> str:
    """Why the rules refuse a move, in words for players: ``马不能这样走 a horse
    cannot move like that`` (from the error's code; its English message where the
    catalogue has no words for the code)."""
    key = f"illegal.{error.code}"
    if key not in CATALOGUE:
        message = str(error)
        return message.split(": ", 1)[1] if message.startswith("illegal move ") else message
    words = {"piece": "piece", "side": "side", "why": "forbidden"}  # fields to translate
    fields: dict[str, object] = {
        name: Term(f"{words[name]}.{value.lower()}") if name in words else value
        for name, value in error.detail.items()
    }
    return tr(key, n=None, **fields)


def record_error(path: object, error: Exception) -> str:
    """Why a record file cannot be opened: a missing file in words, else the reader's
    reason (where in the file, what is wrong)."""
    if isinstance(error, FileNotFoundError):
        return f"{tr('no_such_file')}: {path}"
    return f"{path}: {error}"


def describe_result(variant: str, result: str | None, winner: int | None) -> tuple[str, str]:
    """(headline in Chinese, headline in English) of a finished game."""
    if winner is None:
        winner = winner_of(result)
    if winner is not None:
        key = f"wins.{seat_name(variant, winner).lower()}"
    else:
        key = "result.draw" if result == "1/2-1/2" else "result.over"
    return zh(key), en(key)


@dataclass(slots=True)
class ClockView:
    """Clocks as last heard, counted down live for the running seat.

    ``remaining_ms`` is what was left at ``at`` (a ``time.monotonic()`` reading);
    an empty list means the game is untimed.  Before its first move a side's clock
    does not run: seat ``first_move`` has ``first_move_ms`` (at ``at``) to make it.
    """

    remaining_ms: list[float] = field(default_factory=list)
    running: int | None = None
    at: float = 0.0
    first_move: int | None = None
    first_move_ms: float = 0.0

    def first_move_left_ms(self, seat: int, now: float | None = None) -> float | None:
        """The time ``seat`` has left to make its first move, or None (no window runs)."""
        if self.first_move != seat:
            return None
        now = time.monotonic() if now is None else now
        return time_left_ms(self.first_move_ms, read_at=self.at, now=now)

    @property
    def timed(self) -> bool:
        return len(self.remaining_ms) == 2

    def left_ms(self, seat: int, now: float | None = None) -> float | None:
        if not self.timed:
            return None
        now = time.monotonic() if now is None else now
        return time_left_ms(
            self.remaining_ms[seat], read_at=self.at, now=now, running=self.running == seat
        )


@dataclass(frozen=True, slots=True)
class SystemLine:
    """A line from the program in the message box (``say``), beside the players'
    :class:`~lanqi.protocol.ChatLine`: drawn dimmed, with no name."""

    text: str


@dataclass(frozen=True, slots=True)
class Pending:
    """A move sent to the referee and shown at once, until the referee answers."""

    ply: int
    move: str


def clock_view(
    state: GameState, at: float, *, window: bool = True, paused: bool = False
) -> ClockView:
    """The clocks of ``state`` as read at ``at`` (a ``time.monotonic()`` reading),
    counted down from there for the running seat; ``window``: show the side to move's
    first-move window; ``paused``: nothing runs (a question is asked over the game)."""
    clock = state.clock
    active = state.status == "active"
    view = ClockView(
        [float(t) for t in clock.remaining_ms],
        clock.running if active and not paused else None,
        at,
    )
    if window and active and clock.first_move_left_ms is not None:
        view.first_move = state.to_move  # no clock runs before a first move
        view.first_move_ms = float(clock.first_move_left_ms)
    return view


class GameModel:
    """The game screen's view of one game: the folded :class:`~lanqi.gamestate.GameState`
    (``state``: status, result, offers, clocks as the referee's events told them) plus
    what only a screen needs: the rules object at the shown position (the moves of
    the state, and a move of ours on its way), the clocks counted down, the players'
    names as the cards show them, the lines of the message box, a record's tags.

    The sessions follow a table with :meth:`show`; the model decides nothing itself.
    """

    def __init__(
        self,
        variant: str,
        *,
        options: Mapping[str, Any] | None = None,
        start_fen: str | None = None,
        moves: list[str] | None = None,
        players: list[str] | None = None,
        status: GameStatus = "active",
    ) -> None:
        given = {k: v for k, v in dict(options or {}).items() if k != "fen"}
        self.board: Game[Any] = _new_board(variant, given, start_fen)
        # the options in full, as the board has them (a gomoku start position sets the size)
        self.players: list[str] = list(players or ["", ""])
        self.state = GameState(
            game_id="",
            variant=variant,
            options={**self.board.options, **given},
            start_fen=start_fen,
            players=tuple(self.players),
            fen=self.board.fen(),
            to_move=self.board.seat_to_move,
            time_control=TimeControl(kind="none"),
            casual=True,
            clock=ClockInfo(),
            status=status,
            joined=None,
            connected=(),
        )
        self.clock = ClockView()
        #: the message box: the game's chat lines as the referee numbered them, and
        #: the program's own lines
        self.chat: list[ChatLine | SystemLine] = []
        self.headers: dict[str, str] = {}
        self.moves: list[str] = []
        self._first_seat: int | None = None
        self._texts: dict[str, list[str]] = {}
        self._positions: dict[int, Position] = {}
        self._positions_version = -1
        #: the move this screen parsed last (ply, wire text, move): pushed as it is
        self._parsed: tuple[int, str, Any] | None = None
        #: bumped whenever the moves change (views cache on it)
        self.version = 0
        self._follow(list(moves or []))
        self.state = self.state._replace(moves=tuple(self.moves))

    # ------------------------------------------------------------ the state

    def show(
        self, state: GameState, *, clock: ClockView | None = None, pending: Pending | None = None
    ) -> None:
        """Follow ``state`` (folded from a table's events): the board shows its moves,
        and ``pending`` (a move of ours the referee has not answered) after them;
        ``clock``, if given, is how the screen counts the clocks down now."""
        self.state = state
        moves = list(state.moves)
        if pending is not None and len(moves) == pending.ply:
            moves.append(pending.move)
        self._follow(moves)
        if clock is not None:
            self.clock = clock

    @property
    def variant(self) -> str:
        return self.state.variant

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.state.options)

    @property
    def start_fen(self) -> str | None:
        return self.state.start_fen

    @property
    def status(self) -> GameStatus:
        return self.state.status

    @property
    def result(self) -> str | None:
        return self.state.result

    @property
    def termination(self) -> str | None:
        return self.state.termination

    @property
    def ending(self) -> str:
        """How the game ended, for people (:func:`termination_text` of its state)."""
        return termination_text(self.state.termination, self.state.variant, self.state.reason)

    @property
    def winner(self) -> int | None:
        return self.state.winner

    @property
    def draw_offer(self) -> int | None:
        return self.state.draw_offer

    @property
    def takeback_offer(self) -> int | None:
        return self.state.takeback_offer

    @property
    def casual(self) -> bool:
        return self.state.casual

    @property
    def connected(self) -> tuple[bool, ...]:
        return self.state.connected

    # ------------------------------------------------------------ position

    @property
    def ply(self) -> int:
        return len(self.moves)

    @property
    def finished(self) -> bool:
        return self.status == "finished"

    @property
    def seat_to_move(self) -> int:
        return self.board.seat_to_move

    @property
    def first_seat(self) -> int:
        """The seat that made (or makes) the first move of the record."""
        if self._first_seat is None:
            self._first_seat = self._new_board().seat_to_move
        return self._first_seat

    def _new_board(self) -> Game[Any]:
        return _new_board(self.variant, self.state.options, self.start_fen)

    def _follow(self, moves: list[str]) -> None:
        """Make the shown position the one after ``moves`` (replaying only what changed)."""
        common = 0
        for mine, theirs in zip(self.moves, moves, strict=False):
            if mine != theirs:
                break
            common += 1
        if common == len(self.moves) == len(moves):
            return
        parsed = self._parsed if common == len(self.moves) else None  # else: taken back
        if common < len(self.moves) // 2:
            self.board = self._new_board()
            self.moves = []
        else:
            while len(self.moves) > common:
                self.board.pop()
                self.moves.pop()
        for text in moves[len(self.moves) :]:
            if parsed is not None and parsed[:2] == (len(self.moves), text):
                self.board.push(parsed[2])  # parsed once, where it was played
            else:
                self.board.push(self.board.parse_move(text))
            self.moves.append(text)
        self._parsed = None
        for texts in self._texts.values():
            del texts[common:]
        self.version += 1

    def parse(self, text: str) -> str:
        """The move ``text`` (any notation) on the live position, in wire notation;
        raises the rules' MoveError for a move that is not legal now.  The model
        pushes this very move when the state brings it back."""
        move = self.board.parse_move(text)
        wire = str(move)
        self._parsed = (self.ply, wire, move)
        return wire

    def board_at(self, ply: int) -> Game[Any]:
        """A fresh rules object at the position after ``ply`` moves."""
        if ply >= self.ply:
            return self.board
        board = self._new_board()
        for text in self.moves[:ply]:
            board.push(board.parse_move(text))
        return board

    def legal_reason(self, text: str) -> str | None:
        """Why ``text`` cannot be played now, or None if it can."""
        return self.check(text)[1]

    def check(self, text: str) -> tuple[str, str | None]:
        """(``text`` in wire notation, None) if it can be played now, else (``text``,
        why not, in words for players)."""
        if self.finished:
            return text, tr("game_over")
        try:
            return self.parse(text), None
        except IllegalMoveError as exc:
            return text, illegal_text(exc)
        except MoveError as exc:
            return text, str(exc)

    def position(self, ply: int | None = None) -> Position:
        """The drawable position after ``ply`` moves (the live one by default)."""
        ply = self.ply if ply is None else ply
        if self._positions_version != self.version:
            self._positions = {}
            self._positions_version = self.version
        position = self._positions.get(ply)
        if position is None:
            position = self._positions[ply] = self.board_at(ply).position()
        return position

    def in_check(self) -> bool:
        """Is the side to move in check on the live position?"""
        return "check" in self.position().markers

    # ------------------------------------------------------------ text

    def move_texts(
        self, style: str = "", notate: Callable[[Game[Any], Any], str] | None = None
    ) -> list[str]:
        """Every move as ``notate(board, move)`` writes it (cached under the name
        ``style``); without one, as the game's own move text (``C2=5``, ``h8``)."""
        texts = self._texts.setdefault(style, [])
        if len(texts) < len(self.moves):
            board = self.board_at(len(texts))
            if board is self.board:
                board = self._new_board()
            for text in self.moves[len(texts) :]:
                move = board.parse_move(text)
                texts.append(notate(board, move) if notate else board.move_text(move))
                board.push(move)
        return texts[: len(self.moves)]

    def headline(self) -> tuple[str, str]:
        return describe_result(self.variant, self.result, self.winner)

    def say(self, text: str) -> None:
        """A line from the program in the message box."""
        self.chat.append(SystemLine(text))

    # ------------------------------------------------------------ records

    def record_text(self, *, event: str = "", day: datetime.date | None = None) -> str:
        """The game in its variant's record format (PGN for xiangqi), the players
        under the seats' names, the result the board decided (else the game's), the
        date (``day``, today by default: ``2026.12.02``) and ``event`` unless the
        game's own headers (a record under review) name them."""
        spec = variant_spec(self.variant)
        headers = dict(self.headers)
        for tag, value in (
            ("Date", (day or datetime.date.today()).strftime("%Y.%m.%d")),
            ("Event", event),
        ):
            if value and headers.get(tag, "?") in ("", "?"):
                headers[tag] = value
        for seat, side in enumerate(spec.seat_names):
            headers.setdefault(side, self.players[seat] or "?")
        outcome = self.board.outcome()
        headers["Result"] = outcome.result() if outcome is not None else self.result or "*"
        if self.termination:
            headers["Termination"] = termination_label(self.termination, self.state.reason)
        return spec.write_record(self.board, headers)

    @classmethod
    def from_record(cls, text: str) -> list[GameModel]:
        """Every game of a PGN or gomoku record text; raises ValueError if none can be read."""
        spec, games = read_records(text)
        models = []
        for headers, board, result in games:
            record = board.snapshot()
            model = cls(
                spec.name,
                options=record["options"],
                start_fen=record["start"],
                moves=record["moves"],
                players=[headers.get(side, "?") for side in spec.seat_names],
            )
            model.headers = dict(headers)
            model._finish_from_headers(result, headers)
            models.append(model)
        return models

    def _finish_from_headers(self, result: str, headers: Mapping[str, str]) -> None:
        """A record's game is over: as its board decides, else as its tags say."""
        outcome = self.board.outcome()
        termination = headers.get("Termination", "")
        ended: tuple[ResultText | None, str, int | None]
        if outcome is not None:
            ended = outcome.result(), termination or outcome.termination.value, outcome.winner_seat
        else:
            known = result if result in ("1-0", "0-1", "1/2-1/2") else None
            ended = cast("ResultText | None", known), termination, {"1-0": 0, "0-1": 1}.get(result)
        word, reason = legacy_termination(ended[1], ended[0]) if ended[1] else (None, "")
        self.state = self.state._replace(
            status="finished", result=ended[0], termination=word, reason=reason, winner=ended[2]
        )


def _new_board(variant: str, options: Mapping[str, Any], start_fen: str | None) -> Game[Any]:
    given = {k: v for k, v in options.items() if k != "fen"}
    if start_fen:
        given["fen"] = start_fen
    return create_game(variant, **given)


def load_record(path: Path) -> list[GameModel]:
    """Every game in the record file at ``path``; raises ValueError (or OSError) if it cannot."""
    text = path.read_text(encoding="utf-8-sig")
    return GameModel.from_record(text)


#: a tag line of a PGN or gomoku record: ``[Red "Alice"]``
_TAG = re.compile(r'^\[([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\]\s*$', re.MULTILINE)
#: how much of a file the review list reads for its tags
SUMMARY_BYTES = 65_536


@dataclass(frozen=True, slots=True)
class RecordSummary:
    """What the review list shows of a record file: its first game's players,
    result, date and event (``""`` where the record says nothing), and how many
    games the file holds."""

    players: str
    result: str
    date: str
    event: str
    games: int


def record_summary(path: Path) -> RecordSummary:
    """The tags of the first game in the record at ``path`` (read only from its
    first :data:`SUMMARY_BYTES`); raises OSError if it cannot be read.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     record = Path(folder) / "club.pgn"
    ...     _ = record.write_text('[Event "Club"]\\n[Date "2026.12.02"]\\n[Red "Lü"]\\n'
    ...                           '[Black "Hu"]\\n[Result "1-0"]\\n\\n1. a 1-0\\n')
    ...     record_summary(record)
    RecordSummary(players='Lü \u2013 Hu', result='1-0', date='2026.12.02', event='Club', games=1)
    """
    with path.open("rb") as file:
        text = file.read(SUMMARY_BYTES).decode("utf-8-sig", "replace")
    first: dict[str, str] = {}
    games = 0
    for match in _TAG.finditer(text):
        name, value = match.group(1), re.sub(r"\\(.)", r"\1", match.group(2))
        if name == "Result":
            games += 1
        if games <= 1 and name not in first:
            first[name] = value

    def tag(name: str) -> str:
        value = first.get(name, "").strip()
        return "" if value in ("?", "????.??.??") else value

    seats = next(
        (spec.seat_names for spec in VARIANTS.values() if spec.seat_names[0] in first),
        variant_spec(next(iter(VARIANTS))).seat_names,
    )
    names = [tag(seat) or "?" for seat in seats]
    players = " – ".join(names) if any(n != "?" for n in names) else ""
    return RecordSummary(players, tag("Result"), tag("Date"), tag("Event"), max(1, games))
