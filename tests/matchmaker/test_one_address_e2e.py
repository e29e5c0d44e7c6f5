"""One address: the server is named once, through ``LANQI_SERVER`` (without ``tcp://``),
on ports that are not the defaults, and every client finds the rest from the
matchmaker (``server_info``): no ``--events``, no ``--referee``.

Real processes: ``lanqi serve``, ``lanqi bot`` players, and the director's
``lanqi tournament`` commands, ``standings --watch`` among them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import pytest

from lanqi.client.matchmaker import MatchmakerClient
from lanqi.protocol import ListPlayers, PlayersList
from lanqi.protocol.endpoints import (
    MATCHMAKER_PORT,
    MATCHMAKER_PUB_PORT,
    REFEREE_PORT,
    REFEREE_PUB_PORT,
)

if TYPE_CHECKING:
    from lanqi.server.embedded import EmbeddedServer

REPO = Path(__file__).resolve().parents[2]
SOURCE_PATH = os.pathsep.join(str(REPO / part) for part in ("shared", "services", "frontends"))
LANQI = [sys.executable, "-m", "lanqi.cli.main"]


def port(endpoint: str) -> int:
    return int(endpoint.rpartition(":")[2])


class Director:
    """``lanqi`` commands with only LANQI_SERVER and the server's data directory set."""

    def __init__(self, address: str, data: Path) -> None:
        self.env = dict(os.environ, PYTHONPATH=SOURCE_PATH, LANQI_SERVER=address)
        self.env["LANQI_DATA_DIR"] = str(data)  # where `lanqi serve` keeps director.key
        self.env.pop("LANQI_DIRECTOR_KEY", None)
        self.started: list[subprocess.Popen[str]] = []

    def run(self, *args: str, stdout: int | IO[Any] = subprocess.PIPE) -> str:
        done = subprocess.run(
            [*LANQI, *args],
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            env=self.env,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr
        return done.stdout or ""

    def fail(self, *args: str) -> str:
        """Run a command that must fail; its one line of stderr."""
        done = subprocess.run(
            [*LANQI, *args], capture_output=True, text=True, env=self.env, timeout=60, check=False
        )
        assert done.returncode != 0, done.stdout
        lines = done.stderr.splitlines()
        assert len(lines) == 1, done.stderr
        return lines[0]

    def start(self, *args: str) -> subprocess.Popen[str]:
        proc = subprocess.Popen(
            [*LANQI, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=self.env,
        )
        self.started.append(proc)
        return proc

    def stop(self) -> None:
        for proc in self.started:
            if proc.poll() is None:
                proc.kill()
            proc.communicate()


@pytest.fixture
def director(lanqi: Any) -> Iterator[Callable[[Any, Path], Director]]:
    made: list[Director] = []

    def make(server: Any, data: Path) -> Director:
        made.append(Director(server.lobby.removeprefix("tcp://"), data))
        return made[-1]

    yield make
    for each in made:
        each.stop()


def wait_online(client: MatchmakerClient, players: list[str]) -> None:
    """Until every player has said hello (woken by lobby presence events)."""
    client.subscribe("lobby")
    for _ in range(200):
        online = {p.name for p in client.call(ListPlayers(), PlayersList).players if p.online}
        if set(players) <= online:
            return
        client.next_event(500)
    raise AssertionError(f"the bots never said hello: {players}")


def test_a_tournament_with_the_server_named_once(
    lanqi: Any,
    director: Callable[[Any, Path], Director],
    mm: Callable[..., MatchmakerClient],
    names: Callable[..., list[str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = lanqi.data_dir("one-address")
    server = lanqi.serve(data_dir=data, director_key=None)
    defaults = {MATCHMAKER_PORT, MATCHMAKER_PUB_PORT, REFEREE_PORT, REFEREE_PUB_PORT}
    assert not {port(server.lobby), port(server.events)} & defaults
    td = director(server, data)

    # the bots: `lanqi bot` with no --server at all (LANQI_SERVER in their environment)
    players = names(2, "addr")
    monkeypatch.setenv("LANQI_SERVER", server.lobby.removeprefix("tcp://"))
    sessions = lanqi.data_dir("addr-sessions")
    for player in players:
        lanqi._new(
            "bot",
            ["--name", player, "--bot", "random", "--session-dir", str(sessions)],
            f"bot-{player}",
        )
    wait_online(mm(server), players)

    tid = td.run("tournament", "create", "Addr Open", "--option", "move_limit=40", "--casual")
    tid = tid.strip()
    joined = td.run("tournament", "join", tid, *players)
    assert joined.splitlines() == [f"join: {p}" for p in players]

    # the watch learns the event and referee endpoints from the matchmaker; piped, it
    # prints the event's line, one line per result, the end and the final standings,
    # and ends by itself when the event ends
    watch = td.start("tournament", "standings", tid, "--watch")
    assert watch.stdout is not None
    assert watch.stdout.readline().startswith("Addr Open: round robin of xiangqi")
    assert td.run("tournament", "start", tid).strip() == "start: ok"
    out, err = watch.communicate(timeout=180)
    assert watch.returncode == 0, err
    lines = out.splitlines()
    assert any(line.startswith("round 1 board 1: ") for line in lines), out
    assert lines.count("Addr Open: final standings") == 1, out
    final = lines[lines.index("Addr Open: final standings") :]
    assert sorted(line.split()[1] for line in final[-2:]) == sorted(players), out

    # list: a header, then the event; --server given after the action beats the env
    td.env["LANQI_SERVER"] = "127.0.0.1:1"  # nothing listens there
    listed = td.run("tournament", "list", "--server", server.lobby.removeprefix("tcp://"))
    head, row = listed.splitlines()
    assert head.split() == ["id", "name", "format", "game", "status", "round", "players"]
    assert row.split()[0] == tid and "finished" in row.split()


def test_a_closed_pipe_ends_the_watch_quietly(
    lanqi: Any, director: Callable[[Any, Path], Director], names: Callable[..., list[str]]
) -> None:
    """``standings --watch | head -1``: the reader goes away after one line; the next
    line (the first round paired) meets a closed pipe and the command ends without a
    traceback."""
    data = lanqi.data_dir("pipe")
    server = lanqi.serve(data_dir=data, director_key=None)
    td = director(server, data)
    tid = td.run("tournament", "create", "Pipe Cup").strip()
    watch = td.start("tournament", "standings", tid, "--watch")
    assert watch.stdout is not None and watch.stderr is not None
    assert watch.stdout.readline().startswith("Pipe Cup")
    watch.stdout.close()  # what `head -1` does after its line
    players = names(2, "pipe")
    for player in players:
        with MatchmakerClient(server.lobby) as client:
            client.hello(player)  # players to enter
    td.run("tournament", "join", tid, *players)
    td.run("tournament", "start", tid)  # a round paired: the watch prints its line
    code = watch.wait(timeout=60)
    assert (code, watch.stderr.read()) == (141, "")


def test_delete_a_tournament_that_has_not_started(
    lanqi: Any, director: Callable[[Any, Path], Director]
) -> None:
    data = lanqi.data_dir("delete")
    server = lanqi.serve(data_dir=data, director_key=None)
    td = director(server, data)
    keep = td.run("tournament", "create", "Keep").strip()
    gone = td.run("tournament", "create", "Mistake").strip()
    assert td.run("tournament", "delete", gone).strip() == "delete: ok"
    listed = td.run("tournament", "list")
    assert [line.split()[0] for line in listed.splitlines()[1:]] == [keep]
    again = td.fail("tournament", "delete", gone)
    assert again == f"lanqi tournament: refused: unknown_tournament: no tournament '{gone}'"
    # a tournament that has begun (here: finished) is not deleted
    assert td.run("tournament", "finish", keep).strip() == "finish: ok"
    refused = td.fail("tournament", "delete", keep)
    assert refused.startswith("lanqi tournament: refused: not_allowed: the tournament is finished")
    assert [line.split()[0] for line in td.run("tournament", "list").splitlines()[1:]] == [keep]


def test_an_advertised_host_is_what_clients_are_told(tmp_path: Path) -> None:
    """``--advertise HOST``: the events and the referee are named on HOST."""
    from lanqi.server.embedded import EmbeddedServer

    server = EmbeddedServer(
        tmp_path / "advertised",
        advertise="club.example",
        port=0,
        pub_port=0,
        referee_port=0,
        referee_pub_port=0,
        director_key="k",
    )
    server.start()
    try:
        with MatchmakerClient(server.matchmaker_endpoint) as client:
            info = client.server_info()
        assert info.events == f"tcp://club.example:{port(server.matchmaker_pub_endpoint)}"
        (referee,) = info.referees
        assert referee.endpoint == f"tcp://club.example:{port(server.referee.endpoint)}"
        assert referee.events == f"tcp://club.example:{port(server.referee.pub_endpoint)}"
    finally:
        server.stop()


def test_the_watch_follows_the_referee_the_matchmaker_names(server: EmbeddedServer) -> None:
    """``tournament watch`` without ``--referee`` follows the live games at the referee
    the matchmaker names (not a guess at the server's host and the default port);
    ``--referee`` overrides it, its events on the next port unless named."""
    import argparse

    from lanqi.cli.tournament import _referee

    with MatchmakerClient(server.matchmaker_endpoint) as client:
        learnt = _referee(client, argparse.Namespace(referee=None, referee_events=None))
        given = _referee(
            client, argparse.Namespace(referee="tcp://10.0.0.9:6000", referee_events=None)
        )
    assert [port(e) for e in learnt[:2]] == [
        port(server.referee.endpoint),
        port(server.referee.pub_endpoint),
    ]
    assert REFEREE_PORT not in [port(e) for e in learnt[:2]]
    assert learnt[2] == server.referee.public_key  # its key, as the matchmaker names it
    assert given == ("tcp://10.0.0.9:6000", "tcp://10.0.0.9:6001", None)  # key: its key port
