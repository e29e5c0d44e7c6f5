"""Crash recovery: SIGKILL the referee subprocess, restart it on the same data directory.

Whatever the referee answered before the kill must be there after the restart: every
game, every accepted move (with its seq), every finished result.  The restarted
referee listens on the same ports, so the clients' sockets reconnect by themselves
and play on with the same tokens.
"""

from __future__ import annotations

import dataclasses
import random
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lanqi.client.referee import GameView, RefereeClient, RefereeTimeout
from lanqi.games.registry import create_game
from lanqi.protocol import (
    ClockInfo,
    ErrorReply,
    MoveAccepted,
    MoveMade,
    MoveRequest,
    Snapshot,
    TimeControl,
    decode_payload,
)
from lanqi.security import KnownServers, NoServerKey, trust_server

Factory = Callable[..., Any]


def _last_recorded_clock(data_dir: Path, game_id: str) -> ClockInfo:
    """The clock of the game's last ``moved`` event, read from the referee's database."""
    db = sqlite3.connect(f"file:{data_dir / 'referee.sqlite3'}?mode=ro", uri=True)
    try:
        row = db.execute(
            "SELECT payload FROM events WHERE game_id = ? AND kind = ? ORDER BY seq DESC LIMIT 1",
            (game_id, MoveMade.T),
        ).fetchone()
    finally:
        db.close()
    event = decode_payload(row[0])
    assert isinstance(event, MoveMade)
    return event.clock


def comparable(snapshot: Snapshot) -> dict[str, object]:
    """What must survive a restart exactly (clocks and presence move on by themselves)."""
    return {
        "game_id": snapshot.game_id,
        "seq": snapshot.seq,
        "variant": snapshot.variant,
        "options": snapshot.options,
        "start_fen": snapshot.start_fen,
        "moves": snapshot.moves,
        "fen": snapshot.fen,
        "ply": snapshot.ply,
        "status": snapshot.status,
        "result": snapshot.result,
        "termination": snapshot.termination,
        "players": snapshot.players,
        "time_control": snapshot.time_control,
        "casual": snapshot.casual,
        "draw_offer": snapshot.draw_offer,
        "takeback_offer": snapshot.takeback_offer,
        "running": snapshot.clock.running,
        "chat": snapshot.chat,
    }


def test_games_survive_sigkill(
    referee_factory: Factory, new_table: Factory, connect: Callable[..., RefereeClient]
) -> None:
    process = referee_factory()
    fischer = TimeControl(kind="fischer", base_ms=60_000, increment_ms=1_000)
    per_move = TimeControl(kind="per_move", per_move_ms=60_000)
    untimed = new_table("xiangqi", process=process)
    untimed.play("h2e2", "h9g7", "h0g2", "i9h9")
    untimed.client.chat(untimed.game_id, "draw?", token=untimed.tokens[0])
    connect(process).chat(untimed.game_id, "they will not", name="zoe")
    untimed.client.offer_draw(untimed.game_id, untimed.tokens[0])
    timed = new_table("gomoku", process=process, time_control=fischer, options={"size": 19})
    thinking = time.monotonic()  # the sides to move of both timed games think from here
    timed_answers = timed.play("h8", "h9", "i8", "i9", "j8")
    takeback = new_table("xiangqi", process=process, time_control=per_move, casual=True)
    takeback.play("b2e2", "b9c7", "b0c2")
    takeback.client.request_takeback(takeback.game_id, takeback.tokens[0])
    finished = new_table("gomoku", process=process)
    finished.play("h8", "a1", "i8", "a2", "j8", "a3", "k8", "a4", "l8")
    finished.assert_ended("1-0", "five_in_a_row", 0)
    waiting = new_table("xiangqi", process=process, join=False)
    waiting.client.join(waiting.game_id, seat=1, token=waiting.tokens[1])

    tables = [untimed, timed, takeback, finished, waiting]
    before = {t.game_id: t.sync() for t in tables}
    results_before = untimed.client.results_since(0).results
    assert [r.game_id for r in results_before] == [finished.game_id]

    thought_ms = (time.monotonic() - thinking) * 1000  # at most, before the kill
    process.kill()
    recorded = {
        g: _last_recorded_clock(process.data_dir, g) for g in (timed.game_id, takeback.game_id)
    }
    restarted = time.monotonic()
    process.start()
    after = {t.game_id: t.sync() for t in tables}  # the old clients reconnect
    # no more than this has passed on the new process's clocks when the syncs answered
    since_restart_ms = (time.monotonic() - restarted) * 1000
    for game_id, snapshot in before.items():
        assert comparable(after[game_id]) == comparable(snapshot), game_id
    # The chat is rebuilt from the log too.
    assert [(c.room, c.name, c.text) for c in after[untimed.game_id].chat] == [
        ("players", "ann", "draw?"),
        ("spectators", "zoe", "they will not"),
    ]
    # Clocks resume from the times the last move recorded: the side not to move has
    # exactly those; the side to move has lost what it thought before the kill (see
    # test_clock_crash_e2e) and what ran since the restart, not the downtime.
    for game_id in (timed.game_id, takeback.game_id):
        old, new, stored = before[game_id].clock, after[game_id].clock, recorded[game_id]
        assert new.running == old.running == stored.running is not None
        waiting_seat = 1 - stored.running
        assert new.remaining_ms[waiting_seat] == stored.remaining_ms[waiting_seat]
        used = stored.remaining_ms[stored.running] - new.remaining_ms[stored.running]
        assert 0 <= used <= thought_ms + since_restart_ms + 1, (used, since_restart_ms)
    assert untimed.client.results_since(0).results == results_before

    # Play on with the same tokens; seq continues after the last one stored.
    red_move, black_move = untimed.play("b0c2", "b9c7")
    assert red_move.seq == before[untimed.game_id].seq + 1
    assert black_move.seq == red_move.seq + 1
    assert untimed.sync().draw_offer is None  # black moved: red's offer lapsed
    takeback.client.accept_takeback(takeback.game_id, takeback.tokens[1])  # red's b0c2
    snapshot = takeback.sync()
    assert snapshot.moves == ["b2e2", "b9c7"] and snapshot.seq == before[takeback.game_id].seq + 1
    # A retry of a move accepted before the crash gets the same answer.
    for ply in (0, 3):
        answer = timed_answers[ply]
        retry = timed.client.move(timed.game_id, timed.tokens[ply % 2], ply, answer.move)
        assert retry == dataclasses.replace(answer, re=retry.re)
    # The old SUBs reconnect on their own, but may miss what comes before they do:
    # watch the result from a client connected to the new process.
    watcher = connect(process)
    watcher.watch_results()
    timed.view = GameView(watcher, timed.game_id)
    timed.play("a1", "k8", "a2", "l8")
    timed.assert_ended("1-0", "five_in_a_row", 0)
    waiting.client.join(waiting.game_id, seat=0, token=waiting.tokens[0])
    assert waiting.sync().status == "active"

    results = untimed.client.results_since(0).results
    assert [r.game_id for r in results] == [finished.game_id, timed.game_id]
    assert [r.result_seq for r in results] == [1, 2]
    assert untimed.client.results_since(1).results == results[1:]

    # The views that followed the games across the restart agree with the snapshots.
    for table in tables:
        snapshot = table.sync()
        assert table.view.wait_for(lambda v, s=snapshot: v.seq == s.seq)
        assert (table.view.moves, table.view.fen) == (snapshot.moves, snapshot.fen)


def test_a_clean_stop_keeps_games_too(referee_factory: Factory, new_table: Factory) -> None:
    process = referee_factory()
    table = new_table("gomoku", process=process)
    table.play("h8", "h9")
    before = table.sync()
    process.restart()  # SIGTERM, exit code checked by the fixture
    assert comparable(table.sync()) == comparable(before)


def test_clock_runs_on_after_a_restart_on_an_idle_server(
    referee_factory: Factory, new_table: Factory
) -> None:
    process = referee_factory()
    table = new_table(
        "xiangqi",
        process=process,
        time_control=TimeControl(kind="fischer", base_ms=600, first_move_ms=0),
    )
    table.play("h2e2")  # black's 600 ms run
    process.restart(kill=True)
    # Nobody sends a request that would wake the game: the timer alone must end it.
    view = table.view
    assert view.wait_for(lambda v: v.finished, 4000), "the flag never fell after the restart"
    assert (view.result, view.termination, view.winner) == ("1-0", "timeout", 0)


def test_abandonment_runs_on_after_a_restart(referee_factory: Factory, new_table: Factory) -> None:
    process = referee_factory("--disconnect-after", "0.2", "--abandon-after", "0.4")
    table = new_table("gomoku", process=process)
    table.play("h8")
    process.restart(kill=True)
    # Both seats get the same grace from the restart; neither comes back: no result.
    assert table.view.wait_for(lambda v: v.finished, 4000), "the game was never abandoned"
    assert (table.view.result, table.view.termination) == ("*", "abandoned")


def _next_gomoku_move(moves: list[str], rng: random.Random) -> str:
    """A random move that does not end the game (so the game lasts the whole test)."""
    game = create_game("gomoku", size=20)
    for text in moves:
        game.push(game.parse_move(text))
    candidates = [str(m) for m in game.legal_moves()]
    rng.shuffle(candidates)
    for text in candidates:
        game.push(game.parse_move(text))
        ends = game.outcome() is not None
        game.pop()
        if not ends:
            return text
    raise AssertionError("no quiet move left")


def test_no_accepted_move_is_lost_when_killed_mid_stream(
    referee_factory: Factory, new_table: Factory, connect: Callable[..., RefereeClient]
) -> None:
    rng = random.Random(20240611)
    process = referee_factory()
    table = new_table("gomoku", process=process, options={"size": 20})
    client = connect(process, timeout_ms=2000)
    game_id, tokens = table.game_id, table.tokens
    accepted: dict[int, MoveAccepted] = {}  # ply -> the answer we got
    moves: list[str] = []  # what the client believes was played, accepted or not

    for _round in range(5):
        moves = list(client.sync(game_id).moves)
        burst = rng.randint(3, 12)
        in_flight: list[int] = []
        for _ in range(burst + 2):
            ply = len(moves)
            text = _next_gomoku_move(moves, rng)
            moves.append(text)
            request_id = client.send(
                MoveRequest(game_id=game_id, token=tokens[ply % 2], ply=ply, move=text)
            )
            in_flight.append(request_id)
            if len(in_flight) > 2:  # keep two moves in flight while the kill comes
                reply = client.receive(in_flight.pop(0))
                assert isinstance(reply, MoveAccepted), reply
                accepted[reply.ply] = reply
        process.kill()  # two moves still in flight
        for request_id in in_flight:
            try:
                reply = client.receive(request_id, timeout_ms=200)
            except RefereeTimeout:
                continue
            if isinstance(reply, MoveAccepted):
                accepted[reply.ply] = reply
        process.start()

        snapshot = client.sync(game_id)
        for ply, answer in accepted.items():
            assert snapshot.moves[ply] == answer.move, f"accepted move at ply {ply} lost"
        # every accepted move keeps its seq: a retry gets exactly the same answer
        for ply in rng.sample(sorted(accepted), 3):
            answer = accepted[ply]
            retry = client.request(
                MoveRequest(game_id=game_id, token=tokens[ply % 2], ply=ply, move=answer.move)
            )
            assert isinstance(retry, MoveAccepted) and retry.seq == answer.seq, retry
        # moves sent but never answered may be there or not; if there, they are ours
        assert snapshot.moves == moves[: len(snapshot.moves)]

    snapshot = client.sync(game_id)
    assert snapshot.status == "active"
    seqs = [accepted[p].seq for p in sorted(accepted)]
    assert seqs == sorted(set(seqs)), "a seq was used twice"
    view = GameView(connect(process), game_id)
    assert view.moves == snapshot.moves
    refusal = client.request(
        MoveRequest(game_id=game_id, token=tokens[0], ply=snapshot.ply + 5, move="a1")
    )
    assert isinstance(refusal, ErrorReply) and refusal.code == "stale_move"


def test_a_late_reply_to_a_timed_out_request_is_skipped(
    referee_factory: Factory, new_table: Factory, connect: Callable[..., RefereeClient]
) -> None:
    process = referee_factory()
    table = new_table("gomoku", process=process)
    client = connect(process, timeout_ms=300)
    process.kill()
    with pytest.raises(RefereeTimeout):
        client.move(table.game_id, table.tokens[0], 0, "h8")  # queued in the DEALER
    process.start()
    # The queued move reaches the new process and is answered late; the next
    # request must get its own reply, not that one.
    # (The DEALER keeps requests in order: the move was handled, and answered, first.)
    snapshot = client.sync(table.game_id)
    assert isinstance(snapshot, Snapshot) and snapshot.moves == ["h8"]
    retry = client.move(table.game_id, table.tokens[0], 0, "h8")
    assert retry.seq == client.sync(table.game_id).seq  # applied once


def test_no_referee_is_a_timeout(referee_factory: Factory) -> None:
    """A client of a referee that is gone: without its key, no client at all (the key
    port does not answer); with it (trusted earlier), requests time out."""
    process = referee_factory()
    link = trust_server(process.endpoint, known=KnownServers.of())
    process.stop()
    with pytest.raises(NoServerKey, match="is a lanqi server running there"):
        RefereeClient(process.endpoint, process.pub_endpoint, timeout_ms=200)
    client = RefereeClient(process.endpoint, process.pub_endpoint, timeout_ms=200, link=link)
    try:
        with pytest.raises(RefereeTimeout):
            client.list_games()
        with pytest.raises(RefereeTimeout):
            client.wait_connected(timeout_ms=100)
    finally:
        client.close()
