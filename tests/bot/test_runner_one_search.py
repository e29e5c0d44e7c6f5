"""One search per ply: a seat that has sent its move waits for that move's own event,
and an event that comes in first (a chat line, a draw offer) never starts a second
search for the same ply (issue 25).  The engine is the scripted UCI fake, which logs
every command it gets, so its ``go`` lines are counted."""

from __future__ import annotations

import os
import random
import sys
import threading
from functools import partial
from pathlib import Path

import pytest

from lanqi.bot.engines import UciEngine
from lanqi.bot.runner import GamePlayer
from lanqi.client.referee import GameView, RefereeClient, RequestRefused
from lanqi.games import xiangqi
from lanqi.protocol import Assignment, MoveRequest, Request
from lanqi.server.embedded import EmbeddedServer
from lanqi.table.remote import RemoteTable

REPO = Path(__file__).resolve().parents[2]
UCI_FAKE = Path(__file__).parent / "engines" / "fakes" / "uci_fake.py"
BOT_MOVES = 6  # the bot's moves before its opponent resigns


@pytest.mark.parametrize("event", ["chat", "draw offer"])
def test_an_event_before_the_echo_never_starts_a_second_search(
    event: str, server: EmbeddedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    referee, events = server.referee.endpoint, server.referee.pub_endpoint
    log_path = tmp_path / "engine.log"
    source = os.pathsep.join(str(REPO / part) for part in ("shared", "services", "frontends"))
    engine = UciEngine(
        [sys.executable, str(UCI_FAKE), "ok"],
        env={"PYTHONPATH": source, "FAKE_LOG": str(log_path)},
        movetime=50,
    )
    with (
        RefereeClient(referee, events) as opponent,
        RefereeClient(referee, events) as bystander,
    ):
        created = opponent.create_game("xiangqi", players=["fake", "ann"])
        game_id, tokens = created.game_id, created.tokens
        injected: list[int] = []  # the plies of the bot's moves that met an event first
        real_send = RemoteTable.send

        def move_after_an_event(table: RemoteTable, request: Request) -> int:
            """The bot's move goes out only once the other side's event is published:
            that event reaches the bot before its move's own event, after the send."""
            if isinstance(request, MoveRequest) and request.token == tokens[0]:
                game, ply = request.game_id, request.ply
                try:
                    if event == "chat":  # a spectator, then the opponent (5 lines each at most)
                        seat_token = tokens[1] if len(injected) % 2 else None
                        bystander.chat(game, f"ply {ply}", token=seat_token, name="zoe")
                    else:
                        bystander.offer_draw(game, tokens[1])
                    injected.append(ply)
                except RequestRefused:  # a second send for a ply (the bug) may be refused
                    injected.append(-ply)
            return real_send(table, request)

        monkeypatch.setattr(RemoteTable, "send", move_after_an_event)
        stop = threading.Event()
        player = GamePlayer(
            engine,
            Assignment(
                game_id=game_id,
                referee=referee,
                referee_pub=events,
                seat=0,
                token=tokens[0],
                variant="xiangqi",
                players=["fake", "ann"],
            ),
            close_bot=True,
            stop=stop,
        )
        opponent.join(game_id, seat=1, token=tokens[1])
        view = GameView(opponent, game_id)
        player.start()
        rng = random.Random(25)
        try:
            while True:
                assert view.wait_for(lambda v: v.ply % 2 == 1 or v.finished, 20_000)
                assert not view.finished, (view.result, view.termination)
                if view.ply == 2 * BOT_MOVES - 1:
                    opponent.resign(game_id, tokens[1])
                    break
                board = xiangqi.Board()
                for text in view.moves:
                    board.push_text(text)
                reply = rng.choice(sorted(str(m) for m in board.legal_moves()))
                moved = opponent.move(game_id, tokens[1], view.ply, reply)
                assert view.wait_for(partial(_has_seq, seq=moved.seq))
            assert view.wait_for(lambda v: v.finished)
            player.join(timeout=20)
        finally:
            stop.set()
            player.join(timeout=10)
    assert not player.is_alive() and player.error is None
    gos = [line for line in _lines(log_path) if line.split()[:1] == ["go"]]
    assert len(gos) == BOT_MOVES, gos  # one search per ply
    assert injected == list(range(0, 2 * BOT_MOVES, 2))  # one send per ply, each met an event


def _has_seq(view: GameView, *, seq: int) -> bool:
    return view.seq >= seq


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []
