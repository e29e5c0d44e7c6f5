"""Judging a repeated position: perpetual check, perpetual chase, or a draw.

When a position stands for the ``repetition_count``-th time, the board calls
:func:`judge_repetition` with the span of plies back to its first occurrence.
That span (the *cycle*) is replayed move by move and each move is classified:

- a **check** if it leaves the opponent's general attacked;
- a **chase** if the moved piece newly threatens to capture one particular enemy
  piece (not the general) that cannot be recaptured, or a rook attacked by a
  horse or cannon even when protected.  Generals and soldiers may chase freely,
  an uncrossed soldier may be chased freely, and attacking a piece of the same
  kind that attacks back is an offer to exchange, not a chase.

Rulings (rule set ``axf``, the default; see ``docs/rules.md``):

1. If every move of one side in the cycle gave check and not every move of the
   other side did, the checking side loses (``PERPETUAL_CHECK``).  Both sides
   checking throughout is a draw.
2. Otherwise, if every move of one side chased, and one and the same pair
   (chasing piece, chased piece) recurs in all of them, that side loses
   (``PERPETUAL_CHASE``).  Both sides chasing is a draw.
3. Otherwise the repetition is a draw (``REPETITION``).

Rule set ``check`` applies 1 and 3 only; ``draw`` makes every repetition a draw.
Simplified against the full AXF book: only chases by a single piece are
recognised (not a chase shared between pieces), and "protected" means the
chased piece can be recaptured legally, without judging whether the exchange is
even.
"""

from __future__ import annotations

from typing import Protocol, Self

from lanqi.games.base import Outcome, Termination
from lanqi.games.xiangqi.pieces import CANNON, HORSE, KING, PAWN, ROOK, Color, Move

__all__ = [
    "CycleBoard",
    "CycleReport",
    "chased_squares",
    "classify_cycle",
    "judge_repetition",
    "rule_on",
]


class CycleBoard(Protocol):
    """What the judge reads and replays of a board: the rules core's internals
    (:class:`~lanqi.games.xiangqi.core.Board` has them; the board calls this
    module, so this module does not import the board)."""

    repetition: str
    _squares: list[int]
    _kings: list[int]
    _pieces: tuple[set[int], set[int]]
    _turn: int

    def copy(self) -> Self: ...
    def pop(self) -> Move: ...
    def is_check(self) -> bool: ...
    def _push_unchecked(self, move: Move) -> None: ...
    def _attacks(self, frm: int, to: int) -> bool: ...
    def _is_attacked(self, k: int, by: int) -> bool: ...
    def _make(self, code: int) -> int: ...
    def _unmake(self, code: int, cap: int) -> None: ...
    def _legal_codes(self) -> list[int]: ...


class CycleReport:
    """Per side, one entry per move of the cycle: did it check, what did it chase."""

    def __init__(self) -> None:
        self.checks: tuple[list[bool], list[bool]] = ([], [])
        self.chases: tuple[list[set[tuple[int, int]]], list[set[tuple[int, int]]]] = ([], [])

    def perpetual_check(self, side: int) -> bool:
        moves = self.checks[side]
        return bool(moves) and all(moves)

    def perpetual_chase(self, side: int) -> bool:
        moves = self.chases[side]
        if not moves:
            return False
        common = set(moves[0])
        for pairs in moves[1:]:
            common &= pairs
        return bool(common)


def _crossed(color: int, sq: int) -> bool:
    rank = sq // 9
    return rank >= 5 if color == 0 else rank <= 4


def chased_squares(board: CycleBoard, sq: int) -> set[int]:
    """Squares of the enemy pieces that the piece on ``sq`` chases right now.

    Works whoever is to move: the piece's own side is taken from the piece.
    """
    sqs = board._squares
    code = sqs[sq]
    mover = code >> 3
    chaser = code & 7
    result: set[int] = set()
    if not code or chaser in (KING, PAWN):
        return result
    saved_turn = board._turn
    board._turn = mover
    try:
        for t in list(board._pieces[1 - mover]):
            target = sqs[t] & 7
            if target == KING or (target == PAWN and not _crossed(1 - mover, t)):
                continue
            if not board._attacks(sq, t):
                continue
            if target == chaser and board._attacks(t, sq):
                continue  # an offer to exchange, not a chase
            move = sq << 7 | t
            captured = board._make(move)
            try:
                if board._is_attacked(board._kings[mover], 1 - mover):
                    continue  # the capture is not legal: no threat
                protected = any(c & 127 == t for c in board._legal_codes())
            finally:
                board._unmake(move, captured)
                board._turn = mover
            if not protected or (target == ROOK and chaser in (HORSE, CANNON)):
                result.add(t)
    finally:
        board._turn = saved_turn
    return result


def classify_cycle(board: CycleBoard, span: int) -> CycleReport:
    """Replay the last ``span`` plies and classify each move (check / chase)."""
    replay = board.copy()
    moves = [replay.pop() for _ in range(span)]
    moves.reverse()
    # Piece identity = its square at the start of the cycle (a cycle has no captures).
    ids = {sq: sq for sq in range(90) if replay._squares[sq]}
    report = CycleReport()
    for move in moves:
        side = replay._turn
        before = {ids[t] for t in chased_squares(replay, move.from_square)}
        replay._push_unchecked(move)
        piece = ids.pop(move.from_square)
        ids[move.to_square] = piece
        report.checks[side].append(replay.is_check())
        after = {ids[t] for t in chased_squares(replay, move.to_square)}
        report.chases[side].append({(piece, target) for target in after - before})
    return report


def judge_repetition(board: CycleBoard, span: int) -> Outcome[Color]:
    """The outcome of a position repeated over the last ``span`` plies."""
    if board.repetition == "draw":
        return Outcome(None, Termination.REPETITION)
    return rule_on(classify_cycle(board, span), board.repetition)


def rule_on(report: CycleReport, rule_set: str) -> Outcome[Color]:
    """Apply the rulings of ``rule_set`` (``axf``, ``check`` or ``draw``) to a cycle."""
    if rule_set == "draw":
        return Outcome(None, Termination.REPETITION)
    red_checks, black_checks = report.perpetual_check(0), report.perpetual_check(1)
    if red_checks != black_checks:
        return Outcome(Color.BLACK if red_checks else Color.RED, Termination.PERPETUAL_CHECK)
    if red_checks:
        return Outcome(None, Termination.REPETITION)
    if rule_set == "axf":
        red_chases, black_chases = report.perpetual_chase(0), report.perpetual_chase(1)
        if red_chases != black_chases:
            return Outcome(Color.BLACK if red_chases else Color.RED, Termination.PERPETUAL_CHASE)
    return Outcome(None, Termination.REPETITION)
