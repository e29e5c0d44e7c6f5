"""Fixtures that run the referee as a real subprocess (``lanqi referee``) and talk to it.

- ``referee``: one referee shared by the tests of a module (each test makes its own
  games); after every test its log must hold no ERROR record.
- ``referee_factory``: private referees with their own flags and data directory, and
  :meth:`RefereeProcess.restart` / :meth:`RefereeProcess.kill` for recovery tests.
- ``connect``: a :class:`RefereeClient` on the test's own ZeroMQ context.
- ``new_table``: a game with both seats joined, moves played by ply number.

Every process started here is stopped in teardown (SIGTERM, then SIGKILL), and every
socket is closed with linger 0.  Nothing sleeps to wait for a subscription: a
``GameView`` takes a snapshot after subscribing and re-syncs on a gap.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import zmq

from lanqi.bench.process import LanqiService
from lanqi.client.referee import GameView, RefereeClient
from lanqi.games.registry import create_game
from lanqi.protocol import GameCreated, GameResult, MoveAccepted, Snapshot, TimeControl

READY_LINE = re.compile(rb"referee ready: requests (?P<requests>\S+), events (?P<events>\S+), data")


class RefereeProcess(LanqiService):
    """One ``lanqi referee`` subprocess on a data directory; restartable on its ports."""

    def __init__(self, data_dir: Path, log_dir: Path, args: list[str]) -> None:
        super().__init__(
            "referee",
            ["--host", "127.0.0.1", "--data-dir", str(data_dir), *args],
            log_dir,
            name="referee",
            ready=READY_LINE,
            ports={"--port": "requests", "--pub-port": "events"},
        )
        self.data_dir = data_dir

    @property
    def endpoint(self) -> str:
        return self.endpoints["requests"]

    @property
    def pub_endpoint(self) -> str:
        return self.endpoints["events"]


# ---------------------------------------------------------------- processes


@dataclass
class _Processes:
    root: Path
    started: list[RefereeProcess] = field(default_factory=list)

    def start(self, *args: str, data_dir: Path | None = None) -> RefereeProcess:
        index = len(self.started)
        log_dir = self.root / f"logs-{index}"
        log_dir.mkdir(parents=True, exist_ok=True)
        process = RefereeProcess(data_dir or self.root / f"data-{index}", log_dir, list(args))
        self.started.append(process)
        process.start()
        return process

    def stop_all(self) -> list[str]:
        """Stop every process; returns problems (bad exit codes, ERROR records)."""
        problems: list[str] = []
        for process in self.started:
            was_running = process.running
            code = process.stop()
            if was_running and code != 0:
                problems.append(f"referee exited with {code} on SIGTERM")
            problems.extend(process.new_errors())
        return problems


@pytest.fixture
def referee_factory(tmp_path: Path) -> Iterator[Callable[..., RefereeProcess]]:
    """``start(*flags, data_dir=None)``: a private referee, stopped after the test."""
    processes = _Processes(tmp_path)
    try:
        yield processes.start
    finally:
        problems = processes.stop_all()
    assert not problems, "referee log:\n" + "\n".join(problems)


@pytest.fixture(scope="module")
def _module_referee(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RefereeProcess]:
    """Started with the test module's ``REFEREE_FLAGS``, if it has any."""
    processes = _Processes(tmp_path_factory.mktemp("referee"))
    try:
        yield processes.start(*getattr(request.module, "REFEREE_FLAGS", ()))
    finally:
        processes.stop_all()


@pytest.fixture
def referee(_module_referee: RefereeProcess) -> Iterator[RefereeProcess]:
    """The module's shared referee; the test fails if it logged an ERROR meanwhile."""
    if not _module_referee.running:  # a test killed it: bring it back for the next
        _module_referee.start()
    _module_referee.new_errors()
    yield _module_referee
    errors = _module_referee.new_errors()
    assert not errors, "referee logged errors:\n" + "\n".join(errors)


# ---------------------------------------------------------------- clients


@pytest.fixture
def connect(zmq_context: zmq.Context[Any]) -> Iterator[Callable[..., RefereeClient]]:
    """``connect(referee, timeout_ms=5000)``: a client, closed after the test."""
    clients: list[RefereeClient] = []

    def make(process: RefereeProcess, timeout_ms: int = 5000) -> RefereeClient:
        client = RefereeClient(
            process.endpoint, process.pub_endpoint, context=zmq_context, timeout_ms=timeout_ms
        )
        clients.append(client)
        client.wait_connected()  # so a GameView's subscription is live before its sync
        return client

    try:
        yield make
    finally:
        for client in clients:
            client.close()


@dataclass
class Table:
    """A game with both seats taken: its client, tokens and a spectator's view."""

    client: RefereeClient
    created: GameCreated
    view: GameView
    first_seat: int
    ply: int = 0

    @property
    def game_id(self) -> str:
        return self.created.game_id

    @property
    def tokens(self) -> list[str]:
        return self.created.tokens

    def seat_to_move(self, ply: int | None = None) -> int:
        return (self.first_seat + (self.ply if ply is None else ply)) % 2

    def token_to_move(self) -> str:
        return self.tokens[self.seat_to_move()]

    def play(self, *moves: str) -> list[MoveAccepted]:
        """Play ``moves`` in turn (each by the seat to move, for the next ply)."""
        replies = []
        for text in moves:
            replies.append(self.client.move(self.game_id, self.token_to_move(), self.ply, text))
            self.ply += 1
        return replies

    def sync(self) -> Snapshot:
        return self.client.sync(self.game_id)

    def wait_finished(self, timeout_ms: int = 5000) -> GameView:
        assert self.view.wait_for(lambda v: v.finished, timeout_ms), "the game did not end"
        return self.view

    def published_result(self, timeout_ms: int = 5000) -> GameResult:
        """This game's message on ``results`` (the view's client subscribed to it)."""
        deadline = time.monotonic() + timeout_ms / 1000
        while (left := deadline - time.monotonic()) > 0:
            result = self.view.client.next_result(int(left * 1000))
            if result is not None and result.game_id == self.game_id:
                return result
        raise AssertionError(f"no result for {self.game_id} on the results topic")

    def listed_result(self) -> GameResult:
        """This game's entry in ``results_since``."""
        found = [r for r in self.client.results_since(0, 1000).results if r.game_id == self.game_id]
        assert len(found) == 1, f"results_since lists {len(found)} results for the game"
        return found[0]

    def assert_ended(self, result: str, termination: str, winner: int | None) -> Snapshot:
        """The ended event, the snapshot, the results message and results_since agree."""
        view = self.wait_finished()
        assert (view.result, view.termination, view.winner) == (result, termination, winner)
        snapshot = self.sync()
        assert (snapshot.status, snapshot.result, snapshot.termination) == (
            "finished",
            result,
            termination,
        )
        assert view.moves == snapshot.moves and view.fen == snapshot.fen
        for entry in (self.published_result(), self.listed_result()):
            assert (entry.result, entry.termination, entry.winner) == (result, termination, winner)
            assert entry.moves == snapshot.moves
            assert same_position(entry.start_fen, snapshot.start_fen, snapshot.variant)
        return snapshot


def same_position(fen: str | None, other: str | None, variant: str) -> bool:
    """Whether two start positions are the same (the referee may write them differently)."""
    if fen is None or other is None:
        return fen == other
    return bool(create_game(variant, fen=fen).fen() == create_game(variant, fen=other).fen())


def first_seat(snapshot: Snapshot) -> int:
    """Who moves at ply 0, from the rules core (the snapshot does not say)."""
    options = dict(snapshot.options)
    if snapshot.start_fen is not None:
        options["fen"] = snapshot.start_fen
    game = create_game(snapshot.variant, **options)
    return game.seat_to_move


@pytest.fixture
def new_table(
    request: pytest.FixtureRequest, connect: Callable[..., RefereeClient]
) -> Callable[..., Table]:
    """``new_table(variant, fen=None, ..., process=None, join=True)``: a game ready to play."""

    def make(
        variant: str = "xiangqi",
        *,
        fen: str | None = None,
        options: dict[str, Any] | None = None,
        time_control: TimeControl | None = None,
        casual: bool = True,
        players: tuple[str, str] = ("ann", "bob"),
        process: RefereeProcess | None = None,
        join: bool = True,
    ) -> Table:
        if process is None:  # the module's shared referee, started only when needed
            process = request.getfixturevalue("referee")
        assert process is not None
        client = connect(process)
        opts = dict(options or {})
        if fen is not None:
            opts["fen"] = fen
        created = client.create_game(
            variant,
            players=list(players),
            options=opts,
            time_control=time_control,
            casual=casual,
        )
        watcher = connect(process)
        # results first: once the view has an event through its subscription, the
        # (earlier) results subscription is live too, and no result can be missed
        watcher.watch_results()
        view = GameView(watcher, created.game_id)
        if join:
            for seat, token in enumerate(created.tokens):
                client.join(created.game_id, seat=seat, token=token)
            assert view.wait_for(lambda v: v.received > 0), "the subscription never went live"
        snapshot = client.sync(created.game_id)
        return Table(client, created, view, first_seat(snapshot))

    return make
