"""LocalTable answers and publishes what the referee does: the referee's own session
and dispatch, in process, with time passed in."""

from __future__ import annotations

import asyncio

import pytest

from lanqi.protocol import (
    AcceptDraw,
    AcceptTakeback,
    ChatRequest,
    CreateGame,
    DeclineDraw,
    DrawOffered,
    ErrorReply,
    GameEnded,
    GameStarted,
    MoveAccepted,
    MoveMade,
    MoveRequest,
    OfferDraw,
    Ok,
    PlayerJoined,
    RequestTakeback,
    Resign,
    TakebackRequested,
    TakenBack,
    TimeControl,
)
from lanqi.session import RefereeError
from lanqi.table.local import LocalReferee, LocalTable
from lanqi.table.port import Answered, Table


class FakeClock:
    def __init__(self, now: float = 100.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def _game(
    variant: str = "xiangqi", *, time_control: TimeControl | None = None, casual: bool = True
) -> tuple[FakeClock, LocalReferee, LocalTable, LocalTable]:
    clock = FakeClock()
    referee = LocalReferee.start(
        variant,
        players=["ann", "bob"],
        time_control=time_control,
        casual=casual,
        clock=clock,
    )
    return clock, referee, referee.table(0), referee.table(1)


def _answer(table: LocalTable, request_id: int) -> Answered:
    news = table.poll(table.referee.clock())
    (answered,) = [n for n in news if isinstance(n, Answered) and n.request.id == request_id]
    return answered


def _first_moves(red: LocalTable, black: LocalTable) -> None:
    red.send(MoveRequest(game_id="local", token=red.token or "", ply=0, move="h2e2"))
    black.send(MoveRequest(game_id="local", token=black.token or "", ply=1, move="h9g7"))
    red.poll(red.referee.clock())
    black.poll(black.referee.clock())


def _code(table: LocalTable, request: object) -> str:
    """The error code the table answers ``request`` with ("" when accepted)."""
    answered = _answer(table, table.send(request))  # type: ignore[arg-type]
    return answered.refusal.code if answered.refusal is not None else ""


def test_a_local_table_is_a_table_and_starts_as_the_referee_starts_a_game() -> None:
    _, referee, red, black = _game()
    assert isinstance(red, Table)
    assert (red.seat, black.seat) == (0, 1)
    assert red.token != black.token
    assert [type(e) for e in referee.log] == [GameStarted, PlayerJoined, PlayerJoined]
    assert red.state.status == "active" and red.state.connected == (True, True)


def test_a_move_is_answered_move_ok_and_every_table_sees_its_event() -> None:
    clock, referee, red, black = _game()
    watcher = referee.table(None)
    request_id = red.send(MoveRequest(game_id="local", token=red.token or "", ply=0, move="h2e2"))
    news = red.poll(clock())
    assert isinstance(news[0], MoveMade) and news[0].move == "h2e2"
    assert isinstance(news[1], Answered) and news[1].request.id == request_id
    reply = news[1].reply
    assert isinstance(reply, MoveAccepted) and (reply.ply, reply.move) == (0, "h2e2")
    assert [type(n) for n in black.poll(clock())] == [MoveMade]  # the answer is red's alone
    assert [type(n) for n in watcher.poll(clock())] == [MoveMade]
    assert red.state.moves == black.state.moves == watcher.state.moves == ("h2e2",)
    assert red.state == referee.state


def test_a_move_in_another_notation_is_parsed_once_by_the_referee() -> None:
    _clock, _, red, _ = _game()
    answered = _answer(
        red, red.send(MoveRequest(game_id="local", token=red.token or "", ply=0, move="炮二平五"))
    )
    assert isinstance(answered.reply, MoveAccepted) and answered.reply.move == "h2e2"


@pytest.mark.parametrize(
    ("seat", "ply", "move", "code"),
    [
        (0, 0, "a0a5", "illegal_move"),
        (0, 0, "zz", "bad_move"),
        (1, 0, "h7e7", "not_your_turn"),
        (0, 3, "h2e2", "stale_move"),
    ],
)
def test_refused_moves_carry_the_referees_codes(seat: int, ply: int, move: str, code: str) -> None:
    _, referee, red, black = _game()
    table = (red, black)[seat]
    request = MoveRequest(game_id="local", token=table.token or "", ply=ply, move=move)
    assert _code(table, request) == code
    assert referee.state.moves == ()


def test_a_retried_move_gets_the_same_answer_and_a_replayed_ply_is_stale() -> None:
    _clock, _, red, _black = _game()
    move = MoveRequest(game_id="local", token=red.token or "", ply=0, move="h2e2")
    first = _answer(red, red.send(move)).reply
    again = _answer(red, red.send(move)).reply
    assert isinstance(first, MoveAccepted) and isinstance(again, MoveAccepted)
    assert (first.seq, first.move) == (again.seq, again.move)
    other = MoveRequest(game_id="local", token=red.token or "", ply=0, move="b2e2")
    assert _code(red, other) == "stale_move"


def test_bad_tokens_unknown_games_and_other_services_requests_are_refused() -> None:
    _, _, red, _ = _game()
    assert _code(red, Resign(game_id="local", token="nope")) == "bad_token"
    assert _code(red, Resign(game_id="other", token=red.token or "")) == "unknown_game"
    create = CreateGame(variant="xiangqi", players=["a", "b"])
    assert _code(red, create) == "unknown_type"
    long = ChatRequest(game_id="local", token=red.token, text="x" * 5000)
    assert _code(red, long) == "bad_message"  # the wire's limits, as the referee decodes


def test_offers_agree_a_draw_and_a_second_offer_is_refused() -> None:
    _clock, referee, red, black = _game()
    assert _code(red, OfferDraw(game_id="local", token=red.token or "")) == ""
    assert _code(red, OfferDraw(game_id="local", token=red.token or "")) == "not_allowed"
    assert _code(red, DeclineDraw(game_id="local", token=red.token or "")) == "no_offer"
    assert _code(black, AcceptDraw(game_id="local", token=black.token or "")) == ""
    ended = referee.log[-1]
    assert isinstance(ended, GameEnded)
    assert (ended.result, ended.termination, ended.winner) == ("1/2-1/2", "agreement", None)
    assert any(isinstance(e, DrawOffered) for e in referee.log)
    assert _code(red, OfferDraw(game_id="local", token=red.token or "")) == "game_over"


def test_a_takeback_is_asked_then_granted_and_only_in_casual_games() -> None:
    clock, referee, red, black = _game()
    assert _code(red, RequestTakeback(game_id="local", token=red.token or "")) == "not_allowed"
    red.send(MoveRequest(game_id="local", token=red.token or "", ply=0, move="h2e2"))
    black.send(MoveRequest(game_id="local", token=black.token or "", ply=1, move="h9g7"))
    assert _code(red, RequestTakeback(game_id="local", token=red.token or "")) == ""
    assert _code(black, AcceptTakeback(game_id="local", token=black.token or "")) == ""
    assert [type(e) for e in referee.log[-2:]] == [TakebackRequested, TakenBack]
    taken = referee.log[-1]
    assert isinstance(taken, TakenBack) and (taken.plies, taken.ply) == (2, 0)
    red.poll(clock())
    assert red.state.moves == ()
    _, _, rated, _ = _game(casual=False)
    assert _code(rated, RequestTakeback(game_id="local", token=rated.token or "")) == "not_allowed"


def test_resign_ends_the_game_for_the_other_seat() -> None:
    _, referee, red, _ = _game("gomoku")
    assert _code(red, Resign(game_id="local", token=red.token or "")) == ""
    ended = referee.log[-1]
    assert isinstance(ended, GameEnded)
    assert (ended.result, ended.termination, ended.winner) == ("0-1", "resignation", 1)
    assert _code(red, Resign(game_id="local", token=red.token or "", reason="timeout")) in (
        "game_over",
        "bad_request",
    )


def test_a_flag_falls_at_poll_now_and_not_before() -> None:
    tc = TimeControl(kind="fischer", base_ms=5_000, increment_ms=0)
    clock, referee, red, black = _game(time_control=tc)
    _first_moves(red, black)  # each side's first move is free: red's clock runs now
    clock.now += 4.9
    assert not [n for n in black.poll(clock.now) if isinstance(n, GameEnded)]
    assert referee.state.status == "active"
    news = black.poll(clock.now + 0.2)  # poll's now runs the referee's timers
    (ended,) = [n for n in news if isinstance(n, GameEnded)]
    assert (ended.result, ended.termination, ended.winner) == ("0-1", "timeout", 1)
    assert black.state.status == "finished" and black.state.clock.remaining_ms[0] == 0


def test_a_move_after_the_flag_is_refused_timeout_and_ends_the_game() -> None:
    tc = TimeControl(kind="fischer", base_ms=5_000, increment_ms=0)
    clock, referee, red, black = _game(time_control=tc)
    _first_moves(red, black)
    clock.now += 6  # nobody polled: the move itself finds the flag, as on the referee
    late = MoveRequest(game_id="local", token=red.token or "", ply=2, move="b0c2")
    assert _code(red, late) == "timeout"
    assert isinstance(referee.log[-1], GameEnded)


def test_chat_is_rate_limited_per_seat() -> None:
    _, _, red, _ = _game()
    codes = [
        _code(red, ChatRequest(game_id="local", token=red.token, text=f"hi {i}")) for i in range(6)
    ]
    assert codes == ["", "", "", "", "", "rate_limited"]


def test_a_start_position_that_is_over_is_refused_as_the_referee_refuses_it() -> None:
    with pytest.raises(RefereeError) as refused:
        LocalReferee.start("xiangqi", start_fen="3k5/4R4/4R4/9/9/9/9/9/9/4K4 b", clock=FakeClock())
    assert refused.value.code == "bad_request"
    shown = LocalReferee.start(
        "xiangqi", start_fen="3k5/4R4/4R4/9/9/9/9/9/9/4K4 b", clock=FakeClock(), over_ok=True
    )
    ended = shown.log[-1]  # a screen set up from that position shows the rules' verdict
    assert isinstance(ended, GameEnded) and (ended.termination, ended.winner) == ("stalemate", 0)


def test_wait_returns_when_news_is_pending_or_a_timer_is_due() -> None:
    clock, _, red, _ = _game()
    red.send(OfferDraw(game_id="local", token=red.token or ""))
    asyncio.run(asyncio.wait_for(red.wait(5.0), 5.0))
    news = red.poll(clock())
    assert any(isinstance(n, Answered) and isinstance(n.reply, Ok) for n in news)
    reply = next(n for n in news if isinstance(n, Answered)).reply
    assert not isinstance(reply, ErrorReply)


def test_a_kept_game_starts_again_with_its_moves_and_its_clocks() -> None:
    clock = FakeClock()
    tc = TimeControl(kind="fischer", base_ms=300_000, increment_ms=3_000)
    referee = LocalReferee.start(
        "xiangqi",
        moves=["h2e2", "h9g7", "b0c2"],
        remaining_ms=(1_000.0, 2_000.0),
        time_control=tc,
        clock=clock,
    )
    assert referee.state.moves == ("h2e2", "h9g7", "b0c2")
    assert referee.clock_at(clock()).remaining_ms == [1_000, 2_000]
    clock.now += 0.5  # Black to move: its clock runs from the kept time
    assert referee.clock_at(clock()).remaining_ms == [1_000, 1_500]
    with pytest.raises(RefereeError) as refused:
        LocalReferee.start("xiangqi", moves=["h2e2", "h2e2"], clock=clock)
    assert refused.value.code == "illegal_move"
