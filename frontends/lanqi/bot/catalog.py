"""Bots by name: the built-in players, engine adapters and your own classes.

``bot_factory(spec, ...)`` turns a command-line spec into a function that makes
one fresh bot per game:

- ``builtin`` (both games: the xiangqi AI and the gomoku AI at ``level``),
  ``xiangqi-ai``, ``gomoku-ai``, ``random``, ``greedy`` (gomoku, one ply);
- ``uci:/path/to/engine`` (xiangqi: Fairy-Stockfish, Pikafish),
  ``ucci:/path/to/engine`` (ElephantEye style), ``gomocup:/path/to/pbrain``;
- ``python:package.module:ClassName`` (a :class:`~lanqi.bot.base.Bot` subclass of
  yours; ``--option key=value`` pairs are passed to its constructor).
"""

from __future__ import annotations

import importlib
import shlex
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from lanqi.bot.base import Bot, GameState

__all__ = ["BUILTIN_NAMES", "BuiltinBot", "bot_factory", "variants_of"]

BUILTIN_NAMES = ("builtin", "xiangqi-ai", "gomoku-ai", "random", "greedy")


class BuiltinBot(Bot):
    """The built-in AIs for both games, at one level (1 weakest .. 8 for xiangqi, 5 for gomoku)."""

    name: ClassVar[str] = "builtin"
    variants: ClassVar[tuple[str, ...]] = ("xiangqi", "gomoku")

    def __init__(
        self, level: int = 5, seed: int | None = None, move_time_ms: int | None = None
    ) -> None:
        from lanqi.bot.gomoku_ai import GomokuAI
        from lanqi.bot.xiangqi_ai import XiangqiAI

        self.xiangqi = XiangqiAI(level=max(1, min(8, level)), seed=seed, move_time_ms=move_time_ms)
        self.gomoku = GomokuAI(
            level=max(1, min(5, (level + 1) // 2 + 1)), seed=seed, time_ms=move_time_ms
        )
        self._by_variant: dict[str, Bot] = {"xiangqi": self.xiangqi, "gomoku": self.gomoku}
        self.level = level

    def engine_id(self) -> str:
        return f"lanqi built-in AI level {self.level}"

    def _for(self, state: GameState) -> Bot:
        return self._by_variant[state.variant]

    def choose_move(self, state: GameState) -> str:
        return self._for(state).choose_move(state)

    def on_game_start(self, state: GameState) -> None:
        self._for(state).on_game_start(state)

    def on_game_end(self, state: GameState, result: str, termination: str) -> None:
        self._for(state).on_game_end(state, result, termination)


def _number(value: object) -> object:
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return value
    return value


def bot_factory(
    spec: str,
    *,
    level: int = 5,
    seed: int | None = None,
    options: Mapping[str, object] | None = None,
    depth: int | None = None,
    movetime: int | None = None,
) -> Callable[[], Bot]:
    """A function making one bot per game for ``spec``; raises ValueError for a bad spec."""
    opts = {k: _number(v) for k, v in (options or {}).items()}
    kind, _, rest = spec.partition(":")
    if kind == "builtin":
        return lambda: BuiltinBot(level=level, seed=seed, move_time_ms=movetime)
    if kind == "xiangqi-ai":
        from lanqi.bot.xiangqi_ai import XiangqiAI

        return lambda: XiangqiAI(level=level, seed=seed, depth=depth, move_time_ms=movetime)
    if kind == "gomoku-ai":
        from lanqi.bot.gomoku_ai import GomokuAI

        return lambda: GomokuAI(level=max(1, min(5, level)), seed=seed, time_ms=movetime)
    if kind == "random":
        from lanqi.bot.simple import RandomBot

        return lambda: RandomBot(seed=seed)
    if kind == "greedy":
        from lanqi.bot.simple import GreedyGomokuBot

        return lambda: GreedyGomokuBot(seed=seed)
    if kind in ("uci", "ucci", "gomocup"):
        if not rest:
            raise ValueError(f"{kind}: name the engine program, e.g. {kind}:/usr/games/engine")
        command = shlex.split(rest)
        if kind == "uci":
            from lanqi.bot.engines.uci import UciEngine

            return lambda: UciEngine(command, options=opts, depth=depth, movetime=movetime)
        if kind == "ucci":
            from lanqi.bot.engines.ucci import UcciEngine

            return lambda: UcciEngine(command, options=opts, depth=depth, movetime=movetime)
        from lanqi.bot.engines.gomocup import GomocupEngine

        return lambda: GomocupEngine(command, options=opts, movetime=movetime)
    if kind == "python":
        module_name, _, class_name = rest.rpartition(":")
        if not module_name or not class_name:
            raise ValueError("python: give module:ClassName, e.g. python:mybots.greedy:Greedy")
        try:
            cls: Any = getattr(importlib.import_module(module_name), class_name)
        except (ImportError, AttributeError) as exc:
            raise ValueError(f"cannot load {rest}: {exc}") from None
        if not (isinstance(cls, type) and issubclass(cls, Bot)):
            raise ValueError(f"{rest} is not a lanqi.bot.base.Bot subclass")
        return lambda: cls(**opts)
    raise ValueError(
        f"unknown bot {spec!r}: use one of {', '.join(BUILTIN_NAMES)}, "
        "uci:PROGRAM, ucci:PROGRAM, gomocup:PROGRAM or python:module:Class"
    )


def variants_of(spec: str) -> tuple[str, ...]:
    """The games a bot spec can play."""
    kind = spec.partition(":")[0]
    if kind in ("xiangqi-ai", "uci", "ucci"):
        return ("xiangqi",)
    if kind in ("gomoku-ai", "greedy", "gomocup"):
        return ("gomoku",)
    return ("xiangqi", "gomoku")
