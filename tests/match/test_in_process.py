"""lanqi match's private referee is reached in process (no sockets between the seats
and it): the referee still checks every move by its rules, stores the game and
publishes every event, so a spectator on its event port watches the game live."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq

from lanqi.bot.base import PlayResult, SeatView
from lanqi.bot.engines import UciEngine
from lanqi.bot.simple import RandomBot
from lanqi.client.connection import BlockingConnection
from lanqi.match.config import Adjudication
from lanqi.match.game import GameSpec, RefereeLink, play_game
from lanqi.protocol import (
    CreateGame,
    GameCreated,
    GameEvent,
    ListGames,
    MoveMade,
    MoveRequest,
    TimeControl,
)
from lanqi.referee.service import RefereeConfig, RefereeService
from lanqi.table.inproc import InProcessTable
from lanqi.table.port import Answered
from lanqi.table.remote import RemoteTable

KEY = "in-process-admin-key"
WAIT_S = 60.0


@pytest.fixture
def service(tmp_path: Path) -> Iterator[RefereeService]:
    """A referee as ``lanqi match`` runs its private one: on a thread, CURVE on."""
    context: zmq.Context[Any] = zmq.Context()
    made = RefereeService(
        RefereeConfig(port=0, pub_port=0, data_dir=tmp_path / "referee", admin_key=KEY),
        context=context,
    )
    made.bind()
    thread = threading.Thread(target=made.serve_forever, daemon=True)
    thread.start()
    yield made
    made.stop()
    thread.join(10)
    made.close()
    context.term()


def _link(service: RefereeService) -> RefereeLink:
    return RefereeLink(
        service.endpoint, service.pub_endpoint, KEY, service.public_key, local=service
    )


class _Gated(RandomBot):
    """A random mover that waits for ``gate`` before its first move."""

    def __init__(self, gate: threading.Event, seed: int) -> None:
        super().__init__(seed=seed)
        self.gate = gate

    def play(self, state: SeatView) -> PlayResult:
        assert self.gate.wait(WAIT_S), "the spectator never came"
        return super().play(state)


def test_the_referee_stores_and_publishes_what_the_seats_played(
    service: RefereeService,
) -> None:
    gate = threading.Event()
    seen: list[GameEvent] = []
    spectator: list[RemoteTable] = []

    def watch() -> None:
        """A spectator over the wire: finds the game, follows it to its end."""
        with BlockingConnection(name="spectator") as conn:
            games: list[Any] = []
            while not games:
                reply = conn.referee_request(
                    service.endpoint, ListGames(status="active"), key=service.public_key
                )
                games = list(getattr(reply, "games", []))
            table = conn.open_table(
                game_id=games[0].game_id,
                referee=service.endpoint,
                events=service.pub_endpoint,
                key=service.public_key,
            )
            spectator.append(table)
            gate.set()
            while not table.state.finished:
                table.block(0.2)
                seen.extend(n for n in table.poll() if isinstance(n, GameEvent))
            table.close()

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    with BlockingConnection(name="match") as conn:
        played, _ = play_game(
            GameSpec(number=1, round=1, seats=(0, 1), opening=None, pair=0),
            variant="xiangqi",
            options={},
            names=("A", "B"),
            bots=(_Gated(gate, seed=1), RandomBot(seed=2)),
            time_control=TimeControl(),
            rules=Adjudication(maxmoves=40),
            link=_link(service),
            stop=threading.Event(),
            connection=conn,
        )
    watcher.join(WAIT_S)
    assert not watcher.is_alive()
    # what the seats played (the match's notes) is what the referee stored
    played_moves = [note.move for note in sorted(played.notes, key=lambda n: n.ply)]
    row = service.store.game(played.game_id)
    assert row is not None and row.status == "finished"
    assert list(row.moves) == played.moves == played_moves
    assert row.result == played.result
    # a spectator on the event port saw every move as it was made, and the ending
    live = [e.move for e in seen if isinstance(e, MoveMade)]
    assert live == played.moves
    assert spectator[0].state.result == played.result


def test_an_illegal_move_is_refused_by_the_referees_rules(service: RefereeService) -> None:
    created = service.handle_local(
        CreateGame(variant="xiangqi", players=["A", "B"], admin_key=KEY), "test"
    )
    assert isinstance(created, GameCreated)
    table = InProcessTable(service, created.game_id, 0, created.tokens[0]).open()
    other = InProcessTable(service, created.game_id, 1, created.tokens[1]).open()
    try:
        token = created.tokens[0]
        refused = table.send(MoveRequest(game_id=created.game_id, token=token, ply=0, move="a0a5"))
        accepted = table.send(MoveRequest(game_id=created.game_id, token=token, ply=0, move="h2e2"))
        answers = {n.request.id: n for n in table.poll() if isinstance(n, Answered)}
        refusal = answers[refused].refusal
        assert refusal is not None and refusal.code == "illegal_move"
        assert answers[accepted].refusal is None
        assert list(table.state.moves) == ["h2e2"]
        other.poll()
        assert list(other.state.moves) == ["h2e2"]  # the other seat heard it, folded the same
        row = service.store.game(created.game_id)
        assert row is not None
        assert [e.kind for e in service.store.events(created.game_id)].count(MoveMade.T) == 1
    finally:
        table.close()
        other.close()


def test_held_back_wake_ups_come_only_for_news_left_unread(service: RefereeService) -> None:
    created = service.handle_local(
        CreateGame(variant="xiangqi", players=["A", "B"], admin_key=KEY), "test"
    )
    assert isinstance(created, GameCreated)
    game_id, tokens = created.game_id, created.tokens
    red = InProcessTable(service, game_id, 0, tokens[0]).open()
    black = InProcessTable(service, game_id, 1, tokens[1]).open()
    try:
        red.poll(), black.poll()
        with black.holding_wakes():  # red's move: black's thread is not woken yet
            red.send(MoveRequest(game_id=game_id, token=tokens[0], ply=0, move="h2e2"))
            assert not black.block(0)
        assert black.block(0)  # left unread: woken now
        red.poll()
        with red.holding_wakes():  # black's move, read by the thread that holds: no wake-up
            black.send(MoveRequest(game_id=game_id, token=tokens[1], ply=1, move="h9g7"))
            assert [type(n) for n in red.poll()] == [MoveMade]
        assert not red.block(0)
        assert list(red.state.moves) == ["h2e2", "h9g7"]
    finally:
        red.close()
        black.close()


class _Thinking(RandomBot):
    """A random mover that takes a few milliseconds per move, like an engine's search."""

    def play(self, state: SeatView) -> PlayResult:
        threading.Event().wait(0.005)
        return super().play(state)


def test_a_move_is_sent_from_the_engines_thread(
    service: RefereeService, monkeypatch: pytest.MonkeyPatch
) -> None:
    senders: list[str] = []
    handle_local = service.handle_local

    def handled(request: Any, sender: str) -> Any:
        if isinstance(request, MoveRequest):
            senders.append(threading.current_thread().name)
        return handle_local(request, sender)

    monkeypatch.setattr(service, "handle_local", handled)
    with BlockingConnection(name="match") as conn:
        played, _ = play_game(
            GameSpec(number=1, round=1, seats=(0, 1), opening=None, pair=0),
            variant="xiangqi",
            options={},
            names=("A", "B"),
            bots=(_Thinking(seed=3), _Thinking(seed=4)),
            time_control=TimeControl(),
            rules=Adjudication(maxmoves=20),
            link=_link(service),
            stop=threading.Event(),
            connection=conn,
        )
    assert len(senders) == len(played.moves) > 10
    # the engine's worker sends the move (a game's thread only when it was busy then)
    from_workers = [name for name in senders if not name.startswith("game-")]
    assert len(from_workers) >= len(senders) // 2, senders


FISCHER = TimeControl(kind="fischer", base_ms=60_000, increment_ms=100)


@pytest.mark.parametrize("clock", [TimeControl(), FISCHER])
def test_each_engine_searches_before_the_referee_has_the_move(
    service: RefereeService, fsf: str, clock: TimeControl
) -> None:
    """From each side's second move on, an engine's search starts from the opponent's
    thread as soon as its move is read (start_early); the referee's turn then finds it
    running: every early search is the position played, none is thrown away."""
    engines = (UciEngine(fsf, nodes=300), UciEngine(fsf, nodes=300))
    try:
        with BlockingConnection(name="match") as conn:
            played, _ = play_game(
                GameSpec(number=1, round=1, seats=(0, 1), opening=None, pair=0),
                variant="xiangqi",
                options={},
                names=("A", "B"),
                bots=engines,
                time_control=clock,
                rules=Adjudication(maxmoves=30),
                link=_link(service),
                stop=threading.Event(),
                connection=conn,
            )
        row = service.store.game(played.game_id)
        assert row is not None and list(row.moves) == played.moves
        hits = sum(engine.early_hits for engine in engines)
        assert sum(engine.early_misses for engine in engines) == 0
        # all but each side's first move, the moves after a draw offer and the move
        # after which the game ended (that one's early search was dropped)
        assert len(played.moves) - 3 <= hits <= len(played.moves) - 2, (hits, played.moves)
        # its note times the engine from its go: the hand-over before it is %lat
        late = [n.latency_ms for n in played.notes if n.latency_ms is not None]
        assert late and all(value >= 0 for value in late)
    finally:
        for engine in engines:
            engine.close()
