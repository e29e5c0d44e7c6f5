"""A FIDE Dutch Swiss through the real matchmaker with bots, to its end: its TRF, and
``lanqi tournament check`` (every round re-paired by the event's own system) before
and after a stored pairing is altered behind the matchmaker's back."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lanqi.protocol import Exported, ExportTournament, TournamentSpec
from lanqi.protocol.schema import struct_from_wire
from lanqi.tournament.dutch import _parse_trf

from .test_tournament_cli_e2e import cli


def test_dutch_swiss_of_seven_bots_trf_and_check(
    lanqi: Any,
    mm: Callable[..., Any],
    tour: Any,
    names: Callable[..., list[str]],
    bot_pool: Any,
) -> None:
    data = lanqi.data_dir("dutch-data")
    server = lanqi.serve(data_dir=data, director_key=None)
    client = mm(server)
    created = cli(
        server, "create", "Dutch open", "--format", "swiss", "--variant", "gomoku",
        "--rounds", "4", data_dir=data,
    )  # fmt: skip
    assert created.returncode == 0, created.stderr
    tid = created.stdout.strip()
    client.subscribe(f"tour/{tid}")
    players = names(7, "du")
    bot_pool.start(server, players, tournament=tid, seed=22)
    tour.wait_players(client, tid, 7)
    assert cli(server, "start", tid, data_dir=data).returncode == 0
    final = tour.wait_finished(client, tid, timeout_s=90)
    assert final.tournament.spec.pairing == "dutch"  # the default of a new Swiss
    assert final.tournament.round == 4
    byes = [p for p in final.pairings if p.second is None]
    assert len({p.first for p in byes}) == 4  # a bye a round, never twice
    assert set(tour.pair_counts(final).values()) == {1}

    # the TRF: one 001 line per player, its points those of the standings, and a
    # pairing engine reads it back
    trf = client.call(ExportTournament(tournament_id=tid, format="trf"), Exported).text
    lines = [line for line in trf.splitlines() if line.startswith("001")]
    assert len(lines) == 7
    points = {line[14:47].strip(): float(line[80:84]) for line in lines}
    assert points == {row.player: row.points for row in final.rows}
    assert "162  W 1.0    D 0.5    L 0.0    A 0.0    P 1.0" in trf.splitlines()
    assert len(_parse_trf(trf).player_sections) == 7  # type: ignore[attr-defined]

    # check: every round is what the engine makes
    checked = cli(server, "check", tid, data_dir=data)
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.splitlines() == ["4 rounds checked by dutch: 0 differences"]

    # swap the second players of round 3's first two boards in the store
    db = sqlite3.connect(data / "matchmaker.sqlite3", timeout=10)
    with db:
        rows = db.execute(
            "SELECT board, second FROM pairings WHERE tournament_id = ? AND round = 3 "
            "AND second IS NOT NULL ORDER BY board LIMIT 2",
            (tid,),
        ).fetchall()
        (b1, s1), (b2, s2) = rows
        for board, second in ((b1, s2), (b2, s1)):
            db.execute(
                "UPDATE pairings SET second = ? WHERE tournament_id = ? AND round = 3 "
                "AND board = ?",
                (second, tid, board),
            )
    db.close()
    checked = cli(server, "check", tid, data_dir=data)
    assert checked.returncode == 1
    out = checked.stdout.splitlines()
    assert out[-1].startswith("4 rounds checked by dutch: ") and out[-1] != out[0]
    assert [line.split(":")[0] for line in out[:2]] == [
        f"round 3 board {b1}",
        f"round 3 board {b2}",
    ]
    assert all("the engine pairs" in line for line in out[:2])


def test_a_swiss_stored_before_the_option_keeps_lanqi_matching(tmp_path: Path) -> None:
    # a spec stored before `pairing` existed reads back with it empty, and the
    # director pairs such an event with lanqi's own matching
    from lanqi.matchmaker.director import Director

    spec = struct_from_wire(
        TournamentSpec, {"name": "old", "format": "swiss", "variant": "xiangqi", "rounds": 3}
    )
    assert spec.pairing == ""
    options = Director._options(None, spec)  # type: ignore[arg-type]
    assert options == {
        "points": "1-0.5-0",
        "pairing": "lanqi",
        "acceleration": "none",
        "rounds": 3,
        "unplayed": "fide2009",
    }
