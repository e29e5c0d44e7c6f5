"""A pairing lanqi's own engine had to make against a rule (here a forbidden pair it
cannot avoid) is stored with its warning and shown to the director: next to the pair
in ``pairings`` and ``watch``, and as the note of the standings, through a real
``lanqi serve`` driven from the CLI alone."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from lanqi.client.matchmaker import MatchmakerClient
from lanqi.protocol import GetStandings, Standings

from .test_arbiter_cli_e2e import ok, rounds_of, run


def test_a_forced_forbidden_pair_is_stored_and_shown(lanqi: Any, tmp_path: Path) -> None:
    data = lanqi.data_dir("warn-data")
    server = lanqi.serve(data_dir=data, director_key=None)
    tag = os.urandom(2).hex()
    p = [f"warn{i}x{tag}" for i in range(4)]

    def tour(*args: str) -> str:
        return ok(run(server, data, "tournament", *args))

    tid = tour(
        "create", "Kept Apart", "--format", "swiss", "--rounds", "2", "--board", "otb",
        "--pairing", "lanqi",
    ).strip()  # fmt: skip
    field = tmp_path / "field.csv"
    field.write_text("name\n" + "\n".join(p) + "\n", encoding="utf-8")
    tour("join", tid, "--csv", str(field))
    for other in p[1:]:  # p0 may meet nobody: the engine must break one of them
        tour("forbid", tid, p[0], other)
    tour("start", tid)

    shown = tour("pairings", tid)
    table, last = shown.rstrip().rsplit("\n", 1)  # the note follows the table
    one = rounds_of(table)[1]
    broken = [row for row in one if p[0] in (row[1], row[3])]
    assert len(broken) == 1
    mate = broken[0][3] if broken[0][1] == p[0] else broken[0][1]
    warning = f"forbidden: {p[0]} and {mate} are kept apart"
    assert warning in " ".join(broken[0]), shown
    assert all("forbidden" not in " ".join(row) for row in one if row is not broken[0])
    note = f"round 1: 1 pairing had to break a pairing rule ({warning})"
    assert last == note
    with MatchmakerClient(server.lobby) as client:
        reply = client.call(GetStandings(tournament_id=tid), Standings)
    assert reply.note == note
    assert [q.note for q in reply.pairings if q.note] == [warning]
