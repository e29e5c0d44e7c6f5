"""``lanqi engine check``: does an engine keep to its protocol?

:func:`check_engine` starts the engine named by a spec (``uci:PATH``,
``ucci:PATH``, ``gomocup:PATH``), talks to it step by step the way a match would
and a little harder (fastchess's ``--compliance`` and GomocupJudge's tester are
the models), and returns a :class:`CheckReport`: one :class:`Finding` per step,
``ok``, ``FAIL`` (a deviation), ``note`` (worth knowing, not a deviation) or
``skip``.

UCI and UCCI (xiangqi): the handshake (``uciok``/``ucciok``, ``id name``, the
``option`` lines well-formed), ``isready``, a new game, unknown and malformed
input (an unknown command, an unknown option, an illegal move in ``position``,
a broken FEN: the engine must survive and answer ``isready``), ``position``
both ways, ``go`` on each kind of clock lanqi has (fixed depth and nodes, a
Fischer clock for Red and for Black with time odds, a time per move), each
``bestmove`` legal and in time, an infinite search that answers ``isready``
while it thinks, gives no ``bestmove`` until ``stop`` and a legal one after it,
pondering (``go ponder`` silent until ``ponderhit``; ``stop`` ends it), and
``quit`` (a clean exit, UCCI's ``bye``).

Gomocup (gomoku): ``ABOUT``, ``START`` answered ``OK``, the ``INFO`` lines,
``BEGIN``, ``TURN`` and ``BOARD`` each answered with a legal move within
``timeout_turn`` and within ``time_left``, an unknown command answered
``UNKNOWN``, a ``TURN`` on a taken cell survived, ``RESTART``, ``END``.

After a step that leaves the engine dead or hung it is started again (and
greeted) so the later steps still run; if even that fails the rest are skipped.

>>> Finding("isready", "fail", "no readyok within 2.0 s").line()
'FAIL  isready: no readyok within 2.0 s'
"""

from __future__ import annotations

import re
import shlex
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from lanqi.bot.engines.process import (
    EngineCrashed,
    EngineError,
    EngineProcess,
    EngineTimeout,
    describe_exit,
)
from lanqi.bot.engines.uci import EngineOption, fairy_to_iccs, iccs_to_fairy, parse_option
from lanqi.games import gomoku, xiangqi
from lanqi.games.base import InvalidMoveError

__all__ = ["CheckLimits", "CheckReport", "Finding", "check_engine"]

Status = Literal["ok", "fail", "note", "skip"]
_WORDS: dict[str, str] = {"ok": "ok", "fail": "FAIL", "note": "note", "skip": "skip"}
_OPTION_TYPES = frozenset({"check", "spin", "combo", "button", "string"})
# a position after a few moves (cannon to the centre, horse, chariot): both sides to move
_MIDGAME_MOVES = ("h2e2", "h9g7", "h0g2", "i9h9")
_ILLEGAL_MOVE = "a0a5"  # the chariot through its own pawn


@dataclass(frozen=True, slots=True)
class Finding:
    """One step's outcome: ``status`` and a one-line ``text``."""

    step: str
    status: Status
    text: str

    def line(self) -> str:
        return f"{_WORDS[self.status]:<5} {self.step}: {self.text}"


@dataclass(slots=True)
class CheckReport:
    """Every finding of a check, in order; :attr:`deviations` are the failures."""

    protocol: str
    command: str
    engine_name: str = ""
    findings: list[Finding] = field(default_factory=list)

    @property
    def deviations(self) -> list[Finding]:
        return [f for f in self.findings if f.status == "fail"]

    @property
    def clean(self) -> bool:
        return not self.deviations


@dataclass(frozen=True, slots=True)
class CheckLimits:
    """How long the checker waits (seconds) and the clocks it gives (milliseconds).

    ``answer_s``: the handshake and fixed-depth searches; ``ready_s``: ``readyok``
    after ``isready``; ``stop_s``: ``bestmove`` after ``stop`` or ``ponderhit``
    miss; ``quit_s``: the exit after ``quit``/``END``; ``margin_ms``: how far past
    its time an engine may answer (the pipe, a loaded machine); ``clock_ms`` the
    engine's own clock and ``opp_clock_ms`` the opponent's in the Fischer steps;
    ``movetime_ms`` the time per move.
    """

    answer_s: float = 10.0
    ready_s: float = 2.0
    stop_s: float = 2.0
    quit_s: float = 2.0
    margin_ms: int = 1000
    clock_ms: int = 1000
    increment_ms: int = 100
    opp_clock_ms: int = 30_000
    movetime_ms: int = 500


class _Lost(Exception):  # noqa: N818 - a control-flow signal, not an error to report
    """The engine died or hung in a step: the step has failed, restart it."""


class _Checker:
    """What the xiangqi and gomoku checkers share: the process, findings, restarts."""

    protocol = ""
    quit_command = "quit"

    def __init__(
        self,
        argv: Sequence[str],
        limits: CheckLimits,
        *,
        cwd: str | Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.limits = limits
        self.process = EngineProcess(argv, cwd=cwd, env=env)
        self.report = CheckReport(self.protocol, shlex.join(argv))
        self.step = ""
        self.reviving = False

    # -- findings ---------------------------------------------------------------------

    def ok(self, text: str) -> None:
        self.report.findings.append(Finding(self.step, "ok", text))

    def fail(self, text: str) -> None:
        if not self.reviving:  # a restart's own failures are not the engine's steps
            self.report.findings.append(Finding(self.step, "fail", text))

    def note(self, text: str) -> None:
        self.report.findings.append(Finding(self.step, "note", text))

    # -- running ----------------------------------------------------------------------

    def steps(self) -> list[tuple[str, Callable[[], None]]]:
        raise NotImplementedError

    def greet(self) -> None:
        """Start-up conversation after a restart (the handshake, quietly)."""
        raise NotImplementedError

    def run(self) -> CheckReport:
        try:
            self.process.start()
        except EngineCrashed as exc:
            self.step = "start"
            self.fail(_first(exc))
            return self.report
        try:
            steps = self.steps()
            for at, (name, action) in enumerate(steps):
                self.step = name
                try:
                    action()
                except _Lost:
                    revived = self._revive()
                except EngineError as exc:
                    self.fail(_first(exc))
                    revived = self._revive()
                else:
                    continue
                if not revived:
                    for later, _ in steps[at + 1 :]:
                        self.report.findings.append(
                            Finding(later, "skip", "not run: the engine could not be restarted")
                        )
                    break
        finally:
            self.process.kill()
        return self.report

    def _revive(self) -> bool:
        """Start a fresh engine after a failed step; False if it will not come up."""
        self.process.kill()
        self.reviving = True
        try:
            self.process.start()
            self.greet()
        except (EngineError, _Lost):
            return False
        finally:
            self.reviving = False
        return True

    def lost(self, text: str) -> _Lost:
        """Record a failure that leaves the engine unusable; raise the result."""
        self.fail(text)
        return _Lost(text)

    def read(self, predicate: Callable[[str], bool], timeout: float, what: str) -> str | None:
        """The first line matching ``predicate`` within ``timeout`` (None on a timeout);
        :class:`_Lost` (recorded) if the engine dies first."""
        try:
            return self.process.expect(predicate, timeout, on_line=self.on_line, what=what)
        except EngineTimeout:
            return None
        except EngineCrashed as exc:
            raise self.lost(f"the engine died waiting for {what}: {_first(exc)}") from None

    def on_line(self, line: str) -> None:
        """A line that was not the awaited one (subclasses judge it)."""

    def send(self, line: str) -> None:
        try:
            self.process.send(line)
        except EngineCrashed as exc:
            raise self.lost(f"the engine died before {line!r}: {_first(exc)}") from None

    def quit_step(self, farewell: str | None = None) -> None:
        """Send the quit command; the engine must exit by itself, with code 0."""
        proc = self.process
        self.send(self.quit_command)
        if farewell is not None:
            try:
                said: str | None = proc.expect(
                    lambda line: line.strip() == farewell, self.limits.quit_s, what=farewell
                )
            except EngineError:  # silent, or gone without a word
                said = None
            if said is None:
                self.note(f"no {farewell!r} after {self.quit_command} (its protocol asks for one)")
        deadline = time.monotonic() + self.limits.quit_s
        while proc.running and time.monotonic() < deadline:
            time.sleep(0.01)
        if proc.running:
            self.fail(f"still running {self.limits.quit_s:.1f} s after {self.quit_command}")
            proc.kill()
            return
        proc.close(quit_command=None, grace_s=0.0)
        code = proc.returncode
        if code == 0:
            self.ok(f"exited cleanly after {self.quit_command}")
        else:
            text = describe_exit(code) if code is not None else "no exit code"
            self.fail(f"ended with {text} after {self.quit_command} (0 expected)")


def _first(exc: BaseException) -> str:
    """An engine error in one line: its first, and the engine's last stderr line."""
    text = str(exc).splitlines()[0].removesuffix("; last stderr lines:")
    stderr = getattr(exc, "stderr", ())
    return f"{text}; its last stderr line: {stderr[-1].strip()!r}" if stderr else text


# -- xiangqi: UCI and UCCI ----------------------------------------------------------------


class _XiangqiChecker(_Checker):
    hello = "uci"
    hello_ok = "uciok"

    def __init__(
        self,
        argv: Sequence[str],
        limits: CheckLimits,
        *,
        variant: str = "xiangqi",
        cwd: str | Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(argv, limits, cwd=cwd, env=env)
        self.variant = variant
        self.options: dict[str, EngineOption] = {}
        self.fairy = False
        self.seconds = False  # UCCI before 2.3: times in seconds
        self.board = xiangqi.Board()
        self.search_faults: list[str] = []
        self.hello_lines: list[str] = []

    # -- protocol words -------------------------------------------------------------------

    def option_command(self, name: str, value: str | None) -> str:
        if value is None:
            return f"setoption name {name}"
        return f"setoption name {name} value {value}"

    def newgame(self) -> list[str]:
        return ["ucinewgame"]

    def go_fischer(self, red_ms: int, black_ms: int, red_inc: int, black_inc: int) -> str:
        return f"go wtime {red_ms} btime {black_ms} winc {red_inc} binc {black_inc}"

    def go_movetime(self, ms: int) -> str:
        return f"go movetime {ms}"

    def go_infinite(self) -> str:
        return "go infinite"

    def to_engine(self, iccs: str) -> str:
        return iccs_to_fairy(iccs) if self.fairy else iccs

    def from_engine(self, text: str) -> str:
        if self.fairy:
            return fairy_to_iccs(text)
        if re.fullmatch(r"[a-i][0-9][a-i][0-9]", text) is None:
            raise ValueError(f"not an ICCS move: {text!r}")
        return text

    # -- conversation ------------------------------------------------------------------------

    def on_line(self, line: str) -> None:
        tokens = line.split()
        if tokens[:1] == ["info"]:
            fault = self._info_fault(tokens)
            if fault is not None and len(self.search_faults) < 3:
                self.search_faults.append(fault)

    def _info_fault(self, tokens: list[str]) -> str | None:
        for key in ("depth", "seldepth", "nodes", "time", "nps", "multipv"):
            if key in tokens:
                at = tokens.index(key)
                if "string" in tokens[:at]:
                    return None
                if at + 1 >= len(tokens) or not tokens[at + 1].isdigit():
                    return f"info {key} without a number: {' '.join(tokens)!r}"
        if "score" in tokens and "string" not in tokens[: tokens.index("score")]:
            at = tokens.index("score")
            kind = tokens[at + 1 : at + 2]
            value = tokens[at + 2 : at + 3]
            if kind not in (["cp"], ["mate"]) or not value or not _is_int(value[0]):
                return f"info score is not 'cp N' or 'mate N': {' '.join(tokens)!r}"
        if "pv" in tokens and "string" not in tokens[: tokens.index("pv")]:
            pv = tokens[tokens.index("pv") + 1 :]
            if pv:
                try:
                    move = xiangqi.Move.from_iccs(self.from_engine(pv[0]))
                except (ValueError, InvalidMoveError):
                    return f"info pv starts with an unreadable move {pv[0]!r}"
                if not self.board.is_legal(move):
                    return f"info pv starts with an illegal move {pv[0]!r}"
        return None

    def handshake(self, quiet: bool) -> None:
        self.options = {}
        self.hello_lines = []
        self.send(self.hello)
        began = time.monotonic()
        got = self.read(
            lambda line: line.strip() == self.hello_ok,
            self.limits.answer_s,
            f"{self.hello_ok} (after {self.hello})",
        )
        if got is None:
            raise self.lost(
                f"no {self.hello_ok} within {self.limits.answer_s:.1f} s of {self.hello}"
            )
        took = time.monotonic() - began
        for line in self.hello_lines:
            tokens = line.split()
            if tokens[:2] == ["id", "name"]:
                self.report.engine_name = " ".join(tokens[2:])
            elif tokens[:1] == ["option"]:
                option = parse_option(line)
                if option is not None:
                    self.options[option.name] = option
        self.fairy = self.protocol == "uci" and (
            self.find("UCI_Variant") is not None
            or "fairy-stockfish" in self.report.engine_name.lower()
        )
        self.configure()
        if quiet:
            return
        if not self.report.engine_name:
            self.fail(f"no 'id name' before {self.hello_ok}")
        self.ok(
            f"{self.hello_ok} after {took:.2f} s; {self.report.engine_name or '(no name)'}, "
            f"{len(self.options)} options"
        )

    def greet(self) -> None:
        self.handshake(quiet=True)
        self.send("isready")
        if (
            self.read(lambda line: line.strip() == "readyok", self.limits.answer_s, "readyok")
            is None
        ):
            raise _Lost("no readyok after a restart")

    def configure(self) -> None:
        variant = self.find("UCI_Variant")
        if variant is not None and self.protocol == "uci":
            self.send(self.option_command(variant.name, self.variant))

    def find(self, name: str) -> EngineOption | None:
        for key, option in self.options.items():
            if key.lower() == name.lower():
                return option
        return None

    def collect_hello(self, line: str) -> None:
        self.hello_lines.append(line)

    def sync(self, after: str) -> bool:
        """``isready``; True when ``readyok`` comes within ``ready_s``.  A late one is
        waited for (``answer_s``) and reported with its delay."""
        self.send("isready")
        began = time.monotonic()
        limit = self.limits.ready_s
        if self.read(lambda line: line.strip() == "readyok", limit, "readyok") is not None:
            return True
        late = self.read(lambda line: line.strip() == "readyok", self.limits.answer_s, "readyok")
        if late is None:
            raise self.lost(f"no readyok within {limit:.1f} s of isready ({after})")
        self.fail(
            f"readyok came {time.monotonic() - began:.2f} s after isready ({after}); "
            f"the limit is {limit:.1f} s"
        )
        return False

    def position(self, moves: Sequence[str] = (), *, startpos: bool = False) -> None:
        self.board = xiangqi.Board()
        for move in moves:
            self.board.push(xiangqi.Move.from_iccs(move))
        head = "position startpos" if startpos else f"position fen {self.board.start_fen}"
        if moves:
            head += " moves " + " ".join(self.to_engine(m) for m in moves)
        self.send(head)

    def bestmove(
        self, go: str, limit_s: float, *, what: str, stop_late: bool = True
    ) -> tuple[str | None, float]:
        """Send ``go`` (if given) and wait up to ``limit_s`` for ``bestmove``; check it.

        Returns (the move in ICCS or None, seconds taken).  Too late: a failure, then
        ``stop`` and a short wait (the engine is restarted if even that brings
        nothing).  Every ``info`` line on the way is checked."""
        self.search_faults = []
        if go:
            self.send(go)
        began = time.monotonic()
        reply = self.read(_is_bestmove, limit_s, "bestmove")
        took = time.monotonic() - began
        for fault in self.search_faults:
            self.fail(f"{what}: {fault}")
        if reply is None:
            self.fail(f"{what}: no bestmove within {limit_s:.2f} s")
            if not stop_late:
                raise _Lost("no bestmove")
            self.send("stop")
            if self.read(_is_bestmove, self.limits.stop_s, "bestmove") is None:
                raise self.lost(f"{what}: no bestmove {self.limits.stop_s:.1f} s after stop either")
            return None, took
        return self.judge(reply, what), took

    def judge(self, reply: str, what: str) -> str | None:
        """The move of a ``bestmove`` line if it is legal (else a failure, None)."""
        tokens = reply.split()
        if tokens[0] == "nobestmove" or len(tokens) < 2:
            self.fail(f"{what}: {reply!r} in a position with legal moves")
            return None
        try:
            iccs = self.from_engine(tokens[1])
            move = xiangqi.Move.from_iccs(iccs)
        except (ValueError, InvalidMoveError):
            self.fail(f"{what}: unreadable move in {reply!r}")
            return None
        if not self.board.is_legal(move):
            self.fail(f"{what}: illegal move in {reply!r} (position {self.board.fen()})")
            return None
        if "ponder" in tokens[2:]:
            at = tokens.index("ponder", 2)
            after = self.board.copy()
            after.push(move)
            try:
                reply_move = xiangqi.Move.from_iccs(self.from_engine(tokens[at + 1]))
                legal = after.is_legal(reply_move)
            except (ValueError, InvalidMoveError, IndexError):
                legal = False
            if not legal:
                self.fail(f"{what}: the ponder move in {reply!r} is not a legal reply")
        return iccs

    # -- steps ------------------------------------------------------------------------------

    def steps(self) -> list[tuple[str, Callable[[], None]]]:
        return [
            ("handshake", self.step_handshake),
            ("options", self.step_options),
            ("isready", self.step_isready),
            ("new game", self.step_newgame),
            ("malformed input", self.step_malformed),
            ("position", self.step_position),
            ("go depth", self.step_depth),
            ("go nodes", self.step_nodes),
            ("clock: Fischer, Red to move", lambda: self.step_fischer(red=True)),
            ("clock: Fischer, Black to move", lambda: self.step_fischer(red=False)),
            ("clock: time per move", self.step_movetime),
            ("stop", self.step_stop),
            ("ponder", self.step_ponder),
            ("quit", self.step_quit),
        ]

    def step_handshake(self) -> None:
        self.handshake(quiet=False)

    def step_options(self) -> None:
        bad = 0
        for line in self.hello_lines:
            if line.split()[:1] != ["option"]:
                continue
            problem = _option_problem(parse_option(line))
            if problem is not None:
                bad += 1
                self.fail(f"{problem}: {line!r}")
        others = [
            line
            for line in self.hello_lines
            if line.split()[:1] not in (["id"], ["option"]) and line.strip()
        ]
        if others:
            self.note(f"{len(others)} other lines in the handshake, first {others[0]!r}")
        if not bad:
            self.ok(f"{len(self.options)} option lines well-formed")

    def step_isready(self) -> None:
        if self.sync("after the handshake"):
            self.ok("readyok")

    def step_newgame(self) -> None:
        for command in self.newgame():
            self.send(command)
        if self.sync("after a new game"):
            self.ok(" and ".join([*self.newgame(), "isready"]) + " answered")

    def step_malformed(self) -> None:
        illegal = self.to_engine(_ILLEGAL_MOVE)
        inputs = [
            "lanqi-check-unknown-command 1 2 3",
            self.option_command("LanqiCheckNoSuchOption", "1"),
            f"position startpos moves {illegal}",
            "position fen not/a/fen w",
        ]
        for text in inputs:
            self.send(text)
            if not self.process.running:
                raise self.lost(f"exited after {text!r}")
            if not self.sync(f"after {text!r}"):
                return
        self.ok("survived an unknown command, an unknown option, an illegal move, a broken FEN")

    def step_position(self) -> None:
        self.position(startpos=True)
        ok = self.sync("after position startpos")
        self.position(_MIDGAME_MOVES)
        ok = self.sync("after position fen ... moves ...") and ok
        if ok:
            self.ok("position startpos and position fen ... moves ... taken")

    def _fixed(self, go: str) -> None:
        self.position(_MIDGAME_MOVES[:2])
        move, took = self.bestmove(go, self.limits.answer_s, what=go)
        if move is not None:
            self.ok(f"{go}: bestmove {move} after {took:.2f} s")

    def step_depth(self) -> None:
        self._fixed("go depth 2")

    def step_nodes(self) -> None:
        self._fixed("go nodes 2000")

    def step_fischer(self, *, red: bool) -> None:
        limits = self.limits
        self.position(() if red else _MIDGAME_MOVES[:1])
        own, opp = limits.clock_ms, limits.opp_clock_ms
        inc = limits.increment_ms
        # time odds: the two clocks and increments differ, the engine must read its own
        go = self.go_fischer(own, opp, inc, 0) if red else self.go_fischer(opp, own, 0, inc)
        limit_s = (own + limits.margin_ms) / 1000
        move, took = self.bestmove(go, limit_s, what=go)
        if move is not None:
            self.ok(f"{go}: bestmove {move} after {took:.2f} s (own clock {own / 1000:.2f} s)")

    def step_movetime(self) -> None:
        limits = self.limits
        self.position(_MIDGAME_MOVES[:3])
        go = self.go_movetime(limits.movetime_ms)
        move, took = self.bestmove(go, (limits.movetime_ms + limits.margin_ms) / 1000, what=go)
        if move is not None:
            self.ok(f"{go}: bestmove {move} after {took:.2f} s")

    def step_stop(self) -> None:
        self.position(_MIDGAME_MOVES[:2])
        go = self.go_infinite()
        self.send(go)
        # 0.3 s to get going: no bestmove yet
        early = self.read(_is_bestmove, 0.3, "bestmove")
        if early is not None and _is_bestmove(early):
            self.fail(f"{go}: {early!r} before stop (an infinite search waits for stop)")
            self.sync("after an infinite search that ended by itself")
            return
        self.send("isready")
        premature: list[str] = []
        ready = self.read(
            lambda line: line.strip() == "readyok" or _is_bestmove(line),
            self.limits.ready_s,
            "readyok",
        )
        if ready is None:
            self.fail(f"no readyok within {self.limits.ready_s:.1f} s of isready while searching")
        elif _is_bestmove(ready):
            premature.append(ready)
            self.fail(f"{go}: {ready!r} before stop (an infinite search waits for stop)")
        began = time.monotonic()
        self.send("stop")
        reply = (
            premature[0] if premature else self.read(_is_bestmove, self.limits.stop_s, "bestmove")
        )
        if reply is None:
            raise self.lost(f"no bestmove within {self.limits.stop_s:.1f} s of stop")
        move = self.judge(reply, "bestmove after stop")
        if move is not None and not premature and ready is not None:
            took = time.monotonic() - began
            self.ok(f"readyok while searching; bestmove {move} {took:.2f} s after stop")

    def ponder_go(self) -> str:
        """``go ponder`` with Red's clock short (1 s + 0.1 s) and Black's long."""
        limits = self.limits
        go = self.go_fischer(limits.clock_ms, limits.opp_clock_ms, limits.increment_ms, 0)
        return "go ponder" + go[len("go") :]

    def can_ponder(self) -> bool:
        return self.find("Ponder") is not None

    def step_ponder(self) -> None:
        if not self.can_ponder():
            self.report.findings.append(
                Finding(self.step, "skip", "the engine has no Ponder option")
            )
            return
        if self.protocol == "uci":
            self.send(self.option_command(self.find("Ponder").name, "true"))  # type: ignore[union-attr]
        # a hit: silent until ponderhit, then a legal move in time
        self.position(_MIDGAME_MOVES[:2])
        go = self.ponder_go()
        self.send(go)
        early = self.read(_is_bestmove, 0.3, "bestmove")
        if early is not None:
            self.fail(f"{go}: {early!r} before ponderhit (a ponder search waits)")
        else:
            self.send("ponderhit")  # Red to move: its own clock is the short one
            limit_s = (self.limits.clock_ms + self.limits.margin_ms) / 1000
            move, took = self.bestmove("", limit_s, what="ponderhit")
            if move is not None:
                self.ok(f"{go}, then ponderhit: bestmove {move} {took:.2f} s later")
        # a miss: stop ends the ponder search
        self.position(_MIDGAME_MOVES[:3])
        go = self.ponder_go()
        self.send(go)
        early = self.read(_is_bestmove, 0.3, "bestmove")
        if early is not None:
            self.fail(f"{go}: {early!r} before stop (a ponder search waits)")
            return
        self.send("stop")
        reply = self.read(_is_bestmove, self.limits.stop_s, "bestmove")
        if reply is None:
            raise self.lost(f"no bestmove within {self.limits.stop_s:.1f} s of stop (pondering)")
        if self.judge(reply, "stop while pondering") is not None:
            self.ok(f"{go}, then stop: {reply.split()[0]} {reply.split()[1]}")
        if self.protocol == "uci":
            self.send(self.option_command(self.find("Ponder").name, "false"))  # type: ignore[union-attr]

    def step_quit(self) -> None:
        self.quit_step()

    def read(self, predicate: Callable[[str], bool], timeout: float, what: str) -> str | None:
        if what.startswith(self.hello_ok):
            try:
                return self.process.expect(
                    predicate, timeout, on_line=self.collect_hello, what=what
                )
            except EngineTimeout:
                return None
            except EngineCrashed as exc:
                raise self.lost(f"the engine died waiting for {what}: {_first(exc)}") from None
        return super().read(predicate, timeout, what)


class _UcciChecker(_XiangqiChecker):
    protocol = "ucci"
    hello = "ucci"
    hello_ok = "ucciok"

    def option_command(self, name: str, value: str | None) -> str:
        return f"setoption {name}" if value is None else f"setoption {name} {value}"

    def newgame(self) -> list[str]:
        return ["setoption newgame"] if self.find("newgame") is not None else []

    def configure(self) -> None:
        millisec = self.find("usemillisec")
        fairy = "fairy-stockfish" in self.report.engine_name.lower()
        self.seconds = millisec is None and not fairy
        if millisec is not None:
            self.send(self.option_command(millisec.name, "true"))

    def _t(self, ms: int) -> str:
        return str(max(1, ms // 1000)) if self.seconds else str(ms)

    def go_fischer(self, red_ms: int, black_ms: int, red_inc: int, black_inc: int) -> str:
        red = self.board.turn == xiangqi.Color.RED
        own, opp = (red_ms, black_ms) if red else (black_ms, red_ms)
        own_inc, opp_inc = (red_inc, black_inc) if red else (black_inc, red_inc)
        return (
            f"go time {self._t(own)} increment {self._t(own_inc) if own_inc else 0} "
            f"opptime {self._t(opp)} oppincrement {self._t(opp_inc) if opp_inc else 0}"
        )

    def go_movetime(self, ms: int) -> str:
        return f"go time {self._t(ms)} movestogo 1"

    def can_ponder(self) -> bool:
        return True  # part of UCCI itself, no option announces it

    def step_quit(self) -> None:
        self.quit_step("bye")


class _UciChecker(_XiangqiChecker):
    protocol = "uci"


# -- gomoku: Gomocup ---------------------------------------------------------------------


class _GomocupChecker(_Checker):
    protocol = "gomocup"
    quit_command = "END"

    def __init__(
        self,
        argv: Sequence[str],
        limits: CheckLimits,
        *,
        size: int = 15,
        rule: str = "freestyle",
        cwd: str | Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(argv, limits, cwd=cwd, env=env)
        self.size = size
        self.rule = rule
        self.board = gomoku.Board(size, rule)
        self.junk: list[str] = []

    def on_line(self, line: str) -> None:
        word = line.split(maxsplit=1)[0].upper() if line.strip() else ""
        if word not in ("MESSAGE", "DEBUG") and len(self.junk) < 3:
            self.junk.append(line)

    def _answer(self, line: str) -> bool:
        word = line.split(maxsplit=1)[0].upper() if line.strip() else ""
        return word in ("OK", "ERROR", "UNKNOWN") or _is_gomocup_move(line)

    def greet(self) -> None:
        self.start_game(quiet=True)

    def start_game(self, *, quiet: bool) -> bool:
        self.board = gomoku.Board(self.size, self.rule)
        self.send(f"START {self.size}")
        reply = self.read(self._answer, self.limits.answer_s, "OK")
        if reply is not None and reply.strip().upper() == "OK":
            self.info(self.limits.movetime_ms * 2, 1_000_000)
            return True
        if quiet:
            raise _Lost("no OK to START")
        if reply is None:
            self.fail(f"no OK within {self.limits.answer_s:.1f} s of START {self.size}")
        else:
            self.fail(f"START {self.size} answered {reply!r}, not OK")
        return False

    def info(self, turn_ms: int, left_ms: int) -> None:
        rule = {"freestyle": 0, "standard": 1, "renju": 4}.get(self.rule, 0)
        for line in (
            f"INFO timeout_turn {turn_ms}",
            f"INFO timeout_match {left_ms}",
            "INFO max_memory 0",
            f"INFO rule {rule}",
            f"INFO time_left {left_ms}",
            "INFO game_type 1",
        ):
            self.send(line)

    def move(self, command: Sequence[str], limit_s: float, what: str) -> str | None:
        """Send ``command`` (lines), wait for the brain's move, check and play it."""
        self.junk = []
        for line in command:
            self.send(line)
        began = time.monotonic()
        reply = self.read(self._answer, limit_s, "a move")
        took = time.monotonic() - began
        for junk in self.junk:
            self.fail(f"{what}: unexpected line {junk!r} (only MESSAGE/DEBUG may come between)")
        if reply is None:
            raise self.lost(f"{what}: no move within {limit_s:.2f} s")
        if not _is_gomocup_move(reply):
            self.fail(f"{what}: answered {reply!r}, not a move x,y")
            return None
        try:
            move = gomoku.Move.from_gomocup(reply.strip(), self.size)
        except (ValueError, InvalidMoveError):
            self.fail(f"{what}: {reply!r} is off the {self.size}x{self.size} board")
            return None
        if not self.board.is_legal(move):
            self.fail(f"{what}: {reply!r} is not a legal move (taken or forbidden)")
            return None
        self.board.push(move)
        self.ok(f"{what}: {reply.strip()} after {took:.2f} s")
        return reply.strip()

    def opponent(self) -> str:
        """A legal move for the checker's side, near the centre; played on the board."""
        centre = self.size // 2
        for radius in range(self.size):
            for dy in range(-radius, radius + 1):
                for dx in range(-radius, radius + 1):
                    x, y = centre + dx, centre + dy
                    if not (0 <= x < self.size and 0 <= y < self.size):
                        continue
                    move = gomoku.Move.from_gomocup(f"{x},{y}", self.size)
                    if self.board.is_legal(move):
                        self.board.push(move)
                        return f"{x},{y}"
        raise self.lost("no move left for the checker")

    def steps(self) -> list[tuple[str, Callable[[], None]]]:
        return [
            ("ABOUT", self.step_about),
            ("START", self.step_start),
            ("BEGIN", self.step_begin),
            ("TURN", self.step_turn),
            ("clock: timeout_turn", self.step_turn_limit),
            ("clock: time_left", self.step_time_left),
            ("BOARD", self.step_board),
            ("unknown command", self.step_unknown),
            ("illegal input", self.step_illegal),
            ("RESTART", self.step_restart),
            ("END", self.step_end),
        ]

    def step_about(self) -> None:
        self.send("ABOUT")
        reply = self.read(lambda line: bool(line.strip()), self.limits.answer_s, "ABOUT")
        if reply is None:
            self.fail(f"no answer within {self.limits.answer_s:.1f} s of ABOUT")
            return
        pairs = dict(re.findall(r'(\w+)\s*=\s*"([^"]*)"', reply))
        if "name" not in pairs:
            self.note(f'ABOUT answered {reply!r}, without name="..."')
            self.report.engine_name = reply.strip()
            return
        self.report.engine_name = pairs["name"]
        self.ok(reply.strip())

    def step_start(self) -> None:
        if self.start_game(quiet=False):
            self.ok(f"START {self.size}: OK")

    def step_begin(self) -> None:
        limit_s = (self.limits.movetime_ms * 2 + self.limits.margin_ms) / 1000
        self.move(["BEGIN"], limit_s, "BEGIN")

    def step_turn(self) -> None:
        limit_s = (self.limits.movetime_ms * 2 + self.limits.margin_ms) / 1000
        opp = self.opponent()
        self.move([f"TURN {opp}"], limit_s, f"TURN {opp}")

    def step_turn_limit(self) -> None:
        turn = self.limits.movetime_ms
        opp = self.opponent()
        self.move(
            [f"INFO timeout_turn {turn}", "INFO time_left 1000000", f"TURN {opp}"],
            (turn + self.limits.margin_ms) / 1000,
            f"timeout_turn {turn}, TURN {opp}",
        )

    def step_time_left(self) -> None:
        left = self.limits.clock_ms
        opp = self.opponent()
        self.move(
            ["INFO timeout_turn 30000", f"INFO time_left {left}", f"TURN {opp}"],
            (left + self.limits.margin_ms) / 1000,
            f"timeout_turn 30000, time_left {left}, TURN {opp}",
        )

    def _board_lines(self) -> list[str]:
        lines = ["BOARD"]
        mine = len(self.board.move_stack) % 2  # the brain moves next: its stones' parity
        for ply, move in enumerate(self.board.move_stack):
            lines.append(f"{move.gomocup(self.size)},{1 if ply % 2 == mine else 2}")
        lines.append("DONE")
        return lines

    def step_board(self) -> None:
        self.opponent()
        limit_s = (self.limits.movetime_ms * 2 + self.limits.margin_ms) / 1000
        self.info(self.limits.movetime_ms * 2, 1_000_000)
        self.move(self._board_lines(), limit_s, f"BOARD with {len(self.board.move_stack)} stones")

    def step_unknown(self) -> None:
        self.send("LANQICHECK 1 2 3")
        reply = self.read(lambda line: bool(line.strip()), self.limits.ready_s, "UNKNOWN")
        if reply is None:
            self.fail(f"no answer within {self.limits.ready_s:.1f} s to an unknown command")
        elif reply.split()[0].upper() != "UNKNOWN":
            self.fail(f"answered {reply!r} to an unknown command (UNKNOWN expected)")
        else:
            self.ok(reply.strip())

    def step_illegal(self) -> None:
        taken = self.board.move_stack[0].gomocup(self.size)
        self.send(f"TURN {taken}")
        reply = self.read(lambda line: bool(line.strip()), self.limits.ready_s, "ERROR")
        if reply is not None and reply.split()[0].upper() == "ERROR":
            self.ok(f"TURN {taken} on a taken cell: {reply.strip()}")
        elif reply is not None:
            self.note(f"TURN {taken} on a taken cell answered {reply!r} (ERROR expected)")
        else:
            self.note(f"TURN {taken} on a taken cell: no answer (ERROR expected)")
        if not self.process.running:
            raise self.lost("exited after a TURN on a taken cell")

    def step_restart(self) -> None:
        self.board = gomoku.Board(self.size, self.rule)
        self.send("RESTART")
        reply = self.read(
            lambda line: (
                line.split(maxsplit=1)[0].upper() in ("OK", "UNKNOWN", "ERROR")
                if line.strip()
                else False
            ),
            self.limits.answer_s,
            "OK",
        )
        if reply is None:
            raise self.lost(f"no answer within {self.limits.answer_s:.1f} s of RESTART")
        if reply.strip().upper() != "OK":
            self.note(f"RESTART answered {reply!r}: lanqi starts the brain afresh for each game")
            return
        limit_s = (self.limits.movetime_ms * 2 + self.limits.margin_ms) / 1000
        self.move(["BEGIN"], limit_s, "RESTART, OK, BEGIN")

    def step_end(self) -> None:
        self.quit_step()


def _is_gomocup_move(line: str) -> bool:
    return re.fullmatch(r"\s*-?\d+\s*,\s*-?\d+\s*", line) is not None


def _is_bestmove(line: str) -> bool:
    word = line.split(maxsplit=1)[0] if line.strip() else ""
    return word in ("bestmove", "nobestmove")


def _is_int(text: str) -> bool:
    return re.fullmatch(r"[+-]?\d+", text) is not None


def _option_problem(option: EngineOption | None) -> str | None:
    """What is wrong with an ``option`` line (None if nothing)."""
    if option is None:
        return "an option line without a name"
    kind = option.type.lower()
    if kind not in _OPTION_TYPES:
        if kind == "string" or option.type == "string":
            return None
        return f"option {option.name!r} has an unknown type {option.type!r}"
    if kind == "spin":
        if option.min is None or option.max is None or option.default is None:
            return f"spin option {option.name!r} lacks min, max or default"
        if not _is_int(option.default) or not option.min <= int(option.default) <= option.max:
            return f"spin option {option.name!r}: default {option.default} not in its range"
    if kind == "check" and (option.default or "").lower() not in ("true", "false"):
        return f"check option {option.name!r}: default {option.default!r} is not true or false"
    if (
        kind == "combo"
        and option.default is not None
        and option.vars
        and option.default.lower() not in (v.lower() for v in option.vars)
    ):
        return f"combo option {option.name!r}: default {option.default!r} not among its vars"
    return None


def check_engine(
    spec: str,
    *,
    variant: str | None = None,
    rule: str = "freestyle",
    size: int = 15,
    limits: CheckLimits | None = None,
    cwd: str | Path | None = None,
    env: Mapping[str, str] | None = None,
) -> CheckReport:
    """Check the engine of ``spec`` (``uci:PATH``, ``ucci:PATH``, ``gomocup:PATH``).

    ``variant`` is the ``UCI_Variant`` set when the engine has one (default
    ``xiangqi``); ``rule`` and ``size`` the gomoku game a Gomocup brain is asked to
    play.  Raises ``ValueError`` for a spec that names no protocol.
    """
    protocol, _, command = spec.partition(":")
    protocol = protocol.strip().lower()
    if protocol not in ("uci", "ucci", "gomocup") or not command.strip():
        raise ValueError(
            f"engine spec {spec!r} must be uci:COMMAND, ucci:COMMAND or gomocup:COMMAND"
        )
    argv = shlex.split(command)
    limits = limits or CheckLimits()
    checker: _Checker
    if protocol == "gomocup":
        checker = _GomocupChecker(argv, limits, size=size, rule=rule, cwd=cwd, env=env)
    elif protocol == "ucci":
        checker = _UcciChecker(argv, limits, variant=variant or "xiangqi", cwd=cwd, env=env)
    else:
        checker = _UciChecker(argv, limits, variant=variant or "xiangqi", cwd=cwd, env=env)
    return checker.run()
