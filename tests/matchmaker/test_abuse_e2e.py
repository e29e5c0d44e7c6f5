"""People who try things, against a real ``lanqi serve`` while a real game is played.

Attackers are processes of their own (``abuse_attacker.py``), each connecting from
another loopback address (127.0.0.2, ...), which the server sees as another
machine, each sending requests at a fixed rate whether answered or not: one squats
names, one guesses the claim code of one name, one guesses codes across five names,
one floods the lobby with seeks; and, on its own, one asks the referee for a game's
snapshot (``sync``) 2,000 times a second.  Meanwhile two players (the test, from
127.0.0.1) play random xiangqi games: every attack is refused with its documented
code, the requests over an address's request limit are dropped, each flooding address
is shut out (its connections closed, its new ones refused in the handshake: the
director sees it and lifts it), and the move round trip's p99 under the attacks stays
within P99_RATIO of the quiet run's (blocks of moves with the attackers stopped and
running in turn: round_trips.compare).  See docs/protocol.md, "People who try things".
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import zmq

from lanqi.cli.main import main
from lanqi.client.matchmaker import MatchmakerClient, MatchmakerRefused
from lanqi.matchmaker.guard import (
    CLAIM_TRIES_PER_ADDRESS,
    CLAIM_TRIES_PER_NAME,
    NAMES_PER_ADDRESS,
    POST_WINDOW_MS,
    POSTS_PER_ADDRESS,
)
from lanqi.protocol import (
    ClaimCode,
    CreateSeek,
    ListLockouts,
    ListSeeks,
    Lockout,
    LockoutsList,
    MutePlayer,
    Ok,
    Ping,
    ReclaimName,
    RemovePlayer,
    Seek,
    SeekCreated,
    SeeksList,
    Unlock,
)
from lanqi.server.limits import REFUSE_EVERY_S, Limits

from .conftest import DIRECTOR_KEY, Lanqi, LanqiProcess
from .round_trips import Table, compare

ATTACKER = Path(__file__).with_name("abuse_attacker.py")
#: the addresses of the names, codes and seeks floods
FLOODERS = ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"]
LIMITS = Limits()


@dataclass
class Attacker:
    mode: str
    process: subprocess.Popen[str]

    def finish(self) -> dict[str, Any]:
        """Close its stdin (it stops) and read what it got."""
        self.process.send_signal(signal.SIGCONT)
        try:
            out, err = self.process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            out, err = self.process.communicate()
            stuck = f"{self.mode} attacker did not stop in 30 s: {err[-500:]}"
            raise AssertionError(stuck) from None
        assert self.process.returncode == 0, f"{self.mode} attacker failed: {err}"
        result: dict[str, Any] = json.loads(out.splitlines()[-1])
        return result


@dataclass
class Attackers:
    """Attackers stopped and resumed together (round_trips.Attack)."""

    attackers: list[Attacker]
    paused: bool = False

    def pause(self) -> None:
        """Each stops sending and reads what is under way until the server is quiet
        (then the quiet block is not one spent on the attack's backlog), then is
        stopped (SIGSTOP: it takes no processor)."""
        if self.paused:
            return
        self.paused = True
        for attacker in self.attackers:
            attacker.process.send_signal(signal.SIGUSR1)
        for attacker in self.attackers:
            assert attacker.process.stdout is not None
            line = attacker.process.stdout.readline()
            assert line == "paused\n", f"{attacker.mode} attacker did not pause: {line!r}"
            attacker.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        self.paused = False
        for attacker in self.attackers:
            attacker.process.send_signal(signal.SIGCONT)

    def target(self, game_id: str) -> None:
        pass  # they attack the lobby, or a game named when they started

    def started(self) -> None:
        pass  # each answered once when it started

    def finish(self) -> dict[str, dict[str, Any]]:
        """Each one's results; every attacker is stopped even when one fails."""
        try:
            return {a.mode + str(i): a.finish() for i, a in enumerate(self.attackers)}
        finally:
            for attacker in self.attackers:
                if attacker.process.poll() is None:
                    attacker.process.kill()
                    attacker.process.wait()


def start_attacker(server: LanqiProcess, mode: str, source: str, *names: str) -> Attacker:
    return start_attacker_at(server.lobby, server, mode, source, *names)


def start_attacker_at(
    endpoint: str, server: LanqiProcess, mode: str, source: str, *names: str
) -> Attacker:
    process = subprocess.Popen(
        [
            sys.executable,
            str(ATTACKER),
            mode,
            source,
            endpoint,
            server.keys.public.decode("ascii"),
            *names,
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()  # blocks until its first answer (or its end)
    assert line == "ready\n", f"{mode} attacker did not start: {line!r} {process.stderr}"
    return Attacker(mode, process)


def served_at_most(result: dict[str, Any]) -> int:
    """The most requests an address may have had served over the attack: its burst,
    then its rate (and the refusals, one per REFUSE_EVERY_S)."""
    seconds = float(result["seconds"]) + 3.0  # + the drain at the end, and slack
    return int(LIMITS.request_burst + seconds * (LIMITS.requests_per_address + 1 / REFUSE_EVERY_S))


def check_flooded(result: dict[str, Any]) -> None:
    """The request limit held: the address was told (``rate_limited``, unless it was
    shut out before the answer left) and the rest of its flood went unanswered."""
    answered = sum(result["counts"].values())
    assert result["counts"].get("rate_limited", 0) >= 1 or result["refused_handshakes"], result
    assert result["unanswered"] > 0, result
    assert answered <= served_at_most(result) + 1, result


@pytest.fixture
def server(lanqi: Lanqi, request: pytest.FixtureRequest) -> LanqiProcess:
    """``lanqi serve``, with the flags a test gives as its parameter."""
    flags: tuple[str, ...] = getattr(request, "param", ())
    return lanqi.serve(*flags)


#: lock-outs of LOCK_S: one outlasts the attack, however the blocks fall (a 30 s one
#: could end while the attackers are stopped, and nothing locks the name again)
LOCK_S = 600


@pytest.fixture
def clients(
    server: LanqiProcess, zmq_context: zmq.Context[Any]
) -> Iterator[Callable[[], MatchmakerClient]]:
    made: list[MatchmakerClient] = []

    def make() -> MatchmakerClient:
        client = MatchmakerClient(server.lobby, server.events, context=zmq_context)
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()


def roster_name(director: MatchmakerClient, make: Callable[[], MatchmakerClient], name: str) -> str:
    """A name whose session the director took back: only its claim code gets it."""
    make().hello(name)
    return director.call(ReclaimName(player=name, director_key=DIRECTOR_KEY), ClaimCode).code


def lockouts(director: MatchmakerClient) -> dict[tuple[str, str], Lockout]:
    listed = director.call(ListLockouts(director_key=DIRECTOR_KEY), LockoutsList).lockouts
    return {(row.kind, row.target): row for row in listed}


def wait_locked(director: MatchmakerClient, kind: str, target: str) -> Lockout:
    """The ``kind`` lock-out of ``target`` once the attack has caused it (polled, not
    slept on)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        row = lockouts(director).get((kind, target))
        if row is not None and row.retry_s > 0:
            return row
        time.sleep(0.05)  # polling the attack's effect against a deadline
    raise AssertionError(f"{target} was never locked out ({kind}): {lockouts(director)}")


@pytest.mark.parametrize(
    "server", [("--limit", f"lock_first_s={LOCK_S}")], indirect=True, ids=["long-locks"]
)
def test_attacks_are_refused_while_a_game_is_played(
    server: LanqiProcess,
    clients: Callable[[], MatchmakerClient],
    zmq_context: zmq.Context[Any],
) -> None:
    ann, bob, director = clients(), clients(), clients()
    ann.hello("ann")
    bob.hello("bob")
    codes = {name: roster_name(director, clients, name) for name in ["vic", "v1", "v2", "v3", "v4"]}

    started = time.monotonic()
    attackers = Attackers(
        [
            start_attacker(server, "names", FLOODERS[0]),
            start_attacker(server, "codes", FLOODERS[1], "vic"),
            start_attacker(server, "codes", FLOODERS[2], "v1", "v2", "v3", "v4"),
            start_attacker(server, "posts", FLOODERS[3], "flooder"),
        ]
    )
    try:
        # while the attacks go on: the director sees the lock-outs they caused, and
        # each flooding address shut out
        wait_locked(director, "name", "vic")
        wait_locked(director, "address", "127.0.0.4")
        for address in FLOODERS:
            shut = wait_locked(director, "flood", address)
            assert shut.locks == 1 and shut.failures > LIMITS.requests_per_address, shut
        all_shut_s = time.monotonic() - started
        table = Table(ann, bob, zmq_context)
        measured = compare(table, attackers, "names, codes, seeks floods", [server.pid])
    finally:
        results = attackers.finish()

    # a flooder shut out is refused in the handshake until the director lifts it
    for result in results.values():
        assert result["refused_handshakes"] > 0, result
    director.call(Unlock(target="127.0.0.2", director_key=DIRECTOR_KEY), Ok)
    assert ("flood", "127.0.0.2") not in lockouts(director)
    assert ("flood", "127.0.0.5") in lockouts(director)

    # the owner of a locked-out name is refused even with the right code...
    owner = clients()
    with pytest.raises(MatchmakerRefused) as refused:
        owner.hello("vic", claim=codes["vic"])
    assert refused.value.code == "locked_out" and "wait" in str(refused.value)
    # ...until the director unlocks it
    director.call(Unlock(target="vic", director_key=DIRECTOR_KEY), Ok)
    assert owner.hello("vic", claim=codes["vic"]).name == "vic"
    # this machine (the web gateway, the director) is not limited per address
    assert clients().hello("newcomer").name == "newcomer"

    names, one_name, many_names, posts = results.values()
    for result in results.values():
        check_flooded(result)
    assert names["counts"]["welcome"] == NAMES_PER_ADDRESS
    assert set(names["counts"]) == {"welcome", "too_many_names", "rate_limited"}, names
    for result, tries, lock_ends in (
        (one_name, CLAIM_TRIES_PER_NAME, 1 + one_name["seconds"] // LOCK_S),
        (many_names, CLAIM_TRIES_PER_ADDRESS, 1 + many_names["seconds"] // LOCK_S),
    ):
        counts = result["counts"]
        assert set(counts) <= {"bad_claim", "locked_out", "rate_limited", "welcome"}, counts
        assert counts.get("welcome", 0) == 0, "a guessed code got in"
        assert tries <= counts["bad_claim"] <= tries * lock_ends + tries, counts
        assert counts["locked_out"] > 0
    windows = 1 + posts["seconds"] * 1000 // POST_WINDOW_MS
    assert set(posts["counts"]) == {"welcome", "seek_created", "rate_limited"}, posts
    assert POSTS_PER_ADDRESS <= posts["counts"]["seek_created"] <= POSTS_PER_ADDRESS * windows
    print(
        measured.line("names, codes, seeks floods")
        + f"; all four shut out {all_shut_s:.1f} s after the first started"
        + "; attack requests/s: "
        + ", ".join(
            f"{k} {(r['requests'] + r['unsent']) / r['seconds']:.0f} tried,"
            f" {r['requests'] / r['seconds']:.0f} sent"
            for k, r in results.items()
        )
    )


def test_a_sync_flood_is_limited_at_the_referee(
    server: LanqiProcess,
    clients: Callable[[], MatchmakerClient],
    zmq_context: zmq.Context[Any],
) -> None:
    ann, bob = clients(), clients()
    ann.hello("ann")
    bob.hello("bob")
    table = Table(ann, bob, zmq_context)
    table.play(1)  # a game to ask for, and the referee's endpoint
    flood = start_attacker_at(table.referee[0], server, "syncs", "127.0.0.6", table.games[0])
    try:
        measured = compare(table, Attackers([flood]), "sync flood", [server.pid])
    finally:
        result = flood.finish()
    check_flooded(result)
    assert set(result["counts"]) <= {"snapshot", "rate_limited"}, result
    assert result["refused_handshakes"] > 0, result  # shut out at the referee's port too
    tried = (result["requests"] + result["unsent"]) / result["seconds"]
    sent = result["requests"] / result["seconds"]
    print(f"{measured.line('sync flood')}; syncs/s: {tried:.0f} tried, {sent:.0f} sent")


def test_director_mutes_and_removes_a_player(
    server: LanqiProcess, clients: Callable[[], MatchmakerClient]
) -> None:
    troll, director = clients(), clients()
    session = troll.hello("troll").session
    seek = Seek(variant="gomoku")
    troll.call(CreateSeek(seek=seek), SeekCreated)

    director.call(MutePlayer(player="troll", director_key=DIRECTOR_KEY), Ok)
    # the seek troll had open is withdrawn with the mute
    assert [s.player for s in director.call(ListSeeks(), SeeksList).seeks] == []
    with pytest.raises(MatchmakerRefused, match="muted"):
        troll.call(CreateSeek(seek=seek), SeekCreated)
    director.call(MutePlayer(player="troll", muted=False, director_key=DIRECTOR_KEY), Ok)
    troll.call(CreateSeek(seek=seek), SeekCreated)

    director.call(RemovePlayer(player="troll", director_key=DIRECTOR_KEY), Ok)
    with pytest.raises(MatchmakerRefused, match="no_session"):
        troll.call(Ping(), Ok)
    with pytest.raises(MatchmakerRefused, match="removed"):
        troll.hello("troll", session=session)
    director.call(RemovePlayer(player="troll", removed=False, director_key=DIRECTOR_KEY), Ok)
    assert troll.hello("troll", session=session).name == "troll"

    with pytest.raises(MatchmakerRefused, match="unauthorized"):
        director.call(MutePlayer(player="troll", director_key="not-the-key"), Ok)


def test_lobby_cli_lists_and_lifts_a_lockout(
    server: LanqiProcess,
    clients: Callable[[], MatchmakerClient],
    capsys: pytest.CaptureFixture[str],
) -> None:
    director = clients()
    code = roster_name(director, clients, "kim")
    guesser = clients()
    for _ in range(CLAIM_TRIES_PER_NAME):
        with pytest.raises(MatchmakerRefused, match="bad_claim"):
            guesser.hello("kim", claim="WRONG2")
    flags = ["--server", server.lobby, "--director-key", DIRECTOR_KEY]
    assert main(["lobby", "lockouts", *flags]) == 0
    target, kind, failures, locks, wait = capsys.readouterr().out.split()
    assert (target, kind, failures, locks) == ("kim", "name", "0", "1") and int(wait) > 0
    with pytest.raises(MatchmakerRefused, match="locked_out"):
        guesser.hello("kim", claim=code)
    assert main(["lobby", "unlock", "KIM", *flags]) == 0
    assert capsys.readouterr().out == "unlock KIM: done\n"
    assert guesser.hello("kim", claim=code).name == "kim"
    assert main(["lobby", "unlock", "kim", *flags]) == 1  # nothing held against it now
    assert "not_locked" in capsys.readouterr().err
