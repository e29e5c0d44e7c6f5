"""A spectator's chat name as docs/protocol.md (`chat`) says: surrounding whitespace
removed, ``spectator`` if empty, and a name over 40 characters refused with
``bad_message`` (not shortened).  Against the module's real referee process."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lanqi.protocol import ChatRequest, ErrorReply, Ok

Factory = Callable[..., Any]


def test_a_spectator_name_over_40_characters_is_refused_not_trimmed(new_table: Factory) -> None:
    table = new_table("gomoku")
    client = table.client

    def say(name: str, text: str) -> object:
        return client.request(ChatRequest(id=0, game_id=table.game_id, text=text, name=name))

    forty = "观" * 40  # characters, not bytes (120 in UTF-8)
    assert isinstance(say(forty, "one"), Ok)
    assert isinstance(say("  zoe  ", "two"), Ok)
    assert isinstance(say("   ", "three"), Ok)
    refused = say("观" * 41, "four")
    assert isinstance(refused, ErrorReply) and refused.code == "bad_message", refused
    refused = say(" " + forty, "five")  # counted before the whitespace is removed
    assert isinstance(refused, ErrorReply) and refused.code == "bad_message", refused
    lines = [(c.room, c.name, c.text) for c in table.sync().chat]
    assert lines == [
        ("spectators", forty, "one"),
        ("spectators", "zoe", "two"),
        ("spectators", "spectator", "three"),
    ]
