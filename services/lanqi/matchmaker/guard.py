"""Limits for people who try things: claim code guessing, name squatting, lobby floods.

Pure logic with the time passed in (monotonic milliseconds); the service owns the
sockets and asks here before it acts.  Limits are per name and per client address
(the ``Peer-Address`` ZeroMQ gives each received message); addresses in
:attr:`Guard.trusted` (this machine, by default: the web gateway and the director's
tools speak for many people from there) are limited per name only.  Nothing here is
stored: a restart of the matchmaker forgets every count.  See docs/protocol.md,
"People who try things".

>>> guard = Guard()
>>> for _ in range(CLAIM_TRIES_PER_NAME):
...     guard.claim_failed("ann", "10.0.0.9", now=0.0)
>>> try:
...     guard.check_claim("Ann", "10.0.0.7", now=1_000.0)
... except MatchmakerError as exc:
...     print(exc.code, exc.retry_s)
locked_out 29
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

from lanqi.matchmaker.errors import MatchmakerError

__all__ = [
    "CLAIM_TRIES_PER_ADDRESS",
    "CLAIM_TRIES_PER_NAME",
    "LOCK_FIRST_MS",
    "LOCK_MAX_MS",
    "NAMES_PER_ADDRESS",
    "NAME_WINDOW_MS",
    "POSTS_PER_ADDRESS",
    "POST_WINDOW_MS",
    "Guard",
    "Strikes",
]

#: wrong claim codes for one name before it is locked out
CLAIM_TRIES_PER_NAME = 5
#: wrong claim codes from one address (any names) before it is locked out
CLAIM_TRIES_PER_ADDRESS = 20
#: the first lock-out; each next one of the same name or address lasts twice as long
LOCK_FIRST_MS = 30_000.0
LOCK_MAX_MS = 3_600_000.0
#: new names one address may make in NAME_WINDOW_MS (a classroom machine: a few)
NAMES_PER_ADDRESS = 10
NAME_WINDOW_MS = 600_000.0
#: seeks and challenges one address may post in POST_WINDOW_MS
POSTS_PER_ADDRESS = 20
POST_WINDOW_MS = 10_000.0
#: this machine: the web gateway and the director's tools, many people behind one address
LOCAL_ADDRESSES = frozenset({"127.0.0.1", "::1", "::ffff:127.0.0.1"})


@dataclass(slots=True)
class Strikes:
    """Wrong codes held against one name or address."""

    failures: int = 0
    locks: int = 0
    until: float = 0.0  # monotonic ms; locked while now < until

    def retry_s(self, now: float) -> int:
        return max(0, math.ceil((self.until - now) / 1000.0))


def _wait_s(until: float, now: float) -> int:
    return max(1, math.ceil((until - now) / 1000.0))


@dataclass(slots=True)
class Guard:
    trusted: frozenset[str] = LOCAL_ADDRESSES
    names: dict[str, Strikes] = field(default_factory=dict)  # by name, folded case
    addresses: dict[str, Strikes] = field(default_factory=dict)
    new_names: dict[str, deque[float]] = field(default_factory=dict)
    posts: dict[str, deque[float]] = field(default_factory=dict)
    muted: set[str] = field(default_factory=set)  # player ids
    removed: set[str] = field(default_factory=set)  # player ids

    def limited(self, address: str) -> bool:
        """Whether ``address`` is limited as one person ("": not known, as on an
        ``ipc://`` or ``inproc://`` socket, and a trusted address are not)."""
        return bool(address) and address not in self.trusted

    # ------------------------------------------------------------ claim codes

    def check_claim(self, name: str, address: str, now: float) -> None:
        """``locked_out`` while the name or the address is locked out."""
        strikes = self.names.get(name.casefold())
        if strikes is not None and now < strikes.until:
            raise MatchmakerError(
                "locked_out",
                f"too many wrong claim codes for {name!r}; wait {_wait_s(strikes.until, now)} s"
                f" or ask the director (lanqi lobby unlock {name})",
                retry_s=_wait_s(strikes.until, now),
            )
        strikes = self.addresses.get(address) if self.limited(address) else None
        if strikes is not None and now < strikes.until:
            raise MatchmakerError(
                "locked_out",
                f"too many wrong claim codes from {address}; wait {_wait_s(strikes.until, now)}"
                f" s or ask the director (lanqi lobby unlock {address})",
                retry_s=_wait_s(strikes.until, now),
            )

    def claim_failed(self, name: str | None, address: str, now: float) -> None:
        """A wrong code for ``name`` (None: a name nobody has, which is not kept, so
        that made-up names cannot fill the table) from ``address``."""
        if name is not None:
            strikes = self.names.setdefault(name.casefold(), Strikes())
            _strike(strikes, CLAIM_TRIES_PER_NAME, now)
        if self.limited(address):
            strikes = self.addresses.setdefault(address, Strikes())
            _strike(strikes, CLAIM_TRIES_PER_ADDRESS, now)

    def claimed(self, name: str) -> None:
        """The right code: the name's count starts again (the address's stays)."""
        self.names.pop(name.casefold(), None)

    def lockouts(self, now: float) -> list[tuple[str, str, Strikes]]:
        """``(kind, target, strikes)`` for every name and address with wrong codes."""
        return [("name", key, s) for key, s in sorted(self.names.items())] + [
            ("address", key, s) for key, s in sorted(self.addresses.items())
        ]

    def unlock(self, target: str) -> bool:
        """Forget the wrong codes of a name or an address; False if it had none."""
        by_name = self.names.pop(target.casefold(), None)
        by_address = self.addresses.pop(target, None)
        return by_name is not None or by_address is not None

    # ------------------------------------------------------------ names and posts

    def new_name(self, address: str, now: float) -> None:
        """Count a new name from ``address``; ``too_many_names`` over the limit."""
        if not self.limited(address):
            return
        wait = _take(self.new_names, address, NAMES_PER_ADDRESS, NAME_WINDOW_MS, now)
        if wait is not None:
            raise MatchmakerError(
                "too_many_names",
                f"{NAMES_PER_ADDRESS} new names from {address} in"
                f" {NAME_WINDOW_MS / 60_000:.0f} min already; use one of them (wait {wait} s)",
                retry_s=wait,
            )

    def post(self, address: str, now: float) -> None:
        """Count a seek or challenge from ``address``; ``rate_limited`` over the limit."""
        if not self.limited(address):
            return
        wait = _take(self.posts, address, POSTS_PER_ADDRESS, POST_WINDOW_MS, now)
        if wait is not None:
            raise MatchmakerError(
                "rate_limited",
                f"at most {POSTS_PER_ADDRESS} seeks and challenges per"
                f" {POST_WINDOW_MS / 1000:.0f} s from one address (wait {wait} s)",
                retry_s=wait,
            )


def _strike(strikes: Strikes, tries: int, now: float) -> None:
    strikes.failures += 1
    if strikes.failures >= tries:
        strikes.locks += 1
        strikes.failures = 0
        strikes.until = now + min(LOCK_FIRST_MS * 2 ** (strikes.locks - 1), LOCK_MAX_MS)


def _take(
    windows: dict[str, deque[float]], key: str, most: int, window_ms: float, now: float
) -> int | None:
    """Count one more in ``key``'s window; the seconds to wait instead if it is full."""
    times = windows.setdefault(key, deque())
    while times and now - times[0] >= window_ms:
        times.popleft()
    if len(times) >= most:
        return _wait_s(times[0] + window_ms, now)
    times.append(now)
    return None
