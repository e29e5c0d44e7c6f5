"""The referee's game state machine, with time passed in: no sockets, exact timings."""

from __future__ import annotations

import dataclasses

import pytest

from lanqi.protocol import (
    ChatPosted,
    DrawOffered,
    GameEnded,
    GameEvent,
    MoveAccepted,
    MoveMade,
    MoveRequest,
    PlayerJoined,
    Presence,
    TakenBack,
    TimeControl,
    encode,
)
from lanqi.session import (
    ClockReading,
    GameEndedError,
    GameSession,
    Liveness,
    RefereeError,
    SessionSetup,
    answer,
)

TOKENS = ["red-token", "black-token"]


def make(
    variant: str = "xiangqi",
    *,
    tc: TimeControl | None = None,
    casual: bool = True,
    fen: str | None = None,
    liveness: Liveness | None = None,
) -> GameSession:
    setup = SessionSetup(
        game_id="g1",
        variant=variant,
        options={},
        start_fen=fen,
        players=["ann", "bob"],
        tokens=list(TOKENS),
        time_control=tc or TimeControl(first_move_ms=0),
        casual=casual,
    )
    session = GameSession(setup, now=0.0, liveness=liveness)
    session.created_event(0.0)
    session.join(0, TOKENS[0], 0.0)
    session.join(1, TOKENS[1], 0.0)
    return session


def code_of(call: object) -> str:
    assert callable(call)
    with pytest.raises(RefereeError) as info:
        call()
    return info.value.code


def ended(events: list[GameEvent]) -> GameEnded:
    last = events[-1]
    assert isinstance(last, GameEnded)
    return last


def test_join_starts_the_game_and_the_clock() -> None:
    setup = SessionSetup(
        "g", "xiangqi", {}, None, ["a", "b"], list(TOKENS), TimeControl(first_move_ms=0), True
    )
    session = GameSession(setup, now=0.0)
    first = session.join(0, TOKENS[0], 10.0)
    assert [type(e) for e in first] == [PlayerJoined]
    assert session.status == "waiting"
    assert code_of(lambda: session.move(TOKENS[0], 0, "h2e2", 20.0)) == "not_started"
    session.join(1, TOKENS[1], 30.0)
    assert str(session.status) == "active"  # (mypy narrowed it to "waiting" above)
    assert code_of(lambda: session.join(0, TOKENS[1], 40.0)) == "bad_token"


def test_move_errors_have_stable_codes_and_change_nothing() -> None:
    session = make()
    before = session.snapshot(None, None, 0.0)
    cases = {
        "bad_token": lambda: session.move("nope", 0, "h2e2", 1.0),
        "not_your_turn": lambda: session.move(TOKENS[1], 0, "h9g7", 1.0),
        "illegal_move": lambda: session.move(TOKENS[0], 0, "h2h8", 1.0),
        "bad_move": lambda: session.move(TOKENS[0], 0, "hello", 1.0),
        "stale_move": lambda: session.move(TOKENS[0], 5, "h2e2", 1.0),
    }
    for code, call in cases.items():
        assert code_of(call) == code
    assert session.snapshot(None, None, 0.0) == before


def test_retry_gets_the_same_answer_and_applies_once() -> None:
    session = make()
    seq, wire, events = session.move(TOKENS[0], 0, "C2=5", 1.0)
    assert wire == "h2e2" and len(events) == 1
    again = session.move(TOKENS[0], 0, "h2e2", 2.0)  # same move, other notation
    assert again == (seq, "h2e2", [])
    assert session.game.ply == 1
    assert code_of(lambda: session.move(TOKENS[0], 0, "b2e2", 3.0)) == "stale_move"
    assert code_of(lambda: session.move(TOKENS[1], 0, "h2e2", 3.0)) == "stale_move"


def test_fischer_clock_and_flag() -> None:
    session = make(tc=TimeControl(first_move_ms=0, kind="fischer", base_ms=1_000, increment_ms=100))
    _, _, events = session.move(TOKENS[0], 0, "h2e2", 400.0)
    moved = events[0]
    assert isinstance(moved, MoveMade)
    assert moved.clock.remaining_ms == [700, 1_000] and moved.clock.running == 1
    assert session.next_deadline() == 1_400.0
    assert session.tick(1_399.0) == []
    with pytest.raises(GameEndedError) as info:
        session.move(TOKENS[1], 1, "h9g7", 1_500.0)
    assert info.value.code == "timeout"
    end = ended(info.value.events)
    assert (end.result, end.termination, end.winner) == ("1-0", "timeout", 0)
    assert session.status == "finished"


def test_flag_falls_on_the_referee_timer_without_any_message() -> None:
    session = make(tc=TimeControl(first_move_ms=0, kind="per_move", per_move_ms=500))
    end = ended(session.tick(501.0))
    assert (end.termination, end.winner) == ("timeout", 1)


def test_draw_offer_accept_decline_and_implicit_decline_by_moving() -> None:
    session = make()
    assert isinstance(session.offer_draw(TOKENS[0], 1.0)[-1], DrawOffered)
    assert code_of(lambda: session.offer_draw(TOKENS[0], 2.0)) == "not_allowed"
    assert code_of(lambda: session.answer_draw(TOKENS[0], True, 2.0)) == "no_offer"
    session.answer_draw(TOKENS[1], False, 3.0)
    assert session.state.draw_offer is None
    session.offer_draw(TOKENS[0], 4.0)
    session.move(TOKENS[0], 0, "h2e2", 5.0)  # the offerer may move: the offer stands
    assert session.state.draw_offer == 0
    session.move(TOKENS[1], 1, "h9g7", 6.0)  # the opponent moved instead of answering
    assert session.state.draw_offer is None
    session.offer_draw(TOKENS[0], 7.0)
    end = ended(session.answer_draw(TOKENS[1], True, 8.0))
    assert (end.result, end.termination) == ("1/2-1/2", "agreement")


def test_takeback_casual_only() -> None:
    session = make()
    session.move(TOKENS[0], 0, "h2e2", 1.0)
    session.move(TOKENS[1], 1, "h9g7", 2.0)
    session.request_takeback(TOKENS[0], 3.0)  # red's last move is two plies back
    taken = session.answer_takeback(TOKENS[1], True, 4.0)[-1]
    assert isinstance(taken, TakenBack) and taken.plies == 2 and taken.ply == 0
    assert session.game.ply == 0 and session.state.move_seqs == ()
    session.move(TOKENS[0], 0, "b2e2", 5.0)
    session.request_takeback(TOKENS[0], 6.0)
    session.answer_takeback(TOKENS[1], False, 7.0)
    assert session.game.ply == 1
    strict = make(casual=False)
    strict.move(TOKENS[0], 0, "h2e2", 1.0)
    assert code_of(lambda: strict.request_takeback(TOKENS[0], 2.0)) == "not_allowed"


def test_abort_only_before_both_moved() -> None:
    session = make()
    session.move(TOKENS[0], 0, "h2e2", 1.0)
    end = ended(session.abort(TOKENS[1], 2.0))
    assert (end.result, end.termination) == ("*", "aborted")
    late = make()
    late.move(TOKENS[0], 0, "h2e2", 1.0)
    late.move(TOKENS[1], 1, "h9g7", 2.0)
    assert code_of(lambda: late.abort(TOKENS[0], 3.0)) == "not_allowed"


def test_resign_and_game_over() -> None:
    session = make("gomoku")
    end = ended(session.resign(TOKENS[0], 1.0))
    assert (end.result, end.termination, end.winner) == ("0-1", "resignation", 1)
    assert code_of(lambda: session.move(TOKENS[0], 0, "h8", 2.0)) == "game_over"
    assert code_of(lambda: session.resign(TOKENS[1], 2.0)) == "game_over"


def test_a_resign_or_draw_reason_goes_beside_the_termination() -> None:
    session = make()
    end = ended(session.resign(TOKENS[1], 1.0, "illegal move h2h9"))
    assert (end.result, end.termination, end.winner) == ("1-0", "resignation", 0)
    assert end.reason == "illegal move h2h9"
    snap = session.snapshot(None, None, 2.0)
    assert (snap.termination, snap.reason) == ("resignation", "illegal move h2h9")
    session = make()
    session.move(TOKENS[0], 0, "h2e2", 1.0)
    session.offer_draw(TOKENS[1], 2.0)
    end = ended(session.answer_draw(TOKENS[0], True, 3.0, "by arrangement"))
    assert (end.result, end.termination, end.reason) == ("1/2-1/2", "agreement", "by arrangement")
    # a plain resignation says nothing more
    session = make()
    assert ended(session.resign(TOKENS[0], 1.0)).reason == ""


def test_an_adjudication_ends_the_game_once_with_its_reason() -> None:
    session = make()
    session.move(TOKENS[0], 0, "h2e2", 1.0)
    end = ended(session.adjudicate("1-0", "adjudication: score", 2.0))
    assert (end.result, end.termination, end.winner) == ("1-0", "adjudication", 0)
    assert end.reason == "adjudication: score"
    # the same adjudication again (a retry) asks nothing more; another one is refused
    assert session.adjudicate("1-0", "adjudication:  score ", 3.0) == []
    assert code_of(lambda: session.adjudicate("0-1", "adjudication: score", 3.0)) == "game_over"
    assert code_of(lambda: session.adjudicate("1-0", "tablebase", 3.0)) == "game_over"
    assert code_of(lambda: make().adjudicate("1-0", "  ", 1.0)) == "bad_request"


def test_time_odds_reach_the_clock() -> None:
    tc = TimeControl(first_move_ms=0, kind="fischer", base_ms=10_000, seat_base_ms=[10_000, 4_000])
    session = make(tc=tc)
    assert session.clock_info(0.0).remaining_ms == [10_000, 4_000]
    session.move(TOKENS[0], 0, "h2e2", 1_000.0)
    flagged = session.tick(5_001.0)  # seat 1's 4 s ran out, seat 0 had plenty
    assert ended(flagged).termination == "timeout" and ended(flagged).winner == 0


def test_increment_odds_reach_the_clock() -> None:
    tc = TimeControl(
        kind="fischer",
        base_ms=10_000,
        seat_base_ms=[10_000, 5_000],
        seat_increment_ms=[100, 50],
        first_move_ms=0,
    )
    session = make(tc=tc)
    session.move(TOKENS[0], 0, "h2e2", 1_000.0)
    session.move(TOKENS[1], 1, "h9g7", 2_000.0)
    # each seat gained its own increment
    assert session.clock_info(2_000.0).remaining_ms == [9_100, 4_050]


def test_per_move_odds_reach_the_clock() -> None:
    tc = TimeControl(
        first_move_ms=0, kind="per_move", per_move_ms=2_000, seat_per_move_ms=[2_000, 500]
    )
    session = make(tc=tc)
    assert session.clock_info(0.0).remaining_ms == [2_000, 500]
    session.move(TOKENS[0], 0, "h2e2", 1_000.0)
    flagged = session.tick(1_501.0)  # seat 1 has 0.5 s a move
    assert ended(flagged).termination == "timeout" and ended(flagged).winner == 0


def test_a_seat_cannot_claim_a_referee_termination() -> None:
    session = make()
    assert code_of(lambda: session.resign(TOKENS[0], 1.0, "checkmate")) == "bad_request"
    assert code_of(lambda: session.resign(TOKENS[0], 1.0, "timeout")) == "bad_request"
    assert session.status == "active"
    end = ended(session.resign(TOKENS[0], 1.0, "resignation"))
    assert end.termination == "resignation"


def test_silent_seat_is_shown_disconnected_then_abandoned() -> None:
    session = make(liveness=Liveness(disconnect_after_ms=100.0, abandon_after_ms=1_000.0))
    session.move(TOKENS[0], 0, "h2e2", 50.0)
    session.move(TOKENS[1], 1, "h9g7", 60.0)
    events = session.tick(200.0)  # both silent for > 100 ms
    assert {(e.seat, e.connected) for e in events if isinstance(e, Presence)} == {
        (0, False),
        (1, False),
    }
    back = session.seen(0, 300.0)  # red comes back
    assert isinstance(back[0], Presence) and back[0].connected
    session.seen(0, 1_000.0)
    end = ended(session.tick(1_100.0))  # black away since 60 ms: over 1 s
    assert (end.termination, end.winner) == ("abandoned", 0)


def test_snapshots_count_down_to_abandonment() -> None:
    session = make(liveness=Liveness(disconnect_after_ms=100.0, abandon_after_ms=1_000.0))
    session.move(TOKENS[0], 0, "h2e2", 50.0)
    session.move(TOKENS[1], 1, "h9g7", 60.0)
    assert session.snapshot(None, None, 80.0).abandon_in_ms == [970, 980]
    session.tick(200.0)  # both silent: away since their last sign of life
    session.seen(0, 300.0)  # red is back: its full time again
    snapshot = session.snapshot(None, None, 400.0)
    assert snapshot.abandon_in_ms == [900, 660]
    assert snapshot.abandon_after_ms == 1_000
    session.tick(1_100.0)  # black is gone: the game is over
    assert session.snapshot(None, None, 1_200.0).abandon_in_ms == []


def test_chat_rooms_and_rate_limit() -> None:
    session = make()
    said = session.chat(TOKENS[0], "", "good luck", "peer1", 1.0)[-1]
    assert isinstance(said, ChatPosted)
    assert said.room == "players" and said.name == "ann" and said.seat == 0
    watcher = session.chat(None, "kibitzer", "hi", "peer2", 1.0)[-1]
    assert isinstance(watcher, ChatPosted)
    assert watcher.room == "spectators" and watcher.name == "kibitzer" and watcher.seat is None
    for i in range(4):
        session.chat(None, "kibitzer", f"m{i}", "peer2", 2.0 + i)
    assert code_of(lambda: session.chat(None, "kibitzer", "more", "peer2", 10.0)) == "rate_limited"
    session.chat(None, "kibitzer", "later", "peer2", 20_000.0)
    assert code_of(lambda: session.chat(None, "x", "   ", "peer3", 1.0)) == "bad_request"


def test_restore_rebuilds_the_same_state() -> None:
    setup = make(
        tc=TimeControl(first_move_ms=0, kind="fischer", base_ms=60_000, increment_ms=0)
    ).setup
    fresh = GameSession(setup, now=0.0)
    log: list[tuple[GameEvent, float]] = []

    def at(now: float, events: list[GameEvent]) -> None:
        log.extend((event, now) for event in events)

    at(0.0, [fresh.created_event(0.0)])
    at(0.0, fresh.join(0, TOKENS[0], 0.0) + fresh.join(1, TOKENS[1], 0.0))
    for ply, text in enumerate(["h2e2", "h9g7", "h0g2", "i9h9"]):
        now = 1_000.0 * (ply + 1)
        at(now, fresh.move(TOKENS[ply % 2], ply, text, now)[2])
    at(5_000.0, fresh.offer_draw(TOKENS[0], 5_000.0))
    rebuilt = GameSession.restore(setup, [(event, 9_000.0) for event, _ in log], 9_000.0)
    assert rebuilt.state == fresh.state  # the same reducer, live and on recovery
    assert rebuilt.game.fen() == fresh.game.fen()
    assert rebuilt.state.draw_offer == 0
    # After a restart the clock resumes from the last recorded reading: the
    # downtime is not charged.
    assert rebuilt.clock.remaining(0, 9_000.0) == fresh.clock.remaining(0, 4_000.0) == 58_000.0
    # Rebuilt in a running referee, with the times the events happened at, the
    # clock of the side to move runs from its last move (at 4 s), as it did live.
    live = GameSession.restore(setup, log, 9_000.0)
    assert live.state == fresh.state
    assert live.clock.remaining(0, 9_000.0) == fresh.clock.remaining(0, 9_000.0) == 53_000.0


@pytest.mark.parametrize(
    "forged", ["", "r", TOKENS[0][:-1], TOKENS[0] + "x", "red-tokeN", TOKENS[1][:-1], None]
)
def test_a_seat_token_must_match_whole(forged: str | None) -> None:
    session = make()
    assert code_of(lambda: session.seat_of(forged)) == "bad_token"
    assert code_of(lambda: session.move(forged, 0, "h2e2", 1.0)) == "bad_token"  # type: ignore[arg-type]
    assert code_of(lambda: session.resign(forged, 1.0)) == "bad_token"  # type: ignore[arg-type]
    assert session.seat_of(TOKENS[1]) == 1


# ---------------------------------------------------------------- first-move windows

WINDOW = TimeControl(kind="fischer", base_ms=60_000, increment_ms=1_000, first_move_ms=2_000)


def played(session: GameSession, ply: int, text: str, now: float) -> MoveMade:
    """The ``moved`` event of the move ``text`` at ``ply`` by the side to move."""
    moved = session.move(TOKENS[ply % 2], ply, text, now)[2][-1]
    assert isinstance(moved, MoveMade)
    return moved


def test_no_clock_runs_before_a_sides_first_move_only_its_window() -> None:
    session = make(tc=WINDOW)
    assert session.state.clock.running is None
    assert session.state.clock.first_move_left_ms == 2_000
    assert session.snapshot(None, None, 1_500.0).clock.first_move_left_ms == 500
    assert session.snapshot(None, None, 1_500.0).clock.remaining_ms == [60_000, 60_000]
    assert session.next_deadline() == 2_000.0
    # Red's first move costs nothing (and earns the increment); Black's window opens
    red = played(session, 0, "h2e2", 1_900.0)
    assert (red.left_ms, red.clock.remaining_ms) == (60_000, [61_000, 60_000])
    assert (red.clock.running, red.clock.first_move_left_ms) == (None, 2_000)
    assert session.next_deadline() == 3_900.0
    # Black's first move: now Red's clock runs, from Black's move on
    black = played(session, 1, "h9g7", 3_000.0)
    assert (black.left_ms, black.clock.remaining_ms) == (60_000, [61_000, 61_000])
    assert (black.clock.running, black.clock.first_move_left_ms) == (0, None)
    assert session.clock.flag_deadline() == 3_000.0 + 61_000.0
    assert session.clock.window_deadline() is None
    assert session.clock_info(4_000.0).remaining_ms == [60_000, 61_000]


def test_a_side_that_does_not_make_its_first_move_in_time_aborts_the_game() -> None:
    session = make(tc=WINDOW, casual=False)  # rated games too: no result
    assert session.tick(1_999.0) == []
    end = ended(session.tick(2_001.0))
    assert (end.result, end.termination, end.winner) == ("*", "no_first_move", None)
    assert (end.clock.running, end.clock.first_move_left_ms) == (None, None)
    assert end.clock.remaining_ms == [60_000, 60_000]
    assert session.next_deadline() is None


def test_the_second_sides_window_opens_at_the_first_move() -> None:
    session = make(tc=WINDOW)
    session.move(TOKENS[0], 0, "h2e2", 1_000.0)
    assert session.tick(2_500.0) == []  # Red's window would have closed at 2 s
    end = ended(session.tick(3_001.0))
    assert (end.result, end.termination, end.winner) == ("*", "no_first_move", None)


def test_a_first_move_after_the_window_is_refused_and_the_game_aborted() -> None:
    session = make(tc=WINDOW)
    with pytest.raises(GameEndedError) as info:
        session.move(TOKENS[0], 0, "h2e2", 2_500.0)  # before the referee's timer fired
    assert info.value.code == "game_over"
    end = ended(info.value.events)
    assert (end.result, end.termination) == ("*", "no_first_move")
    assert session.moves() == []


def test_a_takeback_to_a_sides_first_move_opens_its_window_again() -> None:
    session = make(tc=WINDOW)
    session.move(TOKENS[0], 0, "h2e2", 1_000.0)
    session.request_takeback(TOKENS[0], 1_500.0)
    taken = session.answer_takeback(TOKENS[1], True, 1_800.0)[-1]
    assert isinstance(taken, TakenBack)
    assert (taken.clock.running, taken.clock.first_move_left_ms) == (None, 2_000)
    assert session.next_deadline() == 3_800.0


def test_a_window_in_untimed_games_and_none_with_first_move_ms_0() -> None:
    untimed = make(tc=TimeControl(first_move_ms=1_000))
    assert (untimed.state.clock.remaining_ms, untimed.state.clock.running) == ([], None)
    assert ended(untimed.tick(1_001.0)).termination == "no_first_move"
    off = make(tc=TimeControl(kind="fischer", base_ms=5_000, first_move_ms=0))
    assert (off.state.clock.running, off.state.clock.first_move_left_ms) == (0, None)


@pytest.mark.parametrize("window", [1, 999])
def test_a_window_under_a_second_is_a_bad_request(window: int) -> None:
    setup = SessionSetup(
        "g", "xiangqi", {}, None, ["a", "b"], list(TOKENS), TimeControl(first_move_ms=window), True
    )
    assert code_of(lambda: GameSession(setup, now=0.0)) == "bad_request"


def test_restore_keeps_the_window_running() -> None:
    setup = make(tc=WINDOW).setup
    fresh = GameSession(setup, now=0.0)
    log: list[tuple[GameEvent, float]] = [(fresh.created_event(0.0), 0.0)]
    log += [(e, 0.0) for e in fresh.join(0, TOKENS[0], 0.0) + fresh.join(1, TOKENS[1], 0.0)]
    log += [(e, 1_000.0) for e in fresh.move(TOKENS[0], 0, "h2e2", 1_000.0)[2]]
    # after a restart at 10 s: Black's window resumes in full from then, no clock runs
    rebuilt = GameSession.restore(setup, [(event, 10_000.0) for event, _ in log], 10_000.0)
    assert rebuilt.state == fresh.state
    assert rebuilt.clock.waiting == 1 and rebuilt.clock.running is None
    assert rebuilt.next_deadline() == 12_000.0
    assert rebuilt.tick(11_999.0) == []
    assert ended(rebuilt.tick(12_001.0)).termination == "no_first_move"
    # rebuilt in a running referee: the window runs from the move that opened it
    live = GameSession.restore(setup, log, 2_000.0)
    assert live.clock_info(2_000.0) == fresh.clock_info(2_000.0)
    assert live.clock_info(2_000.0).first_move_left_ms == 1_000


def test_restore_resumes_the_clock_from_a_mark_read_after_the_last_move() -> None:
    setup = make(tc=TimeControl(first_move_ms=0, kind="fischer", base_ms=60_000)).setup
    fresh = GameSession(setup, now=0.0)
    log = [fresh.created_event(0.0), *fresh.join(0, TOKENS[0], 0.0)]
    log += fresh.join(1, TOKENS[1], 0.0)
    early = None
    for ply, text in enumerate(["h2e2", "h9g7", "h0g2", "i9h9"]):
        if ply == 3:
            early = fresh.clock_reading(3_500.0)  # read before black's last move
        now = 1_000.0 * (ply + 1)
        log += fresh.move(TOKENS[ply % 2], ply, text, now)[2]
    mark = fresh.clock_reading(6_500.0)  # red has thought 2.5 s since black's move
    assert mark is not None and early is not None
    assert (mark.seq, mark.running, mark.window_ms) == (fresh.state.seq, 0, None)
    after = [(event, 9_000.0) for event in log]  # restarted at 9 s

    def restart(reading: ClockReading | None) -> GameSession:
        return GameSession.restore(setup, after, 9_000.0, mark=reading)

    # the 2.5 s red used before the crash are charged; the downtime is not
    rebuilt = restart(dataclasses.replace(mark, at=9_000.0))
    assert rebuilt.clock.remaining(0, 9_000.0) == 55_500.0
    assert rebuilt.clock.remaining(1, 9_000.0) == fresh.clock.remaining(1, 9_000.0)
    # a mark read before the last move is stale: the move's reading wins
    assert restart(dataclasses.replace(early, at=9_000.0)).clock.remaining(0, 9_000.0) == 58_000
    # rebuilt in a running referee, the clock runs on from the mark's time
    live = GameSession.restore(setup, after, 9_000.0, mark=dataclasses.replace(mark, at=6_500.0))
    assert live.clock.remaining(0, 9_000.0) == fresh.clock.remaining(0, 9_000.0) == 53_000.0


def test_a_mark_keeps_the_first_move_window_used_before_a_crash() -> None:
    setup = make(tc=WINDOW).setup
    fresh = GameSession(setup, now=0.0)
    log = [fresh.created_event(0.0), *fresh.join(0, TOKENS[0], 0.0)]
    log += fresh.join(1, TOKENS[1], 0.0)
    log += fresh.move(TOKENS[0], 0, "h2e2", 1_000.0)[2]
    mark = fresh.clock_reading(2_500.0)  # black's window: 0.5 s of 2 s used
    assert mark is not None and mark.running is None and mark.window_ms == 500.0
    rebuilt = GameSession.restore(
        setup, [(e, 10_000.0) for e in log], 10_000.0, mark=dataclasses.replace(mark, at=10_000.0)
    )
    assert rebuilt.clock.waiting == 1 and rebuilt.next_deadline() == 10_500.0


# ---------------------------------------------------------------- lag compensation

#: 60 s: gain 600 ms, cap 1.8 s, quota 1.8 s at the start and 4.2 s at most
MINUTE = TimeControl(kind="fischer", base_ms=60_000, first_move_ms=0)
XIANGQI_MOVES = ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7", "b2c2", "a9b9"]


def moved_with(session: GameSession, ply: int, now: float, think_ms: int | None) -> MoveMade:
    request = MoveRequest(
        game_id="g1", token=TOKENS[ply % 2], ply=ply, move=XIANGQI_MOVES[ply], think_ms=think_ms
    )
    reply, events = answer(session, request, "peer", now)
    assert isinstance(reply, MoveAccepted)
    moved = events[-1]
    assert isinstance(moved, MoveMade)
    return moved


def test_a_move_that_says_how_long_it_thought_is_charged_that() -> None:
    session = make(tc=MINUTE)
    # red's clock ran 500 ms, red thought 100: the other 400 were the network's
    moved = moved_with(session, 0, 500.0, think_ms=100)
    assert (moved.lag_ms, moved.left_ms) == (400, 59_900)
    assert moved.clock.remaining_ms == [59_900, 60_000]
    # without think_ms all the time the move took is charged, as before
    moved = moved_with(session, 1, 1_000.0, think_ms=None)
    assert (moved.lag_ms, moved.left_ms) == (None, 59_500)
    assert "lag_ms" not in encode(moved)[0].decode("latin-1")  # the old bytes


def test_a_client_claiming_a_huge_lag_gets_the_cap_then_a_gain_a_move() -> None:
    session = make(tc=MINUTE)
    now, got = 0.0, []
    for ply in range(8):
        now += 10_000.0  # each side takes 10 s a move and claims it thought none of it
        moved = moved_with(session, ply, now, think_ms=0 if ply % 2 == 0 else None)
        got.append(moved.lag_ms)
    # red: the cap (the whole starting quota), then what one move gained; black said nothing
    assert got == [1_800, None, 600, None, 600, None, 600, None]
    assert session.clock.remaining(0, now) == 60_000 - 4 * 10_000 + 1_800 + 3 * 600
    quota = session.lag_quotas[0]
    assert quota is not None and quota.left_ms == 600
    # the quota refills a gain a move (black's quota grew though it claimed nothing)
    black = session.lag_quotas[1]
    assert black is not None and black.left_ms == 1_800 + 4 * 600


def test_a_restored_game_folds_the_quotas_from_its_moves() -> None:
    session = make(tc=MINUTE)
    fresh = GameSession(session.setup, now=0.0)
    log: list[GameEvent] = [fresh.created_event(0.0)]
    log += fresh.join(0, TOKENS[0], 0.0) + fresh.join(1, TOKENS[1], 0.0)
    for ply, think in enumerate([0, 50, None, 0, 100]):
        request = MoveRequest(
            game_id="g1", token=TOKENS[ply % 2], ply=ply, move=XIANGQI_MOVES[ply], think_ms=think
        )
        log += answer(fresh, request, "peer", 3_000.0 * (ply + 1))[1]
    rebuilt = GameSession.restore(fresh.setup, [(e, 20_000.0) for e in log], 20_000.0)
    assert [q.left_ms for q in rebuilt.lag_quotas if q] == [
        q.left_ms for q in fresh.lag_quotas if q
    ]
    assert rebuilt.reports_lag == fresh.reports_lag == [True, True]
    assert rebuilt.state == fresh.state


def test_a_seat_that_reports_its_thinking_flags_once_past_its_allowance() -> None:
    session = make(tc=TimeControl(kind="fischer", base_ms=2_000, first_move_ms=0))
    # 2 s: gain 300, cap and start 900
    moved_with(session, 0, 1_000.0, think_ms=900)  # 100 back: red has 1_100 left
    moved_with(session, 1, 1_500.0, think_ms=None)  # black never says: it flags at zero
    deadline = session.next_deadline()
    quota = session.lag_quotas[0]
    assert quota is not None and quota.left_ms == 900 - 100 + 300
    allowance = quota.allowance()
    assert allowance == 900  # the cap
    assert deadline == 1_500.0 + 1_100 + allowance
    assert session.tick(1_500.0 + 1_100) == []  # red's clock shows 0, its move may be on its way
    # a move thought in time, arriving late, is taken: its lag brings the time above zero
    moved = moved_with(session, 2, 1_500.0 + 1_100 + 500, think_ms=1_000)
    assert moved.lag_ms == 600 and moved.left_ms == 100
    # black said nothing: its flag falls at zero on the referee's timer
    black_flag = session.next_deadline()
    assert black_flag == 3_100.0 + 1_500
    assert ended(session.tick(black_flag)).termination == "timeout"


def test_a_move_whose_lag_does_not_cover_its_overrun_loses_on_time() -> None:
    session = make(tc=TimeControl(kind="fischer", base_ms=2_000, first_move_ms=0))
    with pytest.raises(GameEndedError) as info:
        # red thought 2.5 s of its 2 s: the 100 ms of lag it had does not save it
        session.move(TOKENS[0], 0, "h2e2", 2_600.0, think_ms=2_500)
    assert info.value.code == "timeout"
    assert ended(info.value.events).termination == "timeout"


def test_a_first_move_in_its_window_has_no_lag_to_give_back() -> None:
    session = make(tc=WINDOW)
    moved = moved_with(session, 0, 1_500.0, think_ms=0)
    assert moved.lag_ms == 0 and moved.left_ms == 60_000
