"""Why a bot lost a game it could not finish: the termination a record carries
(sent as the ``reason`` of its ``resign``)."""

from __future__ import annotations

from lanqi.bot.engines.process import (
    EngineCrashed,
    EngineOutOfMemory,
    EngineProtocolError,
    EngineTimeout,
    IllegalEngineMove,
)

__all__ = ["failure_reason"]

_LIMIT = 32  # the protocol's limit on a termination


def failure_reason(exc: BaseException) -> str:
    """``crash`` (``out of memory`` over a memory cap), ``hang``, ``illegal move h2h9``,
    ``unreadable output``, ``no move``, ``protocol error`` or, for a bot's own
    exception, ``bot error``."""
    if isinstance(exc, EngineOutOfMemory):
        return "out of memory"
    if isinstance(exc, EngineCrashed):
        return "crash"
    if isinstance(exc, EngineTimeout):
        return "hang"
    if isinstance(exc, IllegalEngineMove):
        if not exc.move:
            return "no move"
        if str(exc).startswith("unreadable"):
            return "unreadable output"
        return f"illegal move {' '.join(exc.move.split())}"[:_LIMIT]
    if isinstance(exc, EngineProtocolError):
        return "protocol error"
    return "bot error"
