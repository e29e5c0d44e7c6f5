"""Limits for people who try things: claim code guessing, name squatting, lobby floods.

Pure logic with the time passed in (monotonic milliseconds); the service owns the
sockets and asks here before it acts.  Limits are per name and per client address
(the ``Peer-Address`` ZeroMQ gives each received message); addresses in
:attr:`Guard.trusted` (this machine, by default: the web gateway and the director's
tools speak for many people from there) are limited per name only.  The numbers are
:attr:`Guard.limits` (``--limit``).  The wrong codes held against names and
addresses are given to :attr:`Guard.saved` as they change (the service stores them,
so that a restart does not lift a lock-out); the name and post windows are not kept.
See docs/protocol.md, "People who try things".

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
from collections.abc import Callable
from dataclasses import dataclass, field

from lanqi.matchmaker.errors import MatchmakerError
from lanqi.server.limits import LOCAL_ADDRESSES, Limits

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

_DEFAULTS = Limits()
#: the defaults of :class:`~lanqi.server.limits.Limits` (``--limit`` changes them)
CLAIM_TRIES_PER_NAME = _DEFAULTS.claim_tries_per_name
CLAIM_TRIES_PER_ADDRESS = _DEFAULTS.claim_tries_per_address
LOCK_FIRST_MS = _DEFAULTS.lock_first_s * 1000.0
LOCK_MAX_MS = _DEFAULTS.lock_max_s * 1000.0
NAMES_PER_ADDRESS = _DEFAULTS.names_per_address
NAME_WINDOW_MS = _DEFAULTS.name_window_s * 1000.0
POSTS_PER_ADDRESS = _DEFAULTS.posts_per_address
POST_WINDOW_MS = _DEFAULTS.post_window_s * 1000.0


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
    limits: Limits = _DEFAULTS
    #: told ``(kind, target, strikes)`` whenever the strikes of a name or an address
    #: change (None: forgotten), so that they can be stored
    saved: Callable[[str, str, Strikes | None], None] | None = None
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
        limits = self.limits
        if name is not None and limits.claim_tries_per_name > 0:
            key = name.casefold()
            strikes = self.names.setdefault(key, Strikes())
            self._strike(strikes, limits.claim_tries_per_name, now)
            self._save("name", key, strikes)
        if self.limited(address) and limits.claim_tries_per_address > 0:
            strikes = self.addresses.setdefault(address, Strikes())
            self._strike(strikes, limits.claim_tries_per_address, now)
            self._save("address", address, strikes)

    def claimed(self, name: str) -> None:
        """The right code: the name's count starts again (the address's stays)."""
        if self.names.pop(name.casefold(), None) is not None:
            self._save("name", name.casefold(), None)

    def restore(self, kind: str, target: str, strikes: Strikes) -> None:
        """Strikes stored before a restart (``until`` already in this run's clock)."""
        (self.names if kind == "name" else self.addresses)[target] = strikes

    def _save(self, kind: str, target: str, strikes: Strikes | None) -> None:
        if self.saved is not None:
            self.saved(kind, target, strikes)

    def _strike(self, strikes: Strikes, tries: int, now: float) -> None:
        strikes.failures += 1
        if strikes.failures >= tries:
            strikes.locks += 1
            strikes.failures = 0
            first, most = self.limits.lock_first_s * 1000.0, self.limits.lock_max_s * 1000.0
            strikes.until = now + min(first * 2 ** min(strikes.locks - 1, 64), most)

    def lockouts(self, now: float) -> list[tuple[str, str, Strikes]]:
        """``(kind, target, strikes)`` for every name and address with wrong codes."""
        return [("name", key, s) for key, s in sorted(self.names.items())] + [
            ("address", key, s) for key, s in sorted(self.addresses.items())
        ]

    def unlock(self, target: str) -> bool:
        """Forget the wrong codes of a name or an address; False if it had none."""
        by_name = self.names.pop(target.casefold(), None)
        by_address = self.addresses.pop(target, None)
        if by_name is not None:
            self._save("name", target.casefold(), None)
        if by_address is not None:
            self._save("address", target, None)
        return by_name is not None or by_address is not None

    # ------------------------------------------------------------ names and posts

    def new_name(self, address: str, now: float) -> None:
        """Count a new name from ``address``; ``too_many_names`` over the limit."""
        most, window_s = self.limits.names_per_address, self.limits.name_window_s
        if not self.limited(address) or most <= 0:
            return
        wait = _take(self.new_names, address, most, window_s * 1000.0, now)
        if wait is not None:
            raise MatchmakerError(
                "too_many_names",
                f"{most} new names from {address} in {window_s / 60:g} min already;"
                f" use one of them (wait {wait} s)",
                retry_s=wait,
            )

    def post(self, address: str, now: float) -> None:
        """Count a seek or challenge from ``address``; ``rate_limited`` over the limit."""
        most, window_s = self.limits.posts_per_address, self.limits.post_window_s
        if not self.limited(address) or most <= 0:
            return
        wait = _take(self.posts, address, most, window_s * 1000.0, now)
        if wait is not None:
            raise MatchmakerError(
                "rate_limited",
                f"at most {most} seeks and challenges per {window_s:g} s from one address"
                f" (wait {wait} s)",
                retry_s=wait,
            )


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
