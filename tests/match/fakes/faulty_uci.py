"""A UCI xiangqi engine that plays N good moves, then fails (run as a program).

    faulty_uci.py MODE N [LAUNCH_FILE]

It plays the first legal move (ICCS order, ranks 0-9) for its first N searches of
each game, then at search N+1:

- ``crash``: exits with code 3 (a message on stderr);
- ``hang``: never answers;
- ``illegal``: answers a readable move that is not legal in the position;
- ``garbage``: answers ``bestmove`` followed by junk;
- ``ok``: never fails.

``slow-restart`` crashes like ``crash``, and every launch after the first (counted
in LAUNCH_FILE) takes 30 s to answer ``uci``.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path


def _say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def _illegal(board: object) -> str:
    legal = {str(m) for m in board.legal_moves()}  # type: ignore[attr-defined]
    for text in ("h2h9", "e0e9", "a0a9", "b0b9", "i0i9", "e0e5", "a9a0"):
        if text not in legal:
            return text
    raise SystemExit("no illegal move found")


def main() -> None:
    from fakeboard import board_of

    mode = sys.argv[1]
    good = int(sys.argv[2])
    if len(sys.argv) > 3:
        launches = Path(sys.argv[3])
        count = int(launches.read_text() or "0") if launches.exists() else 0
        launches.write_text(str(count + 1))
        slow = mode == "slow-restart" and count >= 1
    else:
        slow = False
    searches = 0
    position: list[str] = ["position", "startpos"]
    for raw in sys.stdin:
        tokens = raw.split()
        if not tokens:
            continue
        if tokens[0] == "uci":
            if slow:
                time.sleep(30)
            _say(f"id name Faulty {mode}")
            _say("uciok")
        elif tokens[0] == "isready":
            _say("readyok")
        elif tokens[0] == "ucinewgame":
            searches = 0
        elif tokens[0] == "position":
            position = tokens
        elif tokens[0] == "go":
            searches += 1
            board = board_of(position)
            if searches > good and mode != "ok":
                if mode in ("crash", "slow-restart"):
                    sys.stderr.write("faulty engine: segmentation fault (pretend)\n")
                    sys.stderr.flush()
                    os._exit(3)  # at once, as a crash does (no interpreter teardown)
                if mode == "hang":
                    continue
                if mode == "illegal":
                    _say(f"bestmove {_illegal(board)}")
                    continue
                if mode == "garbage":
                    _say("bestmove ?!#garbage")
                    continue
            best = sorted(str(m) for m in board.legal_moves())[0]
            _say(f"info depth 1 score cp -5 nodes 1 time 1 pv {best}")
            _say(f"bestmove {best}")
        elif tokens[0] == "quit":
            return


if __name__ == "__main__":
    main()
