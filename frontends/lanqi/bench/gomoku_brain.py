"""lanqi's built-in gomoku AI as a Gomocup brain, for ``lanqi bench match --variant gomoku``.

    python -m lanqi.bench.gomoku_brain [--nodes N] [--seed S]

No real Gomocup brain (Rapfi, Embryo: ``pbrain-*``) ships here, so the benchmark wraps
:class:`~lanqi.bot.gomoku_ai.GomokuAI` in the protocol's commands: ``ABOUT``,
``START n`` / ``RESTART`` (``OK``), ``INFO`` (ignored: the search is bounded by
``--nodes`` alone, so a move costs the same under every runner), ``BEGIN``,
``TURN x,y``, ``BOARD`` ... ``DONE``, ``END``.  It answers ``x,y``; a position it
cannot read is answered ``ERROR``.
"""

from __future__ import annotations

import argparse
import sys

from lanqi.bot.base import SeatView
from lanqi.bot.gomoku_ai import GomokuAI
from lanqi.games.gomoku import Move

__all__ = ["main"]

#: a move's time budget far above what ``--nodes`` takes: the nodes bound the search
TIME_MS = 600_000


def _say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


class _Brain:
    def __init__(self, nodes: int, seed: int) -> None:
        self.ai = GomokuAI(level=5, seed=seed, time_ms=TIME_MS, node_limit=nodes)
        self.seed = seed
        self.size = 15
        self.moves: list[str] = []  # in play order, lanqi notation

    def restart(self, size: int) -> None:
        self.size, self.moves = size, []
        self.ai.rng.seed(self.seed)

    def answer(self) -> str:
        state = SeatView.start("gomoku", options={"size": self.size}, moves=list(self.moves))
        move = Move.from_text(self.ai.play(state).move, self.size)
        self.moves.append(str(move))
        return move.gomocup(self.size)

    def stone(self, field: str) -> str:
        """``x,y`` (or a BOARD line ``x,y,who``) in lanqi's notation."""
        x, y = field.split(",")[:2]
        return str(Move.from_gomocup(f"{x.strip()},{y.strip()}", self.size))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lanqi.bench.gomoku_brain")
    parser.add_argument("--nodes", type=int, default=300, help="positions per move")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    brain = _Brain(args.nodes, args.seed)
    board: list[str] | None = None  # the stones of a BOARD being read
    for raw in sys.stdin:
        line = raw.strip()
        word = line.split(" ", 1)[0].upper() if line else ""
        if board is not None:
            if word == "DONE":
                brain.moves = board
                board = None
                _say(brain.answer())
            else:
                board.append(brain.stone(line))
            continue
        if word == "ABOUT":
            _say('name="lanqi-gomoku-ai", version="1", author="lanqi", country="-"')
        elif word == "START":
            brain.restart(int(line.split()[1]))
            _say("OK")
        elif word == "RESTART":
            brain.restart(brain.size)
            _say("OK")
        elif word == "BEGIN":
            brain.moves = []
            _say(brain.answer())
        elif word == "TURN":
            brain.moves.append(brain.stone(line.split(" ", 1)[1]))
            _say(brain.answer())
        elif word == "BOARD":
            board = []
        elif word == "END":
            return 0
        elif word and word != "INFO":
            _say(f"UNKNOWN {word}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
