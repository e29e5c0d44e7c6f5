"""The runner hands chat lines to ``Bot.on_chat`` and says its replies (docs/bots.md)."""

from __future__ import annotations

import threading

from lanqi.bot.base import Bot, SeatView
from lanqi.bot.runner import GamePlayer
from lanqi.client.referee import GameView, RefereeClient
from lanqi.protocol import Assignment
from lanqi.server.embedded import EmbeddedServer


class EchoBot(Bot):
    """Answers every line it hears; plays the first legal move."""

    name = "echo"

    def __init__(self) -> None:
        self.heard: list[tuple[str, str]] = []

    def choose_move(self, state: SeatView) -> str:
        return state.legal_moves()[0]

    def on_chat(self, state: SeatView, name: str, text: str) -> str | None:
        self.heard.append((name, text))
        return f"echo {text} ({state.opponent})" if text != "quiet" else None


def test_the_runner_calls_on_chat_and_says_the_reply(server: EmbeddedServer) -> None:
    referee, events = server.referee.endpoint, server.referee.pub_endpoint
    with RefereeClient(referee, events) as ann, RefereeClient(referee, events) as zoe:
        created = ann.create_game("gomoku", players=["ann", "echo"])
        game_id, tokens = created.game_id, created.tokens
        bot = EchoBot()
        stop = threading.Event()
        player = GamePlayer(
            bot,
            Assignment(
                game_id=game_id,
                referee=referee,
                referee_pub=events,
                seat=1,
                token=tokens[1],
                variant="gomoku",
                players=["ann", "echo"],
            ),
            stop=stop,
        )
        ann.join(game_id, seat=0, token=tokens[0])
        view = GameView(zoe, game_id)
        player.start()
        try:
            assert view.wait_for(lambda v: v.status == "active"), "the bot never joined"
            ann.chat(game_id, "good luck", token=tokens[0])
            zoe.chat(game_id, "quiet", name="zoe")  # heard, not answered
            zoe.chat(game_id, "hi all", name="zoe")
            replies = ["echo good luck (ann)", "echo hi all (ann)"]
            assert view.wait_for(
                lambda v: [c.text for c in v.chat if c.seat == 1] == replies, 10_000
            ), [(c.name, c.text) for c in view.chat]
            said = [c for c in view.chat if c.seat == 1]
            assert {(c.room, c.name) for c in said} == {("players", "echo")}
            # every line by someone else, once each; never its own replies
            assert bot.heard == [("ann", "good luck"), ("zoe", "quiet"), ("zoe", "hi all")]
            ann.resign(game_id, tokens[0])
            assert view.wait_for(lambda v: v.finished)
        finally:
            stop.set()
            player.join(timeout=10)
        assert not player.is_alive() and player.error is None
        assert bot.heard == [("ann", "good luck"), ("zoe", "quiet"), ("zoe", "hi all")]
