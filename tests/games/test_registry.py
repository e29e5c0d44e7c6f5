"""The one interface: every registered game, created by name, behaves the same way."""

from __future__ import annotations

import pytest

from lanqi.games.base import Game, IllegalMoveError, InvalidMoveError
from lanqi.games.registry import VARIANTS, UnknownVariantError, create_game, restore_game


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_variant_satisfies_the_game_protocol(variant: str) -> None:
    game = create_game(variant)
    assert isinstance(game, Game)
    assert game.variant == variant
    assert game.ply == 0 and game.seat_to_move == 0
    assert game.outcome() is None


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_snapshot_and_restore_replays_the_game(variant: str) -> None:
    game = create_game(variant)
    for _ in range(6):
        move = sorted(game.legal_moves(), key=str)[0]
        game.push(game.parse_move(game.move_text(move)))
    snapshot = game.snapshot()
    again = restore_game(snapshot)
    assert again.fen() == game.fen()
    assert again.ply == 6
    assert again.snapshot() == snapshot
    popped = again.pop()
    assert str(popped) == snapshot["moves"][-1]


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_parse_errors_are_distinct(variant: str) -> None:
    game = create_game(variant)
    with pytest.raises(InvalidMoveError):
        game.parse_move("not a move at all")
    first = next(iter(game.legal_moves()))
    game.push(first)
    with pytest.raises(IllegalMoveError):
        game.parse_move(str(first))  # the same move again: the point is taken / no piece there


def test_options_pass_through_and_are_checked() -> None:
    xq = create_game("xiangqi", repetition="draw", move_limit=60)
    assert xq.options["repetition"] == "draw" and xq.options["move_limit"] == 60
    gm = create_game("gomoku", size=19, rule="standard")
    assert gm.options == {"size": 19, "rule": "standard"}
    with pytest.raises(UnknownVariantError, match="known: gomoku, xiangqi"):
        create_game("chess")
    with pytest.raises(UnknownVariantError, match="bad options"):
        create_game("gomoku", size=7)
    with pytest.raises(UnknownVariantError, match="bad options"):
        create_game("xiangqi", speed="fast")


def test_restore_from_a_custom_start_and_tampered_snapshot() -> None:
    fen = "3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1"
    game = create_game("xiangqi", fen=fen)
    game.push(game.parse_move("a0a5"))
    again = restore_game(game.snapshot())
    assert again.fen() == game.fen()
    tampered = {**game.snapshot(), "moves": ["a0a5", "a5a4"]}  # Red moving twice
    with pytest.raises(IllegalMoveError):
        restore_game(tampered)
