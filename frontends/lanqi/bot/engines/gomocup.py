"""Gomoku engines (``pbrain-*`` programs) speaking the Gomocup protocol as lanqi bots.

The conversation (one game):

- once after launch: ``ABOUT`` (the reply ``name="...", version="..."`` names the
  engine; an old brain may answer ``UNKNOWN``);
- at the start of a game: ``START <size>`` (``RESTART`` for later games on the
  same size; a brain that does not know ``RESTART`` is relaunched), answered
  ``OK``; then ``INFO timeout_turn``, ``timeout_match``, ``max_memory`` and
  ``rule`` (``game_type`` is not sent: the bot cannot tell a human opponent from
  a program);
- for each move: ``INFO time_left``, ``INFO timeout_turn``, then ``BEGIN`` (empty
  board, the engine opens), ``TURN x,y`` (the opponent's last move) or, when the
  engine's picture of the board is not the position minus one opponent move,
  ``BOARD`` + one ``x,y,1|2`` line per stone (in play order) + ``DONE``.  The
  engine answers ``x,y`` (or ``SUGGEST x,y``, confirmed with ``PLAY x,y``);
- ``END`` when the bot closes.

``MESSAGE`` lines are logged at INFO, ``DEBUG`` lines at DEBUG, anything else
that is not an answer at WARNING.  ``ERROR``/``UNKNOWN`` instead of a move raise
:class:`EngineProtocolError`.

Coordinates: ``x`` is the column from the left and ``y`` the row from the TOP,
both 0-based, exactly as :meth:`lanqi.games.gomoku.Move.gomocup` writes them (the
Gomocup manager draws [0,0] in the top-left corner).  The protocol itself never
says which way ``y`` runs, and gomoku rules (renju too) are symmetric under a
mirror, so a brain that thinks the other way round still plays correctly.

``INFO rule`` is a bit mask: 1 = exactly five wins, 2 = continuous game,
4 = renju, 8 = caro.  lanqi's rules map to 0 (freestyle), 1 (standard), 4 (renju).

>>> RULE_FLAGS["standard"], RULE_FLAGS["renju"]
(1, 4)
>>> parse_about('name="pbrain-x", version="1.0", author="A. B."')
{'name': 'pbrain-x', 'version': '1.0', 'author': 'A. B.'}
"""

from __future__ import annotations

import collections
import itertools
import logging
import re
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import ClassVar

from lanqi.bot.base import Bot, SeatView, think_time_ms
from lanqi.bot.engines.process import (
    EngineCrashed,
    EngineError,
    EngineProcess,
    EngineProtocolError,
    EngineTimeout,
    IllegalEngineMove,
)
from lanqi.games import gomoku
from lanqi.games.base import InvalidMoveError

__all__ = ["RULE_FLAGS", "UNLIMITED_MS", "GomocupEngine", "parse_about"]

log = logging.getLogger(__name__)

#: ``INFO rule`` for each lanqi gomoku rule.
RULE_FLAGS: dict[str, int] = {"freestyle": 0, "standard": 1, "renju": 4}
#: ``INFO time_left`` when the match time is unlimited (the protocol's value).
UNLIMITED_MS = 2_147_483_647

_MOVE_RE = re.compile(r"\s*(-?\d+)\s*,\s*(-?\d+)\s*")
_ABOUT_RE = re.compile(r'(\w+)\s*=\s*"([^"]*)"')
_ANSWER_WORDS = ("SUGGEST", "ERROR", "UNKNOWN")
_OWN, _OPPONENT = 1, 2


def parse_about(line: str) -> dict[str, str]:
    """The ``key="value"`` pairs of an ``ABOUT`` reply; old brains' free text is the name."""
    pairs = {key.lower(): value for key, value in _ABOUT_RE.findall(line)}
    if not pairs and line.strip():
        pairs = {"name": line.strip()}
    return pairs


def _first_word(line: str) -> str:
    parts = line.split(maxsplit=1)
    return parts[0].upper() if parts else ""


class GomocupEngine(Bot):
    """A gomoku engine speaking the Gomocup (Piskvork) protocol.

    Keyword arguments:

    - ``options``: extra ``INFO key value`` lines sent at the start of each game.
    - ``movetime``: a fixed ``timeout_turn`` in ms (benchmarks), whatever the clock.
    - ``max_memory``: ``INFO max_memory`` in bytes (0 = no limit).
    - ``overhead_ms``: kept back from the clock for the network.
    - ``default_movetime_ms``: ``timeout_turn`` in untimed games.
    - ``timeout_margin_ms``: how long past ``timeout_turn`` the engine may be
      silent before it counts as hung.
    - ``start_timeout_s``: the wait for answers to ``ABOUT``, ``START``, ``RESTART``.
    - ``line_ending``: the protocol says CR LF; most brains take plain LF (default).
    - ``memory_mb``: cap the brain's address space (also sent as ``max_memory`` when
      that is not given); ``cpus``: pin it to these cores; ``pause_waiting``: stop
      it (SIGSTOP) while the opponent thinks.
    """

    name: ClassVar[str] = "gomocup"
    variants: ClassVar[tuple[str, ...]] = ("gomoku",)
    quit_command: ClassVar[str] = "END"

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        options: Mapping[str, object] | None = None,
        movetime: int | None = None,
        max_memory: int = 0,
        cwd: str | Path | None = None,
        env: Mapping[str, str] | None = None,
        overhead_ms: int = 100,
        default_movetime_ms: int = 1000,
        timeout_margin_ms: int = 1000,
        start_timeout_s: float = 10.0,
        line_ending: str = "\n",
        memory_mb: int | None = None,
        cpus: Sequence[int] | None = None,
        pause_waiting: bool = False,
    ) -> None:
        argv = shlex.split(command) if isinstance(command, str) else [str(p) for p in command]
        if not argv:
            raise ValueError("empty engine command")
        if movetime is not None and movetime < 1:
            raise ValueError(f"movetime must be at least 1 ms, not {movetime}")
        self.options: dict[str, object] = dict(options or {})
        self.movetime = movetime
        self.max_memory = max_memory
        self.overhead_ms = overhead_ms
        self.default_movetime_ms = default_movetime_ms
        self.timeout_margin_ms = timeout_margin_ms
        self.start_timeout_s = start_timeout_s
        if memory_mb is not None and not max_memory:
            max_memory = memory_mb * 1024 * 1024  # the brain hears its cap too
            self.max_memory = max_memory
        #: stop the brain (SIGSTOP) while the opponent thinks
        self.pause_waiting = pause_waiting
        self.process = EngineProcess(
            argv, cwd=cwd, env=env, line_ending=line_ending, memory_mb=memory_mb, cpus=cpus
        )
        self.engine_name = self.process.name
        #: The ``ABOUT`` reply as a dict (``name``, ``version``, ``author``, ...).
        self.about: dict[str, str] = {}
        #: The engine's last ``MESSAGE`` lines.
        self.messages: collections.deque[str] = collections.deque(maxlen=20)
        #: Engine restarts after a crash or a hang.
        self.restarts = 0
        self._size: int | None = None  # board size given in START, None before START
        self._game_id: str | None = None
        # The stones the engine knows, in play order, or None when unsure.
        self._known: list[tuple[gomoku.Move, gomoku.Color]] | None = None
        self._broken = False
        self._launch()

    # -- lifetime ----------------------------------------------------------------

    def _launch(self) -> None:
        self.process.start()
        self._size = None
        self._game_id = None
        self._known = None
        self.process.send("ABOUT")
        try:
            reply = self.process.expect(
                lambda line: _first_word(line) not in ("MESSAGE", "DEBUG", ""),
                self.start_timeout_s,
                on_line=self._on_other_line,
                what="answer to ABOUT",
            )
        except EngineTimeout:
            log.warning("%s did not answer ABOUT; carrying on", self.engine_name)
            return
        except EngineCrashed:
            self.process.kill()
            raise
        if _first_word(reply) in ("UNKNOWN", "ERROR"):
            log.info("%s does not know ABOUT: %s", self.engine_name, reply)
            return
        self.about = parse_about(reply)
        self.engine_name = self.about.get("name", self.engine_name)

    def _relaunch(self) -> None:
        log.warning("%s: restarting the engine", self.engine_name)
        self.process.close(self.quit_command, grace_s=0.5)
        self.restarts += 1
        self._broken = False
        self._launch()

    def _ensure_running(self) -> None:
        if self._broken or not self.process.running:
            self._relaunch()

    def _fail(self) -> None:
        self._broken = True
        self.process.kill()

    def engine_id(self) -> str:
        """The engine's ``ABOUT`` name (its program's name until it answers)."""
        return self.engine_name

    def close(self) -> None:
        """Send ``END``, then make sure the engine process is gone."""
        self.process.close(self.quit_command)

    def __repr__(self) -> str:
        return f"<GomocupEngine {self.engine_name!r} {self.process!r}>"

    # -- lines that are not answers ------------------------------------------------------

    def _on_other_line(self, line: str) -> None:
        word = _first_word(line)
        if word == "MESSAGE":
            text = line.strip()[len("MESSAGE") :].strip()
            self.messages.append(text)
            log.info("%s says: %s", self.engine_name, text)
        elif word == "DEBUG":
            log.debug("%s debug: %s", self.engine_name, line.strip()[len("DEBUG") :].strip())
        elif word:
            log.warning("%s: ignoring unexpected line %r", self.engine_name, line)

    def _expect_ok(self, command: str) -> str:
        """Wait for the OK (or ERROR/UNKNOWN) that answers ``command``; return its word."""
        reply = self.process.expect(
            lambda line: _first_word(line) in ("OK", "ERROR", "UNKNOWN"),
            self.start_timeout_s,
            on_line=self._on_other_line,
            what=f"answer to {command}",
        )
        word = _first_word(reply)
        if word == "ERROR":
            raise EngineProtocolError(f"{self.engine_name} refused {command}: {reply.strip()}")
        return word

    # -- games -----------------------------------------------------------------------

    @staticmethod
    def _board_of(state: SeatView) -> gomoku.Board:
        if state.variant != "gomoku" or not isinstance(state.board, gomoku.Board):
            raise ValueError(f"a Gomocup engine cannot play {state.variant}")
        return state.board

    def on_game_start(self, state: SeatView) -> None:
        self._board_of(state)
        self._ensure_running()
        try:
            self._begin_game(state)
        except (EngineTimeout, EngineCrashed):
            self._fail()
            raise
        if self.pause_waiting:
            self.process.pause()

    def _start_board(self, size: int) -> None:
        """A clean board of ``size`` in the engine: RESTART if it can, else START."""
        if self._size == size:
            self.process.send("RESTART")
            if self._expect_ok("RESTART") == "OK":
                self._known = []
                return
            log.info("%s does not know RESTART: relaunching it", self.engine_name)
            self._relaunch()
        elif self._size is not None:
            self._relaunch()  # a new size: a fresh engine takes START again
        self.process.send(f"START {size}")
        if self._expect_ok(f"START {size}") != "OK":
            raise EngineProtocolError(f"{self.engine_name} does not know START")
        self._size = size
        self._known = []

    def _begin_game(self, state: SeatView) -> None:
        board = self._board_of(state)
        self._start_board(board.size)
        self._game_id = state.game_id
        turn_ms = self._turn_ms(state)
        match_ms = max(0, state.my_time_ms or 0) if state.remaining_ms is not None else 0
        infos: list[tuple[str, object]] = [
            ("timeout_turn", turn_ms),
            ("timeout_match", match_ms),
            ("max_memory", self.max_memory),
            ("rule", RULE_FLAGS[board.rule]),
            *self.options.items(),
        ]
        for key, value in infos:
            self.process.send(f"INFO {key} {value}")

    def _turn_ms(self, state: SeatView) -> int:
        """``timeout_turn``: the brain's time for this move, ending before the state's
        deadline (the protocol has no way to stop a brain that is thinking)."""
        if self.movetime is not None:
            to_deadline = state.ms_to_deadline()
            if to_deadline is None:
                return self.movetime
            return int(max(10.0, min(float(self.movetime), to_deadline)))
        if state.per_move_ms or state.remaining_ms is not None:
            return think_time_ms(state, overhead_ms=self.overhead_ms)
        return self.default_movetime_ms

    def wait_limit_ms(self, state: SeatView) -> int:
        """How long a move may take before the engine counts as hung: turn time + margin."""
        return self._turn_ms(state) + self.timeout_margin_ms

    @staticmethod
    def _history(board: gomoku.Board) -> list[tuple[gomoku.Move, gomoku.Color]]:
        """Every stone in play order: set-up stones (alternating colours), then the moves."""
        played = board.move_stack
        moved = set(played)
        setup = [
            [m for m in board.stones(color) if m not in moved]
            for color in (gomoku.Color.BLACK, gomoku.Color.WHITE)
        ]
        history: list[tuple[gomoku.Move, gomoku.Color]] = []
        for black, white in itertools.zip_longest(*setup):
            if black is not None:
                history.append((black, gomoku.Color.BLACK))
            if white is not None:
                history.append((white, gomoku.Color.WHITE))
        first = board.turn if len(played) % 2 == 0 else board.turn.other
        for ply, move in enumerate(played):
            history.append((move, first if ply % 2 == 0 else first.other))
        return history

    def choose_move(self, state: SeatView) -> str:
        """Ask the engine; return its move (``h8``) once the rules accept it.

        Raises :class:`IllegalEngineMove`, :class:`EngineProtocolError` (the
        engine answered ERROR or UNKNOWN), :class:`EngineTimeout` or
        :class:`EngineCrashed` (then the engine is killed and a fresh one
        starts for the next game or move).
        """
        board = self._board_of(state)
        if not self._broken and self._game_id == state.game_id:
            try:  # died by itself in the middle of this game: lost as a crash, not replayed
                self.process.check_alive("its turn")
            except EngineCrashed:
                self._fail()
                raise
        self._ensure_running()
        try:
            if self._game_id != state.game_id or self._size != board.size:
                self._begin_game(state)
            reply = self._ask(state, board)
        except (EngineTimeout, EngineCrashed):
            self._fail()
            raise
        except EngineError:
            self._known = None
            raise
        move = self._read_move(reply, board)
        if self.pause_waiting:
            self.process.pause()
        return move

    def _ask(self, state: SeatView, board: gomoku.Board) -> str:
        size = board.size
        history = self._history(board)
        left = self._time_left_ms(state)
        self.process.send(f"INFO time_left {left}")
        self.process.send(f"INFO timeout_turn {self._turn_ms(state)}")
        known = self._known
        if known is not None and not history and not known:
            self.process.send("BEGIN")
        elif (
            known is not None
            and len(history) == len(known) + 1
            and history[:-1] == known
            and history[-1][1] != board.turn
        ):
            self.process.send(f"TURN {history[-1][0].gomocup(size)}")
        else:
            if known is None or known:
                self._begin_game(state)  # a clean board (and the INFOs again)
            self.process.send("BOARD")
            for move, color in history:
                field = _OWN if color == board.turn else _OPPONENT
                self.process.send(f"{move.gomocup(size)},{field}")
            self.process.send("DONE")
        self._known = None  # until the engine has answered with a legal move
        wait_s = self.wait_limit_ms(state) / 1000
        reply = self._expect_answer(wait_s)
        if _first_word(reply) == "SUGGEST":
            suggested = reply.split(maxsplit=1)[1] if len(reply.split()) > 1 else ""
            self.process.send(f"PLAY {suggested.strip()}")
            reply = self._expect_answer(wait_s)
        word = _first_word(reply)
        if word in ("ERROR", "UNKNOWN"):
            raise EngineProtocolError(f"{self.engine_name} answered {reply.strip()!r}")
        self._known = history
        return reply

    def _time_left_ms(self, state: SeatView) -> int:
        if state.remaining_ms is None or state.per_move_ms:
            return UNLIMITED_MS
        return max(0, (state.my_time_ms or 0) - self.overhead_ms)

    def _expect_answer(self, wait_s: float) -> str:
        return self.process.expect(
            lambda line: _MOVE_RE.fullmatch(line) is not None or _first_word(line) in _ANSWER_WORDS,
            wait_s,
            on_line=self._on_other_line,
            what="move",
        )

    def _read_move(self, reply: str, board: gomoku.Board) -> str:
        fen = board.fen()
        known = self._known
        self._known = None
        text = reply.strip()
        try:
            move = gomoku.Move.from_gomocup(text, board.size)
        except (InvalidMoveError, ValueError) as exc:
            raise IllegalEngineMove(
                f"unreadable engine move {text!r}: {exc}", reply=reply, move=text, position=fen
            ) from None
        if not board.is_legal(move):
            raise IllegalEngineMove(
                f"illegal engine move {text!r} ({move})", reply=reply, move=text, position=fen
            )
        if known is not None:
            self._known = [*known, (move, board.turn)]
        return str(move)
