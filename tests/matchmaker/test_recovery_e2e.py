"""kill -9 of the matchmaker and of the referee in the middle of a tournament round.

The two services run apart (``lanqi referee`` and ``lanqi matchmaker --referee ...``)
so each can be killed alone; both come back on the same ports and data directory.
Random xiangqi games last a few seconds, so a round is still being played when the
kill comes.  The tournament must finish with every result recorded exactly once,
including results the referee published while the matchmaker was down.
"""

from __future__ import annotations

import re
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
import zmq

from lanqi.client.referee import RefereeClient
from lanqi.security import KeyPair, Link, curve_server


def _referee_results(referee: Any, context: zmq.Context[Any]) -> dict[str, Any]:
    """Every result the referee has recorded, by game id."""
    with RefereeClient(referee.endpoints["requests"], referee.events, context=context) as client:
        found, after = {}, 0
        while True:
            page = client.results_since(after, 100).results
            found.update({r.game_id: r for r in page})
            if len(page) < 100:
                return found
            after = max(r.result_seq for r in page)


def _wait(predicate: Callable[[], bool], timeout_s: float, what: str, step_s: float = 0.1) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(step_s)  # polling a condition against a deadline


@pytest.mark.slow
def test_kill_matchmaker_and_referee_mid_round(
    lanqi: Any,
    mm: Callable[..., Any],
    tour: Any,
    *,
    names: Callable[..., list[str]],
    bot_pool: Any,
    store_rows: Any,
    zmq_context: zmq.Context[Any],
) -> None:
    referee_data, mm_data = lanqi.data_dir("referee-data"), lanqi.data_dir("mm-data")
    referee = lanqi.referee(data_dir=referee_data)
    matchmaker = lanqi.matchmaker(referee, data_dir=mm_data)
    client = mm(matchmaker)
    tid = tour.create(client, format="double_round_robin", variant="xiangqi")
    players = names(4, "crash")
    bot_pool.start(matchmaker, players, tournament=tid, seed=20)
    tour.wait_players(client, tid, 4)
    tour.start(client, tid)

    def round_playing(round_no: int) -> Callable[[Any], bool]:
        def check(s: Any) -> bool:
            current = [p for p in s.pairings if p.round == round_no]
            return bool(current) and all(p.game_id and p.result is None for p in current)

        return check

    # ---- the matchmaker dies while round 1 is played; the games go on without it
    # and the whole round ends while it is down: only reconciling can pair round 2
    before = tour.wait(client, tid, round_playing(1), 30, "round 1 in play")
    round1 = {p.game_id for p in before.pairings if p.round == 1}
    matchmaker.kill()
    _wait(
        lambda: round1 <= set(_referee_results(referee, zmq_context)),
        90,
        "round 1 finished on the referee while the matchmaker is down",
    )
    missed = round1
    matchmaker.start()
    after = tour.wait(
        client,
        tid,
        lambda s: all(p.result for p in s.pairings if p.game_id in missed),
        30,
        "the missed results, reconciled",
    )
    assert after.tournament.status == "running"

    # ---- the matchmaker dies again and is back at once: the bots, whose next
    # request gets "no_session" rather than silence, must say hello again
    playing = tour.wait(
        client,
        tid,
        lambda s: s.tournament.round >= 2 and round_playing(s.tournament.round)(s),
        60,
        "round 2 or later in play",
    )
    matchmaker.restart(kill=True)
    quick_round = playing.tournament.round

    # ---- the referee dies while a later round is played
    playing = tour.wait(
        client,
        tid,
        lambda s: s.tournament.round > quick_round and round_playing(s.tournament.round)(s),
        60,
        "a later round in play",
    )
    killed_round = playing.tournament.round
    referee.kill()
    referee.start()
    recovered = re.search(r"recovered (\d+) unfinished game", referee.logs[-1].read_text())
    assert recovered is not None, "the referee was killed between rounds, not during one"

    final = tour.wait_finished(client, tid, timeout_s=180)

    # ---- every result exactly once
    games = [p for p in final.pairings if p.second is not None]
    assert final.tournament.round == 6 and len(games) == 12
    assert Counter(p.round for p in final.pairings) == dict.fromkeys(range(1, 7), 2)
    assert set(tour.pair_counts(final).values()) == {2}
    assert all(p.result in ("1-0", "0-1", "1/2-1/2") for p in games), [p.result for p in games]
    tour.check_standings(final)
    assert sum(row.points for row in final.rows) == 12

    stored = store_rows(
        mm_data,
        "SELECT game_id, status, result, round, board FROM games WHERE tournament_id = ?",
        (tid,),
    )
    assert len(stored) == len(games), "a pairing got more than one game"
    assert {g["game_id"] for g in stored} == {p.game_id for p in games}
    assert {g["status"] for g in stored} == {"finished"}
    pairings = store_rows(
        mm_data,
        "SELECT round, board, game_no, game_id, result FROM pairings WHERE tournament_id = ?",
        (tid,),
    )
    assert len(pairings) == 12 and all(p["game_id"] and p["result"] for p in pairings)

    # ---- the matchmaker's results are the referee's
    on_referee = _referee_results(referee, zmq_context)
    for p in games:
        assert on_referee[p.game_id].result == p.result, p
        assert on_referee[p.game_id].tag == tid
    assert missed and 2 <= quick_round < killed_round


class _DropResults(threading.Thread):
    """A relay of the referee's events that drops every ``results`` message:
    subscribers to ``game/<id>`` see everything, the matchmaker hears no result."""

    def __init__(self, context: zmq.Context[Any], upstream: str, keys: KeyPair) -> None:
        super().__init__(name="drop-results", daemon=True)
        self.sub = context.socket(zmq.SUB)
        self.sub.setsockopt(zmq.LINGER, 0)
        self.sub.setsockopt(zmq.SUBSCRIBE, b"")
        Link.to(keys.public).setup(self.sub)
        self.sub.connect(upstream)
        self.pub = context.socket(zmq.PUB)  # poses as the referee: its CURVE keys
        self.pub.setsockopt(zmq.LINGER, 0)
        curve_server(self.pub, keys)
        self.endpoint = f"tcp://127.0.0.1:{self.pub.bind_to_random_port('tcp://127.0.0.1')}"
        self.stopping = threading.Event()
        self.dropped = 0

    def run(self) -> None:
        try:
            while not self.stopping.is_set():
                if not self.sub.poll(100):
                    continue
                frames = self.sub.recv_multipart()
                if frames[0] == b"results":
                    self.dropped += 1
                else:
                    self.pub.send_multipart(frames)
        finally:
            self.sub.close(linger=0)
            self.pub.close(linger=0)


def test_results_reach_the_matchmaker_when_the_results_topic_drops_them(
    lanqi: Any,
    mm: Callable[..., Any],
    tour: Any,
    *,
    names: Callable[..., list[str]],
    bot_pool: Any,
    zmq_context: zmq.Context[Any],
) -> None:
    """PUB/SUB may drop: here the matchmaker hears no result at all on the referee's
    ``results`` topic; reconciling with ``results_since`` alone must carry the event."""
    referee = lanqi.referee()
    relay = _DropResults(zmq_context, referee.events, referee.keys)
    relay.start()
    try:
        deaf = lanqi.matchmaker(referee, referee_events=relay.endpoint)
        client = mm(deaf)
        tid = tour.create(client, format="round_robin", variant="gomoku")
        players = names(4, "deaf")
        bot_pool.start(deaf, players, tournament=tid, seed=30)
        tour.wait_players(client, tid, 4)
        tour.start(client, tid)
        final = tour.wait_finished(client, tid, timeout_s=60)
    finally:
        relay.stopping.set()
        relay.join(timeout=5)
    assert relay.dropped >= 6, "the relay let results through"
    assert final.tournament.round == 3
    assert set(tour.pair_counts(final).values()) == {1} and len(tour.pair_counts(final)) == 6
    tour.check_standings(final)
