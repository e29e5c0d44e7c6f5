"""The guard's limits as pure logic: lock-outs that double, windows that slide,
trusted addresses limited per name only."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from lanqi.matchmaker.errors import MatchmakerError
from lanqi.matchmaker.guard import (
    CLAIM_TRIES_PER_ADDRESS,
    CLAIM_TRIES_PER_NAME,
    LOCK_FIRST_MS,
    LOCK_MAX_MS,
    NAME_WINDOW_MS,
    NAMES_PER_ADDRESS,
    Guard,
    Strikes,
)
from lanqi.server.limits import AddressWindows, Limits


def refused(call: Callable[..., object], *args: object) -> MatchmakerError:
    with pytest.raises(MatchmakerError) as caught:
        call(*args)
    return caught.value


def test_a_name_is_locked_out_for_twice_as_long_each_time() -> None:
    guard, now = Guard(), 0.0
    for lock in range(1, 9):
        for _ in range(CLAIM_TRIES_PER_NAME):
            guard.check_claim("Ann", "10.0.0.1", now)
            guard.claim_failed("Ann", f"10.0.0.{lock + 1}", now)
        wait = min(LOCK_FIRST_MS * 2 ** (lock - 1), LOCK_MAX_MS)
        error = refused(guard.check_claim, "ANN", "10.0.0.99", now + wait - 1)
        assert error.code == "locked_out" and error.retry_s == 1
        now += wait
        guard.check_claim("ann", "10.0.0.99", now)  # over: codes are taken again
    assert guard.names["ann"].locks == 8


def test_an_address_is_locked_out_across_names_but_a_trusted_one_is_not() -> None:
    guard = Guard(trusted=frozenset({"10.0.0.50"}))
    for i in range(CLAIM_TRIES_PER_ADDRESS):
        guard.claim_failed(f"p{i % 4}" if i % 2 else None, "10.0.0.7", 0.0)
        guard.claim_failed(None, "10.0.0.50", 0.0)
    assert refused(guard.check_claim, "fresh", "10.0.0.7", 1.0).code == "locked_out"
    guard.check_claim("fresh", "10.0.0.50", 1.0)
    assert set(guard.names) == {"p1", "p3"}  # made-up names (None) are not kept
    assert guard.unlock("10.0.0.7") and not guard.unlock("10.0.0.7")
    guard.check_claim("fresh", "10.0.0.7", 1.0)


def test_new_names_per_address_in_a_sliding_window() -> None:
    guard = Guard()
    for i in range(NAMES_PER_ADDRESS):
        guard.new_name("10.0.0.8", float(i))
    error = refused(guard.new_name, "10.0.0.8", 100.0)
    assert error.code == "too_many_names" and error.retry_s == NAME_WINDOW_MS // 1000
    guard.new_name("10.0.0.8", NAME_WINDOW_MS)  # the first has left the window
    for _ in range(3 * NAMES_PER_ADDRESS):
        guard.new_name("127.0.0.1", 0.0)  # this machine: the gateway, the director
        guard.new_name("", 0.0)  # an address ZeroMQ did not give (ipc, inproc)


def test_limits_come_from_the_flags_and_a_zero_turns_one_off() -> None:
    limits = Limits.parse(["claim_tries_per_name=2", "lock_first_s=10", "names_per_address=0"])
    saved: list[tuple[str, str, Strikes | None]] = []
    guard = Guard(limits=limits, saved=lambda *row: saved.append(row))
    for _ in range(2):
        guard.claim_failed("Kim", "10.0.0.9", now=0.0)
    assert refused(guard.check_claim, "kim", "10.0.0.8", 1_000.0).retry_s == 9
    for _ in range(3 * NAMES_PER_ADDRESS):
        guard.new_name("10.0.0.9", 0.0)  # no limit on names
    # every change of a name's or address's strikes is handed over to be stored
    assert [(kind, target) for kind, target, _ in saved] == [
        ("name", "kim"),
        ("address", "10.0.0.9"),
        ("name", "kim"),
        ("address", "10.0.0.9"),
    ]
    assert guard.unlock("KIM")
    assert saved[-1] == ("name", "kim", None)


@pytest.mark.parametrize(
    ("spec", "error"),
    [
        ("chat=1", "unknown limit 'chat'"),
        ("chat_per_address", "needs a value"),
        ("chat_per_address=many", "is not a number"),
        ("lock_max_s=-1", "from 0 up"),
    ],
)
def test_a_bad_limit_is_named(spec: str, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        Limits.parse([spec])


def test_chat_per_address_ignores_trusted_and_unknown_addresses() -> None:
    chat = AddressWindows(most=1, window_ms=10_000.0)
    assert chat.take("10.0.0.9", 0.0) is None
    assert chat.take("10.0.0.9", 1.0) == 10
    assert chat.take("127.0.0.1", 1.0) is None and chat.take("", 1.0) is None
