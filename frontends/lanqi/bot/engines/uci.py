"""Xiangqi engines that speak UCI (Fairy-Stockfish, Pikafish) as lanqi bots.

>>> iccs_to_fairy("h2e2"), iccs_to_fairy("h9g7"), fairy_to_iccs("h10g8")
('h3e3', 'h10g8', 'h9g7')

:class:`UciEngine` starts the engine, does the ``uci``/``uciok`` handshake, sets
the options, and for every move sends ``position fen <start> moves ...`` and a
``go`` built from the time control, then checks the ``bestmove`` against the
rules before it returns it.  With ``ponder=True`` it searches on the opponent's
time: after its move, the position after the reply the engine expects (``bestmove
X ponder Y``) with ``go ponder``; then ``ponderhit`` if the opponent played ``Y``,
else ``stop`` and a fresh search.  :class:`XiangqiEngine` holds what UCI and UCCI
(:mod:`lanqi.bot.engines.ucci`) share.  See ``docs/engines.md``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shlex
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar, Literal

from lanqi.bot.base import Bot, PlayResult, SearchInfo, SeatView, think_time_ms
from lanqi.bot.engines.process import (
    EngineConfigError,
    EngineCrashed,
    EngineError,
    EngineProcess,
    EngineTimeout,
    IllegalEngineMove,
)
from lanqi.games import xiangqi
from lanqi.games.base import InvalidMoveError

__all__ = [
    "Coords",
    "EngineOption",
    "SearchInfo",
    "UciEngine",
    "XiangqiEngine",
    "fairy_to_iccs",
    "iccs_to_fairy",
    "losing_repetition_moves",
    "parse_option",
]

log = logging.getLogger(__name__)

#: ``fairy``: ranks 1-10 (Fairy-Stockfish); ``iccs``: ranks 0-9 (Pikafish, lanqi);
#: ``auto``: ``fairy`` if the engine has a ``UCI_Variant`` option, else ``iccs``.
Coords = Literal["auto", "fairy", "iccs"]

_ICCS_RE = re.compile(r"([a-i])([0-9])([a-i])([0-9])")
_FAIRY_RE = re.compile(r"([a-i])(10|[1-9])([a-i])(10|[1-9])")
_NO_MOVE = frozenset({"(none)", "none", "0000", "resign"})  # "bestmove" without a move
_OPTION_KEYWORDS = frozenset({"name", "type", "default", "min", "max", "var"})


def iccs_to_fairy(move: str) -> str:
    """An ICCS move (ranks 0-9) in Fairy-Stockfish coordinates (ranks 1-10).

    >>> iccs_to_fairy("a0a9")
    'a1a10'
    """
    match = _ICCS_RE.fullmatch(move)
    if match is None:
        raise ValueError(f"not an ICCS move: {move!r}")
    f1, r1, f2, r2 = match.groups()
    return f"{f1}{int(r1) + 1}{f2}{int(r2) + 1}"


def fairy_to_iccs(text: str) -> str:
    """A Fairy-Stockfish move (ranks 1-10) as ICCS (ranks 0-9); ``ValueError`` if unreadable.

    >>> fairy_to_iccs("a1a10")
    'a0a9'
    """
    match = _FAIRY_RE.fullmatch(text)
    if match is None:
        hint = " (rank 0 does not exist in ranks 1-10: try coords='iccs')" if "0" in text else ""
        raise ValueError(f"not a move in ranks 1-10: {text!r}{hint}")
    f1, r1, f2, r2 = match.groups()
    return f"{f1}{int(r1) - 1}{f2}{int(r2) - 1}"


def _iccs_checked(text: str) -> str:
    if _ICCS_RE.fullmatch(text) is None:
        hint = " (rank 10 does not exist in ranks 0-9: try coords='fairy')" if "10" in text else ""
        raise ValueError(f"not an ICCS move: {text!r}{hint}")
    return text


@dataclass(frozen=True, slots=True)
class EngineOption:
    """An option the engine announced: ``option name Hash type spin default 16 ...``."""

    name: str
    type: str
    default: str | None = None
    min: int | None = None
    max: int | None = None
    vars: tuple[str, ...] = ()

    def value_text(self, value: object) -> str | None:
        """``value`` as the engine wants it; :class:`EngineConfigError` if it does not fit.

        >>> EngineOption("Hash", "spin", "16", 1, 1024).value_text(64)
        '64'
        >>> EngineOption("Ponder", "check", "false").value_text(True)
        'true'
        """
        kind = self.type.lower()
        if kind == "button":
            return None
        if value is None:
            raise EngineConfigError(f"option {self.name!r} ({kind}) needs a value")
        if kind == "check":
            if isinstance(value, bool):
                return "true" if value else "false"
            text = str(value).strip().lower()
            if text in ("true", "1", "yes", "on"):
                return "true"
            if text in ("false", "0", "no", "off"):
                return "false"
            raise EngineConfigError(f"option {self.name!r} wants true or false, not {value!r}")
        if kind == "spin":
            try:
                number = int(str(value).strip())
            except ValueError:
                raise EngineConfigError(
                    f"option {self.name!r} wants a whole number, not {value!r}"
                ) from None
            if (self.min is not None and number < self.min) or (
                self.max is not None and number > self.max
            ):
                raise EngineConfigError(
                    f"option {self.name!r} must be from {self.min} to {self.max}, not {number}"
                )
            return str(number)
        if kind == "combo" and self.vars:
            text = str(value)
            for choice in self.vars:
                if choice.lower() == text.lower():
                    return choice
            raise EngineConfigError(
                f"option {self.name!r} must be one of {', '.join(self.vars)}; not {value!r}"
            )
        return str(value)


def parse_option(line: str) -> EngineOption | None:
    """Read an ``option ...`` line (UCI, or UCCI where ``name`` may be left out).

    >>> parse_option("option name Skill Level type spin default 20 min -20 max 20")
    EngineOption(name='Skill Level', type='spin', default='20', min=-20, max=20, vars=())
    >>> parse_option("option usemillisec type check default false").name
    'usemillisec'
    """
    tokens = line.split()
    if len(tokens) < 2 or tokens[0] != "option":
        return None
    fields: dict[str, list[str]] = {}
    vars_: list[str] = []
    key = "name"
    start = 2 if tokens[1] == "name" else 1
    values: list[str] = []
    for token in tokens[start:]:
        if token in _OPTION_KEYWORDS and not (key == "name" and token == "name"):
            if key == "var":
                vars_.append(" ".join(values))
            else:
                fields[key] = values
            key, values = token, []
        else:
            values.append(token)
    if key == "var":
        vars_.append(" ".join(values))
    else:
        fields[key] = values
    name = " ".join(fields.get("name", []))
    if not name:
        return None

    def number(field: str) -> int | None:
        text = " ".join(fields.get(field, []))
        try:
            return int(text)
        except ValueError:
            return None

    default = fields.get("default")
    return EngineOption(
        name=name,
        type=" ".join(fields.get("type", [])) or "string",
        default=None if default is None else " ".join(default),
        min=number("min"),
        max=number("max"),
        vars=tuple(vars_),
    )


def losing_repetition_moves(board: xiangqi.Board) -> list[str]:
    """The legal moves that would lose on the spot by the board's repetition rule.

    These are the moves a bot must not play: under the default ``axf`` rules, the
    move that completes a perpetual check or chase.  The engines get them as
    ``banmoves`` (UCCI) or left out of ``searchmoves`` (UCI).

    Only the moves that repeat a position (:meth:`~lanqi.games.xiangqi.Board.repeating_moves`,
    found by hash, in no time while nothing has repeated yet) are played and judged.

    >>> losing_repetition_moves(xiangqi.Board())
    []
    """
    repeating = board.repeating_moves()
    if not repeating:
        return []
    work = board.copy()
    mover = work.turn
    losing: list[str] = []
    for move in [m for m in work.legal_moves() if m in repeating]:
        work.push(move)
        try:
            if work.is_repetition():
                outcome = work.outcome()
                if outcome is not None and outcome.winner is not None and outcome.winner != mover:
                    losing.append(str(move))
        finally:
            work.pop()
    return losing


def _stop_grace_ms(to_deadline_ms: float) -> float:
    """How long before the deadline an engine is told ``stop``: a tenth of the time
    left to it, 10 to 50 ms (engines answer ``stop`` within a few milliseconds)."""
    return min(50.0, max(10.0, to_deadline_ms / 10))


@dataclass(slots=True)
class _Line:
    """A line of play: a start position and the moves from it (ICCS)."""

    start_fen: str
    moves: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, board: xiangqi.Board) -> _Line:
        return cls(board.start_fen, [str(m) for m in board.move_stack])


@dataclass(slots=True)
class _Ponder:
    """A search on the opponent's time: of the position ``line`` (which ends with the
    opponent's expected reply), with ``banned`` moves left out."""

    line: _Line
    banned: list[str]


#: give up the core to a process just woken (``sched_yield``; a no-op where missing)
_yield_core: Callable[[], None] = getattr(os, "sched_yield", lambda: None)


@dataclass(slots=True)
class _Early:
    """A search started before its turn: of the position of ``key`` (the start and
    the moves, cheap to take and compare), with ``banned`` moves left out."""

    key: tuple[str, tuple[xiangqi.Move, ...]]
    banned: list[str]

    @staticmethod
    def key_of(board: xiangqi.Board) -> tuple[str, tuple[xiangqi.Move, ...]]:
        return board.start_fen, tuple(board.move_stack)


def _less_time(state: SeatView, spent_ms: float) -> SeatView:
    """``state`` with ``spent_ms`` gone from the mover's clock (or its time per move)."""
    spent = round(spent_ms)
    if state.remaining_ms is None or spent <= 0:
        return state
    left = list(state.remaining_ms)
    left[state.seat] = max(1, left[state.seat] - spent)
    per_move = max(1, state.per_move_ms - spent) if state.per_move_ms else 0
    return replace(state, remaining_ms=(left[0], left[1]), per_move_ms=per_move)


def _split_command(command: str | Sequence[str]) -> list[str]:
    argv = shlex.split(command) if isinstance(command, str) else [str(part) for part in command]
    if not argv:
        raise ValueError("empty engine command")
    return argv


class XiangqiEngine(Bot):
    """What the UCI and UCCI adapters share: process, options, limits, move checks.

    Subclasses say how to greet the engine, set an option, start a game, send
    the position and build ``go``.  Keyword arguments:

    - ``options``: engine options, ``{"Threads": 1, "Hash": 16}``; checked against
      what the engine announced (unknown names and bad values raise
      :class:`EngineConfigError`).
    - ``depth``, ``nodes``, ``movetime``: a fixed search limit (benchmarks); when
      any is given the clock is not sent.
    - ``overhead_ms``: kept back from the engine's own clock for the network.
    - ``default_movetime_ms``: the think time in untimed games.
    - ``timeout_margin_ms``: how long past its time the engine may be silent
      before it counts as hung; ``search_timeout_ms`` the wait for a depth or
      nodes search in an untimed game.
    - ``avoid_losing_repetition``: keep the engine from a move that loses by
      the repetition rules (perpetual check or chase).
    - ``ponder``: think on the opponent's time (``go ponder`` after each move,
      then ``ponderhit`` or ``stop``); the engine's ``Ponder`` option, if it has
      one and ``options`` do not set it, is switched on.
    - ``memory_mb``: cap the engine's address space (it dies over it:
      :class:`~lanqi.bot.engines.process.EngineOutOfMemory`); ``cpus``: pin it to
      these cores; ``pause_waiting``: stop it (SIGSTOP) between its moves, while
      the opponent thinks (not with ``ponder``).
    """

    name: ClassVar[str] = "xiangqi-engine"
    variants: ClassVar[tuple[str, ...]] = ("xiangqi",)
    quit_command: ClassVar[str] = "quit"

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        options: Mapping[str, object] | None = None,
        depth: int | None = None,
        nodes: int | None = None,
        movetime: int | None = None,
        cwd: str | Path | None = None,
        env: Mapping[str, str] | None = None,
        overhead_ms: int = 100,
        default_movetime_ms: int = 1000,
        timeout_margin_ms: int = 1000,
        search_timeout_ms: int = 60_000,
        handshake_timeout_s: float = 10.0,
        avoid_losing_repetition: bool = True,
        ponder: bool = False,
        memory_mb: int | None = None,
        cpus: Sequence[int] | None = None,
        pause_waiting: bool = False,
    ) -> None:
        for label, limit in (("depth", depth), ("nodes", nodes), ("movetime", movetime)):
            if limit is not None and limit < 1:
                raise ValueError(f"{label} must be at least 1, not {limit}")
        argv = _split_command(command)
        self.options: dict[str, object] = dict(options or {})
        self.depth = depth
        self.nodes = nodes
        self.movetime = movetime
        self.overhead_ms = overhead_ms
        self.default_movetime_ms = default_movetime_ms
        self.timeout_margin_ms = timeout_margin_ms
        self.search_timeout_ms = search_timeout_ms
        self.handshake_timeout_s = handshake_timeout_s
        self.avoid_losing_repetition = avoid_losing_repetition
        self.ponder = ponder
        #: searches on the opponent's time whose prediction came true, and the others
        self.ponderhits = 0
        self.pondermisses = 0
        #: stop the engine (SIGSTOP) while it waits for the opponent; never when it ponders
        self.pause_waiting = pause_waiting and not ponder
        self.process = EngineProcess(argv, cwd=cwd, env=env, memory_mb=memory_mb, cpus=cpus)
        self.engine_name = self.process.name
        self.engine_author = ""
        self.engine_options: dict[str, EngineOption] = {}
        #: the search's ``info`` lines that may carry a depth or a pv, newest last: read
        #: when asked for (:attr:`last_info`), not as they come, so the ``bestmove``
        #: behind a burst of them is not kept waiting
        self._info_lines: list[str] = []
        self._pv_lines: list[str] = []
        self._info = SearchInfo()
        self._best: str | None = None
        #: The last ``go`` line sent (for logs and tests).
        self.last_go = ""
        #: Engine restarts after a crash or a hang.
        self.restarts = 0
        self._banned: list[str] = []
        self._broken = False
        #: the engine was stopped and a move played for it: its late ``bestmove`` is due
        self._owes_bestmove = False
        #: after a move: the line it made and the reply the engine expects (to ponder on)
        self._expected: tuple[_Line, str] | None = None
        #: the search running on the opponent's time
        self._pondering: _Ponder | None = None
        #: a search started before its turn was committed (:meth:`start_early`)
        self._early: _Early | None = None
        #: early starts that :meth:`play` then found running on its position, and not
        self.early_hits = 0
        self.early_misses = 0
        #: when the current search's ``go`` was written and its ``bestmove`` read
        #: (``time.perf_counter``)
        self.search_began: float | None = None
        self.bestmove_at: float | None = None
        #: called by :meth:`play` with its state, the move and the ``bestmove``'s draw
        #: and resign words as soon as the move is read and found legal (before its
        #: ``info`` is read): a match starts the other engine's search from it
        self.move_found: Callable[[SeatView, str, bool, bool], None] | None = None
        #: the game ended: no pondering until the next starts
        self._game_over = False
        #: the runner's thread (game start and end) and the bot's worker (moves and
        #: pondering) both talk to the engine; this keeps the ponder hand-over whole
        self._ponder_lock = threading.Lock()
        #: the last line written to the engine: its start, its moves and their words in
        #: the engine's coordinates (a move's ``position`` adds only the new ones)
        self._sent_start = ""
        self._sent_moves: list[xiangqi.Move] = []
        self._sent_words: list[str] = []
        self._start()

    # -- protocol hooks (subclasses) --------------------------------------------

    def _handshake(self) -> None:
        raise NotImplementedError

    def _configure(self) -> None:
        """Send the options (after the handshake, before the first ``isready``); with
        ``ponder``, the engine's ``Ponder`` option unless the options set it."""
        for key, value in self.options.items():
            self._set_option(key, value)
        ponder_option = self._find_option("Ponder")
        chosen = any(key.lower() == "ponder" for key in self.options)
        if self.ponder and ponder_option is not None and not chosen:
            self._set_option(ponder_option.name, True)

    def _option_command(self, option: EngineOption, value: str | None) -> str:
        raise NotImplementedError

    def _new_game_commands(self) -> list[str]:
        return []

    def _to_engine(self, iccs: str) -> str:
        return iccs

    def _from_engine(self, text: str) -> str:
        return _iccs_checked(text)

    def _position_commands(self, board: xiangqi.Board, banned: list[str]) -> list[str]:
        raise NotImplementedError

    def _go_command(self, state: SeatView, board: xiangqi.Board, banned: list[str]) -> str:
        raise NotImplementedError

    # -- lifetime ------------------------------------------------------------------

    def _start(self) -> None:
        self.process.start()
        try:
            self._handshake()
            self._configure()
            self._sync()
        except EngineError:
            self.process.kill()
            raise

    def _sync(self) -> None:
        self.process.send("isready")
        self.process.expect(
            lambda line: line.strip() == "readyok",
            self.handshake_timeout_s,
            what="readyok (after isready)",
        )

    def _ensure_running(self) -> None:
        if self._broken or not self.process.running:
            log.warning("%s: restarting the engine", self.engine_name)
            self.process.kill()
            self.restarts += 1
            self._broken = False
            self._start()

    def _check_not_died(self) -> None:
        """An engine that died by itself in the middle of a game (killed while the
        opponent thought, say) loses that game as a crash: it is not restarted
        quietly to play on.  One this adapter stopped (``_broken``) is restarted."""
        if self._broken:
            return
        try:
            self.process.check_alive("its turn")
        except EngineCrashed:
            self._fail()
            raise

    def _fail(self) -> None:
        """The engine crashed or hung: kill it now, start a fresh one next time."""
        self._broken = True
        self.process.kill()

    def engine_id(self) -> str:
        """The engine's ``id name`` (its program's name until the handshake)."""
        return self.engine_name

    def close(self) -> None:
        """Send ``quit``, then make sure the engine process is gone."""
        self.process.close(self.quit_command)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.engine_name!r} {self.process!r}>"

    # -- options ---------------------------------------------------------------

    def _on_hello_line(self, line: str) -> None:
        """Collect ``id name``, ``id author`` and ``option`` lines of the handshake."""
        tokens = line.split()
        if len(tokens) >= 3 and tokens[0] == "id" and tokens[1] == "name":
            self.engine_name = " ".join(tokens[2:])
        elif len(tokens) >= 3 and tokens[0] == "id" and tokens[1] == "author":
            self.engine_author = " ".join(tokens[2:])
        elif tokens and tokens[0] == "option":
            option = parse_option(line)
            if option is not None:
                self.engine_options[option.name] = option

    def _find_option(self, key: str) -> EngineOption | None:
        wanted = key.lower()
        for name, option in self.engine_options.items():
            if name.lower() == wanted:
                return option
        return None

    def _set_option(self, key: str, value: object) -> None:
        option = self._find_option(key)
        if option is None:
            if self.engine_options:
                known = ", ".join(sorted(self.engine_options))
                raise EngineConfigError(
                    f"{self.engine_name} has no option {key!r}; it has: {known}"
                )
            option = EngineOption(key, "string")  # the engine lists none: send as given
        self.process.send(self._option_command(option, option.value_text(value)))

    # -- the bot ------------------------------------------------------------------

    @staticmethod
    def _board_of(state: SeatView) -> xiangqi.Board:
        if state.variant != "xiangqi" or not isinstance(state.board, xiangqi.Board):
            raise ValueError(f"a xiangqi engine cannot play {state.variant}")
        return state.board

    def set_banned_moves(self, moves: Iterable[str]) -> None:
        """Forbid these moves (ICCS) in the next search only, e.g. for repetition rules."""
        self._banned = [str(xiangqi.Move.from_iccs(text)) for text in moves]

    def on_game_start(self, state: SeatView) -> None:
        self._board_of(state)
        with self._ponder_lock:
            self._game_over = False
            self._expected = None
            self._stop_pondering()
        self._settle()
        self._ensure_running()
        self._banned = []
        try:
            for command in self._new_game_commands():
                self.process.send(command)
            self._sync()
        except (EngineTimeout, EngineCrashed):
            self._fail()
            raise
        if self.pause_waiting:
            self.process.pause()

    def play(self, state: SeatView) -> PlayResult:
        """Ask the engine; return its move in ICCS once the rules accept it, with
        its last ``info`` (score, depth, nodes, pv), the reply it expects
        (``bestmove X ponder Y``, else its pv) and its ``draw`` / ``resign`` words
        (UCCI).

        Raises :class:`IllegalEngineMove` (the engine stays up),
        :class:`EngineTimeout` or :class:`EngineCrashed` (the engine is killed
        and a fresh one starts for the next game or move).
        """
        board = self._board_of(state)
        with self._ponder_lock:
            pondering, self._pondering = self._pondering, None
            early, self._early = self._early, None
            self._expected = None
        banned = self._banned_moves(board)
        if early is not None:
            hit = self._end_early(early, board, banned)
        elif pondering is not None:
            began = time.monotonic()
            hit = self._end_pondering(pondering, board, banned)
            if not hit:  # the wait for the stopped search came off this move's time
                state = _less_time(state, (time.monotonic() - began) * 1000)
        else:
            hit = False
        self._settle()
        self._check_not_died()
        self._ensure_running()
        wait_s = self.wait_limit_ms(state) / 1000
        try:
            if not hit:
                self._send_search(state, board, banned)
            reply = self._await_bestmove(state, board, wait_s)
            self.bestmove_at = time.perf_counter()
        except (EngineTimeout, EngineCrashed):
            self._fail()
            raise
        if self.pause_waiting and not self._owes_bestmove:
            self.process.pause()  # until the next command: the opponent's turn is its own
        move = self._read_bestmove(reply, board)
        draw, resign = self._bestmove_words(reply)
        found = self.move_found
        if found is not None:
            try:
                found(state, move, draw, resign)
            except Exception:  # the hook's failure is not the engine's
                log.exception("%s: the move_found hook failed", self.engine_name)
        expected = self._expected_move(reply, move)
        if self.ponder and expected is not None:
            line = _Line.of(board)
            line.moves.append(move)
            self._expected = line, expected
        return PlayResult(
            move,
            ponder=expected,
            info=self.last_info,
            offer_draw=draw,
            resign=resign,
        )

    def _send_search(self, state: SeatView, board: xiangqi.Board, banned: list[str]) -> None:
        """``position`` and ``go`` in one write."""
        self.last_info = SearchInfo()
        self._best_so_far = None
        self.last_go = self._go_command(state, board, banned)
        self.process.send_lines([*self._position_commands(board, banned), self.last_go])
        self.search_began = time.perf_counter()

    def start_early(self, state: SeatView) -> bool:
        """Start the search for ``state`` (the opponent's move on its board, not yet
        committed by the referee) now, from the calling thread: the next
        :meth:`play` of that same position only waits for its ``bestmove``; any
        other position, or the game's end, stops it first (its answer is dropped).
        Not while pondering or owing an answer.  True when the search started; an
        engine found dead is left for :meth:`play` to report (lost as a crash)."""
        if self.ponder:
            return False
        board = self._board_of(state)
        with self._ponder_lock:
            if (
                self._game_over
                or self._pondering is not None
                or self._early is not None
                or self._owes_bestmove
                or self._broken
                or self._banned
                or not self.process.running
            ):
                return False
            banned = self._banned_for(board, [])
            try:
                self._send_search(state, board, banned)
            except EngineCrashed:
                return False  # play() finds it dead: the game is lost as a crash
            self._early = _Early(_Early.key_of(board), banned)
        # This thread goes on with the referee's work on the move; the engine just
        # woken by the write tends to be queued on this thread's core, behind it, for
        # that whole time (0.36 ms p50 measured, against 0.03 ms after a yield): let it
        # run first.
        _yield_core()
        return True

    def _end_early(self, early: _Early, board: xiangqi.Board | None, banned: list[str]) -> bool:
        """An early search of ``board`` (with these ``banned``) goes on as this move's
        (True); any other is ended and its ``bestmove`` dropped (``stop`` unless that
        ``bestmove`` is in already: a search that ends by itself may have ended)."""
        if self._broken or not self.process.running:
            return False
        if board is not None and early.key == _Early.key_of(board) and early.banned == banned:
            self.early_hits += 1
            return True
        if board is not None:
            self.early_misses += 1
        log.debug("%s: stopping the search started early (another position)", self.engine_name)
        try:
            if not any(self._is_bestmove(line) for line in self.process.pending_lines()):
                self.process.send("stop")
                self._expect_bestmove(self.timeout_margin_ms / 1000)
        except (EngineTimeout, EngineCrashed) as exc:
            log.warning("%s did not end its early search: %s", self.engine_name, exc)
            self._fail()
        return False

    def _bestmove_words(self, reply: str) -> tuple[bool, bool]:
        """Whether ``bestmove`` offers a draw and whether it resigns (UCI: never)."""
        return False, False

    # -- pondering --------------------------------------------------------------------

    @property
    def ponders(self) -> bool:
        return self.ponder

    def on_opponent_turn(self, state: SeatView) -> None:
        """With ``ponder`` on, and the engine's last move on the board with a reply it
        expects: search the position after that reply on the opponent's time (``go
        ponder`` with the clocks as they stand).  Engine failures here are only logged:
        the next move restarts the engine."""
        if not self.ponder:
            return
        board = self._board_of(state)
        with self._ponder_lock:
            expected, self._expected = self._expected, None
            if self._game_over or self._pondering is not None or expected is None:
                return
            line, reply = expected
            if line != _Line.of(board) or not board.is_legal(xiangqi.Move.from_iccs(reply)):
                return
            after = board.copy()
            after.push(xiangqi.Move.from_iccs(reply))
            try:
                self._settle()
                if self._broken or not self.process.running:
                    return
                banned = self._banned_for(after, self._banned)
                self.last_info = SearchInfo()
                self._best_so_far = None
                for command in self._position_commands(after, banned):
                    self.process.send(command)
                ahead = replace(state, board=after, moves=[*state.moves, reply], deadline=None)
                go = self._go_command(ahead, after, banned)
                self.last_go = "go ponder" + go[len("go") :]
                self.process.send(self.last_go)
            except (EngineTimeout, EngineCrashed) as exc:
                log.warning("%s failed to start pondering: %s", self.engine_name, exc)
                self._fail()
                return
            self._pondering = _Ponder(_Line.of(after), banned)
            log.debug("%s: pondering on %s", self.engine_name, reply)

    def on_game_end(self, state: SeatView, result: str, termination: str) -> None:
        with self._ponder_lock:
            self._game_over = True
            self._expected = None
            self._stop_pondering()

    def _stop_pondering(self) -> None:
        """End a ponder search, or one started early, that can no longer come true (the
        caller holds the lock)."""
        pondering, self._pondering = self._pondering, None
        if pondering is not None:
            self._end_pondering(pondering, None, [])
        early, self._early = self._early, None
        if early is not None:
            self._end_early(early, None, [])

    def _end_pondering(
        self, pondering: _Ponder, board: xiangqi.Board | None, banned: list[str]
    ) -> bool:
        """``ponderhit`` when ``board`` is the position pondered on (and the same moves
        are banned): the search goes on as this move's.  Otherwise ``stop``, and the
        ``bestmove`` of the wasted search is read and dropped.  True on a hit."""
        if self._broken or not self.process.running:
            return False
        hit = board is not None and pondering.line == _Line.of(board) and pondering.banned == banned
        try:
            if hit:
                self.ponderhits += 1
                log.debug("%s: ponderhit", self.engine_name)
                self.process.send("ponderhit")
                return True
            if board is not None:
                self.pondermisses += 1
            log.debug("%s: stopping its ponder search (no hit)", self.engine_name)
            self.process.send("stop")
            self._expect_bestmove(self.timeout_margin_ms / 1000)
        except (EngineTimeout, EngineCrashed) as exc:
            log.warning("%s did not end its ponder search: %s", self.engine_name, exc)
            self._fail()
        return False

    def _expected_move(self, reply: str, move: str) -> str | None:
        """The reply the engine expects to ``move``: the word after ``ponder`` in its
        ``bestmove``, else the second move of its principal variation when that
        begins with ``move``."""
        tokens = reply.split()
        expected: str | None = None
        if "ponder" in tokens[2:-1]:
            with contextlib.suppress(ValueError):
                expected = self._from_engine(tokens[tokens.index("ponder", 2) + 1].lower())
        pv = self.last_info.pv
        if expected is None and len(pv) >= 2 and pv[0] == move:
            expected = pv[1]
        return expected

    def _await_bestmove(self, state: SeatView, board: xiangqi.Board, wait_s: float) -> str:
        """Wait for ``bestmove``; on a clock, say ``stop`` shortly before the state's
        deadline and, if even that brings no answer by the deadline, play the first
        move of the engine's latest principal variation (its best move so far)."""
        to_deadline = state.ms_to_deadline()
        if to_deadline is None:
            return self._expect_bestmove(wait_s)
        stop_s = max(0.0, (to_deadline - _stop_grace_ms(to_deadline)) / 1000)
        if stop_s >= wait_s:
            return self._expect_bestmove(wait_s)
        try:
            return self._expect_bestmove(stop_s)
        except EngineTimeout:
            pass
        log.info("%s: the clock runs low; telling the engine to stop", self.engine_name)
        self.process.send("stop")
        try:
            return self._expect_bestmove(max(0.0, (state.ms_to_deadline() or 0.0) / 1000))
        except EngineTimeout:
            best = self._best_so_far
            if best is None or not board.is_legal(xiangqi.Move.from_iccs(best)):
                return self._expect_bestmove(max(0.0, wait_s - stop_s))
        log.warning(
            "%s did not answer stop in time; playing its best move so far, %s",
            self.engine_name,
            best,
        )
        self._owes_bestmove = True
        return f"bestmove {self._to_engine(best)}"

    def _think_ms(self, state: SeatView) -> int:
        """The think time sent for a per-move clock: :func:`think_time_ms`, ending a
        grace before the point where the adapter would say ``stop``, so an engine
        that keeps to its time is never stopped."""
        think = think_time_ms(state, overhead_ms=self.overhead_ms)
        to_deadline = state.ms_to_deadline()
        if to_deadline is not None:
            think = min(think, int(to_deadline - 2 * _stop_grace_ms(to_deadline)))
        return max(10, think)

    def _expect_bestmove(self, wait_s: float) -> str:
        return self.process.expect(
            self._is_bestmove, wait_s, on_line=self._on_search_line, what="bestmove"
        )

    def _settle(self) -> None:
        """Take the late ``bestmove`` of a search that was stopped and answered for the
        engine; an engine that still owes it after the margin is restarted."""
        if not self._owes_bestmove or self._broken:
            self._owes_bestmove = False
            return
        self._owes_bestmove = False
        try:
            self._expect_bestmove(self.timeout_margin_ms / 1000)
        except (EngineTimeout, EngineCrashed):
            log.warning("%s never finished its stopped search", self.engine_name)
            self._fail()

    def _banned_moves(self, board: xiangqi.Board) -> list[str]:
        banned = self._banned_for(board, self._banned)
        self._banned = []
        return banned

    def _banned_for(self, board: xiangqi.Board, chosen: list[str]) -> list[str]:
        """The moves to ban at ``board``: ``chosen`` and the losing repetitions."""
        banned = list(chosen)
        if self.avoid_losing_repetition:
            banned += [m for m in losing_repetition_moves(board) if m not in banned]
        if banned and len(banned) >= sum(1 for _ in board.legal_moves()):
            return []  # every move loses: let the engine pick one
        return banned

    # -- time ----------------------------------------------------------------------

    def wait_limit_ms(self, state: SeatView) -> int:
        """How long a search may take before the engine counts as hung.

        Fixed ``movetime``: that plus the margin.  Fixed depth or nodes:
        ``search_timeout_ms`` (at most the engine's clock) plus the margin.
        Per-move games: the think time plus the margin.  Fischer clocks: the
        engine's own remaining time plus the margin (an engine may well spend
        more than an average share on a move; past its clock it has lost anyway).
        Untimed: ``default_movetime_ms`` plus the margin.
        """
        if self.depth is not None or self.nodes is not None or self.movetime is not None:
            if self.depth is None and self.nodes is None and self.movetime is not None:
                base = self.movetime
            else:
                base = self.search_timeout_ms
                if self.movetime is not None:
                    base = min(base, self.movetime)
                if state.my_time_ms is not None and not state.per_move_ms:
                    base = min(base, max(state.my_time_ms, 0))
        elif state.per_move_ms:
            base = think_time_ms(state, overhead_ms=self.overhead_ms)
        elif state.my_time_ms is not None:
            base = max(state.my_time_ms, 0)
        else:
            base = self.default_movetime_ms
        return base + self.timeout_margin_ms

    def _fixed_limits(self) -> list[str]:
        parts: list[str] = []
        if self.depth is not None:
            parts += ["depth", str(self.depth)]
        if self.nodes is not None:
            parts += ["nodes", str(self.nodes)]
        if self.movetime is not None:
            parts += ["movetime", str(self.movetime)]
        return parts

    def _clock_ms(self, state: SeatView, seat: int) -> int:
        """A seat's clock as sent to the engine: its own less the overhead."""
        assert state.remaining_ms is not None
        left = state.remaining_ms[seat]
        if seat == state.seat:
            left -= self.overhead_ms
        return max(1, left)

    # -- replies ---------------------------------------------------------------------

    @staticmethod
    def _is_bestmove(line: str) -> bool:
        word = line.split(maxsplit=1)[0] if line.strip() else ""
        return word in ("bestmove", "nobestmove")

    def _on_search_line(self, line: str) -> None:
        if not line.startswith("info"):
            if line.strip():
                log.debug("%s: ignoring %r", self.engine_name, line)
            return
        if "depth" in line or "pv" in line:
            lines = self._info_lines
            lines.append(line)
            if "pv" in line:
                self._pv_lines.append(line)
                if len(self._pv_lines) > _KEPT_INFO:
                    del self._pv_lines[:-_KEPT_INFO]
            if len(lines) > _KEPT_INFO:
                del lines[:-_KEPT_INFO]

    @property
    def last_info(self) -> SearchInfo:
        """The search's latest ``info`` with a depth or a pv (score, depth, nodes, pv)."""
        lines = self._info_lines
        for line in reversed(lines):
            info = _parse_info(line.split(), self._from_engine)
            if info is not None:
                self._info = info
                break
        lines.clear()
        return self._info

    @last_info.setter
    def last_info(self, info: SearchInfo) -> None:
        self._info_lines.clear()
        self._info = info

    @property
    def _best_so_far(self) -> str | None:
        """The first move of the engine's latest principal variation in this search."""
        lines = self._pv_lines
        for line in reversed(lines):
            info = _parse_info(line.split(), self._from_engine)
            if info is not None and info.pv:
                self._best = info.pv[0]
                break
        lines.clear()
        return self._best

    @_best_so_far.setter
    def _best_so_far(self, move: str | None) -> None:
        self._pv_lines.clear()
        self._best = move

    def _read_bestmove(self, reply: str, board: xiangqi.Board) -> str:
        tokens = reply.split()
        if tokens[0] == "nobestmove" or len(tokens) < 2 or tokens[1] in _NO_MOVE:
            raise IllegalEngineMove(
                "the engine gave no move", reply=reply, move="", position=board.fen()
            )
        text = tokens[1]
        try:
            iccs = self._from_engine(text.lower())
            move = xiangqi.Move.from_iccs(iccs)
        except (ValueError, InvalidMoveError) as exc:
            raise IllegalEngineMove(
                f"unreadable engine move {text!r}: {exc}",
                reply=reply,
                move=text,
                position=board.fen(),
            ) from None
        if not board.is_legal(move):
            raise IllegalEngineMove(
                f"illegal engine move {text!r} (ICCS {iccs})",
                reply=reply,
                move=text,
                position=board.fen(),
            )
        return str(move)

    def _engine_moves(self, board: xiangqi.Board) -> list[str]:
        """``board``'s moves since its start, in the engine's coordinates: the words
        of the line sent last, with only the moves since then converted (a game's
        ``position`` grows by two moves a turn; converting all of them again was a
        tenth of a millisecond a move late in a game)."""
        stack, known = board.move_stack, len(self._sent_moves)
        if (
            board.start_fen != self._sent_start
            or len(stack) < known
            or stack[:known] != self._sent_moves
        ):
            self._sent_start, self._sent_moves, self._sent_words = board.start_fen, [], []
            known = 0
        for move in stack[known:]:
            self._sent_moves.append(move)
            self._sent_words.append(self._to_engine(str(move)))
        return self._sent_words


#: ``info`` lines kept unread per search (the newest that reads is the one used)
_KEPT_INFO = 8


def _parse_info(tokens: list[str], convert: Callable[[str], str]) -> SearchInfo | None:
    """Depth, score, nodes, time and pv from an ``info`` line (``None`` if it has none)."""
    values: dict[str, int] = {}
    pv: list[str] = []
    i = 1
    while i < len(tokens):
        token = tokens[i]
        if token in ("depth", "nodes", "time") and i + 1 < len(tokens):
            with contextlib.suppress(ValueError):
                values[token] = int(tokens[i + 1])
            i += 2
        elif token == "score" and i + 2 < len(tokens):
            with contextlib.suppress(ValueError):
                values[tokens[i + 1]] = int(tokens[i + 2])
            i += 3
        elif token == "pv":
            for text in tokens[i + 1 :]:
                try:
                    pv.append(convert(text))
                except ValueError:
                    break
            break
        elif token == "string":
            break
        else:
            i += 1
    if "depth" not in values and not pv:
        return None
    return SearchInfo(
        depth=values.get("depth"),
        score_cp=values.get("cp"),
        mate=values.get("mate"),
        nodes=values.get("nodes"),
        time_ms=values.get("time"),
        pv=tuple(pv),
    )


class UciEngine(XiangqiEngine):
    """A xiangqi engine speaking UCI: Fairy-Stockfish, Pikafish and the like.

    ``variant_option`` is the ``UCI_Variant`` value set when the engine has that
    option (``None`` never sets it; Pikafish has none).  ``coords`` picks how
    ranks are numbered on the wire (see :data:`Coords`).  Other keywords: see
    :class:`XiangqiEngine`.

    Time control to ``go``: Red is UCI's white.  Fischer clocks give
    ``go wtime .. btime .. winc .. binc ..`` (the engine's own clock less
    ``overhead_ms``); a per-move limit gives ``go movetime <per move - overhead>``;
    an untimed game ``go movetime <default_movetime_ms>``; a fixed
    ``depth``/``nodes``/``movetime`` replaces all of these.
    """

    name: ClassVar[str] = "uci"

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        variant_option: str | None = "xiangqi",
        coords: Coords = "auto",
        **kwargs: Any,
    ) -> None:
        if coords not in ("auto", "fairy", "iccs"):
            raise ValueError(f"coords must be 'auto', 'fairy' or 'iccs', not {coords!r}")
        self.variant_option = variant_option
        self.coords_setting: Coords = coords
        #: The numbering in use: ``fairy`` or ``iccs`` (``auto`` is resolved at start).
        self.coords: Literal["fairy", "iccs"] = "iccs" if coords == "auto" else coords
        super().__init__(command, **kwargs)

    def _handshake(self) -> None:
        self.engine_options = {}
        self.process.send("uci")
        self.process.expect(
            lambda line: line.strip() == "uciok",
            self.handshake_timeout_s,
            on_line=self._on_hello_line,
            what="uciok (after uci)",
        )

    def _configure(self) -> None:
        variant = self._find_option("UCI_Variant")
        if self.coords_setting == "auto":
            fairy = variant is not None or "fairy-stockfish" in self.engine_name.lower()
            self.coords = "fairy" if fairy else "iccs"
            log.debug("%s: coordinates %s", self.engine_name, self.coords)
        if self.variant_option is not None:
            if variant is not None:
                self._set_option(variant.name, self.variant_option)
            else:
                log.info("%s has no UCI_Variant option; not setting it", self.engine_name)
        super()._configure()

    def _option_command(self, option: EngineOption, value: str | None) -> str:
        if value is None:
            return f"setoption name {option.name}"
        return f"setoption name {option.name} value {value}"

    def _new_game_commands(self) -> list[str]:
        return ["ucinewgame"]

    def _to_engine(self, iccs: str) -> str:
        return iccs_to_fairy(iccs) if self.coords == "fairy" else iccs

    def _from_engine(self, text: str) -> str:
        return fairy_to_iccs(text) if self.coords == "fairy" else _iccs_checked(text)

    def _position_commands(self, board: xiangqi.Board, banned: list[str]) -> list[str]:
        command = f"position fen {board.start_fen}"
        if board.move_stack:
            command += " moves " + " ".join(self._engine_moves(board))
        return [command]

    def _go_command(self, state: SeatView, board: xiangqi.Board, banned: list[str]) -> str:
        parts = ["go"]
        fixed = self._fixed_limits()
        if fixed:
            parts += fixed
        elif state.per_move_ms:
            parts += ["movetime", str(self._think_ms(state))]
        elif state.remaining_ms is not None:
            parts += [
                "wtime",
                str(self._clock_ms(state, 0)),
                "btime",
                str(self._clock_ms(state, 1)),
            ]
            parts += ["winc", str(state.increment_of(0)), "binc", str(state.increment_of(1))]
        else:
            parts += ["movetime", str(self.default_movetime_ms)]
        if banned:
            allowed = sorted(str(m) for m in board.legal_moves() if str(m) not in banned)
            parts += ["searchmoves", *(self._to_engine(m) for m in allowed)]
        return " ".join(parts)
