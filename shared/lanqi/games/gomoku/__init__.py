"""Gomoku (five in a row): rules, position strings, records and renju forbidden points.

>>> from lanqi.games import gomoku
>>> board = gomoku.Board(size=15, rule="freestyle")
>>> board.push(board.parse_move("h8"))
>>> board.turn
<Color.WHITE: 1>

See ``docs/gomoku.md`` for the rules, coordinates, position strings and records.
"""

from lanqi.games.gomoku.board import COLUMNS, RULES, SIZES, Board, Color, Move, Rule
from lanqi.games.gomoku.record import RecordError, read_record, read_records, write_record
from lanqi.games.gomoku.renju import Forbidden
from lanqi.games.gomoku.variant import VARIANT

__all__ = [
    "COLUMNS",
    "RULES",
    "SIZES",
    "VARIANT",
    "Board",
    "Color",
    "Forbidden",
    "Move",
    "RecordError",
    "Rule",
    "read_record",
    "read_records",
    "write_record",
]
