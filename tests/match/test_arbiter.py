"""The match's arbiter sends ``adjudicate`` through its watching table and never
waits: an answer lost with the link is asked again once the link is back, a game
already over needs nothing more."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, cast

from lanqi.match.adjudicate import Verdict
from lanqi.match.config import Adjudication
from lanqi.match.game import _Arbiter
from lanqi.protocol import Adjudicate, ErrorReply, Request
from lanqi.table.port import Answered
from lanqi.table.remote import UNREACHABLE, RemoteTable


@dataclass
class _Table:
    game_id: str = "g1"
    link_up: bool = True
    state: Any = field(default_factory=lambda: SimpleNamespace(finished=False))
    sent: list[Request] = field(default_factory=list)

    def send(self, request: Request) -> int:
        self.sent.append(request)
        return len(self.sent)


def _lost(request_id: int) -> Answered:
    request = Adjudicate(id=request_id, game_id="g1", result="1-0", reason="adjudication: score")
    return Answered(request, ErrorReply(re=request_id, code=UNREACHABLE, msg="lost"))


def test_an_adjudication_lost_with_the_link_is_sent_again_unless_the_game_is_over() -> None:
    table = _Table()
    arbiter = _Arbiter(cast(RemoteTable, table), "key", Adjudication())
    arbiter.end(Verdict(1, "adjudication: score"))
    assert [type(r) for r in table.sent] == [Adjudicate]
    arbiter.heard(_lost(1))
    assert len(table.sent) == 2 and table.sent[1] == table.sent[0]
    table.state = SimpleNamespace(finished=True)
    arbiter.heard(_lost(2))
    assert len(table.sent) == 2
