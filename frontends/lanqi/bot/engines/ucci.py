"""Xiangqi engines that speak UCCI (ElephantEye and its kin) as lanqi bots.

UCCI is the Chinese-chess cousin of UCI: ``ucci``/``ucciok``, ``setoption NAME
VALUE`` (no ``name``/``value`` keywords), moves in ICCS (ranks 0-9, like lanqi),
``banmoves`` to forbid moves in the next search, and ``go`` with ``time``,
``increment``, ``opptime``, ``oppincrement`` or ``depth``/``nodes`` (``go draw``
when the opponent offers a draw; ``bestmove ... draw`` accepts or offers one,
``bestmove ... resign`` resigns).

Before UCCI 2.3 times were in seconds; an engine that announces the
``usemillisec`` option is switched to milliseconds.  Fairy-Stockfish speaks UCCI
too (start it and send ``ucci`` first): it takes milliseconds without the option.

The position is sent as the FEN after the last capture plus the moves since, as
UCCI recommends (a repetition cannot span a capture, so nothing is lost).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, ClassVar, Literal

from lanqi.bot.base import SeatView
from lanqi.bot.engines.uci import EngineOption, XiangqiEngine
from lanqi.games import xiangqi

__all__ = ["TimeUnit", "UcciEngine"]

log = logging.getLogger(__name__)

#: ``ms``: milliseconds; ``s``: whole seconds (UCCI before 2.3); ``auto``:
#: milliseconds if the engine has ``usemillisec`` (then switched on) or is
#: Fairy-Stockfish, else seconds.
TimeUnit = Literal["auto", "ms", "s"]


class UcciEngine(XiangqiEngine):
    """A xiangqi engine speaking UCCI.

    ``time_unit``: see :data:`TimeUnit`.  Other keywords: see
    :class:`~lanqi.bot.engines.uci.XiangqiEngine`.  A ``draw`` or ``resign`` the
    engine adds to its ``bestmove`` is the :class:`~lanqi.bot.base.PlayResult`'s
    ``offer_draw`` or ``resign``.

    Time control to ``go``: Fischer clocks give ``go time <own> increment <inc>
    opptime <opponent> oppincrement <inc>``; a per-move limit, a fixed
    ``movetime`` or an untimed game give ``go time <t> movestogo 1``; a fixed
    ``depth`` gives ``go depth <d>`` and ``nodes`` ``go nodes <n>``.
    """

    name: ClassVar[str] = "ucci"

    def __init__(
        self, command: str | Sequence[str], *, time_unit: TimeUnit = "auto", **kwargs: Any
    ) -> None:
        if time_unit not in ("auto", "ms", "s"):
            raise ValueError(f"time_unit must be 'auto', 'ms' or 's', not {time_unit!r}")
        self.time_unit_setting: TimeUnit = time_unit
        #: The unit in use, ``ms`` or ``s`` (``auto`` is resolved at start).
        self.time_unit: Literal["ms", "s"] = "ms" if time_unit == "auto" else time_unit
        #: the engine's last ``bestmove`` carried ``draw`` (it offers or accepts one)
        self.draw_offered = False
        #: the opponent offers a draw: the next search is ``go draw ...``, and the
        #: engine accepts by adding ``draw`` to its ``bestmove`` (:attr:`draw_offered`)
        self.draw_proposed = False
        super().__init__(command, **kwargs)

    # -- handshake and options ------------------------------------------------------

    def _handshake(self) -> None:
        self.engine_options = {}
        self.process.send("ucci")
        self.process.expect(
            lambda line: line.strip() == "ucciok",
            self.handshake_timeout_s,
            on_line=self._on_hello_line,
            what="ucciok (after ucci)",
        )

    def _find_option(self, key: str) -> EngineOption | None:
        # UCCI names have no spaces: Fairy-Stockfish writes "Skill Level" as Skill_Level.
        return super()._find_option(key) or super()._find_option(key.replace(" ", "_"))

    def _configure(self) -> None:
        millisec = self._find_option("usemillisec")
        if self.time_unit_setting == "auto":
            fairy = "fairy-stockfish" in self.engine_name.lower()
            self.time_unit = "ms" if millisec is not None or fairy else "s"
        if self.time_unit == "ms" and millisec is not None:
            self._set_option(millisec.name, True)
        log.debug("%s: times in %s", self.engine_name, self.time_unit)
        super()._configure()

    def _option_command(self, option: EngineOption, value: str | None) -> str:
        if value is None:
            return f"setoption {option.name}"
        return f"setoption {option.name} {value}"

    def _new_game_commands(self) -> list[str]:
        newgame = self._find_option("newgame")
        return [] if newgame is None else [self._option_command(newgame, None)]

    # -- position and search -----------------------------------------------------------

    def _position_commands(self, board: xiangqi.Board, banned: list[str]) -> list[str]:
        since_capture = min(board.halfmove_clock, len(board.move_stack))
        work = board.copy()
        for _ in range(since_capture):
            work.pop()
        command = f"position fen {work.fen()}"
        if since_capture:
            command += " moves " + " ".join(str(m) for m in board.move_stack[-since_capture:])
        commands = [command]
        if banned:
            commands.append("banmoves " + " ".join(banned))
        return commands

    def _time(self, ms: int) -> str:
        if self.time_unit == "ms":
            return str(max(1, ms))
        return str(max(1, ms // 1000))

    def _increment(self, ms: int) -> str:
        return self._time(ms) if ms else "0"

    def _go_command(self, state: SeatView, board: xiangqi.Board, banned: list[str]) -> str:
        go = self._go_limits(state)
        return "go draw" + go[len("go") :] if self.draw_proposed else go

    def on_draw_offer(self, state: SeatView) -> bool:
        """The opponent offers a draw: accepted at once when the engine's last
        ``bestmove`` carried ``draw`` (it wants one too); its next search is ``go draw``
        either way, so it can answer the offer with its move."""
        self.draw_proposed = True
        return self.draw_offered

    def _go_limits(self, state: SeatView) -> str:
        if self.depth is not None:
            return f"go depth {self.depth}"
        if self.nodes is not None:
            return f"go nodes {self.nodes}"
        if self.movetime is not None:
            return f"go time {self._time(self.movetime)} movestogo 1"
        if state.per_move_ms:
            think = self._think_ms(state)
            return f"go time {self._time(think)} movestogo 1"
        if state.remaining_ms is not None:
            me, them = state.seat, 1 - state.seat
            return (
                f"go time {self._time(self._clock_ms(state, me))} "
                f"increment {self._increment(state.increment_of(me))} "
                f"opptime {self._time(self._clock_ms(state, them))} "
                f"oppincrement {self._increment(state.increment_of(them))}"
            )
        return f"go time {self._time(self.default_movetime_ms)} movestogo 1"

    def _bestmove_words(self, reply: str) -> tuple[bool, bool]:
        self.draw_proposed = False  # answered (with or without draw)
        extras = reply.split()[2:]
        draw, resign = "draw" in extras, "resign" in extras
        self.draw_offered = draw
        if draw or resign:
            log.info("%s: bestmove with %s", self.engine_name, " ".join(extras))
        return draw, resign
