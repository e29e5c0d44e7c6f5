"""A xiangqi Swiss scored 2/1/0 with the Chinese Xiangqi Association's tie-breaks,
through a real ``lanqi serve`` and random bots, to its end: standings, tie-breaks,
ratings (from the games' results, not their points) and exports checked against the
pairings' results."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from typing import Any

from lanqi.cli.tournament import format_standings
from lanqi.protocol import Exported, ExportTournament, Standings
from lanqi.tournament.ratings import Glicko2, glicko2_game

SCORE_FIRST = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}
CXA_SWISS = ["cxa_opponents", "cxa_wins", "cxa_black_games", "cxa_black_wins"]


def recompute(final: Standings) -> dict[str, dict[str, float]]:
    """Points (2/1/0, a bye 2) and the CXA tie-breaks of every player, by hand."""
    table = {
        name: dict(points=0.0, wins=0, black_games=0, black_wins=0)
        for name in final.tournament.players
    }
    opponents: dict[str, list[str]] = {name: [] for name in table}
    for p in final.pairings:
        assert p.first is not None and p.result is not None, p
        if p.second is None:
            assert p.result == "bye"
            table[p.first]["points"] += 2
            table[p.first]["wins"] += 1  # a bye counts as a win
            continue
        first = SCORE_FIRST[p.result]
        for name, score, other in ((p.first, first, p.second), (p.second, 1 - first, p.first)):
            table[name]["points"] += 2 * score
            table[name]["wins"] += score == 1.0
            opponents[name].append(other)
        table[p.second]["black_games"] += 1
        table[p.second]["black_wins"] += first == 0.0
    for name, row in table.items():  # 对手分: the opponents' points; a bye adds nothing
        row["opponents"] = sum(table[o]["points"] for o in opponents[name])
    return table


def replay_ratings(final: Standings) -> dict[str, float]:
    """Glicko-2, one game at a time from 1500/350/0.06, with each game's result (1, ½,
    0): a Swiss round's games involve different players, so round order is enough."""
    ratings = {name: Glicko2() for name in final.tournament.players}
    for p in sorted(final.pairings, key=lambda p: (p.round, p.board)):
        if p.second is None:
            continue
        assert p.first is not None and p.result is not None
        ratings[p.first], ratings[p.second] = glicko2_game(
            ratings[p.first], ratings[p.second], SCORE_FIRST[p.result]
        )
    return {name: round(r.rating, 1) for name, r in ratings.items()}


def test_a_210_xiangqi_swiss_with_cxa_tiebreaks_to_its_end(
    lanqi: Any,
    mm: Callable[..., Any],
    tour: Any,
    names: Callable[..., list[str]],
    bot_pool: Any,
) -> None:
    server = lanqi.serve()
    client = mm(server)
    tid = tour.create(
        client,
        format="swiss",
        variant="xiangqi",
        options={"move_limit": 150},
        rounds=3,
        rated=True,
        points="2/1/0",
        tiebreaks=["cxa"],
    )
    players = names(5, "cxa")
    bot_pool.start(server, players, tournament=tid, seed=22)
    tour.wait_players(client, tid, 5)
    tour.start(client, tid)
    final = tour.wait_finished(client, tid, timeout_s=120)
    assert not bot_pool.errors()

    assert final.tournament.spec.points == "2-1-0"  # stored by its canonical name
    assert final.tournament.round == 3
    byes = [p for p in final.pairings if p.second is None]
    games = [p for p in final.pairings if p.second is not None]
    assert len(byes) == 3 and len(games) == 6
    # every game is worth 2 points between its players, every bye 2
    assert sum(row.points for row in final.rows) == 2 * (len(games) + len(byes))

    want = recompute(final)
    for row in final.rows:
        w = want[row.player]
        assert row.points == w["points"], row
        assert list(row.tiebreaks) == CXA_SWISS
        assert row.tiebreaks == {
            "cxa_opponents": w["opponents"],
            "cxa_wins": w["wins"],
            "cxa_black_games": w["black_games"],
            "cxa_black_wins": w["black_wins"],
        }, row.player
    # ranked by points, then the chain in order; equal keys share a rank
    ordered = sorted(final.rows, key=lambda r: r.rank)
    keys = [(r.points, *(r.tiebreaks[k] for k in CXA_SWISS)) for r in ordered]
    assert keys == sorted(keys, reverse=True)
    for before, after, k0, k1 in zip(ordered, ordered[1:], keys, keys[1:], strict=False):
        assert (after.rank == before.rank) == (k0 == k1)

    # ratings moved by the results (1, ½, 0), exactly as one game at a time; a draw
    # (1 point in 2/1/0) fed as a score of 1 would have moved them as a win
    replayed = replay_ratings(final)
    assert {row.player: row.rating for row in final.rows} == replayed

    # the director's views and the exports count in 2/1/0 and name the tie-breaks
    assert "points 2/1/0" in format_standings(final).splitlines()[0]

    def export(fmt: str) -> str:
        reply = client.call(ExportTournament(tournament_id=tid, format=fmt), Exported)
        return str(reply.text)

    text = export("txt")
    assert text.splitlines()[0].endswith("(swiss, xiangqi, points 2/1/0)")
    assert "对手分 Opponents' points" in text and "后胜局 Wins with Black" in text
    page = export("html")
    assert "<dd>2/1/0 (win/draw/loss)</dd>" in page and "<th>胜局 Wins</th>" in page
    rows = {row.player: row for row in final.rows}
    for line in csv.DictReader(io.StringIO(export("csv"))):
        assert float(line["Pts"]) == rows[line["Name"]].points
        assert float(line["cxa_opponents"]) == rows[line["Name"]].tiebreaks["cxa_opponents"]
    pgn = export("pgn")
    assert pgn.count('[Result "') == len(games)  # a game's result, never its points
    assert '[Result "2-0"]' not in pgn
    # FIDE's report file: the 162 declaration and every player's total in 2/1/0
    trf = export("trf").splitlines()
    assert any(line.startswith("162") and "W 2.0" in line and "D 1.0" in line for line in trf)
    totals = sorted(float(line[80:84]) for line in trf if line.startswith("001"))
    assert totals == sorted(row.points for row in final.rows)
