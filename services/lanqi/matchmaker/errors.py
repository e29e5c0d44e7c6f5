"""The matchmaker's refusal: a stable code for the error reply and a message for people."""

from __future__ import annotations

from lanqi.protocol.schema import ErrorCode

__all__ = ["MatchmakerError"]


class MatchmakerError(Exception):
    def __init__(self, code: ErrorCode, msg: str, *, retry_s: int | None = None) -> None:
        super().__init__(msg)
        self.code = code
        self.msg = msg
        #: seconds to wait before asking again (a lock-out, a rate limit)
        self.retry_s = retry_s
