"""``lanqi tournament`` (the director's CLI) against a running ``lanqi serve``.

The server is started without ``--director-key``: it saves a key in its data
directory, and the CLI reads it from there (``--data-dir``).  The players are
random bots that only say hello; the director enters them by name.
"""

from __future__ import annotations

import csv
import io
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
    assert lines[0] == "CLI Open (round_robin, xiangqi) - finished, round 3"
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
    for outside in ("<script", "<link", "src=", "href=", "@import", "url("):
        assert outside not in page, f"the page is not self-contained: {outside}"

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
