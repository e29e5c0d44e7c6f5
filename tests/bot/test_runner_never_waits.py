"""Nothing in the way of a move: the runner never waits for a reply, so a bot's move
goes out the moment the bot has it, even while earlier requests (the seat's
heartbeats) wait for a referee that does not answer (docs/bots.md).

A real referee subprocess is stopped (SIGSTOP) while the bot thinks: the connection's
loop goes on heartbeating into the silence, and the bot's move is sent while the
referee is still stopped; once it runs again the move is played.  Every request the
process's sockets send is recorded (``Service.send``)."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable

import pytest
from tests.referee.conftest import RefereeProcess, referee_factory

from lanqi.bot.base import Bot, SeatView
from lanqi.bot.runner import GamePlayer
from lanqi.client.connection import Service
from lanqi.client.referee import GameView, RefereeClient
from lanqi.protocol import Assignment, Heartbeat, MoveRequest, Request

__all__ = ["referee_factory"]

WAIT_S = 30.0


class GateBot(Bot):
    """Says when it starts thinking; answers once released."""

    name = "gate"

    def __init__(self) -> None:
        self.thinking = threading.Event()
        self.release = threading.Event()

    def choose_move(self, state: SeatView) -> str:
        self.thinking.set()
        self.release.wait(WAIT_S)
        return sorted(state.legal_moves())[0]


def test_the_move_goes_out_while_the_referee_is_silent(
    referee_factory: Callable[..., RefereeProcess], monkeypatch: pytest.MonkeyPatch
) -> None:
    referee = referee_factory()
    stopped = threading.Event()
    sent: list[tuple[bool, type[Request]]] = []  # (referee stopped?, kind) per request
    beat_while_stopped = threading.Event()
    move_sent = threading.Event()
    real_send = Service.send

    def recording(self: Service, request: Request, *, keep_id: bool = False) -> tuple[int, object]:
        sent.append((stopped.is_set(), type(request)))
        if stopped.is_set() and isinstance(request, Heartbeat):
            beat_while_stopped.set()
        if isinstance(request, MoveRequest):
            move_sent.set()
        return real_send(self, request, keep_id=keep_id)

    monkeypatch.setattr(Service, "send", recording)
    with RefereeClient(referee.endpoint, referee.pub_endpoint) as opponent:
        created = opponent.create_game("xiangqi", players=["gate", "ann"])
        bot, stop = GateBot(), threading.Event()
        player = GamePlayer(
            bot,
            Assignment(
                game_id=created.game_id,
                referee=referee.endpoint,
                referee_pub=referee.pub_endpoint,
                seat=0,
                token=created.tokens[0],
                variant="xiangqi",
                players=["gate", "ann"],
            ),
            stop=stop,
        )
        opponent.join(created.game_id, seat=1, token=created.tokens[1])
        player.start()
        try:
            assert bot.thinking.wait(WAIT_S), "the bot was never asked for a move"
            os.kill(referee.pid, signal.SIGSTOP)
            stopped.set()
            try:
                assert beat_while_stopped.wait(WAIT_S), "no heartbeat went out"
                bot.release.set()
                assert move_sent.wait(WAIT_S), "the move did not go out"
                assert stopped.is_set()
            finally:
                stopped.clear()
                os.kill(referee.pid, signal.SIGCONT)
            view = GameView(opponent, created.game_id)
            assert view.wait_for(lambda v: v.ply == 1, 20_000), "the move was not played"
        finally:
            bot.release.set()
            stop.set()
            player.join(10)
    kinds = [kind for was_stopped, kind in sent if was_stopped]
    assert Heartbeat in kinds and MoveRequest in kinds
    assert kinds.index(Heartbeat) < kinds.index(MoveRequest)
