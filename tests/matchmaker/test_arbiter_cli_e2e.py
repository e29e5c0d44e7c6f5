"""The arbiter's tools and over-the-board events, from the command line alone.

A real ``lanqi serve`` and the CLI as subprocesses: the director imports the field
from a CSV file (a bad row imports nobody), keeps a club and a family apart, checks
players in (the absent one gets a zero-point bye), pairs a round by hand, prints the
round sheet and pairing cards, and takes the results of the games played on physical
boards from the players (``lanqi result``) or decides them (``tournament result``),
including a disagreement; the event ends with standings, ratings and the report as
for games played on screens.  A mixed event plays some tables on screens (bots) and
one on a board.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lanqi.protocol import ListPlayers, PlayersList

REPO = Path(__file__).resolve().parents[2]
SOURCE_PATH = os.pathsep.join(str(REPO / part) for part in ("shared", "services", "frontends"))


def run(server: Any, data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``lanqi ARGS --server ... --data-dir DATA`` as a subprocess."""
    env = dict(os.environ, PYTHONPATH=SOURCE_PATH)
    env.pop("LANQI_DIRECTOR_KEY", None)
    env.pop("LANQI_DATA_DIR", None)
    command = [sys.executable, "-m", "lanqi.cli.main", *args, "--server", server.lobby]
    command += ["--data-dir", str(data)]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, env=env, check=False)


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stderr
    return result.stdout


def rounds_of(text: str) -> dict[int, list[list[str]]]:
    """``tournament pairings`` as {round: [[table, first, result, second, note...]]}."""
    out: dict[int, list[list[str]]] = {}
    current = 0
    for line in text.splitlines():
        if line.startswith("round "):
            current = int(line.split()[1])
            out[current] = []
        elif line and not line.startswith("table"):
            out[current].append(line.split())
    return out


def standings_of(text: str) -> dict[str, list[str]]:
    lines = text.splitlines()[2:]
    return {line.split()[1]: line.split() for line in lines}


def test_an_over_the_board_swiss_run_from_the_cli(lanqi: Any, tmp_path: Path) -> None:
    data = lanqi.data_dir("otb-data")
    server = lanqi.serve(data_dir=data, director_key=None)
    tag = os.urandom(2).hex()
    p = [f"otb{i}x{tag}" for i in range(6)]

    def tour(*args: str) -> str:
        return ok(run(server, data, "tournament", *args))

    tid = tour(
        "create",
        "Board Night",
        "--format",
        "swiss",
        "--rounds",
        "3",
        "--board",
        "otb",
        "--same-club-until",
        "2",
    ).strip()

    # a CSV with a bad cell: refused in one line naming the line and column, nobody in
    bad = tmp_path / "bad.csv"
    bad.write_text(
        "name,rating,club,title,born\n"
        f"{p[0]},2010,Riverside,FM,1990\n"
        f"{p[1]},tall,Riverside,,2001\n",
        encoding="utf-8",
    )
    refused = run(server, data, "tournament", "join", tid, "--csv", str(bad))
    assert refused.returncode == 2
    assert refused.stderr.strip() == (
        f"lanqi tournament: {bad} line 3, column rating: 'tall' is not a number"
    )
    # a file the server refuses (a name twice): nothing imported either
    twice = tmp_path / "twice.csv"
    twice.write_text(f"name\n{p[0]}\n{p[1]}\n{p[0].upper()}\n", encoding="utf-8")
    refused = run(server, data, "tournament", "join", tid, "--csv", str(twice))
    assert refused.returncode == 1
    assert "row 3" in refused.stderr and "twice" in refused.stderr, refused.stderr
    listed = [line.split() for line in tour("list").splitlines()]
    assert [tid, "Board", "Night", "swiss", "xiangqi", "open", "0", "0"] in listed

    good = tmp_path / "field.csv"
    good.write_text(
        "name,rating,club,title,born\n"
        f"{p[0]},2010,Riverside,FM,1990\n"
        f"{p[1]},1950,riverside ,,2001\n"
        f"{p[2]},1900,Hilltop,,1985\n"
        f"{p[3]},1850,,CM,\n"
        f"{p[4]},1800,Hilltop,,2012\n"
        f"{p[5]},,,,\n",
        encoding="utf-8",
    )
    out = tour("join", tid, "--csv", str(good)).splitlines()
    codes = dict(line.split() for line in out[:-1])
    assert sorted(codes) == sorted(p) and out[-1] == f"join: 6 players from {good}"
    assert all(re.fullmatch(r"[0-9A-Z]{6}", c) for c in codes.values())
    # a family: never paired; a club (Riverside, any case) apart up to round 2
    assert tour("forbid", tid, p[2], p[3]).strip() == "forbid: ok"
    # p5 does not come to round 1
    assert tour("checkin", tid, *p[:5]).strip() == "checkin: 5 players"
    assert tour("start", tid).strip() == "start: ok"
    assert tour("pause", tid).strip() == "pause: ok"  # hold round 2 for a pairing by hand

    one = rounds_of(tour("pairings", tid))[1]
    games = [row for row in one if row[3] != "(bye)"]
    byes = {row[1]: row for row in one if row[3] == "(bye)"}
    assert len(games) == 2 and all(row[2] == "-" and "board" in row for row in games)
    assert byes[p[5]][2:5] == ["bye", "(bye)", "absent"]  # zero points, see standings

    sheet_path = tmp_path / "round1.html"
    tour("export", tid, "--format", "sheet", "--round", "1", "--out", str(sheet_path))
    sheet = sheet_path.read_text(encoding="utf-8")
    assert "<h1>Board Night</h1>" in sheet and "@media print" in sheet
    assert sheet.count('<span class="box"></span>') == 2  # a result box per table
    assert sheet.count('<div class="card">') == 2  # a pairing card per table
    assert "2010 · FM · Riverside · 1990" in sheet  # what the director entered
    for row in games:
        assert f'<td class="table">{row[0]}</td>' in sheet and row[1] in sheet and row[3] in sheet

    # table 1: both players say 1-0 (the first time with their claim code)
    t1 = games[0]
    said = ok(
        run(
            server, data, "result", tid, "1", t1[0], "1-0", "--name", t1[1], "--claim", codes[t1[1]]
        )
    )
    assert said.strip() == (
        f"round 1 table {t1[0]} 1-0: noted: it counts when your opponent says the same"
    )
    assert f"{t1[1]} says 1-0" in tour("pairings", tid, "--round", "1")
    wrong = run(server, data, "result", tid, "1", t1[0], "1-0", "--name", t1[3])
    assert wrong.returncode == 2 and "--claim" in wrong.stderr  # no session kept yet
    said = ok(
        run(
            server, data, "result", tid, "1", t1[0], "1-0", "--name", t1[3], "--claim", codes[t1[3]]
        )
    )
    assert said.strip().endswith("1-0: recorded")
    # table 2: the director
    t2 = games[1]
    assert tour("result", tid, "1", t2[0], "0-1").strip() == (
        f"result: round 1 table {t2[0]} 0-1 recorded"
    )
    again = run(server, data, "tournament", "result", tid, "1", t2[0], "1-0")
    assert again.returncode == 1 and "has its result" in again.stderr

    # round 2 by hand: p5 (absent last round) against the bye of round 1, if any
    other = next(name for name in byes if name != p[5]) if len(byes) > 1 else p[4]
    assert tour("pair", tid, "2", f"{p[5]}-{other}").strip() == "pair: round 2, 1 pairs by hand"
    late = run(server, data, "tournament", "pair", tid, "1", f"{p[0]}-{p[1]}")
    assert late.returncode == 1 and "only the next round (2)" in late.stderr
    assert tour("resume", tid).strip() == "resume: ok"
    two = rounds_of(tour("pairings", tid))[2]
    assert two[0][1:4] == [p[5], "-", other] and "manual" in two[0]
    assert all("manual" not in row for row in two[1:])

    # round 2: the players of the first table disagree; the director decides
    t1 = two[0]
    ok(
        run(
            server, data, "result", tid, "2", t1[0], "1-0", "--name", t1[1], "--claim", codes[t1[1]]
        )
    )
    said = ok(
        run(
            server, data, "result", tid, "2", t1[0], "0-1", "--name", t1[3], "--claim", codes[t1[3]]
        )
    )
    assert said.strip().endswith("disputed: your opponent said otherwise; the director decides")
    shown = tour("pairings", tid, "--round", "2")
    assert f"disputed: {t1[1]} says 1-0, {t1[3]} says 0-1 (the director decides)" in shown
    tour("result", tid, "2", t1[0], "1/2-1/2")
    for row in two[1:]:
        if row[3] != "(bye)":
            tour("result", tid, "2", row[0], "1-0")
    three = rounds_of(tour("pairings", tid))[3]
    for row in three:
        if row[3] != "(bye)":
            tour("result", tid, "3", row[0], "1-0")

    everything = rounds_of(tour("pairings", tid))
    met = [
        frozenset((row[1], row[3]))
        for rows in everything.values()
        for row in rows
        if row[3] != "(bye)"
    ]
    assert frozenset((p[2], p[3])) not in met  # the family
    club = [frozenset((row[1], row[3])) for n in (1, 2) for row in everything[n]]
    assert frozenset((p[0], p[1])) not in club  # the club, up to round 2
    assert len(set(met)) == len(met), [[r[:4] for r in rows] for rows in everything.values()]

    table = tour("standings", tid)
    assert table.splitlines()[0] == "Board Night (swiss, xiangqi) - finished, round 3"
    rows = standings_of(table)
    points: dict[str, float] = dict.fromkeys(p, 0.0)
    for rows_ in everything.values():
        for row in rows_:
            score = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}.get(row[2])
            if row[3] == "(bye)":
                points[row[1]] += 0.0 if "absent" in row else 1.0
            elif score is not None:
                points[row[1]] += score
                points[row[3]] += 1 - score
    for name in p:
        assert float(rows[name][2].replace("½", ".5")) == points[name], (name, rows[name])
    # over-the-board games are rated like any other: the winners gained
    assert any(float(r[7]) > 1500 for r in rows.values())
    assert any(float(r[7]) < 1500 for r in rows.values())

    report = tmp_path / "report.html"
    tour("export", tid, "--format", "html", "--out", str(report))
    page = report.read_text(encoding="utf-8")
    assert "over the board" in page and "<i>manual</i>" in page and "<i>absent</i>" in page
    pgn = tour("export", tid, "--format", "pgn")
    assert pgn.count('[Termination "over_the_board"]') == len(met)

    # the TRF: the absence coded Z, the entered fields in their columns, the rating
    # at the start (the federation rating entered), round dates, the hand-made pair
    trf = tour("export", tid, "--format", "trf").splitlines()
    number = {line[14:47].strip(): line for line in trf if line.startswith("001")}
    assert number[p[5]][91:99] == "0000 - Z"  # absent in round 1
    assert number[p[0]][10:13] == " FM" and number[p[0]][69:79] == "1990/00/00"
    assert number[p[0]][48:52] == "2010" and number[p[3]][10:13] == " CM"
    dates = next(line for line in trf if line.startswith("132"))
    assert re.fullmatch(r"(\d\d/\d\d/\d\d  ){2}\d\d/\d\d/\d\d", dates[91:]), dates
    manual = [line for line in trf if line.startswith("### manual pairing, round 2: ")]
    assert len(manual) == 1
    # check: round 1 (an absent player, a family and a club kept apart) and round 3
    # are what the engine makes; round 2's hand-made pair is not
    checked = run(server, data, "tournament", "check", tid)
    assert checked.returncode == 1, checked.stderr
    lines = checked.stdout.splitlines()
    assert lines[-1].startswith("3 rounds checked by dutch: ")
    assert lines[:-1] and all(line.startswith("round 2 ") for line in lines[:-1]), lines


def test_a_mixed_event_plays_screens_and_a_board(
    lanqi: Any,
    mm: Callable[..., Any],
    tour: Any,
    *,
    names: Callable[..., list[str]],
    bot_pool: Any,
) -> None:
    data = lanqi.data_dir("mixed-data")
    server = lanqi.serve(data_dir=data, director_key=None)
    players = names(4, "mix")
    client = mm(server)
    client.subscribe("lobby")
    bot_pool.start(server, players, seed=7)
    deadline = time.monotonic() + 20
    while not set(players) <= {
        p.name for p in client.call(ListPlayers(), PlayersList).players if p.online
    }:
        assert time.monotonic() < deadline, "the bots never said hello"
        client.next_event(200)

    def cli(*args: str) -> str:
        return ok(run(server, data, "tournament", *args))

    tid = cli(
        "create",
        "Mixed",
        "--format",
        "swiss",
        "--rounds",
        "2",
        "--board",
        "mixed",
        "--otb-tables",
        "1",
        "--option",
        "move_limit=40",
    ).strip()
    cli("join", tid, *players)
    cli("start", tid)
    for number in (1, 2):
        standings = tour.wait(
            client, tid, lambda s, n=number: s.tournament.round >= n, 60, f"round {number}"
        )
        board = next(x for x in standings.pairings if x.round == number and x.table == 1)
        assert board.otb and board.game_id is None  # no referee game at the board
        screens = [x for x in standings.pairings if x.round == number and x.table != 1]
        assert screens and not any(x.otb for x in screens)
        cli("result", tid, str(number), "1", "1-0")
    final = tour.wait_finished(client, tid, timeout_s=90)
    assert all(x.result for x in final.pairings)
    screen_games = [x for x in final.pairings if not x.otb]
    assert screen_games and all(x.game_id for x in screen_games)  # played on the referee
    assert sum(r.points for r in final.rows) == len(final.pairings)
    sheet = cli("export", tid, "--format", "sheet", "--round", "2")
    assert sheet.count('<span class="small">on screen</span>') == 0  # all decided by now
    assert sheet.count('<td class="table">') == 2
