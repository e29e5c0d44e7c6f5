"""An illegal move names the broken rule with a stable code, so a frontend can say
it in the player's language (issue 19) instead of showing the English message."""

from __future__ import annotations

import pytest

from lanqi.games.base import IllegalMoveError
from lanqi.games.gomoku import Board as GomokuBoard
from lanqi.games.xiangqi import Board as XiangqiBoard


@pytest.mark.parametrize(
    ("text", "code", "detail"),
    [
        ("h0h5", "piece_cannot_move", {"piece": "horse"}),  # a horse moves like a horse
        ("e5e6", "no_piece", {"square": "e5"}),
        ("h7h3", "not_your_turn", {"side": "Red"}),
    ],
)
def test_xiangqi_codes(text: str, code: str, detail: dict[str, str]) -> None:
    with pytest.raises(IllegalMoveError) as caught:
        XiangqiBoard().parse_move(text)
    assert (caught.value.code, caught.value.detail) == (code, detail)
    assert "illegal move" in str(caught.value)  # the message for logs stays


def test_xiangqi_self_check_and_wxf_keep_the_code() -> None:
    board = XiangqiBoard("4k4/9/9/9/9/9/P8/9/4r4/3K5 w - - 0 1")
    with pytest.raises(IllegalMoveError) as caught:
        board.parse_move("d0e0")  # into the rook's line
    assert caught.value.code == "self_check"
    with pytest.raises(IllegalMoveError) as caught:
        XiangqiBoard().parse_move("H2+4")  # WXF: the horse cannot go there
    assert caught.value.code == "piece_cannot_move"


def test_gomoku_codes() -> None:
    board = GomokuBoard()
    board.push(board.parse_move("h8"))
    with pytest.raises(IllegalMoveError) as caught:
        board.parse_move("h8")
    assert (caught.value.code, caught.value.detail) == ("occupied", {"point": "h8"})
    renju = GomokuBoard.from_options({"rule": "renju"})
    for text in ("f8", "a1", "g8", "a3", "h6", "a5", "h7", "a7"):  # Black: two open twos
        renju.push(renju.parse_move(text))
    with pytest.raises(IllegalMoveError) as caught:
        renju.parse_move("h8")  # two open threes at once
    assert caught.value.code == "forbidden"
    assert caught.value.detail == {"point": "h8", "why": "double-three"}
