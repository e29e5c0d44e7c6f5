"""Engine adapters: real engine programs playing as ordinary lanqi bots.

- :class:`~lanqi.bot.engines.uci.UciEngine`: xiangqi engines speaking UCI
  (Fairy-Stockfish, Pikafish);
- :class:`~lanqi.bot.engines.ucci.UcciEngine`: xiangqi engines speaking UCCI
  (ElephantEye and its kin);
- :class:`~lanqi.bot.engines.gomocup.GomocupEngine`: gomoku ``pbrain-*`` programs
  speaking the Gomocup protocol.

:func:`create_engine` builds one from a spec such as ``uci:/usr/games/fairy-stockfish``.
Errors share one base, :class:`EngineError`.  See ``docs/engines.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from lanqi.bot.base import Bot
from lanqi.bot.engines.gomocup import GomocupEngine
from lanqi.bot.engines.process import (
    EngineConfigError,
    EngineCrashed,
    EngineError,
    EngineOutOfMemory,
    EngineProcess,
    EngineProtocolError,
    EngineTimeout,
    IllegalEngineMove,
)
from lanqi.bot.engines.ucci import UcciEngine
from lanqi.bot.engines.uci import UciEngine, XiangqiEngine

__all__ = [
    "PROTOCOLS",
    "EngineConfigError",
    "EngineCrashed",
    "EngineError",
    "EngineOutOfMemory",
    "EngineProcess",
    "EngineProtocolError",
    "EngineTimeout",
    "GomocupEngine",
    "IllegalEngineMove",
    "UcciEngine",
    "UciEngine",
    "XiangqiEngine",
    "create_engine",
    "parse_engine_spec",
]

#: The adapter for each protocol prefix of an engine spec.
PROTOCOLS: dict[str, Callable[..., Bot]] = {
    "uci": UciEngine,
    "ucci": UcciEngine,
    "gomocup": GomocupEngine,
}


def parse_engine_spec(spec: str) -> tuple[str, str]:
    """Split ``protocol:command`` into its two parts.

    >>> parse_engine_spec("uci:/usr/games/fairy-stockfish")
    ('uci', '/usr/games/fairy-stockfish')
    >>> parse_engine_spec("gomocup:./pbrain-rapfi --threads 1")
    ('gomocup', './pbrain-rapfi --threads 1')
    """
    protocol, sep, command = spec.partition(":")
    protocol = protocol.strip().lower()
    if not sep or protocol not in PROTOCOLS or not command.strip():
        known = ", ".join(f"{name}:COMMAND" for name in PROTOCOLS)
        raise ValueError(f"engine spec {spec!r} must look like one of: {known}")
    return protocol, command.strip()


def create_engine(spec: str, *, options: Mapping[str, object] | None = None, **kwargs: Any) -> Bot:
    """Start the engine named by ``spec`` (``uci:PATH``, ``ucci:PATH``, ``gomocup:PATH``).

    ``options`` are engine options (UCI/UCCI ``setoption``; for Gomocup, extra
    ``INFO`` keys); other keywords go to the adapter class.  The command after
    the colon is split like a shell would (no shell runs).
    """
    protocol, command = parse_engine_spec(spec)
    adapter = PROTOCOLS[protocol]
    return adapter(command, options=options, **kwargs)
