"""Xiangqi as the registry knows it (:class:`~lanqi.games.base.VariantSpec`).

>>> VARIANT.seat_names, VARIANT.ply_label(3)
(('Red', 'Black'), 'move 2')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from lanqi.games.base import Notation, RecordGames, VariantSpec
from lanqi.games.xiangqi.core import Board
from lanqi.games.xiangqi.notation import move_to
from lanqi.games.xiangqi.openings import read_openings
from lanqi.games.xiangqi.pgn import read_pgns, write_pgn

__all__ = ["VARIANT"]


def _write_pgn(board: Board, headers: Mapping[str, str], termination: str | None) -> str:
    return _write_annotated(board, headers, termination, None, ())


def _write_annotated(
    board: Board,
    headers: Mapping[str, str],
    termination: str | None,
    notation: str | None,
    comments: Sequence[str | None],
) -> str:
    tags = dict(headers)
    if termination is not None:
        tags["Termination"] = termination
    return write_pgn(board, tags, notation=notation or RECORD_NOTATION, comments=comments)


def _read(text: str) -> RecordGames:
    return [(dict(game.headers), game.board, game.result) for game in read_pgns(text)]


#: the notation of a record unless asked otherwise
RECORD_NOTATION = "wxf"


VARIANT = VariantSpec(
    name="xiangqi",
    board=Board,
    create=Board.from_options,
    seat_names=("Red", "Black"),
    record_suffix="pgn",
    write=_write_pgn,
    write_annotated=_write_annotated,
    notations={
        "chinese": Notation(
            "Chinese", lambda board, move: move_to(board, move, "chinese"), label="中文"
        ),
        "wxf": Notation("WXF", lambda board, move: move_to(board, move, "wxf")),
        "iccs": Notation("ICCS", lambda board, move: str(move), for_people=False),
    },
    record_notation=RECORD_NOTATION,
    read=_read,
    record_game="Chinese Chess",
    chinese_name="象棋",
    ai="lanqi.bot.xiangqi_ai:builtin_ai",
    ai_levels=8,
    ply_label=lambda ply: f"move {(ply + 1) // 2}",
    termination_notes={"stalemate": "stalemate (in xiangqi the side that cannot move loses)"},
    engine_notation="iccs",
    read_openings=read_openings,
)
