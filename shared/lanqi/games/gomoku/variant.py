"""Gomoku as the registry knows it (:class:`~lanqi.games.base.VariantSpec`).

The record format has no termination tag: the moves and the result say it.

>>> VARIANT.seat_names, VARIANT.ply_label(3)
(('Black', 'White'), 'stone 3')
"""

from lanqi.games.base import RecordGames, VariantSpec
from lanqi.games.gomoku.board import Board
from lanqi.games.gomoku.openings import read_openings, write_psq
from lanqi.games.gomoku.record import read_records, write_record

__all__ = ["VARIANT"]


def _read(text: str) -> RecordGames:
    return [(headers, board, headers.get("Result", "*")) for headers, board in read_records(text)]


VARIANT = VariantSpec(
    name="gomoku",
    board=Board,
    create=Board.from_options,
    seat_names=("Black", "White"),
    record_suffix="txt",
    write=lambda board, headers, _termination: write_record(board, headers),
    ply_label=lambda ply: f"stone {ply}",
    option_names=("size", "rule"),
    write_annotated=lambda board, headers, _termination, _notation, notes: write_record(
        board, headers, comments=notes
    ),
    read_openings=read_openings,
    extra_records={"psq": write_psq},
    read=_read,
    record_game="Gomoku",
    chinese_name="五子棋",
    option_choices={"size": (15, 19, 20), "rule": ("freestyle", "standard", "renju")},
    ai="lanqi.bot.gomoku_ai:builtin_ai",
    ai_levels=5,
)
