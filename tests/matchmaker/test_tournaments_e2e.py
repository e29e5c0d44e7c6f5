"""Whole tournaments through real processes: a ``lanqi serve`` and random bots.

The double round robin uses ``lanqi bot`` subprocesses, the Swiss in-process
:class:`BotRunner` threads; both play gomoku (random games end in a few dozen moves).
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Callable
from typing import Any

from lanqi.protocol import Exported, ExportTournament


def test_double_round_robin_of_four_lanqi_bot_processes(
    lanqi: Any, mm: Callable[..., Any], tour: Any, names: Callable[..., list[str]], store_rows: Any
) -> None:
    data = lanqi.data_dir("rr-data")
    server = lanqi.serve(data_dir=data)
    client = mm(server)
    tid = tour.create(client, format="double_round_robin", variant="gomoku")
    players = names(4, "rr")
    for i, name in enumerate(players):
        lanqi.bot(server, name, "--tournament", tid, "--seed", str(i), "--max-games", "2")
    tour.wait_players(client, tid, 4)
    tour.start(client, tid)
    final = tour.wait_finished(client, tid, timeout_s=60)

    assert sorted(final.tournament.players) == sorted(players)
    assert final.tournament.round == 6
    # every round pairs everybody once, no round twice
    by_round = Counter(p.round for p in final.pairings)
    assert by_round == dict.fromkeys(range(1, 7), 2)
    for round_no in range(1, 7):
        seated = [x for p in final.pairings if p.round == round_no for x in (p.first, p.second)]
        assert sorted(seated) == sorted(players), f"round {round_no}: {seated}"
    # every pair twice, colours reversed
    games = [p for p in final.pairings if p.second is not None]
    assert len(games) == 12 and all(p.result in ("1-0", "0-1", "1/2-1/2") for p in games)
    assert set(tour.pair_counts(final).values()) == {2} and len(tour.pair_counts(final)) == 6
    seats = Counter((p.first, p.second) for p in games)
    assert set(seats.values()) == {1}, "a pair played twice with the same colours"
    assert all((b, a) in seats for a, b in seats)
    # a game per pairing, each its own, all finished
    assert len({p.game_id for p in games}) == 12 and None not in {p.game_id for p in games}
    # points: one per game; the rows are what the results say
    assert sum(row.points for row in final.rows) == len(games)
    assert all(row.games == 6 for row in final.rows)
    tour.check_standings(final)

    # the exported CSV says the same
    exported = client.call(ExportTournament(tournament_id=tid, format="csv"), Exported).text
    table = list(csv.DictReader(io.StringIO(exported)))
    rows = {row.player: row for row in final.rows}
    assert sorted(r["Name"] for r in table) == sorted(players)
    for line in table:
        row = rows[line["Name"]]
        assert float(line["Pts"]) == row.points and int(line["Rank"]) == row.rank
        assert (int(line["W"]), int(line["D"]), int(line["L"])) == (row.wins, row.draws, row.losses)

    # the store: one finished game per pairing, with the result the pairing has
    stored = store_rows(
        data, "SELECT game_id, status, result FROM games WHERE tournament_id = ?", (tid,)
    )
    assert {g["game_id"]: g["result"] for g in stored} == {p.game_id: p.result for p in games}
    assert {g["status"] for g in stored} == {"finished"}


def test_swiss_of_seven_in_process_bots(
    lanqi: Any,
    mm: Callable[..., Any],
    tour: Any,
    names: Callable[..., list[str]],
    bot_pool: Any,
) -> None:
    server = lanqi.serve()
    client = mm(server)
    tid = tour.create(client, format="swiss", variant="gomoku", rounds=5)
    players = names(7, "sw")
    bot_pool.start(server, players, tournament=tid, seed=10)
    tour.wait_players(client, tid, 7)
    tour.start(client, tid)
    final = tour.wait_finished(client, tid, timeout_s=60)

    assert final.tournament.round == 5
    byes = [p for p in final.pairings if p.second is None]
    games = [p for p in final.pairings if p.second is not None]
    # a bye every round, each to a different player
    assert sorted(p.round for p in byes) == [1, 2, 3, 4, 5]
    assert len({p.first for p in byes}) == 5
    assert all(p.result == "bye" and p.game_id is None for p in byes)
    # three games a round, everybody seated once a round, no rematch
    for round_no in range(1, 6):
        seated = [
            x for p in final.pairings if p.round == round_no for x in (p.first, p.second) if x
        ]
        assert sorted(seated) == sorted(players), f"round {round_no}: {seated}"
    assert len(games) == 15
    assert set(tour.pair_counts(final).values()) == {1}, "a rematch"
    assert len({p.game_id for p in games}) == 15
    # points: one per game plus one per bye (Swiss byes score 1)
    assert sum(row.points for row in final.rows) == len(games) + len(byes)
    tour.check_standings(final, bye_score=1.0)
    for row in final.rows:
        had_bye = any(p.first == row.player for p in byes)
        assert row.games == (4 if had_bye else 5)
