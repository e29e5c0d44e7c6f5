"""Claim codes: how a player takes over a roster entry the director made for them.

A code is short and easy to read aloud or type (:data:`CODE_LENGTH` characters from
an alphabet without look-alikes such as 0/O and 1/I/L), shown once to the director
and kept only as a hash salted with the player's id.  It is used up by the ``hello``
that claims it; the director can issue a new one (``tour_reclaim``), which also ends
the session the player had.  See docs/protocol.md, "Rosters and claim codes".
"""

from __future__ import annotations

import hashlib
import secrets

__all__ = ["ALPHABET", "CODE_LENGTH", "claim_hash", "new_code", "normal_code"]

#: no 0/O, 1/I/L: a code read aloud or off a slip of paper is typed right
ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6


def new_code() -> str:
    """A fresh random code, e.g. ``K7QW2M``."""
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def normal_code(code: str) -> str:
    """The code as typed, in normal form: upper case, spaces and dashes dropped."""
    return "".join(ch for ch in code.upper() if ch not in " -")


def claim_hash(player_id: str, code: str) -> str:
    """What the store keeps of a code: its SHA-256 salted with the player's id."""
    return hashlib.sha256(f"{player_id}:{normal_code(code)}".encode()).hexdigest()
