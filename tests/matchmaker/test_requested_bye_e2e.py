"""Requested byes from the command line: ``lanqi tournament bye ID NAME [--half|--zero|
--none] [--round N]`` on a real ``lanqi serve``, with each Swiss engine (FIDE Dutch,
and lanqi's own matching, which leaves the player out as if absent).

Over-the-board events, so the director's results move the rounds on: a half-point
bye asked before round 1, a zero-point one taken back, a request for a round already
paired refused, a zero-point bye for round 2; the pairings show each as a requested
bye and the standings count it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from lanqi.client.matchmaker import MatchmakerClient

from .test_arbiter_cli_e2e import rounds_of
from .test_tournament_cli_e2e import cli


@pytest.mark.parametrize("system", ["dutch", "lanqi"])
def test_requested_byes_through_the_cli(
    lanqi: Any,
    mm: Callable[..., MatchmakerClient],
    tour: Any,
    names: Callable[..., list[str]],
    system: str,
) -> None:
    data = lanqi.data_dir("bye-data")
    server = lanqi.serve(data_dir=data, director_key=None)

    def run(*args: str) -> str:
        done = cli(server, *args, data_dir=data)
        assert done.returncode == 0, done.stderr
        return done.stdout

    tid = run(
        "create", "Bye night", "--format", "swiss", "--rounds", "2", "--board", "otb",
        "--pairing", system,
    ).strip()  # fmt: skip
    p = names(5, "by")
    run("join", tid, *p)
    assert run("bye", tid, p[0]).strip() == f"bye: {p[0]} has a half-point bye in the next round"
    assert run("bye", tid, p[1], "--zero").strip() == (
        f"bye: {p[1]} has a zero-point bye in the next round"
    )
    assert run("bye", tid, p[1], "--none").strip() == f"bye: {p[1]} has no bye in the next round"
    run("start", tid)

    one = rounds_of(run("pairings", tid))[1]
    byes = {row[1]: row[2:] for row in one if row[3] == "(bye)"}
    assert byes == {p[0]: ["bye", "(bye)", "requested", "bye,", "half", "point"]}
    games = [row for row in one if row[3] != "(bye)"]
    assert sorted(name for row in games for name in (row[1], row[3])) == sorted(p[1:])

    late = cli(server, "bye", tid, p[2], "--round", "1", data_dir=data)
    assert late.returncode == 1
    assert late.stderr.strip().startswith("lanqi tournament: refused: ")
    assert "round 1 cannot be changed" in late.stderr
    assert run("bye", tid, p[3], "--zero", "--round", "2").strip() == (
        f"bye: {p[3]} has a zero-point bye in round 2"
    )
    for row in games:
        run("result", tid, "1", row[0], "1/2-1/2")

    two = rounds_of(run("pairings", tid))[2]
    byes = {row[1]: row[2:] for row in two if row[3] == "(bye)"}
    assert byes == {p[3]: ["bye", "(bye)", "requested", "bye,", "zero", "point"]}
    assert sorted(n for row in two if row[3] != "(bye)" for n in (row[1], row[3])) == sorted(
        [p[0], p[1], p[2], p[4]]
    )
    client = mm(server)
    points = {row.player: row.points for row in tour.standings(client, tid).rows}
    assert points == {p[0]: 0.5, p[1]: 0.5, p[2]: 0.5, p[3]: 0.5, p[4]: 0.5}
