"""The director's live view and the event's reports, against a running ``lanqi serve``.

One timed, rated xiangqi round robin of random bots: ``lanqi tournament watch``
runs piped from before the start and must end by itself with the event; then
``pairings``, the HTML report and the PGN in every notation are checked against
the standings, the store and two PGN readers (lanqi's and ``cchess``).
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lanqi.games.xiangqi.pgn import read_pgns
from lanqi.phrases import termination_words
from lanqi.protocol import ListPlayers, PlayersList

from .conftest import DIRECTOR_KEY, read_store
from .test_tournament_cli_e2e import SOURCE_PATH, cli, ok

CLOCK = re.compile(r"\{\[%clk (\d+):(\d\d):(\d\d)\]\}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_event_watched_paired_reported_and_exported(
    lanqi: Any,
    mm: Callable[..., Any],
    tour: Any,
    *,
    names: Callable[..., list[str]],
    bot_pool: Any,
    tmp_path: Path,
) -> None:
    """One event, five checks (an event takes a while: it is played once)."""
    event = _run_event(lanqi, mm, tour, names(4, "rep"), bot_pool)
    event["tmp"] = tmp_path
    check_watch_piped(event)
    check_standings_watch(event)
    check_pairings(event)
    check_html_report(event)
    check_pgn(event)


def _run_event(
    lanqi: Any, mm: Callable[..., Any], tour: Any, players: list[str], bot_pool: Any
) -> dict[str, Any]:
    """A finished event, with what `watch` printed while it ran."""
    referee_pub = _free_port()
    data = lanqi.data_dir("reports")
    server = lanqi.serve("--referee-pub-port", str(referee_pub), data_dir=data)
    client = mm(server)
    client.subscribe("lobby")
    bot_pool.start(server, players, seed=7)
    tid = tour.create(
        client,
        format="round_robin",
        variant="xiangqi",
        options={"move_limit": 30},
        time_control={"kind": "fischer", "base_ms": 120_000, "increment_ms": 1_000},
        rated=True,
        name="Report Open",
    )
    deadline_events = 0
    while not set(players) <= {
        p.name for p in client.call(ListPlayers(), PlayersList).players if p.online
    }:
        deadline_events += 1
        assert deadline_events < 200, "the bots never said hello"
        client.next_event(100)
    ok(cli(server, "--director-key", DIRECTOR_KEY, "join", tid, *players))
    referee = server.endpoints["referee"]
    host = referee.rpartition(":")[0]
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
            "watch",
            tid,
            "--referee",
            referee,
            "--referee-events",
            f"{host}:{referee_pub}",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": SOURCE_PATH},
    )
    try:
        # the watcher prints the event's first line once it follows it
        assert watch.stdout is not None
        first = watch.stdout.readline()
        tour.start(client, tid)
        final = tour.wait_finished(client, tid, timeout_s=120)
        rest, err = watch.communicate(timeout=60)  # it ends by itself with the event
    finally:
        if watch.poll() is None:
            watch.kill()
            watch.wait()
    assert watch.returncode == 0, err
    return {
        "server": server,
        "tid": tid,
        "players": players,
        "final": final,
        "watch": first + rest,
        "data": data,
    }


def check_watch_piped(event: dict[str, Any]) -> None:
    """Piped: one line per round paired and per result (with how it ended), the end,
    the final standings once, no terminal codes; and the watcher ended by itself."""
    final = event["final"]
    lines = event["watch"].splitlines()
    assert lines[0].startswith("Report Open: round robin of xiangqi, 4 players, 2 min + 1 s")
    paired = [line for line in lines if re.match(r"round \d+ paired: ", line)]
    assert [int(line.split()[1]) for line in paired] == [1, 2, 3]
    for p in final.pairings:
        line = f"round {p.round} board {p.board}: {p.first} {p.result} {p.second} ("
        assert sum(x.startswith(line) for x in lines) == 1, (line, lines)
    # each result line names how the game ended, in words
    for line in lines:
        if re.match(r"round \d+ board \d+: ", line):
            assert re.search(r"\([a-z ,()]+\)$", line), line
    assert sum("final standings" in line for line in lines) == 1
    assert lines.index("Report Open finished after 3 rounds") < len(lines) - 5
    assert "Report Open: final standings" in lines, event["watch"]
    table = lines[lines.index("Report Open: final standings") + 1 :]
    assert table[0].split()[:7] == ["#", "player", "pts", "games", "W", "D", "L"]
    assert "Sonneborn-Berger" in table[0] and "sonneborn" not in "\n".join(lines)
    for row, line in zip(final.rows, table[1:], strict=True):
        assert line.split()[:3] == [str(row.rank), row.player, f"{row.points:g}"]
    assert "\x1b[" not in event["watch"], "no terminal codes in piped output"


def check_standings_watch(event: dict[str, Any]) -> None:
    """``standings --watch`` is the same view: on a finished event, piped, it prints
    what happened and the final standings once, and ends."""
    server, tid, final = event["server"], event["tid"], event["final"]
    lines = ok(cli(server, "standings", tid, "--watch")).splitlines()
    assert lines[0].endswith(", finished")
    assert sum(line.startswith("round ") and " board " in line for line in lines) == 6
    assert lines.count("Report Open: final standings") == 1
    assert [line.split()[1] for line in lines[-4:]] == [row.player for row in final.rows]


def check_pairings(event: dict[str, Any]) -> None:
    server, tid, final = event["server"], event["tid"], event["final"]
    out = ok(cli(server, "pairings", tid)).splitlines()
    assert [line for line in out if line.startswith("round")] == ["round 1", "round 2", "round 3"]
    for p in final.pairings:
        assert any(line.split() == [str(p.board), p.first, p.result, p.second] for line in out)
    one = ok(cli(server, "pairings", tid, "--round", "2")).splitlines()
    assert one[0] == "round 2" and one[1].split() == ["table", "first", "result", "second"]
    assert len(one) == 2 + sum(p.round == 2 for p in final.pairings)
    missing = cli(server, "pairings", tid, "--round", "9")
    assert missing.returncode == 2
    assert missing.stderr.strip() == (
        "lanqi tournament: no round 9 in this tournament (rounds 1 to 3 paired)"
    )


def check_html_report(event: dict[str, Any]) -> None:
    server, tid, final = event["server"], event["tid"], event["final"]
    path = event["tmp"] / "report.html"
    ok(cli(server, "export", tid, "--format", "html", "--site", "Club <hall>", "--out", str(path)))
    page = path.read_text(encoding="utf-8")
    assert "<h1>Report Open</h1>" in page and "Club &lt;hall&gt;" in page
    assert "2 min + 1 s per move" in page and "Round robin, 4 players" in page
    assert re.search(r"<dt>Dates</dt><dd>\d{4}-\d\d-\d\d", page)
    for number in (1, 2, 3):
        assert f"<h3>Round {number}</h3>" in page
    games = re.findall(r'<div class="game" id="(r\d+b\d+g\d+)">', page)
    assert len(games) == len(final.pairings) == 6
    for p in final.pairings:
        shown = "½-½" if p.result == "1/2-1/2" else p.result
        heading = f"Round {p.round}, board {p.board}: {p.first} &ndash; {p.second} &nbsp;{shown}"
        assert heading in page
        board = f'<td>{p.board}</td><td class="name">{p.first}</td>'
        assert board in page.split(f"<h3>Round {p.round}</h3>")[1].split("</table>")[0]
    rows = read_store(
        event["data"],
        "SELECT moves, termination, ratings_before, ratings_after FROM games "
        "WHERE tournament_id = ?",
        (tid,),
    )
    for row in rows:
        assert f"{termination_words(row['termination']).capitalize()} after" in page
        assert json.loads(row["ratings_after"]), "a rated game keeps the ratings before and after"
    assert "Sonneborn-Berger" in page and "sonneborn_berger" not in page
    assert "Rating before" in page and "Rating after" in page
    cross = page[
        page.index('<section class="crosstable">') : page.index(
            "</section>", page.index('<section class="crosstable">')
        )
    ]
    body_rows = re.findall(r"<tr>(.*?)</tr>", cross.split("<tbody>")[1])
    assert len(body_rows) == 4
    for i, cells in enumerate(body_rows):  # the own cell is shaded in every row
        tds = re.findall(r"<td[^>]*>", cells)
        assert tds[2 + i] == '<td class="self">', (i, tds)
    assert "炮" in page or "车" in page or "马" in page  # Chinese notation
    assert re.search(r'<span class="wxf">[KAEHRCP][1-9+-][.=+-][1-9]</span>', page)


def check_pgn(event: dict[str, Any]) -> None:
    server, tid = event["server"], event["tid"]
    texts = {
        n: ok(cli(server, "export", tid, "--format", "pgn", "--notation", n))
        for n in ("wxf", "iccs", "chinese")
    }
    rows = {
        f"{r['round']}.{r['board']}": r
        for r in read_store(
            event["data"],
            "SELECT round, board, moves, termination, clocks FROM games WHERE tournament_id = ?",
            (tid,),
        )
    }
    formats = {"wxf": "WXF", "iccs": "ICCS", "chinese": "Chinese"}
    for notation, text in texts.items():
        parsed = read_pgns(text)  # lanqi's reader takes every notation back
        assert len(parsed) == 6
        for game in parsed:
            row = rows[game.headers["Round"]]
            assert [str(m) for m in game.board.move_stack] == json.loads(row["moves"])
            assert game.headers["Termination"] == row["termination"]
            assert game.headers["TimeControl"] == "120+1"
            assert re.fullmatch(r"\d{4}\.\d\d\.\d\d", game.headers["Date"])
            assert game.headers["Event"] == "Report Open"
            assert game.headers["Site"] not in ("", "?")
            assert game.headers["Format"] == formats[notation]
    site = ok(cli(server, "export", tid, "--format", "pgn", "--site", "Riverside"))
    assert all(g.headers["Site"] == "Riverside" for g in read_pgns(site))

    # one %clk per move, the referee's reading
    for text in texts["wxf"].split('[Game "Chinese Chess"]')[1:]:
        found = re.search(r'\[Round "([^"]+)"\]', text)
        assert found is not None
        row = rows[found.group(1)]
        seconds = [int(h) * 3600 + int(m) * 60 + int(s) for h, m, s in CLOCK.findall(text)]
        assert seconds == [ms // 1000 for ms in json.loads(row["clocks"])]
        assert len(seconds) == len(json.loads(row["moves"])) > 0
        # a mover's k-th move (from 0) has at most the base and k increments left
        assert all(0 <= s <= 120 + ply // 2 for ply, s in enumerate(seconds)), seconds

    # another tool (the cchess package) reads an ICCS export without clocks move for move
    import cchess

    plain = ok(cli(server, "export", tid, "--format", "pgn", "--notation", "iccs", "--no-clocks"))
    assert "%clk" not in plain
    for i, text in enumerate(plain.split('[Game "Chinese Chess"]')[1:]):
        path = event["tmp"] / f"game{i}.pgn"
        path.write_text('[Game "Chinese Chess"]' + text, encoding="utf-8")
        theirs = cchess.read_from_pgn(str(path)).dump_iccs_moves()
        ours = read_pgns(text)[0].board.move_stack
        assert theirs and theirs[0] == [str(m) for m in ours]
