"""Whole games through a real ``lanqi referee`` subprocess, for both variants.

Each ending is checked four ways: the ``ended`` event a spectator's view receives,
the snapshot, the message on ``results`` and the entry listed by ``results_since``.
Refusals are checked by their stable error code, never by the message text.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

from lanqi.client.referee import GameView, RefereeClient, RequestRefused
from lanqi.protocol import (
    MAX_CHAT_HISTORY,
    MAX_CHAT_LEN,
    ChatLine,
    CreateGame,
    ErrorReply,
    GameCreated,
    MoveAccepted,
    MoveMade,
    MoveRequest,
    TimeControl,
)

if TYPE_CHECKING:
    from tests.referee.conftest import Table

# Five in a row for seat 0 (black stones move first in gomoku).
GOMOKU_BLACK_WINS = ["h8", "a1", "i8", "a2", "j8", "a3", "k8", "a4", "l8"]


def refused(code: str, call: Callable[[], object]) -> None:
    """``call`` must be refused with ``code``."""
    with pytest.raises(RequestRefused) as info:
        call()
    assert info.value.code == code, info.value


# ---------------------------------------------------------------- endings by rule


def test_xiangqi_checkmate(new_table: Callable[..., Table]) -> None:
    # Red rooks a8 and b0, black general e9: b0b9 checks along rank 9, a8 holds rank 8.
    table = new_table("xiangqi", fen="4k4/R8/9/9/9/9/9/9/9/1R1K5 w")
    table.play("b0b9")
    snapshot = table.assert_ended("1-0", "checkmate", 0)
    assert snapshot.fen.startswith("1R2k4/R8/9/9/9/9/9/9/9/3K5 b")
    refused("game_over", lambda: table.client.move(table.game_id, table.tokens[1], 1, "e9e8"))


def test_xiangqi_stalemate_is_a_loss_for_the_side_to_move(new_table: Callable[..., Table]) -> None:
    # After a7a8 the black general d9 is not in check but has no move: d8 and e8 are
    # on the rook's rank, e9 would face the red general on the open e file.
    table = new_table("xiangqi", fen="3k5/9/R8/9/9/9/9/9/9/4K4 w")
    table.play("a7a8")
    table.assert_ended("1-0", "stalemate", 0)


@pytest.mark.parametrize(
    ("moves", "result", "winner"),
    [
        (GOMOKU_BLACK_WINS, "1-0", 0),
        (["a1", "h8", "a2", "i8", "a3", "j8", "a4", "k8", "o15", "l8"], "0-1", 1),
    ],
)
def test_gomoku_five_in_a_row(
    new_table: Callable[..., Table], moves: list[str], result: str, winner: int
) -> None:
    table = new_table("gomoku", options={"size": 15, "rule": "freestyle"})
    table.play(*moves)
    snapshot = table.assert_ended(result, "five_in_a_row", winner)
    assert snapshot.moves == moves


def test_perpetual_check_loses_for_the_checker(new_table: Callable[..., Table]) -> None:
    # The red rook checks from a9 and a8 in turn; the black general shuffles e9/e8.
    table = new_table("xiangqi", fen="4k4/9/9/9/9/9/9/9/9/R2K5 w - - 0 1")
    table.play(*["a0a9", "e9e8", "a9a8", "e8e9", "a8a9", "e9e8", "a9a8", "e8e9", "a8a9"])
    table.assert_ended("0-1", "perpetual_check", 1)


def test_perpetual_chase_loses_for_the_chaser(new_table: Callable[..., Table]) -> None:
    # Black to move first: its unprotected horse runs a7/b5, the red rook chases it
    # every move (h7 attacks a7, h5 attacks b5), so red loses.
    table = new_table("xiangqi", fen="5k3/9/n6R1/9/9/9/9/9/9/3K5 b - - 0 1")
    assert table.first_seat == 1
    table.play(*["a7b5", "h7h5", "b5a7", "h5h7", "a7b5", "h7h5", "b5a7", "h5h7"])
    table.assert_ended("0-1", "perpetual_chase", 1)


def test_idle_repetition_is_a_draw(new_table: Callable[..., Table]) -> None:
    table = new_table("xiangqi", fen="3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1")
    table.play(*["a0a1", "d9d8", "a1a0", "d8d9", "a0a1", "d9d8", "a1a0", "d8d9"])
    table.assert_ended("1/2-1/2", "repetition", None)


def test_move_limit_without_capture(new_table: Callable[..., Table]) -> None:
    # 117 plies without a capture already: the 120th ends the game.
    table = new_table("xiangqi", fen="3k5/9/9/9/9/9/9/9/9/R3K4 w - - 117 70")
    table.play("a0a5", "d9d8")
    assert table.sync().status != "finished"
    table.play("a5a6")
    table.assert_ended("1/2-1/2", "move_limit", None)


def test_capture_leaving_insufficient_material_is_a_draw(new_table: Callable[..., Table]) -> None:
    # The red elephant e2 takes the last black soldier (c4): only generals, advisors
    # and elephants remain.
    table = new_table("xiangqi", fen="3akab2/9/4b4/9/9/2p6/9/4B4/4A4/3AK1B2 w")
    table.play("e2c4")
    table.assert_ended("1/2-1/2", "insufficient_material", None)


@pytest.mark.parametrize(
    ("fen", "termination"),
    [
        ("1R2k4/R8/9/9/9/9/9/9/9/3K5 b", "checkmate"),
        ("3akab2/9/4b4/9/9/9/9/4B4/4A4/3AK1B2 w", "insufficient_material"),
    ],
)
def test_a_game_created_from_a_finished_position_does_not_hang(
    referee: Any, connect: Callable[..., RefereeClient], fen: str, termination: str
) -> None:
    # Either refuse to create it, or end it at once; never an unplayable live game.
    client = connect(referee)
    reply = client.request(
        CreateGame(variant="xiangqi", players=["ann", "bob"], options={"fen": fen})
    )
    if isinstance(reply, ErrorReply):
        assert reply.code == "bad_request"
        return
    assert isinstance(reply, GameCreated)
    for seat, token in enumerate(reply.tokens):
        client.join(reply.game_id, seat=seat, token=token)
    snapshot = client.sync(reply.game_id)
    assert (snapshot.status, snapshot.termination) == ("finished", termination)


# ---------------------------------------------------------------- endings by the referee


def test_resignation(new_table: Callable[..., Table]) -> None:
    table = new_table("xiangqi")
    table.play("h2e2", "h9g7")
    table.client.resign(table.game_id, table.tokens[1])
    table.assert_ended("1-0", "resignation", 0)
    refused("game_over", lambda: table.client.resign(table.game_id, table.tokens[0]))


def test_flag_falls_on_an_idle_server_and_a_late_move_is_refused(
    new_table: Callable[..., Table],
) -> None:
    table = new_table(
        "gomoku",
        time_control=TimeControl(kind="fischer", base_ms=300, increment_ms=0, first_move_ms=0),
    )
    # Nobody sends anything: the referee's own timer must end the game, when the clock
    # (not the test's stopwatch: the clock ran from the join) is at zero.
    table.assert_ended("0-1", "timeout", 1)
    snapshot = table.sync()
    assert snapshot.clock.remaining_ms[0] == 0 and snapshot.clock.running is None
    refused("timeout", lambda: table.client.move(table.game_id, table.tokens[0], 0, "h8"))
    assert table.sync().moves == []


def test_a_move_after_the_flag_is_refused_as_timeout_even_mid_game(
    new_table: Callable[..., Table],
) -> None:
    table = new_table(
        "xiangqi",
        time_control=TimeControl(kind="fischer", base_ms=400, increment_ms=0, first_move_ms=0),
    )
    table.play("h2e2")  # red's clock stops, black's runs out
    view = table.wait_finished()
    assert (view.result, view.termination, view.winner) == ("1-0", "timeout", 0)
    refused("timeout", lambda: table.client.move(table.game_id, table.tokens[1], 1, "h9g7"))
    table.assert_ended("1-0", "timeout", 0)


def test_draw_by_agreement(new_table: Callable[..., Table]) -> None:
    table = new_table("gomoku")
    table.play("h8", "h9")
    table.client.offer_draw(table.game_id, table.tokens[0])
    assert table.view.wait_for(lambda v: v.draw_offer == 0)
    refused("no_offer", lambda: table.client.accept_draw(table.game_id, table.tokens[0]))
    table.client.accept_draw(table.game_id, table.tokens[1])
    table.assert_ended("1/2-1/2", "agreement", None)


def test_crossing_draw_offers_agree(new_table: Callable[..., Table]) -> None:
    table = new_table("xiangqi")
    table.client.offer_draw(table.game_id, table.tokens[1])
    table.client.offer_draw(table.game_id, table.tokens[0])
    table.assert_ended("1/2-1/2", "agreement", None)


def test_declined_draw_offer_and_moving_on(new_table: Callable[..., Table]) -> None:
    table = new_table("xiangqi")
    table.play("h2e2")
    table.client.offer_draw(table.game_id, table.tokens[0])
    refused("not_allowed", lambda: table.client.offer_draw(table.game_id, table.tokens[0]))
    table.client.decline_draw(table.game_id, table.tokens[1])
    assert table.view.wait_for(lambda v: v.draw_offer is None and v.seq == table.sync().seq)
    refused("no_offer", lambda: table.client.accept_draw(table.game_id, table.tokens[1]))
    # An offer lapses when the opponent moves instead of answering.
    table.play("h9g7")
    table.client.offer_draw(table.game_id, table.tokens[0])
    table.play("h0g2")  # red moves: its own offer stays
    assert table.sync().draw_offer == 0
    table.play("i9h9")  # black moves: that declines it
    assert table.sync().draw_offer is None
    refused("no_offer", lambda: table.client.accept_draw(table.game_id, table.tokens[1]))
    assert table.sync().status == "active"


def test_abandoned_when_a_seat_stops_heartbeating(
    referee_factory: Callable[..., Any], new_table: Callable[..., Table]
) -> None:
    process = referee_factory("--disconnect-after", "0.3", "--abandon-after", "0.5")
    table = new_table("xiangqi", process=process)
    table.play("h2e2", "h9g7")
    client, game_id, red = table.client, table.game_id, table.tokens[0]
    saw_black_leave = []

    def red_alive_black_silent(view: GameView) -> bool:
        client.heartbeat(game_id, red)
        if view.connected[1] is False:
            saw_black_leave.append(view.seq)
        return view.finished

    # Red heartbeats every 50 ms while waiting; black says nothing.
    assert table.view.wait_for(red_alive_black_silent, 5000, idle_resync_ms=50)
    assert saw_black_leave, "black was never shown as disconnected"
    table.assert_ended("1-0", "abandoned", 0)
    assert table.view.connected == [True, False]


def test_abort_before_both_sides_moved(new_table: Callable[..., Table]) -> None:
    table = new_table("xiangqi")
    table.play("h2e2")
    table.client.abort(table.game_id, table.tokens[1])
    table.assert_ended("*", "aborted", None)


def test_abort_before_anyone_joined(new_table: Callable[..., Table]) -> None:
    table = new_table("gomoku", join=False)
    table.client.abort(table.game_id, table.tokens[0])
    table.assert_ended("*", "aborted", None)


def test_abort_is_refused_in_a_rated_game(new_table: Callable[..., Table]) -> None:
    table = new_table("xiangqi", casual=False)
    refused("not_allowed", lambda: table.client.abort(table.game_id, table.tokens[0]))
    assert table.sync().status == "active"


def test_abort_is_refused_once_both_sides_moved(new_table: Callable[..., Table]) -> None:
    table = new_table("gomoku")
    table.play("h8", "h9")
    refused("not_allowed", lambda: table.client.abort(table.game_id, table.tokens[0]))
    refused("not_allowed", lambda: table.client.abort(table.game_id, table.tokens[1]))
    assert table.sync().status == "active"


# ---------------------------------------------------------------- takebacks


def test_takeback_accepted_and_declined_in_a_casual_game(new_table: Callable[..., Table]) -> None:
    table = new_table("xiangqi", casual=True)
    client, game_id, (red, black) = table.client, table.game_id, table.tokens
    refused("not_allowed", lambda: client.request_takeback(game_id, red))  # nothing to take
    table.play("h2e2", "h9g7")
    first_seq = table.sync().seq

    client.request_takeback(game_id, red)  # red's last move: both plies go
    refused("not_allowed", lambda: client.request_takeback(game_id, red))
    refused("no_offer", lambda: client.accept_takeback(game_id, red))
    assert table.view.wait_for(lambda v: v.takeback_offer == 0)
    client.accept_takeback(game_id, black)
    assert table.view.wait_for(lambda v: v.ply == 0 and v.takeback_offer is None)
    snapshot = table.sync()
    assert snapshot.moves == [] and snapshot.ply == 0
    assert snapshot.fen == table.view.fen and table.view.moves == []

    # Play on from the start: a new ply 0, with a new seq.
    table.ply = 0
    (accepted,) = table.play("b2e2")
    assert accepted.seq > first_seq
    client.request_takeback(game_id, red)  # one ply: red moved last
    client.decline_takeback(game_id, black)
    refused("no_offer", lambda: client.decline_takeback(game_id, black))
    assert table.view.wait_for(lambda v: v.seq == table.sync().seq)
    assert table.view.moves == ["b2e2"] and table.sync().takeback_offer is None

    client.request_takeback(game_id, red)
    client.accept_takeback(game_id, black)
    assert table.view.wait_for(lambda v: v.moves == [] and v.seq == table.sync().seq)
    assert table.sync().moves == []


def test_takeback_refused_in_a_rated_game(new_table: Callable[..., Table]) -> None:
    table = new_table("gomoku", casual=False)
    table.play("h8", "h9")
    refused("not_allowed", lambda: table.client.request_takeback(table.game_id, table.tokens[0]))
    refused("no_offer", lambda: table.client.accept_takeback(table.game_id, table.tokens[1]))
    assert table.sync().moves == ["h8", "h9"]


# ---------------------------------------------------------------- retries and refusals


def test_a_retried_move_gets_the_same_answer_and_is_applied_once(
    new_table: Callable[..., Table],
) -> None:
    table = new_table("xiangqi")
    client, game_id, red = table.client, table.game_id, table.tokens[0]
    first = client.move(game_id, red, 0, "h2e2")
    again = client.move(game_id, red, 0, "h2e2")
    in_wxf = client.move(game_id, red, 0, "C2=5")  # the same move in another notation
    for retry in (again, in_wxf):
        assert isinstance(retry, MoveAccepted)
        assert (retry.game_id, retry.ply, retry.move, retry.seq) == (
            first.game_id,
            first.ply,
            first.move,
            first.seq,
        )
    snapshot = table.sync()
    assert snapshot.moves == ["h2e2"] and snapshot.seq == first.seq
    # After the opponent's reply the retry still gets the same answer.
    table.ply = 1
    table.play("h9g7")
    assert client.move(game_id, red, 0, "h2e2").seq == first.seq
    assert table.sync().moves == ["h2e2", "h9g7"]


def test_move_refusals_carry_stable_codes(new_table: Callable[..., Table]) -> None:
    table = new_table("xiangqi")
    client, game_id, (red, black) = table.client, table.game_id, table.tokens

    def move(token: str, ply: int, text: str, game: str = game_id) -> Callable[[], object]:
        return lambda: client.move(game, token, ply, text)

    refused("not_your_turn", move(black, 0, "h9g7"))
    refused("bad_token", move("not-a-token", 0, "h2e2"))
    refused("bad_token", move(table.tokens[0][::-1], 0, "h2e2"))
    refused("unknown_game", move(red, 0, "h2e2", game="no-such-game"))
    refused("illegal_move", move(red, 0, "a0a5"))  # the rook cannot jump its soldier
    refused("illegal_move", move(red, 0, "a5a4"))  # no piece there
    refused("bad_move", move(red, 0, "hello"))
    refused("bad_move", move(red, 0, "z9z9"))
    refused("stale_move", move(red, 3, "h2e2"))  # a ply ahead of the game
    assert table.sync().moves == []
    table.play("h2e2")
    refused("stale_move", move(red, 0, "b2e2"))  # ply 0 was another move
    refused("stale_move", move(black, 0, "h9g7"))  # ply 0 was not black's
    refused("not_your_turn", move(red, 1, "b2e2"))
    assert table.sync().moves == ["h2e2"]


def test_only_the_whole_seat_token_acts(new_table: Callable[..., Table]) -> None:
    """An empty token, a prefix, an extension or a one-letter change of a seat token is refused."""
    table = new_table("xiangqi")
    client, game_id, red = table.client, table.game_id, table.tokens[0]
    before = table.sync()
    forged = ["", red[:1], red[:-1], red + "x", red[:-1] + ("A" if red[-1] != "A" else "B")]
    for token in forged:
        refused("bad_token", functools.partial(client.move, game_id, token, 0, "h2e2"))
        refused("bad_token", functools.partial(client.resign, game_id, token))
        refused("bad_token", functools.partial(client.offer_draw, game_id, token))
        refused("bad_token", functools.partial(client.join, game_id, seat=0, token=token))
    after = table.sync()
    assert (after.moves, after.status, after.seq) == (before.moves, before.status, before.seq)
    table.play("h2e2")  # the real token still acts


def test_refusals_before_the_game_starts(new_table: Callable[..., Table]) -> None:
    table = new_table("gomoku", join=False)
    client, game_id, (black, white) = table.client, table.game_id, table.tokens
    refused("bad_token", lambda: client.join(game_id, seat=1, token=black))
    client.join(game_id, seat=0, token=black)
    refused("not_started", lambda: client.move(game_id, black, 0, "h8"))
    refused("not_started", lambda: client.offer_draw(game_id, black))
    client.join(game_id, seat=1, token=white)
    assert table.sync().status == "active"
    table.play("h8")
    assert client.join(game_id, seat=0, token=black).your_seat == 0  # rejoining is fine
    assert client.join(game_id).your_seat is None  # a spectator


def test_error_replies_answer_their_own_request_id(new_table: Callable[..., Table]) -> None:
    table = new_table("gomoku")
    request = MoveRequest(game_id=table.game_id, token=table.tokens[1], ply=0, move="h8")
    request_id = table.client.send(request)
    reply = table.client.receive(request_id)
    assert isinstance(reply, ErrorReply)
    assert (reply.re, reply.code) == (request_id, "not_your_turn")


# ---------------------------------------------------------------- spectators


def test_late_spectator_converges(
    new_table: Callable[..., Table],
    referee: Any,
    connect: Callable[..., RefereeClient],
) -> None:
    table = new_table("xiangqi")
    opening = ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7", "b0c2", "b7b3"]
    table.play(*opening[:6])
    late = GameView(connect(referee), table.game_id)
    assert late.moves == opening[:6]
    table.play(*opening[6:])
    snapshot = table.sync()
    for view in (late, table.view):
        assert view.wait_for(lambda v: v.seq == snapshot.seq)
        assert (view.moves, view.fen, view.ply) == (opening, snapshot.fen, 8)


def test_spectator_cut_off_for_a_while_converges(
    new_table: Callable[..., Table],
    referee: Any,
    connect: Callable[..., RefereeClient],
) -> None:
    table = new_table("gomoku")
    spectator = connect(referee)
    view = GameView(spectator, table.game_id)
    table.play("h8", "h9")
    assert view.wait_for(lambda v: v.ply == 2)
    resyncs = view.resyncs

    spectator.sub.disconnect(spectator.pub_endpoint)  # the network goes away...
    table.play("i8", "i9", "j8")
    spectator.sub.connect(spectator.pub_endpoint)  # ...and comes back
    # Events from the gap are gone; the first one after it shows the gap.
    table.play("j9", "k8", "k9")
    snapshot = table.sync()
    for each in (view, table.view):
        assert each.wait_for(lambda v: v.seq == snapshot.seq)
    assert view.resyncs > resyncs
    assert view.moves == snapshot.moves == table.view.moves
    assert view.fen == snapshot.fen
    table.play("l8")
    table.assert_ended("1-0", "five_in_a_row", 0)
    assert view.wait_for(lambda v: v.finished)
    assert (view.result, view.termination) == ("1-0", "five_in_a_row")
    assert view.moves == [*snapshot.moves, "l8"]


# ---------------------------------------------------------------- chat


def test_players_and_spectators_chat_in_their_rooms(
    new_table: Callable[..., Table], referee: Any, connect: Callable[..., RefereeClient]
) -> None:
    table = new_table("xiangqi", players=("ann", "bob"))
    spectator = connect(referee)
    table.client.chat(table.game_id, "good luck", token=table.tokens[1])
    spectator.chat(table.game_id, "  hello all  ", name="kibitzer")
    spectator.chat(table.game_id, "anyone?")
    assert table.view.wait_for(lambda v: len(v.chat) == 3)
    said = [(c.room, c.name, c.text, c.seat) for c in table.view.chat]
    assert said == [
        ("players", "bob", "good luck", 1),
        ("spectators", "kibitzer", "hello all", None),
        ("spectators", "spectator", "anyone?", None),
    ]
    assert all(isinstance(c, ChatLine) for c in table.view.chat)
    # A late spectator gets the conversation with its snapshot.
    late = GameView(connect(referee), table.game_id)
    assert late.chat == table.view.chat
    assert [line.seq for line in table.sync().chat] == [c.seq for c in table.view.chat]


def test_snapshots_carry_the_latest_chat_lines(
    new_table: Callable[..., Table], referee: Any, connect: Callable[..., RefereeClient]
) -> None:
    table = new_table("gomoku")
    speakers = [connect(referee) for _ in range(MAX_CHAT_HISTORY // 5 + 2)]
    for n in range(MAX_CHAT_HISTORY + 7):  # five lines per speaker, under the rate limit
        speakers[n // 5].chat(table.game_id, f"line {n}", name=f"s{n // 5}")
    snapshot = table.sync()
    assert [line.text for line in snapshot.chat] == [
        f"line {n}" for n in range(7, MAX_CHAT_HISTORY + 7)
    ]
    assert [line.seq for line in snapshot.chat] == sorted(line.seq for line in snapshot.chat)
    assert snapshot.chat[-1].seq == snapshot.seq


def test_a_view_that_missed_chat_catches_up_on_resync(
    new_table: Callable[..., Table], referee: Any, connect: Callable[..., RefereeClient]
) -> None:
    table = new_table("gomoku")
    spectator = connect(referee)
    view = GameView(spectator, table.game_id)
    table.client.chat(table.game_id, "first", token=table.tokens[0])
    assert view.wait_for(lambda v: len(v.chat) == 1)
    spectator.sub.disconnect(spectator.pub_endpoint)  # misses the next line and a move
    table.client.chat(table.game_id, "second", token=table.tokens[1])
    table.play("h8")
    spectator.sub.connect(spectator.pub_endpoint)
    table.play("h9")  # shows the gap: the view re-syncs
    assert view.wait_for(lambda v: v.ply == 2)
    assert [c.text for c in view.chat] == ["first", "second"]


def test_chat_refusals(new_table: Callable[..., Table]) -> None:
    table = new_table("gomoku")
    client, game_id, token = table.client, table.game_id, table.tokens[0]
    refused("bad_message", lambda: client.chat(game_id, "x" * (MAX_CHAT_LEN + 1), token=token))
    refused("bad_request", lambda: client.chat(game_id, "   ", token=token))
    refused("bad_token", lambda: client.chat(game_id, "hi", token="wrong"))
    refused("unknown_game", lambda: client.chat("nope", "hi"))
    client.chat(game_id, "y" * MAX_CHAT_LEN, token=token)  # exactly at the limit


def test_chat_rate_limit(
    new_table: Callable[..., Table], referee: Any, connect: Callable[..., RefereeClient]
) -> None:
    table = new_table("gomoku")
    client, game_id, token = table.client, table.game_id, table.tokens[0]
    for i in range(5):
        client.chat(game_id, f"message {i}", token=token)
    refused("rate_limited", lambda: client.chat(game_id, "one too many", token=token))
    # The limit is per sender: the other seat and a spectator may still speak.
    client.chat(game_id, "my turn", token=table.tokens[1])
    spectator = connect(referee)
    for i in range(5):
        spectator.chat(game_id, f"spectator {i}")
    refused("rate_limited", lambda: spectator.chat(game_id, "spam"))
    snapshot = table.sync()
    assert table.view.wait_for(lambda v: v.seq == snapshot.seq)
    assert len(table.view.chat) == 11


def test_presence_comes_back_when_a_silent_seat_speaks(
    referee_factory: Callable[..., Any], new_table: Callable[..., Table]
) -> None:
    process = referee_factory("--disconnect-after", "0.2", "--abandon-after", "30")
    table = new_table("gomoku", process=process)
    assert table.view.wait_for(lambda v: v.connected == [False, False], 3000)
    table.client.heartbeat(table.game_id, table.tokens[1])
    assert table.view.wait_for(lambda v: v.connected[1] is True, 3000)


# ---------------------------------------------------------------- the client's view


def test_a_subscription_made_before_a_sync_sees_the_next_event(
    new_table: Callable[..., Table], referee: Any, connect: Callable[..., RefereeClient]
) -> None:
    # Subscribe, sync, then cause one event: it must come through the subscription
    # (the referee applies new subscriptions before it publishes), every time.
    table = new_table("gomoku")
    for attempt in range(25):
        spectator = connect(referee)
        view = GameView(spectator, table.game_id)
        spectator.chat(table.game_id, f"hello {attempt}")
        assert view.poll(2000), f"attempt {attempt}: the event never came"
        assert (view.received, view.resyncs) == (1, 0), attempt
        assert view.chat[-1].text == f"hello {attempt}"
        spectator.close()


def test_game_view_ignores_old_events_and_resyncs_on_a_gap(
    new_table: Callable[..., Table], referee: Any, connect: Callable[..., RefereeClient]
) -> None:
    table = new_table("xiangqi")
    table.play("h2e2", "h9g7")
    view = GameView(connect(referee), table.game_id)
    seq, resyncs = view.seq, view.resyncs
    old = MoveMade(
        game_id=table.game_id, seq=seq, ply=1, seat=1, move="b9c7", text="x", fen="bogus"
    )
    assert not view.apply(old)  # already known: ignored, even if it disagrees
    assert (view.seq, view.moves, view.resyncs) == (seq, ["h2e2", "h9g7"], resyncs)
    assert not view.apply(dataclasses.replace(old, game_id="another-game", seq=seq + 1))
    table.play("h0g2", "i9h9")  # two events the view has not applied
    gap = MoveMade(
        game_id=table.game_id, seq=seq + 2, ply=3, seat=1, move="i9h9", text="x", fen="bogus"
    )
    assert view.apply(gap)  # seq + 2 after seq: a gap, so a snapshot instead
    assert view.resyncs == resyncs + 1
    snapshot = table.sync()
    assert (view.seq, view.moves, view.fen) == (snapshot.seq, snapshot.moves, snapshot.fen)
    # An event that does not fit the view's ply is not trusted either.
    wrong_ply = dataclasses.replace(gap, seq=view.seq + 1, ply=9)
    assert view.apply(wrong_ply)
    assert view.resyncs == resyncs + 2 and view.moves == snapshot.moves
