"""The same random game through a LocalTable and through a real referee service gives
the same event log, the same answers and the same final GameState.

The referee is the in-process :class:`RefereeService` in its own thread, on loopback
ZeroMQ sockets and a real SQLite file, spoken to with the ordinary
:class:`RefereeClient`; both referees read one fake clock (the service's ``_now_ms``
is patched), so clocks, flags and times agree to the millisecond.  Each step of a
game first moves the clock (the local table polls at that time; the service is woken
by a request, which runs its due timers on the same loop turn) and then sends one
request: a legal or illegal move, a stale ply, a draw or takeback offer and its
answer, a resignation, a chat line.
"""

from __future__ import annotations

import dataclasses
import random
import threading
from collections.abc import Iterator
from typing import Any, cast

import pytest
import zmq
from hypothesis import event, given, settings
from hypothesis import strategies as st

from lanqi.client.referee import RefereeClient
from lanqi.gamestate import GameState
from lanqi.protocol import (
    AcceptDraw,
    AcceptTakeback,
    ChatRequest,
    DeclineDraw,
    DeclineTakeback,
    GameEvent,
    Message,
    MoveRequest,
    OfferDraw,
    Request,
    RequestTakeback,
    Resign,
    TimeControl,
)
from lanqi.referee import service as referee_service
from lanqi.referee.service import RefereeConfig, RefereeService
from lanqi.security import Link
from lanqi.table.local import LOCAL_LIVENESS, LocalReferee, LocalTable
from lanqi.table.port import Answered


class SharedClock:
    """One fake monotonic clock (seconds) for the local table and the service."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now

    def ms(self) -> float:
        return self.now * 1000.0


@dataclasses.dataclass
class Remote:
    service: RefereeService
    client: RefereeClient
    clock: SharedClock


@pytest.fixture(scope="module")
def remote(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Remote]:
    clock = SharedClock()
    patch = pytest.MonkeyPatch()
    patch.setattr(referee_service, "_now_ms", clock.ms)
    context: zmq.Context[Any] = zmq.Context()
    config = RefereeConfig(
        port=0,
        pub_port=0,
        key_port=0,
        data_dir=tmp_path_factory.mktemp("referee"),
        insecure=True,
        liveness=LOCAL_LIVENESS,
    )
    service = RefereeService(config, context)
    service.bind()
    loop = threading.Thread(target=service.serve_forever, name="referee", daemon=True)
    loop.start()
    client = RefereeClient(
        service.endpoint, service.pub_endpoint, context=context, link=Link.plain()
    )
    client.wait_connected()
    try:
        yield Remote(service, client, clock)
    finally:
        client.close()
        service.stop()
        loop.join(5)
        service.close()
        context.destroy(linger=0)
        patch.undo()


# ---------------------------------------------------------------- the random game

TIME_CONTROLS = [
    TimeControl(),
    TimeControl(kind="fischer", base_ms=6_000, increment_ms=500),
    TimeControl(kind="per_move", per_move_ms=4_000),
]


@dataclasses.dataclass(frozen=True)
class Step:
    """Move the clock by ``wait`` seconds, then ``seat`` sends ``kind``."""

    wait: float
    seat: int
    kind: str
    ply: int = 0
    move: str = ""


def _choose(rng: random.Random, local: LocalReferee) -> Step:
    """The next step, chosen from the local referee's game (the remote one must agree)."""
    state, game = local.state, local.session.game
    wait = rng.choice([0.0, 0.0, 0.0, 0.2, 0.5, 1.0, 3.0])
    to_move = game.seat_to_move
    roll = rng.random()
    offer = state.draw_offer if state.draw_offer is not None else state.takeback_offer
    if offer is not None and roll < 0.5:  # the other seat answers, mostly
        what = "draw" if state.draw_offer is not None else "takeback"
        answer = rng.choice(["accept", "decline"])
        return Step(wait, 1 - offer if roll < 0.45 else offer, f"{answer}_{what}")
    if roll < 0.6:
        legal = game.legal_moves()
        move = str(rng.choice(legal)) if legal else "a0a1"
        return Step(wait, to_move, "move", len(state.moves), move)
    if roll < 0.65:
        return Step(wait, rng.randrange(2), "move", rng.randrange(len(state.moves) + 2), "a0a1")
    kind = rng.choice(
        [
            "offer_draw",
            "accept_draw",
            "decline_draw",
            "takeback",
            "accept_takeback",
            "decline_takeback",
            "chat",
            "chat",
        ]
    )
    if rng.random() < 0.02:
        kind = "resign"
    return Step(wait, rng.randrange(2), kind)


def _request(step: Step, game_id: str, token: str) -> Request:
    if step.kind == "move":
        return MoveRequest(game_id=game_id, token=token, ply=step.ply, move=step.move)
    if step.kind == "chat":
        return ChatRequest(game_id=game_id, token=token, text=f"ply {step.ply}")
    kinds: dict[str, type[Any]] = {
        "offer_draw": OfferDraw,
        "accept_draw": AcceptDraw,
        "decline_draw": DeclineDraw,
        "takeback": RequestTakeback,
        "accept_takeback": AcceptTakeback,
        "decline_takeback": DeclineTakeback,
        "resign": Resign,
    }
    request: Request = kinds[step.kind](game_id=game_id, token=token)
    return request


def _plain(reply: Message) -> Any:
    """A reply without its request id (the two clients number their requests apart)."""
    return dataclasses.replace(cast(Any, reply), re=None)


def _over(local: LocalReferee) -> bool:
    return local.state.status == "finished"


def _remote_events(remote: Remote, game_id: str, count: int, into: list[GameEvent]) -> None:
    """Read the game's events until ``count`` have come (or 5 s passed)."""
    while len(into) < count:
        event = remote.client.next_event(5000)
        assert event is not None, f"the referee published {len(into)} events, not {count}"
        if event.game_id == game_id:
            into.append(event)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    variant=st.sampled_from(["xiangqi", "gomoku"]),
    time_control=st.sampled_from(TIME_CONTROLS),
    casual=st.booleans(),
)
def test_a_random_game_is_the_same_on_a_local_table_and_on_the_referee(
    remote: Remote, seed: int, variant: str, time_control: TimeControl, casual: bool
) -> None:
    rng = random.Random(seed)
    clock = remote.clock
    clock.now += 100.0
    game_id = f"prop-{seed}-{variant}-{time_control.kind}-{int(casual)}"
    players = ["ann", "bob"]
    client = remote.client
    client.watch(game_id)
    created = client.create_game(
        variant, players=players, time_control=time_control, casual=casual, game_id=game_id
    )
    for seat, token in enumerate(created.tokens):
        client.join(game_id, seat, token)
    local = LocalReferee.start(
        variant,
        players=players,
        time_control=time_control,
        casual=casual,
        game_id=game_id,
        clock=clock,
    )
    tables: list[LocalTable] = [local.table(0), local.table(1)]
    remote_log: list[GameEvent] = []
    steps = 0
    while not _over(local) and steps < 120:
        step = _choose(rng, local)
        steps += 1
        clock.now += step.wait
        tables[0].poll(clock.now)  # the local referee's timers at this time
        client.list_games(limit=1)  # wakes the service: its due timers run on this turn
        if _over(local):
            break
        table = tables[step.seat]
        request_id = table.send(_request(step, game_id, table.token or ""))
        (answered,) = [
            n
            for n in table.poll(clock.now)
            if isinstance(n, Answered) and n.request.id == request_id
        ]
        reply = client.request(_request(step, game_id, created.tokens[step.seat]))
        assert _plain(reply) == _plain(answered.reply), f"step {steps}: {step}"
        _remote_events(remote, game_id, len(local.log), remote_log)
        assert remote_log == local.log, f"step {steps}: {step}"
    _remote_events(remote, game_id, len(local.log), remote_log)
    assert remote_log == local.log
    served = remote.service.active.get(game_id) or remote.service.finished.get(game_id)
    assert served is not None
    assert served.state == local.state
    for table in tables:
        table.poll(clock.now)
        assert table.state == local.state
    final: GameState = local.state
    assert final.seq == len(local.log)
    event(f"{final.status}: {final.termination}")
    event(f"events: {sorted({e.T for e in local.log})}")
