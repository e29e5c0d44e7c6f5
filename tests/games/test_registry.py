"""The one interface: every registered game, created by name, behaves the same way."""

from __future__ import annotations

import pytest

from lanqi.games.base import Game, IllegalMoveError, InvalidMoveError, Token
from lanqi.games.registry import (
    VARIANTS,
    UnknownVariantError,
    create_game,
    restore_game,
    variant_spec,
)


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


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_copy_push_text_and_legal_moves_have_one_shape(variant: str) -> None:
    game = create_game(variant)
    legal = game.legal_moves()
    assert isinstance(legal, list) and legal == game.legal_moves()
    move = game.push_text(str(sorted(legal, key=str)[0]))
    assert str(move) == game.snapshot()["moves"][-1]
    twin = game.copy()
    assert twin.fen() == game.fen() and twin.snapshot() == game.snapshot()
    twin.push(twin.legal_moves()[0])
    assert twin.ply == game.ply + 1 and game.ply == 1  # the copy is independent


def test_position_describes_a_xiangqi_board_for_drawing() -> None:
    game = create_game("xiangqi")
    start = game.position()
    assert (start.files, start.ranks, start.to_move) == (9, 10, 0)
    assert start.file_names == tuple("abcdefghi") and start.rank_names[0] == "0"
    assert len(start.cells) == 32 and start.last_move == () and start.markers == {}
    assert start.cells[(4, 0)] == Token(0, "K") and start.cells[(4, 9)] == Token(1, "K")
    assert start.cells[(1, 2)] == Token(0, "C") and start.cells[(0, 6)] == Token(1, "P")
    game = create_game("xiangqi", fen="3k5/9/9/9/9/9/9/9/9/R3K4 w")
    game.push_text("a0d0")
    check = game.position()
    assert check.last_move == ((0, 0), (3, 0)) and check.markers == {"check": ((3, 9),)}
    assert check.to_move is None  # mate: the flying general guards e9


def test_position_describes_a_gomoku_board_for_drawing() -> None:
    game = create_game("gomoku", size=15)
    for text in ("h8", "a1", "i8", "a2", "j8", "a3", "k8", "a4", "l8"):
        game.push_text(text)
    drawn = game.position()
    assert (drawn.files, drawn.ranks, drawn.to_move) == (15, 15, None)
    assert drawn.file_names[-1] == "o" and drawn.rank_names[-1] == "15"
    assert drawn.cells[(7, 7)] == Token(0, "stone") and drawn.cells[(0, 0)] == Token(1, "stone")
    assert len(drawn.cells) == 9 and drawn.last_move == ((11, 7),)
    assert drawn.markers == {"line": tuple((x, 7) for x in range(7, 12))}
    renju = create_game(
        "gomoku", rule="renju", fen="15/15/15/15/15/15/15/5x1x7/6x8/6x8/o14/o14/o14/o14/15 b"
    )
    assert (6, 7) in renju.position().markers["forbidden"]  # a double three for Black


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_variant_writes_its_record_through_the_registry(variant: str) -> None:
    spec = variant_spec(variant)
    game = create_game(variant)
    game.push(sorted(game.legal_moves(), key=str)[0])
    players = dict(zip(spec.seat_names, ("ann", "bob"), strict=True))
    text = spec.write_record(game, {"Event": "t", **players}, "resignation")
    for name in spec.seat_names:
        assert f'[{name} "' in text
    assert "ann" in text and "bob" in text
    assert spec.ply_label(1)
