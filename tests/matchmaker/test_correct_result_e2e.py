"""The director corrects an over-the-board result that already counts, from the CLI
(``lanqi tournament result ID ROUND TABLE RESULT --correct``) on a real ``lanqi
serve``: the standings, the ratings (the variant's games rated again) and the exports
follow; the round paired since stays as it was paired."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from lanqi.client.matchmaker import MatchmakerClient
from lanqi.protocol import GetStandings, Standings
from lanqi.tournament.ratings import Glicko2, glicko2_game

from .test_arbiter_cli_e2e import ok, rounds_of, run


def test_the_director_corrects_a_counted_board_result(lanqi: Any, tmp_path: Path) -> None:
    data = lanqi.data_dir("correct-data")
    server = lanqi.serve(data_dir=data, director_key=None)
    tag = os.urandom(2).hex()
    p = [f"fix{i}x{tag}" for i in range(4)]

    def tour(*args: str) -> str:
        return ok(run(server, data, "tournament", *args))

    def standings() -> Standings:
        with MatchmakerClient(server.lobby) as client:
            return client.call(GetStandings(tournament_id=tid), Standings)

    tid = tour(
        "create", "Second Look", "--format", "swiss", "--rounds", "2", "--board", "otb",
    ).strip()  # fmt: skip
    field = tmp_path / "field.csv"
    field.write_text("name\n" + "\n".join(p) + "\n", encoding="utf-8")
    tour("join", tid, "--csv", str(field))
    tour("start", tid)
    one = rounds_of(tour("pairings", tid))[1]
    (t1, w1, _, b1), (t2, w2, _, b2) = (row[:4] for row in one)
    early = run(server, data, "tournament", "result", tid, "1", t1, "0-1", "--correct")
    assert early.returncode == 1 and "no result to correct" in early.stderr, early.stderr
    tour("result", tid, "1", t1, "1-0")
    tour("result", tid, "1", t2, "1/2-1/2")
    two = rounds_of(tour("pairings", tid))[2]
    before = {row.player: row.points for row in standings().rows}
    assert before[w1] == 1.0 and before[b1] == 0.0

    # the director finds the scoresheet: Black won at table 1
    said = tour("result", tid, "1", t1, "0-1", "--correct").strip()
    assert said == (
        f"result: round 1 table {t1} 0-1 corrected (standings, ratings and exports follow; "
        "rounds paired since stay paired)"
    )
    again = run(server, data, "tournament", "result", tid, "1", t1, "0-1", "--correct")
    assert again.returncode == 1 and "has that result already" in again.stderr

    after = standings()
    points = {row.player: row.points for row in after.rows}
    assert (points[w1], points[b1], points[w2], points[b2]) == (0.0, 1.0, 0.5, 0.5)
    assert rounds_of(tour("pairings", tid))[2] == two  # round 2 stays as paired
    assert rounds_of(tour("pairings", tid))[1][0][:4] == [t1, w1, "0-1", b1]
    # ratings: the two games rated again from the start (nobody had another game)
    d = Glicko2()
    lost, won = glicko2_game(d, d, 0.0)
    drew_a, drew_b = glicko2_game(d, d, 0.5)
    expect = {w1: lost, b1: won, w2: drew_a, b2: drew_b}
    ratings = {row.player: row.rating for row in after.rows}
    for name, new in expect.items():
        assert ratings[name] == round(new.rating, 1), (name, ratings[name], new.rating)
    # the exports follow
    pgn = tour("export", tid, "--format", "pgn")
    assert pgn.count('[Result "0-1"]') == 1 and pgn.count('[Result "1-0"]') == 0
    trf = [line for line in tour("export", tid, "--format", "trf").splitlines()]
    row_w1 = next(line for line in trf if line.startswith("001") and w1 in line)
    assert row_w1[80:84] == " 0.0" and row_w1[91:99].endswith("w 0")
