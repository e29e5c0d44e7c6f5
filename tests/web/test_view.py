"""The board view the pages draw from: legal moves, markers and notations come from
the rules core, not from the page."""

from __future__ import annotations

from tests.web.test_play_e2e import XIANGQI_MATE

from lanqi.games.registry import create_game
from lanqi.gamestate import GameState
from lanqi.web.view import board_view, position_view


def state_of(variant: str, moves: list[str], **options: object) -> GameState:
    game = create_game(variant, **options)
    start = game.fen()
    for move in moves:
        game.push_text(move)
    return GameState.new("g1", variant, dict(options), None, ("ann", "bob"), fen=start)._replace(
        fen=game.fen(), moves=tuple(moves), to_move=game.seat_to_move, status="active"
    )


def test_xiangqi_targets_check_and_every_notation() -> None:
    view = board_view(state_of("xiangqi", ["h2e2"]))
    first = {"move": "h2e2", "chinese": "炮二平五", "wxf": "C2=5", "iccs": "h2e2"}
    assert view["moves"][0] == first
    assert view["last"] == ["h2", "e2"] and ["e2", "C", 0] in view["pieces"]
    assert len(view["legal"]) == 45 and "h9g7" in view["legal"]  # Black's replies
    mated = board_view(state_of("xiangqi", XIANGQI_MATE))
    assert mated["markers"]["check"] and mated["legal"] == []


def test_renju_forbidden_points_are_marked_for_black() -> None:
    # Black to move with two open threes meeting at h8: a double three, forbidden in renju
    moves = ["f8", "a1", "g8", "a3", "h6", "a5", "h7", "a7"]
    view = board_view(state_of("gomoku", moves, size=15, rule="renju"))
    assert "h8" in view["markers"].get("forbidden", [])
    assert "h8" not in view["legal"]
    free = board_view(state_of("gomoku", moves, size=15, rule="freestyle"))
    assert "h8" in free["legal"] and not free["markers"].get("forbidden")


def test_a_finished_game_offers_no_targets_and_review_steps_back() -> None:
    state = state_of("gomoku", ["h8", "h9"], size=15)._replace(status="finished", result="*")
    assert board_view(state)["legal"] == []
    start = position_view(state, 0)
    assert (start["ply"], start["pieces"], start["last"]) == (0, [], [])
    one = position_view(state, 1)
    assert one["pieces"] == [["h8", "stone", 0]] and one["last"] == ["h8"]
