"""RemoteTable over the one connection, with a whole server in this process: the
lobby half (hello, a challenge, the assignment pushed privately) and the game half
(tables that join, move, resign) on one asyncio loop, as the web gateway uses them."""

from __future__ import annotations

import asyncio

from lanqi.client.connection import Connection, Refused
from lanqi.protocol import (
    AcceptChallenge,
    Challenge,
    ChallengeCreated,
    ChallengeReceived,
    CreateGame,
    GameAssigned,
    GameCreated,
    GameEnded,
    MoveAccepted,
    MoveRequest,
    Ok,
    Resign,
    Seek,
)
from lanqi.server.embedded import EmbeddedServer
from lanqi.table.port import Answered, Table, TableNews
from lanqi.table.remote import RemoteTable


async def _until(table: RemoteTable, *, ply: int) -> list[TableNews]:
    """Wait (on the loop) until the table's game reaches ``ply`` or ends."""
    seen: list[TableNews] = []
    async with asyncio.timeout(10):
        while table.state.ply < ply and not table.state.finished:
            await table.wait(1.0)
            seen.extend(table.poll(0))
    return seen


def test_lobby_to_game_on_one_loop(server: EmbeddedServer) -> None:
    async def main() -> None:
        async with (
            Connection(server.matchmaker_endpoint) as alice,
            Connection(server.matchmaker_endpoint) as bob,
        ):
            await alice.hello("alice")
            await bob.hello("bob", kind="bot")
            seek = Seek(variant="xiangqi", color="first")
            created = await alice.call(Challenge(to="bob", seek=seek), ChallengeCreated)
            received = await bob.next_push(ChallengeReceived)
            assert received.challenge_id == created.challenge_id
            await bob.call(AcceptChallenge(challenge_id=received.challenge_id), Ok)
            mine = (await alice.next_push(GameAssigned)).game
            theirs = (await bob.next_push(GameAssigned)).game
            assert mine.game_id == theirs.game_id and mine.seat == 0

            red = await alice.open_table(mine)
            black = await bob.open_table(theirs)
            assert isinstance(red, Table) and isinstance(black, Table)
            assert (red.seat, black.seat) == (0, 1)
            assert red.token is not None and black.token is not None
            sent = red.send(MoveRequest(game_id=red.game_id, token=red.token, ply=0, move="h2e2"))
            await _until(black, ply=1)
            news = await _until(red, ply=1)
            while not any(isinstance(n, Answered) and n.request.id == sent for n in news):
                await red.wait(1.0)
                news += red.poll(0)
            answer = next(n for n in news if isinstance(n, Answered) and n.request.id == sent)
            assert isinstance(answer.reply, MoveAccepted) and answer.refusal is None
            assert black.state.moves == ("h2e2",)

            # a refusal is an answer, never an exception
            stale = black.send(
                MoveRequest(game_id=black.game_id, token=black.token, ply=0, move="h9g7")
            )
            refusal = None
            async with asyncio.timeout(10):
                while refusal is None:
                    await black.wait(1.0)
                    for item in black.poll(0):
                        if isinstance(item, Answered) and item.request.id == stale:
                            refusal = item.refusal
            assert refusal is not None and refusal.code == "stale_move"

            black.send(Resign(game_id=black.game_id, token=black.token))
            ended = await _until(red, ply=99)
            assert red.state.finished and red.state.winner == 0
            assert any(isinstance(n, GameEnded) for n in ended)
            red.close()
            black.close()

    asyncio.run(main())


def test_a_wrong_token_is_refused_when_the_table_opens(server: EmbeddedServer) -> None:
    async def main() -> None:
        async with Connection(server.matchmaker_endpoint) as alice:
            info = await alice.server_info()
            referee = info.referees[0]
            made = await (await alice.service(referee.endpoint, key=referee.key)).request(
                CreateGame(variant="gomoku", players=["a", "b"], admin_key=None)
            )
            assert isinstance(made, GameCreated)
            try:
                await alice.open_table(
                    game_id=made.game_id,
                    referee=referee.endpoint,
                    events=referee.events,
                    key=referee.key,
                    seat=0,
                    token="not-the-token-of-seat0",
                )
            except Refused as exc:
                assert exc.code == "bad_token"
            else:
                raise AssertionError("a wrong token opened a seat")

    asyncio.run(main())
