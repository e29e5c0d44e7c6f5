"""Bots by name: the built-in players, engine adapters and your own classes.

``bot_factory(spec, ...)`` turns a command-line spec into a function that makes
one fresh bot per game:

- ``builtin`` (every game: each registered variant's built-in AI at ``level``),
  ``VARIANT-ai`` (one variant's: ``xiangqi-ai``, ``gomoku-ai``), ``random``,
  ``greedy`` (gomoku, one ply);
- ``uci:/path/to/engine`` (xiangqi: Fairy-Stockfish, Pikafish),
  ``ucci:/path/to/engine`` (ElephantEye style), ``gomocup:/path/to/pbrain``;
- ``python:package.module:ClassName`` (a :class:`~lanqi.bot.base.Bot` subclass of
  yours; ``--option key=value`` pairs are passed to its constructor).
"""

from __future__ import annotations

import importlib
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from lanqi.bot.base import Bot, SeatView
from lanqi.games.registry import VARIANTS, variant_spec

__all__ = [
    "AISettings",
    "BuiltinBot",
    "MakeAI",
    "bot_factory",
    "bot_names",
    "builtin_ai",
    "variants_of",
]

#: the bots named by a word, besides each variant's ``VARIANT-ai``
_PLAIN_NAMES = ("builtin", "random", "greedy")


@dataclass(frozen=True, slots=True)
class AISettings:
    """What a built-in AI is made with: its level (clamped by the variant's spec), a
    seed, and the limits a caller sets (ms per move, depth, nodes; None: the level's)."""

    level: int
    seed: int | None = None
    time_ms: int | None = None
    depth: int | None = None
    nodes: int | None = None


#: a variant's built-in AI factory, named by its spec's ``ai`` (``module:function``)
MakeAI = Callable[[AISettings], Bot]


def _ai_variants() -> tuple[str, ...]:
    return tuple(name for name, spec in VARIANTS.items() if spec.ai is not None)


def bot_names() -> tuple[str, ...]:
    """The bots named by a word: ``builtin``, each variant's ``VARIANT-ai``, ``random``,
    ``greedy`` (the variants' from the registry).

    >>> bot_names()
    ('builtin', 'xiangqi-ai', 'gomoku-ai', 'random', 'greedy')
    """
    return ("builtin", *(f"{name}-ai" for name in _ai_variants()), *_PLAIN_NAMES[1:])


def builtin_ai(
    variant: str,
    *,
    level: int | None = None,
    seed: int | None = None,
    time_ms: int | None = None,
    depth: int | None = None,
    nodes: int | None = None,
) -> Bot:
    """``variant``'s built-in AI at ``level`` (clamped by its spec, the strongest for
    None): the one place the GUI, ``lanqi bot`` and ``lanqi match`` make one.

    The spec names its factory as ``module:function`` because the rules core may not
    import the frontends (the bots live here); this resolves the name, as a package
    manager resolves an entry point.  Raises ValueError for a variant without one.

    >>> builtin_ai("gomoku", level=9).engine_id()
    'lanqi built-in gomoku AI level 5'
    """
    spec = variant_spec(variant)
    if spec.ai is None:
        raise ValueError(f"{variant} has no built-in AI")
    module_name, _, function = spec.ai.partition(":")
    make: MakeAI = getattr(importlib.import_module(module_name), function)
    return make(AISettings(spec.ai_level(level), seed, time_ms, depth, nodes))


class BuiltinBot(Bot):
    """The built-in AI of every registered variant that has one, at one level (each
    variant clamps it to its own levels: 1 weakest .. 8 for xiangqi, 5 for gomoku)."""

    name: ClassVar[str] = "builtin"
    variants: ClassVar[tuple[str, ...]] = _ai_variants()

    def __init__(
        self, level: int = 5, seed: int | None = None, move_time_ms: int | None = None
    ) -> None:
        # every variant's AI now, off the clock (the gomoku AI builds its tables)
        self._by_variant: dict[str, Bot] = {
            variant: builtin_ai(variant, level=level, seed=seed, time_ms=move_time_ms)
            for variant in _ai_variants()
        }
        self.level = level

    def engine_id(self) -> str:
        return f"lanqi built-in AI level {self.level}"

    def _for(self, state: SeatView) -> Bot:
        return self._by_variant[state.variant]

    def choose_move(self, state: SeatView) -> str:
        return self._for(state).choose_move(state)

    def on_game_start(self, state: SeatView) -> None:
        self._for(state).on_game_start(state)

    def on_game_end(self, state: SeatView, result: str, termination: str) -> None:
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
    ai_variant = kind.removesuffix("-ai")
    if kind.endswith("-ai") and ai_variant in _ai_variants():
        return lambda: builtin_ai(ai_variant, level=level, seed=seed, time_ms=movetime, depth=depth)
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
        f"unknown bot {spec!r}: use one of {', '.join(bot_names())}, "
        "uci:PROGRAM, ucci:PROGRAM, gomocup:PROGRAM or python:module:Class"
    )


def variants_of(spec: str) -> tuple[str, ...]:
    """The games a bot spec can play: ``VARIANT-ai`` its variant, ``builtin`` every
    variant with a built-in AI, an engine adapter or ``greedy`` the games of its
    class, anything else every registered variant."""
    kind = spec.partition(":")[0]
    if kind.endswith("-ai") and kind.removesuffix("-ai") in VARIANTS:
        return (kind.removesuffix("-ai"),)
    if kind == "builtin":
        return _ai_variants()
    adapters = {
        "uci": ("lanqi.bot.engines.uci", "UciEngine"),
        "ucci": ("lanqi.bot.engines.ucci", "UcciEngine"),
        "gomocup": ("lanqi.bot.engines.gomocup", "GomocupEngine"),
        "greedy": ("lanqi.bot.simple", "GreedyGomokuBot"),
    }
    if kind in adapters:
        module, name = adapters[kind]
        cls: type[Bot] = getattr(importlib.import_module(module), name)
        return cls.variants
    return tuple(VARIANTS)
