"""``lanqi perft``: count the legal move paths of a xiangqi position.

The output matches Fairy-Stockfish's ``go perft`` (moves in ICCS, ranks 0-9), so
the two can be diffed when hunting a move generation bug::

    $ lanqi perft 3 --divide
    a0a1: 2271
    ...
    i3i4: 1964

    Nodes searched: 79666

Time and speed go to stderr, so stdout stays comparable.
"""

from __future__ import annotations

import argparse
import sys
import time

#: Deeper than this takes hours in pure Python (start position: 133 million at 5).
MAX_DEPTH = 8


EXAMPLES = """examples:
  lanqi perft 4
  lanqi perft 3 --divide
"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("depth", metavar="DEPTH", type=int, help=f"plies to count (1-{MAX_DEPTH})")
    parser.add_argument(
        "--fen", default=None, help="position in engine FEN (default: the start position)"
    )
    parser.add_argument(
        "--divide", action="store_true", help="print the count under each root move first"
    )


def run(args: argparse.Namespace) -> int:
    from lanqi.games.base import InvalidPositionError
    from lanqi.games.xiangqi import STARTING_FEN, Board

    depth: int = args.depth
    if not 1 <= depth <= MAX_DEPTH:
        print(f"lanqi perft: DEPTH must be from 1 to {MAX_DEPTH}, not {depth}", file=sys.stderr)
        return 2
    fen: str = args.fen if args.fen is not None else STARTING_FEN
    try:
        board = Board(fen)
    except InvalidPositionError as exc:
        print(f"lanqi perft: bad FEN {fen!r}: {exc}", file=sys.stderr)
        return 2

    started = time.perf_counter()
    if args.divide:
        divide = sorted((str(move), nodes) for move, nodes in board.divide(depth).items())
        total = sum(nodes for _, nodes in divide)
        elapsed = time.perf_counter() - started
        for move, nodes in divide:
            print(f"{move}: {nodes}")
        print()
    else:
        total = board.perft(depth)
        elapsed = time.perf_counter() - started
    print(f"Nodes searched: {total}")
    speed = f"{total / elapsed:,.0f} nodes/s" if elapsed > 0 else "too fast to time"
    print(f"perft {depth}: {elapsed:.3f} s, {speed}", file=sys.stderr)
    return 0
