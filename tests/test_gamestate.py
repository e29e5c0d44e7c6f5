"""The one reducer of a game's events (lanqi.gamestate).

The property: drive the referee's real :class:`GameSession` with random legal and
illegal commands (moves, draw offers, takebacks, resigns, aborts, chat, silence,
flags), collect the events it produced, and check that

- folding them through :func:`apply` from the new game's state gives exactly the
  referee's own state (the referee applies its events with the same function);
- :meth:`GameSession.restore` (recovery) gives that state too;
- a spectator's :class:`GameView` that started from a snapshot at a random point
  and lost random events (it re-syncs on the gaps) ends with the same state.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import cast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lanqi.client.referee import GameView, RefereeClient
from lanqi.gamestate import CannotFollow, GameState, apply, fold, from_snapshot, handles
from lanqi.protocol import (
    ChatPosted,
    ClockInfo,
    DrawOffered,
    GameEnded,
    GameEvent,
    MoveMade,
    PlayerJoined,
    Presence,
    Snapshot,
    TakebackRequested,
    TakenBack,
    TimeControl,
)
from lanqi.protocol.schema import message_types
from lanqi.session import GameSession, Liveness, RefereeError, SessionSetup

TOKENS = ["red-token", "black-token"]
#: requests, as often as they come in a test game (moves most of all)
COMMANDS = [
    *["move"] * 14,
    *["join", "bad_move", "resign", "abort", "spectator_chat"],
    *["offer_draw", "answer_draw", "answer_takeback", "chat", "heartbeat", "tick"] * 2,
    *["takeback"] * 4,
]
#: gomoku moves that give the first seat five in a row at its fifth move
FIVE = ["h8", "a1", "i8", "a3", "j8", "a5", "k8", "a7", "l8"]


@dataclass
class InProcessReferee:
    """The spectator's side of the wire, without the wire: ``sync`` answers with
    the session's snapshot at the current time (GameView needs only these two)."""

    session: GameSession
    now: float = 0.0
    watched: list[str] = field(default_factory=list)

    def watch(self, game_id: str) -> None:
        self.watched.append(game_id)

    def sync(self, game_id: str) -> Snapshot:
        assert game_id == self.session.game_id
        return self.session.snapshot(None, None, self.now)


def spectator(referee: InProcessReferee) -> GameView:
    return GameView(cast(RefereeClient, referee), referee.session.game_id)


def seen_by_all(state: GameState) -> GameState:
    """What every view agrees on: a snapshot's clock is read when it is taken."""
    return state.public()._replace(clock=ClockInfo())


def new_session(variant: str, timed: bool, casual: bool, first_move_ms: int = 0) -> GameSession:
    if timed:
        tc = TimeControl(
            kind="fischer", base_ms=8_000, increment_ms=500, first_move_ms=first_move_ms
        )
    else:
        tc = TimeControl(first_move_ms=first_move_ms)
    setup = SessionSetup(
        game_id="g1",
        variant=variant,
        options={},
        start_fen=None,
        players=["ann", "bob"],
        tokens=list(TOKENS),
        time_control=tc,
        casual=casual,
    )
    liveness = Liveness(disconnect_after_ms=1_500.0, abandon_after_ms=12_000.0)
    return GameSession(setup, now=0.0, liveness=liveness)


def refusable(request: Callable[[], list[GameEvent]]) -> list[GameEvent]:
    """The events of a request, or none if the referee refused it."""
    try:
        return request()
    except RefereeError as refused:
        return list(getattr(refused, "events", []))  # a flag may have fallen meanwhile


def command(
    session: GameSession, data: st.DataObject, now: float, scripted: bool
) -> list[GameEvent]:
    """One random request to the referee; returns the events it caused."""
    seat = data.draw(st.integers(0, 1), label="seat")
    token = TOKENS[seat]
    kind = data.draw(st.sampled_from(COMMANDS), label="command")
    if kind == "join":
        return session.join(seat, token, now)
    if kind in ("move", "bad_move"):
        game = session.game
        if kind == "bad_move":
            return session.move(token, game.ply, "z0z0", now)[2]
        mover = TOKENS[game.seat_to_move]
        if scripted and game.ply < len(FIVE):
            text = FIVE[game.ply]
        else:
            legal = [str(m) for m in game.legal_moves()]
            if not legal:
                return []
            text = legal[data.draw(st.integers(0, len(legal) - 1), label="move")]
        return session.move(mover, game.ply, text, now)[2]
    if kind in ("offer_draw", "takeback"):  # and, most often, the answer at once
        draw = kind == "offer_draw"
        ask = session.offer_draw if draw else session.request_takeback
        answer = session.answer_draw if draw else session.answer_takeback
        events = ask(token, now)
        if data.draw(st.booleans(), label="answered"):
            accept = data.draw(st.booleans(), label="accept")
            events += refusable(partial(answer, TOKENS[1 - seat], accept, now))
        return events
    if kind in ("answer_draw", "answer_takeback"):
        draw = kind == "answer_draw"
        pending = session.state.draw_offer if draw else session.state.takeback_offer
        answer = session.answer_draw if draw else session.answer_takeback
        token = TOKENS[1 - pending] if pending is not None else token
        return answer(token, data.draw(st.booleans(), label="accept"), now)
    if kind == "resign":
        return session.resign(token, now)
    if kind == "abort":
        return session.abort(token, now)
    if kind == "chat":
        return session.chat(token, "", f"hello at {now:.0f}", "peer", now)
    if kind == "spectator_chat":
        return session.chat(None, "kib", f"watching at {now:.0f}", f"peer{now:.0f}", now)
    if kind == "heartbeat":
        return session.seen(seat, now)
    return session.tick(now)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    game=st.tuples(
        st.sampled_from(["xiangqi", "gomoku", "gomoku-five"]),  # five: a game the rules end
        st.booleans(),  # timed
        st.booleans(),  # casual (takebacks, aborts)
        st.booleans(),  # both seats taken at once
        st.sampled_from([0, 0, 2_000, 5_000]),  # first-move window (0: off)
    ),
    steps=st.integers(1, 80),
)
def test_replaying_the_referees_events_gives_its_state(
    data: st.DataObject, game: tuple[str, bool, bool, bool, int], steps: int
) -> None:
    script, timed, casual, seated, first_move_ms = game
    variant = "xiangqi" if script == "xiangqi" else "gomoku"
    session = new_session(variant, timed, casual, first_move_ms)
    initial = session.state
    referee = InProcessReferee(session)
    log: list[GameEvent] = [session.created_event(0.0)]
    if seated:  # most games start at once; the others wait for their players a while
        log += session.join(0, TOKENS[0], 0.0) + session.join(1, TOKENS[1], 0.0)
    times = [0.0] * len(log)  # when each event happened
    view_from = data.draw(st.integers(0, steps), label="spectator joins at step")
    view: GameView | None = None
    now = 0.0
    for step in range(steps):
        if step == view_from:
            view = spectator(referee)
        if session.over and data.draw(st.booleans(), label="enough after the end"):
            break
        now += data.draw(
            st.sampled_from([0.0, 10.0, 10.0, 100.0, 400.0, 1_600.0, 3_500.0]), label="wait"
        )
        referee.now = now
        events = refusable(partial(command, session, data, now, script == "gomoku-five"))
        log += events
        times += [now] * len(events)
        for event in events:
            if view is not None and not data.draw(st.booleans(), label="lost"):
                view.apply(event)
        # The referee's state is the fold of its events, live ...
        state = session.state
        assert fold(initial, log) == state
        # ... and it agrees with the rules object and the running clock.
        assert list(state.moves) == session.game.snapshot()["moves"]
        assert state.fen == session.game.fen()
        assert state.to_move == (None if session.over else session.game.seat_to_move)
        assert state.clock.running == session.clock.running
        # ... the first-move window runs exactly while the state says so, only for a
        # side that has yet to move, and never together with a clock
        window = state.clock.first_move_left_ms
        assert (window is not None) == (session.clock.waiting is not None)
        if window is not None:
            assert first_move_ms and state.ply < 2 and state.clock.running is None
            assert session.clock.waiting == state.to_move
        elif state.status == "active" and first_move_ms and not session.over:
            assert state.ply >= 2 and state.clock.running == state.to_move
        # ... and a spectator that saw only some of them (re-syncing on the gaps)
        # agrees whenever it has caught up.
        if view is not None and view.seq == session.state.seq:
            assert seen_by_all(view.state) == seen_by_all(session.state)
    # ... and on recovery alike.
    restored = GameSession.restore(session.setup, [(event, now) for event in log], now)
    assert restored.state == session.state
    assert restored.game.fen() == session.game.fen()
    # the clock resumes from the last reading: the time the referee was down is not charged
    assert restored.clock_info(now) == session.state.clock
    # Rebuilt in a running referee, with the times the events happened, the clock
    # runs exactly as the live one does.
    live = GameSession.restore(session.setup, list(zip(log, times, strict=True)), now)
    assert live.state == session.state
    assert live.clock_info(now + 1_000.0) == session.clock_info(now + 1_000.0)
    # And a snapshot is a state the reducer starts from.
    assert seen_by_all(from_snapshot(session.snapshot(None, None, now))) == seen_by_all(
        session.state
    )


# ---------------------------------------------------------------- single rules


def started() -> tuple[GameSession, GameState]:
    session = new_session("gomoku", timed=False, casual=True)
    session.created_event(0.0)
    session.join(0, TOKENS[0], 0.0)
    session.join(1, TOKENS[1], 0.0)
    return session, session.state


def test_every_game_event_type_has_a_rule() -> None:
    kinds = [kind for kind in message_types().values() if issubclass(kind, GameEvent)]
    assert len(kinds) >= 11
    assert [kind.T for kind in kinds if not handles(kind)] == []


def test_apply_returns_a_new_state_and_leaves_the_old_one() -> None:
    _, state = started()
    event = DrawOffered(game_id="g1", seq=state.seq + 1, seat=0)
    after = apply(state, event)
    assert (after.draw_offer, after.seq) == (0, state.seq + 1)
    assert (state.draw_offer, state.seq) == (None, state.seq)


def test_second_join_starts_the_game_and_its_clock() -> None:
    session = new_session("gomoku", timed=True, casual=True)
    session.created_event(0.0)
    waiting = session.state
    assert waiting.clock.running is None
    first = apply(waiting, PlayerJoined(game_id="g1", seq=2, seat=1, name="bob"))
    assert first.status == "waiting" and first.connected == (False, True)
    both = apply(first, PlayerJoined(game_id="g1", seq=3, seat=0, name="ann"))
    assert both.status == "active" and both.clock.running == 0 == both.to_move


def test_with_a_first_move_window_the_second_join_opens_it_and_starts_no_clock() -> None:
    session = new_session("xiangqi", timed=True, casual=True, first_move_ms=3_000)
    session.created_event(0.0)
    first = apply(session.state, PlayerJoined(game_id="g1", seq=2, seat=1, name="bob"))
    both = apply(first, PlayerJoined(game_id="g1", seq=3, seat=0, name="ann"))
    assert both.status == "active" and both.to_move == 0
    assert both.clock == ClockInfo(
        remaining_ms=[8_000, 8_000], running=None, first_move_left_ms=3_000
    )


def moved(state: GameState, seat: int, move: str) -> GameState:
    event = MoveMade(
        game_id="g1", seq=state.seq + 1, ply=state.ply, seat=seat, move=move, text=move, fen="f"
    )
    return apply(state, event)


def test_moving_declines_the_opponents_draw_offer_but_keeps_ones_own() -> None:
    _, state = started()
    theirs = moved(apply(state, DrawOffered(game_id="g1", seq=state.seq + 1, seat=1)), 0, "h8")
    assert theirs.draw_offer is None and theirs.to_move == 1 and theirs.moves == ("h8",)
    mine = moved(apply(state, DrawOffered(game_id="g1", seq=state.seq + 1, seat=0)), 0, "h8")
    assert mine.draw_offer == 0
    asked = moved(state, 0, "h8")
    asked = apply(asked, TakebackRequested(game_id="g1", seq=asked.seq + 1, seat=0))
    assert asked.takeback_offer == 0
    assert moved(asked, 1, "h9").takeback_offer is None  # moving answers a takeback request


def test_taking_back_two_plies_keeps_the_side_to_move() -> None:
    session, _ = started()
    session.move(TOKENS[0], 0, "h8", 1.0)
    session.move(TOKENS[1], 1, "h9", 2.0)
    state = session.state
    back = apply(state, TakenBack(game_id="g1", seq=state.seq + 1, plies=2, ply=0, fen="f"))
    assert back.moves == () and back.move_seqs == () and back.to_move == state.to_move == 0


@pytest.mark.parametrize(
    "event",
    [
        DrawOffered(game_id="g1", seq=9, seat=0),  # a gap: some events were lost
        DrawOffered(game_id="other", seq=4, seat=0),  # another game
        MoveMade(game_id="g1", seq=4, ply=5, seat=0, move="h8", text="h8", fen="f"),
        TakenBack(game_id="g1", seq=4, plies=3, ply=0, fen="f"),
    ],
)
def test_an_event_that_does_not_follow_is_refused(event: GameEvent) -> None:
    _, state = started()
    assert state.seq == 3 and state.ply == 0
    with pytest.raises(CannotFollow):
        apply(state, event)


def test_a_spectator_of_a_waiting_game_asks_the_snapshot_whether_it_started() -> None:
    session = new_session("gomoku", timed=False, casual=True)
    session.created_event(0.0)
    session.join(0, TOKENS[0], 0.0)
    state = from_snapshot(session.snapshot(None, None, 0.0))
    assert state.joined is None  # a snapshot does not say who has joined
    with pytest.raises(CannotFollow):
        apply(state, PlayerJoined(game_id="g1", seq=state.seq + 1, seat=1, name="bob"))


def test_chat_keeps_the_latest_lines_and_presence_its_seat() -> None:
    _, state = started()
    for n in range(60):
        state = apply(
            state,
            ChatPosted(game_id="g1", seq=state.seq + 1, room="players", name="ann", text=str(n)),
        )
    assert [line.text for line in state.chat] == [str(n) for n in range(10, 60)]
    gone = apply(state, Presence(game_id="g1", seq=state.seq + 1, seat=1, connected=False))
    assert gone.connected == (True, False)
    over = apply(
        gone,
        GameEnded(
            game_id="g1",
            seq=gone.seq + 1,
            result="1-0",
            termination="resignation",
            winner=0,
            fen="f",
        ),
    )
    assert (over.status, over.to_move, over.winner, over.draw_offer) == ("finished", None, 0, None)


def test_the_protocol_doc_tables_every_event_the_reducer_applies() -> None:
    doc = (Path(__file__).parents[1] / "docs" / "protocol.md").read_text(encoding="utf-8")
    table = doc.split("Applying events to the snapshot state", 1)[1].split("\n\n|", 1)[1]
    rows = [row for row in ("|" + table).split("\n\n", 1)[0].splitlines() if row.startswith("| `")]
    documented = {name for row in rows for name in re.findall(r"`([a-z_]+)`", row.split("|")[1])}
    applied = {kind.T for kind in message_types().values() if issubclass(kind, GameEvent)}
    assert documented == applied
    assert "lanqi.gamestate.apply" in doc
