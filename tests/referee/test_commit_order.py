"""The referee commits before it publishes or replies (docs: "what anyone saw survives a crash").

The service runs in this process on real sockets and a real SQLite file; its ROUTER and
PUB sockets are wrapped so that, at the very moment any reply or event leaves, a second
SQLite connection reads the database file and compares it with the games the referee
holds in memory.  Nothing here depends on timing: a reply or an event sent while the
batch that produced it is still uncommitted is seen as such every time.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq

from lanqi.protocol import (
    CreateGame,
    ErrorReply,
    GameCreated,
    Join,
    Message,
    MoveAccepted,
    MoveRequest,
    Resign,
    decode_payload,
    encode,
)
from lanqi.referee.service import RefereeConfig, RefereeService

PEER = b"\x00peer"


class _Watched:
    """A socket whose every send first checks that the database holds what memory holds."""

    def __init__(self, socket: zmq.Socket[bytes], check: Any) -> None:
        self._socket = socket
        self._check = check

    def send_multipart(self, frames: list[bytes], *args: Any, **kwargs: Any) -> Any:
        self._check(frames)
        return self._socket.send_multipart(frames, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._socket, name)


class Harness:
    def __init__(self, data_dir: Path) -> None:
        config = RefereeConfig(host="127.0.0.1", port=0, pub_port=0, data_dir=data_dir)
        self.service = RefereeService(config, zmq.Context())
        self.service.bind()
        assert self.service.router is not None and self.service.pub is not None
        self.db_path = config.db_path
        self.checks: list[str] = []  # what left, in order
        self.violations: list[str] = []
        self.replies: list[Message] = []
        self.service.router = _Watched(self.service.router, self._on_reply)  # type: ignore[assignment]
        self.service.pub = _Watched(self.service.pub, self._on_event)  # type: ignore[assignment]
        self._next_id = 0

    def _stored_seqs(self) -> dict[str, int]:
        reader = sqlite3.connect(f"file:{self.db_path}?mode=ro", uri=True)
        try:
            rows = reader.execute("SELECT game_id, MAX(seq) FROM events GROUP BY game_id")
            return {game_id: seq for game_id, seq in rows}
        finally:
            reader.close()

    def _compare(self, what: str) -> None:
        stored = self._stored_seqs()
        sessions = {**self.service.finished, **self.service.active}
        for game_id, session in sessions.items():
            if stored.get(game_id, 0) != session.state.seq:
                self.violations.append(
                    f"{what} left with game {game_id} at seq {session.state.seq} in memory "
                    f"but {stored.get(game_id, 0)} committed"
                )
        self.checks.append(what)

    def _on_reply(self, frames: list[bytes]) -> None:
        message = decode_payload(frames[1])
        self.replies.append(message)
        self._compare(f"reply {message.T}")

    def _on_event(self, frames: list[bytes]) -> None:
        self._compare(f"event {decode_payload(frames[1]).T}")

    def batch(self, *requests: Message) -> list[Message]:
        """Handle ``requests`` as one loop turn; returns their replies."""
        before = len(self.replies)
        self.service.handle_batch([[PEER, *encode(request)] for request in requests])
        replies = self.replies[before:]
        assert len(replies) == len(requests)
        return replies

    def next_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def close(self) -> None:
        self.service.close()
        self.service.context.destroy(linger=0)


@pytest.fixture
def harness(tmp_path: Path) -> Iterator[Harness]:
    harness = Harness(tmp_path)
    try:
        yield harness
    finally:
        harness.close()


def _start_game(harness: Harness) -> tuple[str, list[str]]:
    (created,) = harness.batch(
        CreateGame(id=harness.next_id(), variant="xiangqi", players=["ann", "bob"])
    )
    assert isinstance(created, GameCreated)
    tokens = list(created.tokens)
    harness.batch(
        Join(id=harness.next_id(), game_id=created.game_id, seat=0, token=tokens[0]),
        Join(id=harness.next_id(), game_id=created.game_id, seat=1, token=tokens[1]),
    )
    return created.game_id, tokens


def test_replies_and_events_leave_only_after_their_batch_committed(harness: Harness) -> None:
    game_id, tokens = _start_game(harness)
    moves = ["h2e2", "h9g7", "h0g2", "i9h9"]
    for ply, move in enumerate(moves):
        (reply,) = harness.batch(
            MoveRequest(
                id=harness.next_id(), game_id=game_id, token=tokens[ply % 2], ply=ply, move=move
            )
        )
        assert isinstance(reply, MoveAccepted), reply
    # a batch of several requests for two games, one of which ends the game
    other_id, other_tokens = _start_game(harness)
    replies = harness.batch(
        MoveRequest(
            id=harness.next_id(), game_id=other_id, token=other_tokens[0], ply=0, move="b2e2"
        ),
        Resign(id=harness.next_id(), game_id=game_id, token=tokens[1]),
        MoveRequest(
            id=harness.next_id(), game_id=other_id, token=other_tokens[1], ply=1, move="b9c7"
        ),
    )
    assert not any(isinstance(reply, ErrorReply) for reply in replies), replies
    assert game_id in harness.service.finished
    assert not harness.violations, "\n".join(harness.violations)
    # the check really ran on replies and on events of every kind
    kinds = set(harness.checks)
    assert {
        "reply game_created",
        "reply " + MoveAccepted.T,
        "event moved",
        "event ended",
    } <= kinds, kinds
