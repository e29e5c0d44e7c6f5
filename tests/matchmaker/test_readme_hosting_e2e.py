"""README's "Hosting a LAN tournament", run as written.

The ``sh`` blocks of that section are read from README.md when the test runs, so an
edit that breaks the flow fails here.  Each command line runs as a real ``lanqi``
subprocess.  What the test changes, and only that:

- ``lanqi serve --lan`` gets port flags (free ports, never the defaults); its data
  directory is ``$LANQI_DATA_DIR`` in the test's tmp (the fixture sets it; the README
  names that variable), which the director's commands on "the same machine" share.
- ``export LANQI_SERVER=192.168.1.20`` becomes ``127.0.0.1:PORT`` in the environment of
  every later command (the server is named once, there); ``<id>`` is the new event's id.
- the players are ``lanqi bot --name NAME --claim CODE ...`` (the README's line with
  the codes ``join`` printed; ``...``: see BOT_FLAGS), started before ``start``, with
  no ``--server``.

Then the same flow runs again with ``--variant gomoku`` (same players): ratings are
kept per game.
"""

from __future__ import annotations

import html
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lanqi.bench.process import source_path
from lanqi.client.matchmaker import MatchmakerClient
from lanqi.matchmaker.claims import ALPHABET, CODE_LENGTH
from lanqi.protocol import GetStandings, ListPlayers, PlayersList, Standings

from .test_roster_e2e import wait_online

README = Path(__file__).resolve().parents[2] / "README.md"
LANQI = [sys.executable, "-m", "lanqi.cli.main"]
EXAMPLE_HOST = "192.168.1.20"
CODE_LINE = re.compile(rf"^(\S+) ([{ALPHABET}]{{{CODE_LENGTH}}})$")
PGN_TAGS = ("Date", "TimeControl", "Termination")
#: the bots' own flags (the README's "..."): the first player a random mover, the others
#: the built-in AI at its weakest, so that games end quickly and some are decisive
BOT_FLAGS = {True: ["--bot", "random"], False: ["--level", "1"]}
DEFAULT_RATING = 1500.0
#: how the report writes a result
RESULT_MARK = {"1/2-1/2": "½-½"}


def section_commands(readme: Path = README) -> list[list[str]]:
    """The command lines of the ``sh`` blocks of "## Hosting a LAN tournament",
    split like a shell would (comments dropped)."""
    text = readme.read_text()
    start = text.index("## Hosting a LAN tournament\n")
    end = text.find("\n## ", start + 1)
    section = text[start : end if end != -1 else len(text)]
    blocks = re.findall(r"^```sh\n(.*?)^```", section, flags=re.S | re.M)
    assert blocks, "no sh block in README's 'Hosting a LAN tournament'"
    lines = [line for block in blocks for line in block.splitlines() if line.strip()]
    return [shlex.split(line, comments=True) for line in lines]


class Shell:
    """Runs the README's lines: ``export`` sets the environment of later commands."""

    def __init__(self, cwd: Path, data_dir: Path) -> None:
        self.cwd = cwd
        self.env = dict(os.environ, LANQI_DATA_DIR=str(data_dir))
        for key in ("LANQI_SERVER", "LANQI_DIRECTOR_KEY"):
            self.env.pop(key, None)
        self.env["PYTHONPATH"] = source_path()  # the lanqi under test

    def run(self, argv: list[str], timeout_s: float = 60.0) -> str:
        assert argv[0] == "lanqi", argv
        done = subprocess.run(
            [*LANQI, *argv[1:]],
            capture_output=True,
            text=True,
            env=self.env,
            cwd=self.cwd,
            timeout=timeout_s,
            check=False,
        )
        assert done.returncode == 0, f"{shlex.join(argv)}: {done.stderr}"
        assert "Traceback" not in done.stderr, done.stderr
        return done.stdout


@pytest.fixture
def shell(lanqi: Any) -> Iterator[Shell]:
    yield Shell(lanqi.data_dir("cwd"), lanqi.root / "logs" / "default-data")


def standings(server: str, tournament_id: str) -> Standings:
    with MatchmakerClient(f"tcp://{server}") as client:
        return client.call(GetStandings(tournament_id=tournament_id), Standings)


def ratings(server: str, players: list[str]) -> dict[str, dict[str, float]]:
    with MatchmakerClient(f"tcp://{server}") as client:
        listed = client.call(ListPlayers(), PlayersList).players
    return {p.name: dict(p.ratings) for p in listed if p.name in players}


def run_event(
    lanqi: Any, shell: Shell, commands: list[list[str]], variant: str
) -> tuple[str, list[str], str]:
    """The director's block from ``tournament create`` on, with ``variant``; the
    bots started after ``join``.  The event's id, its players and the watch's output."""
    tid = ""
    players: list[str] = []
    watched = ""
    for line in commands:
        argv = [tid if arg == "<id>" else arg for arg in line]
        if argv[:3] == ["lanqi", "tournament", "create"]:
            at = argv.index("--variant") + 1
            argv[at] = variant
            assert "--time" in argv, argv
            tid = shell.run(argv).strip()
            assert re.fullmatch(r"\w+", tid), tid
        elif argv[:3] == ["lanqi", "tournament", "join"]:
            players = argv[4:]
            out = shell.run(argv).splitlines()
            codes = {m[1]: m[2] for row in out if (m := CODE_LINE.match(row))}
            if codes:  # the first event: nobody is known yet, every name has a code
                assert sorted(codes) == sorted(players), out
                for name in players:
                    # the README's `lanqi bot --name Alice --claim K7QW2M ...`
                    own = BOT_FLAGS[name == players[0]]
                    lanqi._new("bot", ["--name", name, "--claim", codes[name], *own], name)
            wait_online_at(shell.env["LANQI_SERVER"], players)
        elif argv[:3] == ["lanqi", "tournament", "watch"]:
            watched = shell.run(argv, timeout_s=600)  # piped: ends by itself with the event
        else:
            shell.run(argv)
    return tid, players, watched


def wait_online_at(server: str, players: list[str]) -> None:
    with MatchmakerClient(f"tcp://{server}") as client:
        wait_online(client, set(players), timeout_s=30.0)


def check_exports(shell: Shell, server: str, tid: str, watched: str) -> None:
    final = standings(server, tid)
    assert final.tournament.status == "finished", final.tournament
    games = [p for p in final.pairings if p.game_id]
    assert games and all(p.result for p in final.pairings), final.pairings
    rounds = sorted({p.round for p in final.pairings})
    assert rounds == list(range(1, final.tournament.round + 1)), rounds
    # the watch (piped) said every round and the end, then ended by itself
    for r in rounds:
        assert f"round {r} paired: " in watched, watched
    assert watched.count(": final standings") == 1, watched

    page = (shell.cwd / "club-night.html").read_text()
    pairings = page[
        page.index('<section class="pairings">') : page.index('<section class="games">')
    ]
    played = page[page.index('<section class="games">') :]
    for r in rounds:
        assert f"<h3>Round {r}</h3>" in pairings, f"round {r} missing from the report"
    for p in final.pairings:
        assert p.first and p.second and p.result, p  # 4 players: no byes
        first, second, result = (html.escape(x) for x in (p.first, p.second, p.result))
        mark = RESULT_MARK.get(result, result)
        anchor = f"r{p.round}b{p.board}g0"
        row = (
            rf'<td>{p.board}</td><td class="name">{re.escape(first)}</td>\s*'
            rf'<td><a href="#{anchor}">{re.escape(mark)}</a></td>\s*'
            rf'<td class="name">{re.escape(second)}</td>'
        )
        assert re.search(row, pairings), f"pairing {p} missing from the rounds"
        game = (
            rf'<div class="game" id="{anchor}">\s*'
            rf"<h3>Round {p.round}, board {p.board}: {re.escape(first)} &ndash; "
            rf"{re.escape(second)} &nbsp;{re.escape(mark)}</h3>"
            rf'(?:(?!<div class="game").)*?<div class="moves[ "]'
        )
        assert re.search(game, played, flags=re.S), f"game {p} missing from the report"

    pgn = (shell.cwd / "club-night.pgn").read_text()
    texts = re.split(r"\n\s*\n(?=\[)", pgn.strip())  # a game starts with its tags
    rounds_tags: list[str] = []
    for text in texts:
        tags = dict(re.findall(r'^\[(\w+) "([^"]*)"\]$', text, flags=re.M))
        rounds_tags.append(tags.get("Round", "?"))
        for tag in PGN_TAGS:
            assert tags.get(tag), f"{tag} missing: {tags}"
        assert "%clk" in text, text
    assert sorted(rounds_tags) == sorted(f"{p.round}.{p.board}" for p in games), rounds_tags


def test_the_readme_hosting_section_runs_as_written(
    lanqi: Any, shell: Shell, monkeypatch: pytest.MonkeyPatch
) -> None:
    commands = section_commands()
    (serve,), director = commands[:1], commands[1:]
    assert serve == ["lanqi", "serve", "--lan"], serve
    # the test adds the port flags (free ports) and LANQI_DATA_DIR (its tmp); --lan as written
    server = lanqi._new("serve", serve[2:], "serve")
    address = f"127.0.0.1:{server.lobby.rsplit(':', 1)[1]}"
    export = director[0]
    assert export[0] == "export" and export[1].startswith("LANQI_SERVER="), export
    assert export[1] == f"LANQI_SERVER={EXAMPLE_HOST}", export
    shell.env["LANQI_SERVER"] = address
    monkeypatch.setenv("LANQI_SERVER", address)  # the bots (started by the fixture) see it too
    rest = director[1:]

    xiangqi_id, players, watched = run_event(lanqi, shell, rest, "xiangqi")
    check_exports(shell, address, xiangqi_id, watched)
    after_xiangqi = ratings(address, players)

    gomoku_id, again, watched = run_event(lanqi, shell, rest, "gomoku")
    assert again == players
    check_exports(shell, address, gomoku_id, watched)
    after_gomoku = ratings(address, players)

    # ratings per game: the xiangqi event moved xiangqi ratings only; the gomoku event
    # moved gomoku ratings and left every xiangqi rating as it was
    assert decisive(address, xiangqi_id) and decisive(address, gomoku_id)
    assert any(r["xiangqi"] != DEFAULT_RATING for r in after_xiangqi.values()), after_xiangqi
    for name in players:
        assert after_xiangqi[name].get("gomoku", DEFAULT_RATING) == DEFAULT_RATING, name
        assert after_gomoku[name]["xiangqi"] == after_xiangqi[name]["xiangqi"], name
    assert any(r["gomoku"] != DEFAULT_RATING for r in after_gomoku.values()), after_gomoku
    # (the two events may well end alike, game for game, and so rate alike: the pairings
    # are the same and first movers often win; the lines above already tell them apart)


def decisive(server: str, tournament_id: str) -> bool:
    return any(p.result in ("1-0", "0-1") for p in standings(server, tournament_id).pairings)
