"""A scripted UCCI xiangqi engine for the adapter tests (run as a program, not a test).

    ucci_fake.py MODE

Modes: ``ok`` (announces ``usemillisec`` and ``newgame``, plays the first legal
move not banned by ``banmoves``), ``seconds`` (no ``usemillisec``), ``draw``
(adds ``draw`` to its bestmove), ``accept`` (adds ``draw`` only after ``go draw``),
``nomove`` (answers ``nobestmove``), ``slow``
(whatever the clock says, thinks until ``stop``, with an ``info ... pv`` line first).
Every line received is appended to the file named by ``$FAKE_LOG``, if set.
"""

from __future__ import annotations

import os
import sys


def _say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def main() -> None:
    from lanqi.games import xiangqi

    mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
    log_path = os.environ.get("FAKE_LOG")
    board = xiangqi.Board()
    banned: set[str] = set()
    pending: str | None = None
    for raw in sys.stdin:
        line = raw.strip()
        if log_path:
            with open(log_path, "a", encoding="utf-8") as log:
                log.write(line + "\n")
        tokens = line.split()
        if not tokens:
            continue
        command = tokens[0]
        if command == "ucci":
            _say("id name FakeUcci")
            _say("id author lanqi tests")
            if mode != "seconds":
                _say("option usemillisec type check default false")
            _say("option newgame type button")
            _say("option hashsize type spin min 0 max 1024 default 0")
            _say("option randomness type combo var none var tiny var small default none")
            _say("ucciok")
        elif command == "isready":
            _say("readyok")
        elif command == "position":
            if tokens[1] == "startpos":
                board, rest = xiangqi.Board(), tokens[2:]
            else:
                board, rest = xiangqi.Board(" ".join(tokens[2:8])), tokens[8:]
            for text in rest[1:]:
                board.push(xiangqi.Move.from_iccs(text))
            banned = set()
        elif command == "banmoves":
            banned = set(tokens[1:])
        elif command == "go":
            if mode == "nomove":
                _say("nobestmove")
                continue
            moves = [m for m in sorted(str(m) for m in board.legal_moves()) if m not in banned]
            offered = tokens[1:2] == ["draw"]
            suffix = " draw" if mode == "draw" or (mode == "accept" and offered) else ""
            if mode == "slow":
                _say(f"info depth 1 score 5 pv {moves[0]}")
                pending = moves[0]
                continue
            _say(f"bestmove {moves[0]}{suffix}")
        elif command == "stop":
            if pending is not None:
                _say(f"bestmove {pending}")
            pending = None
        elif command == "quit":
            _say("bye")
            return


if __name__ == "__main__":
    main()
