"""A referee whose store fails: locked by another process, or its disk full.

The referee process is real; the faults are too: a second SQLite connection holds the
database's write lock (``BEGIN EXCLUSIVE``) on the referee's own file while clients
keep sending requests, or its data directory is a tmpfs filled to the last byte.
Every request must get a reply (``internal`` while the store cannot take writes, reads
included), the referee logs one warning when the store fails and one when it works
again, nothing that was refused may show up later, and once the lock is
gone play goes on with nothing lost or doubled, timers included.
"""

from __future__ import annotations

import random
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from lanqi.client.referee import RefereeClient
from lanqi.protocol import (
    ChatRequest,
    CreateGame,
    ErrorReply,
    Heartbeat,
    Join,
    ListGames,
    MoveAccepted,
    MoveRequest,
    Ok,
    ResultsSince,
    Snapshot,
    Sync,
    TimeControl,
)

from .test_recovery_e2e import _next_gomoku_move
from .test_store_faults import fill

Factory = Callable[..., Any]
Tmpfs = Callable[[str, str], Path]

STORE_FAILED = "send it again"  # what the internal reply of a refused request says


@contextmanager
def write_locked(db: Path) -> Iterator[sqlite3.Connection]:
    """Another process's view of the referee's file: its write lock held throughout."""
    holder = sqlite3.connect(db, isolation_level=None, timeout=5.0)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        yield holder
        holder.execute("ROLLBACK")
    finally:
        holder.close()


def stored_events(db: Path, game_id: str) -> list[tuple[int, str]]:
    """(seq, kind) of a game's committed events, read from the file by a third party."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT seq, kind FROM events WHERE game_id = ? ORDER BY seq", (game_id,)
        ).fetchall()
    return [(int(seq), str(kind)) for seq, kind in rows]


def assert_refused(reply: object, request_id: int) -> None:
    assert isinstance(reply, ErrorReply), f"expected internal, got {reply!r}"
    assert (reply.re, reply.code) == (request_id, "internal")
    assert STORE_FAILED in reply.msg


def test_a_locked_store_answers_every_request_and_loses_nothing(
    referee_factory: Factory, new_table: Factory, connect: Callable[..., RefereeClient]
) -> None:
    process = referee_factory()
    db = process.data_dir / "referee.sqlite3"
    table = new_table("gomoku", process=process)
    table.play("h8", "h9")
    before = table.sync()
    assert table.view.wait_for(lambda v: v.seq == before.seq)
    client = connect(process)
    token = table.token_to_move()
    requests = [
        MoveRequest(id=0, game_id=table.game_id, token=token, ply=2, move="j10"),
        ChatRequest(id=0, game_id=table.game_id, token=table.tokens[0], text="hello"),
        CreateGame(id=0, variant="gomoku", players=["cy", "di"]),
        Sync(id=0, game_id=table.game_id),
    ]
    with write_locked(db):
        for _ in range(3):  # several turns of the loop, all while the lock is held
            sent = [client.send(request) for request in requests]
            for request_id in sent:  # pipelined: each one answered, by its own id
                assert_refused(client.receive(request_id), request_id)
        table.view.poll(0)  # whatever was published so far
        assert table.view.seq == before.seq
    # the lock is gone: the refused move is simply sent again and accepted once
    accepted = client.request(requests[0])
    assert isinstance(accepted, MoveAccepted) and accepted.seq == before.seq + 1
    table.ply = 3
    table.play("h7")
    after = table.sync()
    assert after.moves == [*before.moves, "j10", "h7"]
    assert after.chat == before.chat  # the refused chat line was not kept
    assert table.view.wait_for(lambda v: v.seq == after.seq)
    assert table.view.moves == after.moves
    seqs = [seq for seq, _ in stored_events(db, table.game_id)]
    assert seqs == list(range(1, after.seq + 1))  # nothing lost, nothing twice
    games = client.list_games("all").games
    assert [g.players for g in games if g.players == ["cy", "di"]] == []  # no refused create
    log = process.log_text()
    assert log.count("requests are answered internal until it works") == 1  # once, not per turn
    assert log.count("works again") == 1


def test_a_flag_that_falls_while_the_store_is_locked_is_stored_once_after(
    referee_factory: Factory, new_table: Factory, connect: Callable[..., RefereeClient]
) -> None:
    process = referee_factory()
    db = process.data_dir / "referee.sqlite3"
    table = new_table(
        "xiangqi",
        process=process,
        time_control=TimeControl(kind="fischer", base_ms=1000, first_move_ms=0),
    )
    table.play("h2e2")  # black's 1 s run
    client = connect(process)
    with write_locked(db):
        flag_due = time.monotonic() + 1.0
        # keep asking while the flag falls: every request is answered (the loop is not
        # stuck in the store), and the game cannot end while its end cannot be stored
        while time.monotonic() < flag_due + 0.3:
            request_id = client.send(Sync(id=0, game_id=table.game_id))
            assert_refused(client.receive(request_id), request_id)
        table.view.poll(0)
        assert not table.view.finished
    table.assert_ended("1-0", "timeout", 0)  # the timer tried again and stored the end
    kinds = [kind for _, kind in stored_events(db, table.game_id)]
    assert kinds.count("ended") == 1
    ok = client.request(ChatRequest(id=0, game_id=table.game_id, text="gg", token=table.tokens[0]))
    assert isinstance(ok, Ok)  # the referee goes on serving the finished game


def test_a_full_disk_answers_every_request_internal_keeps_the_clock_and_plays_on_with_room(
    referee_factory: Factory,
    new_table: Factory,
    connect: Callable[..., RefereeClient],
    tmpfs: Tmpfs,
) -> None:
    data = tmpfs("data", "size=3m")
    process = referee_factory(data_dir=data)
    db = data / "referee.sqlite3"
    fischer = TimeControl(kind="fischer", base_ms=600_000, first_move_ms=0)  # runs at once
    table = new_table("gomoku", process=process, options={"size": 20}, time_control=fischer)
    client = connect(process)
    rng = random.Random(10)
    moves: list[str] = []

    def move(text: str) -> MoveRequest:
        ply = len(moves)
        return MoveRequest(
            id=0, game_id=table.game_id, token=table.tokens[ply % 2], ply=ply, move=text
        )

    def thinking(since: Snapshot) -> Snapshot | ErrorReply:
        """A snapshot once the mover's clock has run a little since ``since`` (or the
        refusal, once the store fails)."""
        seat = since.clock.running
        assert seat is not None
        while True:
            now = client.request(Sync(id=0, game_id=table.game_id))
            if not isinstance(now, Snapshot):
                assert isinstance(now, ErrorReply), now
                return now
            if now.clock.remaining_ms[seat] < since.clock.remaining_ms[seat] - 20:
                return now

    fill(data / "filler")
    last: Snapshot | None = None  # the latest snapshot the referee gave before it failed
    refused: ErrorReply | None = None
    request = move(_next_gomoku_move(moves, rng))
    for _ in range(300):  # the log has room for a few more; then the disk is full
        answer = client.request(Sync(id=0, game_id=table.game_id))
        if isinstance(answer, Snapshot):
            answer = thinking(answer)
        if isinstance(answer, ErrorReply):  # the clock marks found the disk full first
            refused = answer
            break
        assert isinstance(answer, Snapshot), answer
        last = answer
        request = move(_next_gomoku_move(moves, rng))
        reply = client.request(request)
        if isinstance(reply, ErrorReply):
            refused = reply
            break
        assert isinstance(reply, MoveAccepted), reply
        moves.append(request.move)
    assert refused is not None, "the disk never filled up"
    assert last is not None
    assert (refused.code, refused.re is not None) == ("internal", True)
    assert STORE_FAILED in refused.msg
    # While the store fails, every request is answered internal, reads included.
    mover = table.tokens[len(moves) % 2]
    requests = [
        request,
        Sync(id=0, game_id=table.game_id),
        Heartbeat(id=0, game_id=table.game_id, token=mover),
        Heartbeat(id=0, game_id=table.game_id, token=table.tokens[1 - len(moves) % 2]),
        Join(id=0, game_id=table.game_id),  # a spectator's
        Join(id=0, game_id=table.game_id, token=mover),
        ListGames(id=0, status="all"),
        ResultsSince(id=0, after=0),
        ChatRequest(id=0, game_id=table.game_id, token=mover, text="still there?"),
    ]
    for _ in range(5):  # several turns of the loop
        sent = [client.send(each) for each in requests]
        for request_id in sent:
            assert_refused(client.receive(request_id), request_id)
    assert process.log_text().count("works again") == 0

    (data / "filler").unlink()
    after = client.sync(table.game_id)  # the store works again: so do reads
    assert (after.moves, after.seq) == (moves, last.seq)  # nothing refused was kept
    seat = last.clock.running
    assert seat is not None and after.clock.running == seat
    # rebuilt from the log, the game still charges the mover for the time since the
    # last stored move: no time is given back
    assert after.clock.remaining_ms[seat] <= last.clock.remaining_ms[seat]

    accepted = client.request(request)  # the same move, sent again
    assert isinstance(accepted, MoveAccepted) and accepted.seq == last.seq + 1
    moves.append(request.move)
    for _ in range(2):
        request = move(_next_gomoku_move(moves, rng))
        assert isinstance(client.request(request), MoveAccepted)
        moves.append(request.move)
    final = client.sync(table.game_id)
    assert final.moves == moves
    assert [seq for seq, _ in stored_events(db, table.game_id)] == list(range(1, final.seq + 1))
    assert table.view.wait_for(lambda v: v.seq == final.seq)
    assert table.view.moves == moves
    # one warning when the store started failing, one when it worked again
    log = process.log_text()
    assert log.count("requests are answered internal until it works") == 1, log
    assert log.count("works again") == 1, log
