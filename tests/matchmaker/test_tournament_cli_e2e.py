"""``lanqi tournament`` (the director's CLI) against a running ``lanqi serve``.

The server is started without ``--director-key``: it saves a key in its data
directory, and the CLI reads it from there (``--data-dir``).  The players are
random bots that only say hello; the director enters them by name.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lanqi.games.xiangqi.pgn import read_pgns
from lanqi.protocol import ListPlayers, PlayersList

REPO = Path(__file__).resolve().parents[2]
SOURCE_PATH = os.pathsep.join(str(REPO / part) for part in ("shared", "services", "frontends"))


def cli(server: Any, *args: str, data_dir: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=SOURCE_PATH)
    env.pop("LANQI_DIRECTOR_KEY", None)
    env.pop("LANQI_DATA_DIR", None)
    where = ["--data-dir", str(data_dir)] if data_dir else []
    command = [
        sys.executable,
        "-m",
        "lanqi.cli.main",
        "tournament",
        "--server",
        server.lobby,
        "--events",
        server.events,
        *where,
        *args,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, env=env, check=False)


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_director_runs_a_xiangqi_event_from_the_cli(
    lanqi: Any,
    mm: Callable[..., Any],
    tour: Any,
    *,
    names: Callable[..., list[str]],
    bot_pool: Any,
    tmp_path: Path,
) -> None:
    data = lanqi.data_dir("cli-data")
    server = lanqi.serve(data_dir=data, director_key=None)
    assert (data / "director.key").exists()
    players = names(4, "cli")
    client = mm(server)
    client.subscribe("lobby")  # presence events wake the wait for the bots below
    bot_pool.start(server, players, seed=40)

    created = ok(
        cli(
            server,
            "create",
            "CLI Open",
            "--format",
            "round_robin",
            "--variant",
            "xiangqi",
            "--option",
            "move_limit=40",
            "--casual",
            data_dir=data,
        )
    )
    tid = created.strip()
    assert re.fullmatch(r"[0-9a-f]{10}", tid), created

    # the bots are players once they said hello; enter them by name
    deadline = time.monotonic() + 20
    while not set(players) <= {
        p.name for p in client.call(ListPlayers(), PlayersList).players if p.online
    }:
        assert time.monotonic() < deadline, "the bots never said hello"
        client.next_event(200)
    out = ok(cli(server, "join", tid, *players, data_dir=data))
    assert out.splitlines() == [f"join: {p}" for p in players]

    # a wrong key is refused, clearly, and changes nothing
    refused = cli(server, "--director-key", "wrong", "start", tid)
    assert refused.returncode == 1
    assert "refused: unauthorized" in refused.stderr

    assert ok(cli(server, "start", tid, data_dir=data)).strip() == "start: ok"
    final = tour.wait_finished(client, tid, timeout_s=90)
    tour.check_standings(final)

    table = ok(cli(server, "standings", tid))
    lines = table.splitlines()
    assert lines[0] == "CLI Open (round robin, xiangqi) - finished, round 3"
    assert lines[1].split()[:7] == ["#", "player", "pts", "games", "W", "D", "L"]
    for row, line in zip(sorted(final.rows, key=lambda r: r.rank), lines[2:], strict=True):
        assert line.split()[:3] == [str(row.rank), row.player, f"{row.points:g}"]

    listed = ok(cli(server, "list"))
    assert any(
        line.startswith(f"{tid}  CLI Open  round_robin  xiangqi  finished")
        for line in listed.splitlines()
    )

    # exports, to files
    files = {}
    for fmt in ("txt", "csv", "html", "pgn"):
        path = tmp_path / f"event.{fmt}"
        assert ok(cli(server, "export", tid, "--format", fmt, "--out", str(path))).strip() == (
            f"wrote {path}"
        )
        files[fmt] = path.read_text(encoding="utf-8")

    assert files["txt"].startswith("CLI Open (round_robin, xiangqi)")
    assert all(p in files["txt"] for p in players)

    rows = list(csv.DictReader(io.StringIO(files["csv"])))
    by_name = {row.player: row for row in final.rows}
    assert sorted(r["Name"] for r in rows) == sorted(players)
    for r in rows:
        assert float(r["Pts"]) == by_name[r["Name"]].points

    page = files["html"]
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "<style>" in page and all(p in page for p in players)
    for outside in ("<script", "<link", "src=", "@import", "url("):
        assert outside not in page, f"the page is not self-contained: {outside}"
    links = re.findall(r'href="([^"]*)"', page)
    assert links and all(link.startswith("#") for link in links), "links only within the page"

    games = read_pgns(files["pgn"])
    played = [p for p in final.pairings if p.second is not None]
    assert len(games) == len(played) == 6
    by_round = {f"{p.round}.{p.board}": p for p in played}
    for game in games:
        pairing = by_round[game.headers["Round"]]
        assert game.headers["Event"] == "CLI Open"
        assert (game.headers["Red"], game.headers["Black"]) == (pairing.first, pairing.second)
        assert game.headers["Result"] == pairing.result == game.result
        assert game.board.ply > 0


def test_a_no_show_forfeits_and_standings_watch_ends_with_the_event(
    lanqi: Any,
    mm: Callable[..., Any],
    tour: Any,
    *,
    names: Callable[..., list[str]],
    bot_pool: Any,
    store_rows: Any,
) -> None:
    """``create --forfeit-after 5``: a player entered who never comes loses each game
    by forfeit once 5 s pass without a join (``join_within_ms`` on the referee), and
    ``standings --watch`` prints until the event is over, then exits by itself."""
    data = lanqi.data_dir("forfeit-data")
    # the referee's own abandon time is far away: only join_within_ms can end those games
    server = lanqi.serve("--abandon-after", "600", data_dir=data, director_key=None)
    players = names(2, "here")
    ghost = names(1, "ghost")[0]
    # the ghost says hello (so it exists), and is gone before the event starts
    absent = mm(server)
    absent.hello(ghost)
    absent.close()
    client = mm(server)
    client.subscribe("lobby")
    bot_pool.start(server, players, seed=70)
    created = ok(
        cli(
            server,
            "create",
            "No-show Cup",
            "--format",
            "round_robin",
            "--variant",
            "gomoku",
            "--casual",
            "--forfeit-after",
            "5",
            data_dir=data,
        )
    )
    tid = created.strip()
    online: set[str] = set()
    while not set(players) <= online:
        online = {p.name for p in client.call(ListPlayers(), PlayersList).players if p.online}
        client.next_event(200)  # woken by the bots' presence events
    ok(cli(server, "join", tid, *players, ghost, data_dir=data))

    env = dict(os.environ, PYTHONPATH=SOURCE_PATH)
    env.pop("LANQI_DATA_DIR", None)
    watch = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "lanqi.cli.main",
            "tournament",
            "--server",
            server.lobby,
            "--events",
            server.events,
            "standings",
            "--watch",
            tid,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert ok(cli(server, "start", tid, data_dir=data)).strip() == "start: ok"
        final = tour.wait_finished(client, tid, timeout_s=90)
        # the watcher ends by itself once the event is over
        out, err = watch.communicate(timeout=30)
    finally:
        if watch.poll() is None:
            watch.kill()
            watch.communicate()
    assert watch.returncode == 0, err
    # piped: one line per result as it came in, the end, the final standings once
    lines = out.splitlines()
    played = [
        line for line in lines if re.match(r"round \d board \d: ", line) and "bye" not in line
    ]
    assert len(played) == 3, out
    assert lines.index("No-show Cup finished after 3 rounds") < lines.index(
        "No-show Cup: final standings"
    ), out
    assert lines.count("No-show Cup: final standings") == 1, out

    games = [p for p in final.pairings if p.second is not None]
    assert len(games) == 3
    for pairing in games:
        if ghost in (pairing.first, pairing.second):
            ghost_won = "1-0" if pairing.first == ghost else "0-1"
            assert pairing.result in ("1-0", "0-1") and pairing.result != ghost_won, pairing
    rows = {row.player: row for row in final.rows}
    assert (rows[ghost].points, rows[ghost].losses) == (0.0, 2)
    stored = store_rows(
        data,
        "SELECT p.kind, g.termination, g.moves, g.time_control FROM pairings p "
        "JOIN games g ON g.game_id = p.game_id WHERE p.tournament_id = ? AND (p.first = "
        "(SELECT player_id FROM players WHERE name = ?) OR p.second = "
        "(SELECT player_id FROM players WHERE name = ?))",
        (tid, ghost, ghost),
    )
    assert len(stored) == 2
    for row in stored:
        assert (row["kind"], row["termination"], json.loads(row["moves"])) == (
            "forfeit",
            "abandoned",
            [],
        )
        assert json.loads(row["time_control"])["join_within_ms"] == 5000
