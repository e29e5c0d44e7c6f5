"""People who try things, against a real ``lanqi serve`` while a real game is played.

Attackers are processes of their own (``abuse_attacker.py``), each connecting from
another loopback address (127.0.0.2, ...), which the server sees as another
machine: one squats names, one guesses the claim code of one name, one guesses
codes across five names, one floods the lobby with seeks.  Meanwhile two players
(the test, from 127.0.0.1) play a random xiangqi game to the end: it completes, and
every attack is refused with its documented code.  The game's move round trip is
measured against a quiet game in the same test and printed (figures, never
asserted: see docs/protocol.md, "People who try things").
"""

from __future__ import annotations

import json
import random
import statistics
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
from lanqi.client.referee import GameView, RefereeClient
from lanqi.games.registry import create_game
from lanqi.matchmaker.guard import (
    CLAIM_TRIES_PER_ADDRESS,
    CLAIM_TRIES_PER_NAME,
    LOCK_FIRST_MS,
    NAMES_PER_ADDRESS,
    POST_WINDOW_MS,
    POSTS_PER_ADDRESS,
)
from lanqi.protocol import (
    Assignment,
    ClaimCode,
    CreateSeek,
    GameAssigned,
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
    TimeControl,
    Unlock,
)

from .conftest import DIRECTOR_KEY, Lanqi, LanqiProcess

ATTACKER = Path(__file__).with_name("abuse_attacker.py")
PLIES = 120


@dataclass
class Attacker:
    mode: str
    process: subprocess.Popen[str]

    def finish(self) -> dict[str, Any]:
        """Close its stdin (it stops) and read what it got."""
        out, err = self.process.communicate(timeout=30)
        assert self.process.returncode == 0, f"{self.mode} attacker failed: {err}"
        result: dict[str, Any] = json.loads(out.splitlines()[-1])
        return result


def start_attacker(server: LanqiProcess, mode: str, source: str, *names: str) -> Attacker:
    process = subprocess.Popen(
        [
            sys.executable,
            str(ATTACKER),
            mode,
            source,
            server.lobby,
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


def expect_assigned(client: MatchmakerClient, timeout_ms: int = 10_000) -> Assignment:
    deadline = time.monotonic() + timeout_ms / 1000
    while (left := deadline - time.monotonic()) > 0:
        push = client.next_push(int(left * 1000) + 1)
        if isinstance(push, GameAssigned):
            return push.game
    raise AssertionError("no game_assigned")


def play(
    a: MatchmakerClient, b: MatchmakerClient, zmq_context: zmq.Context[Any], seed: int
) -> list[float]:
    """Pair ``a`` and ``b`` by seeks and play a random xiangqi game to its end (a
    resignation after PLIES plies); the round trip of every move, in ms."""
    seek = Seek(variant="xiangqi", time_control=TimeControl(kind="per_move", per_move_ms=60_000))
    a.call(CreateSeek(seek=seek), SeekCreated)
    b.call(CreateSeek(seek=seek), SeekCreated)
    games = sorted([expect_assigned(a), expect_assigned(b)], key=lambda g: g.seat)
    game_id = games[0].game_id
    rng = random.Random(seed)
    board = create_game("xiangqi")
    rtts: list[float] = []
    clients = [
        RefereeClient(g.referee, g.referee_pub, context=zmq_context, timeout_ms=10_000)
        for g in games
    ]
    try:
        clients[0].wait_connected()
        view = GameView(clients[0], game_id)
        for seat, client in enumerate(clients):
            client.join(game_id, seat, games[seat].token)
        assert view.wait_for(lambda v: v.status == "active"), "the game never started"
        while board.outcome() is None and board.ply < PLIES:
            seat = board.seat_to_move
            move = rng.choice(board.legal_moves())
            start = time.perf_counter()
            clients[seat].move(game_id, games[seat].token, board.ply, str(move))
            rtts.append((time.perf_counter() - start) * 1000)
            board.push(move)
        if board.outcome() is None:
            seat = board.seat_to_move
            clients[seat].resign(game_id, games[seat].token)
        assert view.wait_for(lambda v: v.finished, timeout_ms=10_000), "the game did not end"
        assert len(view.moves) == board.ply
    finally:
        for client in clients:
            client.close()
    return rtts


def p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@pytest.fixture
def server(lanqi: Lanqi) -> LanqiProcess:
    return lanqi.serve()


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


def lockouts(director: MatchmakerClient) -> dict[str, Lockout]:
    listed = director.call(ListLockouts(director_key=DIRECTOR_KEY), LockoutsList).lockouts
    return {row.target: row for row in listed}


def wait_locked(director: MatchmakerClient, target: str) -> Lockout:
    """The lock-out of ``target`` once the attack has caused it (polled, not slept on)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        row = lockouts(director).get(target)
        if row is not None and row.retry_s > 0:
            return row
        time.sleep(0.05)  # polling the attack's effect against a deadline
    raise AssertionError(f"{target} was never locked out: {lockouts(director)}")


def test_attacks_are_refused_while_a_game_is_played(
    server: LanqiProcess,
    clients: Callable[[], MatchmakerClient],
    zmq_context: zmq.Context[Any],
) -> None:
    ann, bob, director = clients(), clients(), clients()
    ann.hello("ann")
    bob.hello("bob")
    codes = {name: roster_name(director, clients, name) for name in ["vic", "v1", "v2", "v3", "v4"]}

    quiet = play(ann, bob, zmq_context, seed=1)

    attackers = [
        start_attacker(server, "names", "127.0.0.2"),
        start_attacker(server, "codes", "127.0.0.3", "vic"),
        start_attacker(server, "codes", "127.0.0.4", "v1", "v2", "v3", "v4"),
        start_attacker(server, "posts", "127.0.0.5", "flooder"),
    ]
    try:
        attacked = play(ann, bob, zmq_context, seed=2)
        # while the attacks go on: the director sees the lock-outs they caused
        assert wait_locked(director, "vic").kind == "name"
        assert wait_locked(director, "127.0.0.4").kind == "address"
    finally:
        results = {a.mode + str(i): a.finish() for i, a in enumerate(attackers)}

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
    assert names["counts"] == {
        "welcome": NAMES_PER_ADDRESS,
        "too_many_names": names["requests"] - NAMES_PER_ADDRESS,
    }
    for result, tries, lock_ends in (
        (one_name, CLAIM_TRIES_PER_NAME, 1 + one_name["seconds"] * 1000 // LOCK_FIRST_MS),
        (many_names, CLAIM_TRIES_PER_ADDRESS, 1 + many_names["seconds"] * 1000 // LOCK_FIRST_MS),
    ):
        counts = result["counts"]
        assert set(counts) <= {"bad_claim", "locked_out", "welcome"}, counts
        assert counts.get("welcome", 0) == 0, "a guessed code got in"
        assert tries <= counts["bad_claim"] <= tries * lock_ends + tries, counts
        assert counts["locked_out"] > 0
    windows = 1 + posts["seconds"] * 1000 // POST_WINDOW_MS
    assert set(posts["counts"]) == {"welcome", "seek_created", "rate_limited"}, posts
    assert POSTS_PER_ADDRESS <= posts["counts"]["seek_created"] <= POSTS_PER_ADDRESS * windows

    figures = (
        f"move round trip over {len(quiet)} / {len(attacked)} moves: quiet p50"
        f" {statistics.median(quiet):.2f} ms p99 {p(quiet, 0.99):.2f} ms; under attack p50"
        f" {statistics.median(attacked):.2f} ms p99 {p(attacked, 0.99):.2f} ms"
        f" (p99 ratio {p(attacked, 0.99) / p(quiet, 0.99):.2f}); attack requests/s: "
        + ", ".join(f"{k} {r['requests'] / r['seconds']:.0f}" for k, r in results.items())
    )
    print(figures)


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
