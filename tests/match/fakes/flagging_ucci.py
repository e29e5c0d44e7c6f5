"""A UCCI xiangqi engine that adds ``draw`` or ``resign`` to its moves (run as a program).

    flagging_ucci.py FLAG N

It plays the first legal move (ICCS order); from its (N+1)-th move of a game on,
its ``bestmove`` line carries FLAG (``draw`` or ``resign``).
"""

from __future__ import annotations

import sys


def _say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def main() -> None:
    from fakeboard import board_of

    flag, after = sys.argv[1], int(sys.argv[2])
    position = ["position", "startpos"]
    searches = 0
    for raw in sys.stdin:
        tokens = raw.split()
        if not tokens:
            continue
        if tokens[0] == "ucci":
            _say(f"id name Flagging {flag}")
            _say("option newgame type button")
            _say("ucciok")
        elif tokens[0] == "isready":
            _say("readyok")
        elif tokens[0] == "setoption" and tokens[1:2] == ["newgame"]:
            searches = 0
        elif tokens[0] == "position":
            position = tokens
        elif tokens[0] == "go":
            searches += 1
            board = board_of(position)
            best = sorted(str(m) for m in board.legal_moves())[0]
            _say(f"info depth 1 score 0 pv {best}")
            _say(f"bestmove {best}" + (f" {flag}" if searches > after else ""))
        elif tokens[0] == "quit":
            _say("bye")
            return


if __name__ == "__main__":
    main()
