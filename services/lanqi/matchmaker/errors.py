"""The matchmaker's refusal: a stable code for the error reply and a message for people."""

from __future__ import annotations

__all__ = ["MatchmakerError"]


class MatchmakerError(Exception):
    def __init__(self, code: str, msg: str) -> None:
        super().__init__(msg)
        self.code = code
        self.msg = msg
