"""``create_game`` with a caller-chosen ``game_id`` is idempotent on a real referee.

A repeat of the same create (a retry after a lost reply) gets the same
``game_created``, tokens included, and makes no second game and no second event:
at once, in the same batch, after a restart of the referee, after the game ended.
A different create with a taken id is refused with ``game_exists``.
"""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lanqi.client.referee import RefereeClient, RequestRefused
from lanqi.protocol import CreateGame, ErrorReply, GameCreated, TimeControl

Factory = Callable[..., Any]

TC = TimeControl(kind="fischer", base_ms=60_000, increment_ms=1_000)
START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"


def _request(game_id: str, **changes: Any) -> CreateGame:
    fields: dict[str, Any] = {
        "game_id": game_id,
        "variant": "xiangqi",
        "options": {"repetition": "axf"},
        "time_control": TC,
        "players": ["ann", "bob"],
        "casual": False,
        "tag": "t-1",
    }
    fields.update(changes)
    return CreateGame(**fields)


def _stored(db: Path, game_id: str) -> tuple[int, int]:
    """(games with this id, events of this game) in the referee's file."""
    with sqlite3.connect(db) as conn:
        games = conn.execute("SELECT COUNT(*) FROM games WHERE game_id = ?", (game_id,))
        events = conn.execute("SELECT COUNT(*) FROM events WHERE game_id = ?", (game_id,))
        return int(games.fetchone()[0]), int(events.fetchone()[0])


def _games(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])


def test_a_repeated_create_gets_the_same_game(
    referee_factory: Factory, connect: Callable[..., RefereeClient]
) -> None:
    process = referee_factory()
    db = process.data_dir / "referee.sqlite3"
    client = connect(process)
    game_id = f"g-{uuid.uuid4().hex[:8]}"
    first = client.call(_request(game_id))
    assert isinstance(first, GameCreated) and first.game_id == game_id
    # the same request again, with another request id and without waiting: one batch
    again = [client.send(_request(game_id)) for _ in range(3)]
    for request_id in again:
        reply = client.receive(request_id)
        assert isinstance(reply, GameCreated)
        assert (reply.re, reply.game_id, reply.tokens) == (request_id, game_id, first.tokens)
    assert _stored(db, game_id) == (1, 1)  # one game, one `created` event
    # options spelled out in full are the same game as the defaults they name
    spelled = client.call(_request(game_id, options={"repetition": "axf", "move_limit": 120}))
    assert isinstance(spelled, GameCreated) and spelled.tokens == first.tokens

    process.restart(kill=True)  # the referee died before the creator heard the reply
    client = connect(process)
    retried = client.call(_request(game_id))
    assert isinstance(retried, GameCreated) and retried.tokens == first.tokens
    assert _stored(db, game_id) == (1, 1)

    # still the same game once it has been played and ended
    for seat, token in enumerate(first.tokens):
        client.join(game_id, seat=seat, token=token)
    client.resign(game_id, first.tokens[1])
    assert client.sync(game_id).status == "finished"
    ended = client.call(_request(game_id))
    assert isinstance(ended, GameCreated) and ended.tokens == first.tokens
    assert _games(db) == 1


@pytest.mark.parametrize(
    "change",
    [
        {"players": ["ann", "cy"]},
        {"players": ["bob", "ann"]},
        {"variant": "gomoku", "options": {}},
        {"options": {"repetition": "draw"}},
        {"options": {"repetition": "axf", "fen": START}},
        {"time_control": TimeControl(kind="fischer", base_ms=60_000, increment_ms=2_000)},
        {"casual": True},
        {"tag": "t-2"},
    ],
    ids=lambda c: next(iter(c)),
)
def test_another_create_with_a_taken_id_is_refused(
    referee: Any, connect: Callable[..., RefereeClient], change: dict[str, Any]
) -> None:
    client = connect(referee)
    game_id = f"g-{uuid.uuid4().hex[:8]}"
    first = client.call(_request(game_id))
    assert isinstance(first, GameCreated)
    refused = client.request(_request(game_id, **change))
    assert isinstance(refused, ErrorReply) and refused.code == "game_exists", refused
    assert game_id in refused.msg
    snapshot = client.sync(game_id)  # the first game is untouched
    assert (snapshot.variant, snapshot.players, snapshot.seq) == ("xiangqi", ["ann", "bob"], 1)


@pytest.mark.parametrize("game_id", ["", "has space", "a/b", "x" * 65, "ü"])
def test_a_bad_game_id_is_refused(
    referee: Any, connect: Callable[..., RefereeClient], game_id: str
) -> None:
    client = connect(referee)
    with pytest.raises(RequestRefused) as info:
        client.create_game("gomoku", players=["a", "b"], game_id=game_id)
    assert info.value.code in ("bad_request", "bad_message")  # 65 characters: over the limit


def test_without_a_game_id_every_create_is_a_new_game(
    referee: Any, connect: Callable[..., RefereeClient]
) -> None:
    client = connect(referee)
    one = client.create_game("gomoku", players=["a", "b"])
    two = client.create_game("gomoku", players=["a", "b"])
    assert one.game_id != two.game_id and one.tokens != two.tokens
