"""Static evaluation for the xiangqi AI: material plus piece-square tables.

The search keeps the evaluation incrementally: every piece is worth
``tables[piece_code][square]`` to its owner (material and placement in one
number), so a move changes the score by a few table look-ups.  The tables are
built once per search from the root position (:func:`build_tables`), which lets
them follow the game phase: cannons lose and horses gain value as the board
empties, advisors and elephants are worth more while the enemy still has
attackers, soldiers near the palace matter more in the endgame.

>>> from lanqi.games.xiangqi import Board
>>> board = Board()
>>> tables = build_tables(board.board_fen())
>>> evaluate(tables, board.board_fen(), 0)
0
>>> tables[ROOK][0] < tables[ROOK][13]  # a corner rook is worse than a rib-file rook
True
"""

from __future__ import annotations

from lanqi.games.xiangqi.core import (
    ADVISOR,
    CANNON,
    ELEPHANT,
    HORSE,
    KING,
    PAWN,
    ROOK,
    Piece,
)

__all__ = [
    "MATERIAL",
    "Tables",
    "attack_units",
    "build_tables",
    "evaluate",
    "game_phase",
    "squares_from_fen",
]

#: (middle game, endgame) material, in centipawns.  Soldiers get their crossing
#: bonus from the table.
MATERIAL: dict[int, tuple[int, int]] = {
    KING: (0, 0),
    ADVISOR: (200, 190),
    ELEPHANT: (200, 190),
    HORSE: (410, 450),
    ROOK: (950, 1000),
    CANNON: (460, 420),
    PAWN: (100, 110),
}

# Placement bonuses for Red, written as the board is seen: rank 9 (Black's back
# rank) on the first line, rank 0 (Red's back rank) on the last, files a..i.
# Black uses the same tables mirrored top to bottom.

_ROOK = (
    (10, 15, 10, 25, 25, 25, 10, 15, 10),  # 9
    (15, 25, 20, 35, 45, 35, 20, 25, 15),  # 8
    (10, 15, 10, 25, 30, 25, 10, 15, 10),  # 7
    (10, 25, 25, 30, 30, 30, 25, 25, 10),  # 6
    (15, 25, 25, 30, 30, 30, 25, 25, 15),  # 5 river: open lines both ways
    (15, 25, 25, 30, 30, 30, 25, 25, 15),  # 4
    (5, 15, 5, 25, 25, 25, 5, 15, 5),  # 3
    (-5, 15, 10, 25, 25, 25, 10, 15, -5),  # 2
    (0, 15, 10, 25, 0, 25, 10, 15, 0),  # 1
    (-15, 10, 5, 20, 0, 20, 5, 10, -15),  # 0 an undeveloped corner rook
)

_HORSE = (
    (0, -5, 10, 10, 5, 10, 10, -5, 0),  # 9
    (5, 20, 40, 25, 10, 25, 40, 20, 5),  # 8 "crouching" squares c8/g8
    (10, 25, 30, 45, 25, 45, 30, 25, 10),  # 7 "hanging horn" squares d7/f7
    (10, 30, 35, 40, 40, 40, 35, 30, 10),  # 6
    (5, 25, 25, 35, 35, 35, 25, 25, 5),  # 5
    (5, 15, 20, 25, 25, 25, 20, 15, 5),  # 4
    (0, 10, 15, 15, 15, 15, 15, 10, 0),  # 3
    (0, 5, 15, 10, 5, 10, 15, 5, 0),  # 2 c2/g2: the natural development
    (-10, 0, 5, 0, -20, 0, 5, 0, -10),  # 1 a horse on e1 blocks the palace
    (-20, -10, -5, -10, -15, -10, -5, -10, -20),  # 0
)

_CANNON = (
    (20, 15, 5, -10, -15, -10, 5, 15, 20),  # 9 "bottom cannon" from the corner
    (10, 10, 5, -5, -10, -5, 5, 10, 10),  # 8
    (5, 5, 0, -5, 5, -5, 0, 5, 5),  # 7
    (0, 5, 5, 5, 20, 5, 5, 5, 0),  # 6
    (0, 0, 5, 5, 20, 5, 5, 0, 0),  # 5
    (-5, 0, 5, 0, 20, 0, 5, 0, -5),  # 4
    (0, 0, 0, 0, 15, 0, 0, 0, 0),  # 3
    (5, 5, 10, 10, 25, 10, 10, 5, 5),  # 2 the central cannon
    (0, 5, 5, 0, 10, 0, 5, 5, 0),  # 1
    (0, 0, 5, 10, 10, 10, 5, 0, 0),  # 0
)

_PAWN = (
    (0, 5, 10, 20, 25, 20, 10, 5, 0),  # 9 an old soldier on the last rank
    (40, 70, 100, 120, 130, 120, 100, 70, 40),  # 8 next to the palace
    (40, 70, 90, 110, 120, 110, 90, 70, 40),  # 7
    (40, 60, 80, 90, 90, 90, 80, 60, 40),  # 6
    (30, 45, 55, 70, 70, 70, 55, 45, 30),  # 5 just across the river
    (0, 0, 10, 0, 20, 0, 10, 0, 0),  # 4
    (0, 0, 0, 0, 10, 0, 0, 0, 0),  # 3
    (0, 0, 0, 0, 0, 0, 0, 0, 0),  # 2
    (0, 0, 0, 0, 0, 0, 0, 0, 0),  # 1
    (0, 0, 0, 0, 0, 0, 0, 0, 0),  # 0
)

_ADVISOR = (
    *((0,) * 9 for _ in range(7)),
    (0, 0, 0, -5, 0, -5, 0, 0, 0),  # 2
    (0, 0, 0, 0, 10, 0, 0, 0, 0),  # 1
    (0, 0, 0, 0, 0, 0, 0, 0, 0),  # 0
)

_ELEPHANT = (
    *((0,) * 9 for _ in range(5)),
    (0, 0, 0, 0, 0, 0, 0, 0, 0),  # 4
    (0, 0, 0, 0, 0, 0, 0, 0, 0),  # 3
    (-5, 0, 0, 0, 10, 0, 0, 0, -5),  # 2
    (0, 0, 0, 0, 0, 0, 0, 0, 0),  # 1
    (0, 0, 5, 0, 0, 0, 5, 0, 0),  # 0
)

_KING = (
    *((0,) * 9 for _ in range(7)),
    (0, 0, 0, -30, -30, -30, 0, 0, 0),  # 2
    (0, 0, 0, -20, -15, -20, 0, 0, 0),  # 1
    (0, 0, 0, -10, 0, -10, 0, 0, 0),  # 0
)

_PLACEMENT = {
    KING: _KING,
    ADVISOR: _ADVISOR,
    ELEPHANT: _ELEPHANT,
    HORSE: _HORSE,
    ROOK: _ROOK,
    CANNON: _CANNON,
    PAWN: _PAWN,
}

#: piece code -> value per square for its owner, for all 16 codes (0 and the
#: unused codes are all zeros, so a "capture" of an empty square adds nothing).
Tables = list[list[int]]


def squares_from_fen(board_fen: str) -> list[int]:
    """The 90-entry mailbox (piece codes) of the board part of a FEN."""
    squares = [0] * 90
    for row_index, row in enumerate(board_fen.split(maxsplit=1)[0].split("/")):
        rank = 9 - row_index
        file = 0
        for char in row:
            if char.isdigit():
                file += int(char)
            else:
                squares[rank * 9 + file] = Piece.from_symbol(char).code
                file += 1
    return squares


def attack_units(squares: list[int], color: int) -> int:
    """How much attacking force ``color`` has: rook 2, horse and cannon 1, crossed soldier 1/2.

    Returned doubled (rook 4, horse/cannon 2, crossed soldier 1) to stay integral.
    """
    units = 0
    for sq, code in enumerate(squares):
        if not code or code >> 3 != color:
            continue
        kind = code & 7
        if kind == ROOK:
            units += 4
        elif kind in (HORSE, CANNON):
            units += 2
        elif kind == PAWN and (sq // 9 >= 5 if color == 0 else sq // 9 <= 4):
            units += 1
    return units


def game_phase(squares: list[int]) -> float:
    """1.0 with all rooks, horses and cannons on the board, falling to 0.0 without them."""
    total = 0
    for code in squares:
        kind = code & 7
        if kind == ROOK:
            total += 2
        elif kind in (HORSE, CANNON):
            total += 1
    return min(1.0, total / 16)


def build_tables(position: str | list[int]) -> Tables:
    """Per-piece-code value tables for a search from ``position`` (board FEN or mailbox)."""
    squares = squares_from_fen(position) if isinstance(position, str) else position
    phase = game_phase(squares)
    tables: Tables = [[0] * 90 for _ in range(16)]
    for color in (0, 1):
        enemy_attack = attack_units(squares, 1 - color)  # 0 .. 16 (+ soldiers)
        for kind, rows in _PLACEMENT.items():
            mid, end = MATERIAL[kind]
            base = round(mid * phase + end * (1 - phase))
            if kind in (ADVISOR, ELEPHANT):
                # Defenders matter while the enemy can attack; a bare army needs none.
                base += min(enemy_attack, 16) * 4 - 30
            scale = 1.0
            if kind == PAWN:
                scale = 1.0 + 0.5 * (1 - phase)
            elif kind == KING:
                scale = phase
            table = tables[kind | color << 3]
            for sq in range(90):
                rank, file = divmod(sq, 9)
                red_rank = rank if color == 0 else 9 - rank
                bonus = rows[9 - red_rank][file]
                table[sq] = base + round(bonus * scale)
    return tables


def evaluate(tables: Tables, position: str | list[int], side: int) -> int:
    """The score of ``position`` for ``side`` (0 Red, 1 Black) by the tables, from scratch."""
    squares = squares_from_fen(position) if isinstance(position, str) else position
    score = 0
    for sq, code in enumerate(squares):
        if code:
            value = tables[code][sq]
            score += value if code >> 3 == side else -value
    return score
