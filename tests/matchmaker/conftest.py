"""Fixtures that run the matchmaker for real: ``lanqi serve``, or ``lanqi referee`` and
``lanqi matchmaker`` apart, and ``lanqi bot`` players, each a subprocess on loopback.

- ``lanqi``: a :class:`Lanqi` that starts those commands (port 0 the first time, the
  same ports on a restart) and stops every one of them in teardown: SIGTERM, then
  SIGKILL after a timeout.  A process stopped by the test's teardown must exit with
  0, and no log may hold an ERROR record the test did not declare as expected.
- ``module_server``: one ``lanqi serve`` shared by the tests of a module (each test
  uses player names of its own); checked for ERROR records after every test.
- ``mm``: ``mm(server)`` is a :class:`MatchmakerClient` (requests and lobby /
  tournament events) on the test's own ZeroMQ context, closed after the test.
- ``bot_pool``: random bots as in-process :class:`BotRunner` threads.
- ``tour``: tournament helpers: wait for a state (woken by ``tour/<id>`` events,
  never by a sleep), and check standings against the recorded results.

Nothing sleeps to wait for ordering: waits poll a condition against a deadline and
block on the event socket in between.
"""

from __future__ import annotations

import re
import sqlite3
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import zmq

from lanqi.bench.process import LanqiService
from lanqi.bot.catalog import bot_factory
from lanqi.bot.runner import BotRunner, Policy
from lanqi.client.matchmaker import MatchmakerClient
from lanqi.protocol import (
    Assignment,
    CreateTournament,
    GameAssigned,
    GetStandings,
    Ok,
    Standings,
    StartTournament,
    TournamentCreated,
    TournamentSpec,
)
from lanqi.security import KeyPair, server_keys

DIRECTOR_KEY = "matchmaker-tests-director-key"

#: first stdout line of each command, and the endpoints it names
READY = {
    "serve": re.compile(
        rb"lanqi server ready: lobby (?P<lobby>\S+) \(events (?P<events>\S+)\), "
        rb"referee (?P<referee>\S+), data"
    ),
    "referee": re.compile(rb"referee ready: requests (?P<requests>\S+), events (?P<events>\S+),"),
    "matchmaker": re.compile(
        rb"matchmaker ready: requests (?P<lobby>\S+), events (?P<events>\S+),"
    ),
    "bot": re.compile(rb"\d+ bot\(s\) on (?P<server>\S+): "),
}
#: the port flag of each command -> the endpoint (of its ready line) that flag binds
PORT_FLAGS = {
    "serve": {"--port": "lobby", "--pub-port": "events", "--referee-port": "referee"},
    "referee": {"--port": "requests", "--pub-port": "events"},
    "matchmaker": {"--port": "lobby", "--pub-port": "events"},
    "bot": {},
}


class LanqiProcess(LanqiService):
    """One ``lanqi <command>`` subprocess; restartable on the same ports and data."""

    #: its data directory (services)
    data: Path | None = None

    @property
    def keys(self) -> KeyPair:
        """The service's CURVE key pair (from its data directory, as the test may read
        it: a relay in front of it poses as it)."""
        assert self.data is not None, f"{self.name} has no data directory"
        return server_keys(self.data)

    @property
    def lobby(self) -> str:
        return self.endpoints["lobby"]

    @property
    def events(self) -> str:
        return self.endpoints["events"]


# ---------------------------------------------------------------- the processes


class Lanqi:
    """Starts ``lanqi`` commands for one test (or module) and stops them all."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.started: list[LanqiProcess] = []

    def _new(
        self, command: str, args: Sequence[str], name: str, allowed_errors: Sequence[str] = ()
    ) -> LanqiProcess:
        log_dir = self.root / "logs"
        log_dir.mkdir(parents=True, exist_ok=True)
        unique = f"{name}-{len(self.started)}"
        extra = ["--referee-pub-port", "0"] if command == "serve" else []
        if command == "serve" and "--web-port" not in args:
            extra.append("--no-web")  # no web pages on the shared default port 8080
        process = LanqiProcess(
            command,
            [*extra, *args],
            log_dir,
            name=unique,
            ready=READY[command],
            ports=PORT_FLAGS[command],
            allowed_errors=allowed_errors,
        )
        self.started.append(process)
        return process.start()

    def data_dir(self, name: str) -> Path:
        path = self.root / name
        path.mkdir(parents=True, exist_ok=True)
        return path

    def serve(
        self,
        *args: str,
        data_dir: Path | None = None,
        director_key: str | None = DIRECTOR_KEY,
        allowed_errors: Sequence[str] = (),
    ) -> LanqiProcess:
        """``lanqi serve`` (matchmaker + referee in one process)."""
        folder = data_dir or self.data_dir(f"serve-data-{len(self.started)}")
        key = ["--director-key", director_key] if director_key else []
        process = self._new(
            "serve", ["--data-dir", str(folder), *key, *args], "serve", allowed_errors
        )
        process.data = folder
        return process

    def referee(
        self, *args: str, data_dir: Path | None = None, allowed_errors: Sequence[str] = ()
    ) -> LanqiProcess:
        folder = data_dir or self.data_dir(f"referee-data-{len(self.started)}")
        process = self._new(
            "referee", ["--data-dir", str(folder), *args], "referee", allowed_errors
        )
        process.data = folder
        return process

    def matchmaker(
        self,
        referee: LanqiProcess,
        *args: str,
        data_dir: Path | None = None,
        referee_events: str | None = None,
        referee_requests: str | None = None,
        allowed_errors: Sequence[str] = (),
    ) -> LanqiProcess:
        """``lanqi matchmaker`` in front of ``referee`` (its endpoints given in full;
        ``referee_events`` / ``referee_requests`` replace the referee's event / request
        endpoint, e.g. by a relay that poses as the referee with its keys: its key is
        given then, as a relay has no key port)."""
        folder = data_dir or self.data_dir(f"matchmaker-data-{len(self.started)}")
        events = referee_events or referee.endpoints["events"]
        spec = f"{referee_requests or referee.endpoints['requests']},{events}"
        if referee_events or referee_requests:
            spec += f",key={referee.keys.public.decode('ascii')}"
        process = self._new(
            "matchmaker",
            [
                "--referee",
                spec,
                "--data-dir",
                str(folder),
                "--director-key",
                DIRECTOR_KEY,
                *args,
            ],
            "matchmaker",
            allowed_errors,
        )
        process.data = folder
        return process

    def bot(
        self, server: LanqiProcess, name: str, *args: str, address: str | None = None
    ) -> LanqiProcess:
        """``lanqi bot --bot random`` named ``name`` on ``server``'s lobby (reached at
        ``address``, if given: another address of the same server)."""
        sessions = self.data_dir("bot-sessions")
        return self._new(
            "bot",
            [
                "--server",
                address or server.lobby,
                "--name",
                name,
                "--bot",
                "random",
                "--session-dir",
                str(sessions),
                *args,
            ],
            f"bot-{name}",
        )

    def stop_all(self) -> list[str]:
        """Stop every process (bots first); problems: bad exit codes, ERROR records."""
        problems: list[str] = []
        order = sorted(self.started, key=lambda p: {"bot": 0, "matchmaker": 1}.get(p.command, 2))
        for process in order:
            was_running = process.running
            code = process.stop()
            if was_running and code != 0:
                problems.append(f"{process.name} exited with {code} on SIGTERM")
            problems.extend(process.new_errors())
        return problems


@pytest.fixture
def lanqi(tmp_path: Path) -> Iterator[Lanqi]:
    """Start ``lanqi`` commands; all are stopped (and their logs checked) after the test."""
    processes = Lanqi(tmp_path)
    try:
        yield processes
    finally:
        problems = processes.stop_all()
    assert not problems, "\n".join(problems)


@pytest.fixture(scope="module")
def _module_lanqi(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lanqi]:
    processes = Lanqi(tmp_path_factory.mktemp("lanqi"))
    try:
        yield processes
    finally:
        processes.stop_all()


@pytest.fixture(scope="module")
def _module_server(_module_lanqi: Lanqi) -> LanqiProcess:
    return _module_lanqi.serve()


@pytest.fixture
def module_server(_module_server: LanqiProcess) -> Iterator[LanqiProcess]:
    """The module's ``lanqi serve``; the test fails if it logged an ERROR meanwhile."""
    assert _module_server.running, "the module's server died"
    _module_server.new_errors()
    yield _module_server
    errors = _module_server.new_errors()
    assert _module_server.running, "the server died during the test"
    assert not errors, "server logged errors:\n" + "\n".join(errors)


# ---------------------------------------------------------------- clients


@pytest.fixture
def mm(zmq_context: zmq.Context[Any]) -> Iterator[Callable[..., MatchmakerClient]]:
    """``mm(server, timeout_ms=5000)``: a matchmaker client (requests + events)."""
    clients: list[MatchmakerClient] = []

    def make(server: LanqiProcess, timeout_ms: int = 5000) -> MatchmakerClient:
        client = MatchmakerClient(
            server.lobby, server.events, context=zmq_context, timeout_ms=timeout_ms
        )
        clients.append(client)
        return client

    try:
        yield make
    finally:
        for client in clients:
            client.close()


def unique(prefix: str) -> str:
    """A player name no other test uses."""
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


@pytest.fixture
def names() -> Callable[..., list[str]]:
    """``names(n, prefix)``: ``n`` fresh player names."""

    def make(n: int, prefix: str = "bot") -> list[str]:
        tag = uuid.uuid4().hex[:4]
        return [f"{prefix}{i}-{tag}" for i in range(n)]

    return make


# ---------------------------------------------------------------- in-process bots


@dataclass
class BotPool:
    """Random bots as :class:`BotRunner` threads on one ZeroMQ context."""

    context: zmq.Context[Any]
    stop: threading.Event = field(default_factory=threading.Event)
    runners: list[BotRunner] = field(default_factory=list)
    threads: list[threading.Thread] = field(default_factory=list)

    def start(
        self,
        server: LanqiProcess,
        names: Sequence[str],
        *,
        tournament: str | None = None,
        seed: int = 0,
        max_games: int = 4,
    ) -> list[BotRunner]:
        started = []
        for i, name in enumerate(names):
            runner = BotRunner(
                make_bot=bot_factory("random", seed=seed + i),
                matchmaker=server.lobby,
                name=name,
                policy=Policy(max_games=max_games, tournaments=(tournament,) if tournament else ()),
                context=self.context,
                stop=self.stop,
            )
            thread = threading.Thread(target=runner.run, name=f"bot-{name}", daemon=True)
            thread.start()
            self.runners.append(runner)
            self.threads.append(thread)
            started.append(runner)
        return started

    def errors(self) -> list[str]:
        """Games a bot could not play (a refused join or move)."""
        return [
            f"{runner.name} {player.assignment.game_id}: {player.error}"
            for runner in self.runners
            for player in [*runner.finished, *runner.players.values()]
            if player.error
        ]

    def close(self) -> list[str]:
        self.stop.set()
        stuck = []
        for thread in self.threads:
            thread.join(timeout=10)
            if thread.is_alive():
                stuck.append(f"{thread.name} did not stop")
        return stuck


@pytest.fixture
def bot_pool() -> Iterator[BotPool]:
    context: zmq.Context[Any] = zmq.Context()
    pool = BotPool(context)
    try:
        yield pool
    finally:
        stuck = pool.close()
        errors = pool.errors()
        if not stuck:
            context.destroy(linger=0)
    assert not stuck, stuck
    assert not errors, errors


# ---------------------------------------------------------------- tournaments


SCORE_FIRST = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5, "0-0": 0.0}


class Tour:
    """Create, start and watch tournaments; check their standings."""

    #: the key the servers started here give their director
    director_key = DIRECTOR_KEY

    def create(self, client: MatchmakerClient, **spec: Any) -> str:
        spec.setdefault("name", unique("event"))
        spec.setdefault("rated", False)
        created = client.call(
            CreateTournament(director_key=DIRECTOR_KEY, spec=TournamentSpec(**spec)),
            TournamentCreated,
        )
        client.subscribe(f"tour/{created.tournament_id}")
        return created.tournament_id

    def start(self, client: MatchmakerClient, tournament_id: str) -> None:
        client.call(StartTournament(tournament_id=tournament_id, director_key=DIRECTOR_KEY), Ok)

    def standings(self, client: MatchmakerClient, tournament_id: str) -> Standings:
        return client.call(GetStandings(tournament_id=tournament_id), Standings)

    def wait(
        self,
        client: MatchmakerClient,
        tournament_id: str,
        predicate: Callable[[Standings], bool],
        timeout_s: float,
        what: str,
    ) -> Standings:
        """Poll the standings until ``predicate`` holds, woken by ``tour/<id>`` events
        (and at least twice a second, since PUB/SUB may drop an event)."""
        client.subscribe(f"tour/{tournament_id}")
        deadline = time.monotonic() + timeout_s
        while True:
            standings = self.standings(client, tournament_id)
            if predicate(standings):
                return standings
            left = deadline - time.monotonic()
            if left <= 0:
                t = standings.tournament
                done = sum(1 for p in standings.pairings if p.result is not None)
                raise AssertionError(
                    f"timed out after {timeout_s} s waiting for {what}: {t.status}, round "
                    f"{t.round}, {done}/{len(standings.pairings)} pairings decided"
                )
            client.next_event(int(min(left, 0.5) * 1000) + 1)

    def wait_players(
        self, client: MatchmakerClient, tournament_id: str, count: int, timeout_s: float = 20.0
    ) -> Standings:
        return self.wait(
            client,
            tournament_id,
            lambda s: len(s.tournament.players) >= count,
            timeout_s,
            f"{count} entrants",
        )

    def wait_finished(
        self, client: MatchmakerClient, tournament_id: str, timeout_s: float
    ) -> Standings:
        return self.wait(
            client,
            tournament_id,
            lambda s: s.tournament.status == "finished",
            timeout_s,
            "the end of the tournament",
        )

    @staticmethod
    def recompute(standings: Standings, bye_score: float) -> dict[str, dict[str, float]]:
        """Points, games, wins, draws, losses per player from the pairings' results."""
        table = {
            name: dict(points=0.0, games=0, wins=0, draws=0, losses=0)
            for name in standings.tournament.players
        }
        for p in standings.pairings:
            assert p.result is not None, f"undecided pairing {p}"
            assert p.first is not None
            if p.second is None:
                assert p.result == "bye", p
                table[p.first]["points"] += bye_score
                continue
            first = SCORE_FIRST[p.result]
            second = 0.0 if p.result == "0-0" else 1.0 - first
            for name, score in ((p.first, first), (p.second, second)):
                row = table[name]
                row["points"] += score
                row["games"] += 1
                key = {1.0: "wins", 0.5: "draws", 0.0: "losses"}[score]
                row[key] += 1
        return table

    def check_standings(self, standings: Standings, *, bye_score: float = 0.0) -> None:
        """The rows agree with the results of the pairings, and are ranked by points."""
        expected = self.recompute(standings, bye_score)
        rows = {row.player: row for row in standings.rows}
        assert set(rows) == set(expected), (sorted(rows), sorted(expected))
        for name, want in expected.items():
            row = rows[name]
            got = dict(
                points=row.points,
                games=row.games,
                wins=row.wins,
                draws=row.draws,
                losses=row.losses,
            )
            assert got == want, (name, got, want)
        ranked = [row.points for row in sorted(standings.rows, key=lambda r: r.rank)]
        assert ranked == sorted(ranked, reverse=True), "standings not ordered by points"
        assert sorted(row.rank for row in standings.rows)[0] == 1

    @staticmethod
    def pair_counts(standings: Standings) -> Counter[frozenset[str]]:
        return Counter(
            frozenset((p.first, p.second))  # type: ignore[arg-type]
            for p in standings.pairings
            if p.second is not None
        )


@pytest.fixture
def tour() -> Tour:
    return Tour()


def assigned(player: MatchmakerClient, timeout_s: float = 10.0) -> Assignment:
    """The player's next ``game_assigned``."""
    deadline = time.monotonic() + timeout_s
    while (left := deadline - time.monotonic()) > 0:
        push = player.next_push(int(left * 1000) + 1)
        if isinstance(push, GameAssigned):
            return push.game
    raise AssertionError(f"no game_assigned within {timeout_s} s")


# ---------------------------------------------------------------- the matchmaker's store


def read_store(data_dir: Path, sql: str, args: Sequence[Any] = ()) -> list[sqlite3.Row]:
    """Read the matchmaker's SQLite file (read-only; WAL lets it run meanwhile)."""
    path = data_dir / "matchmaker.sqlite3"
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5.0)
    try:
        conn.row_factory = sqlite3.Row
        return list(conn.execute(sql, args).fetchall())
    finally:
        conn.close()


@pytest.fixture
def store_rows() -> Callable[..., list[sqlite3.Row]]:
    """``store_rows(data_dir, sql, args)``: rows of the matchmaker's store."""
    return read_store
