"""A scripted UCI xiangqi engine for the adapter tests (run as a program, not a test).

    uci_fake.py MODE [N]

Modes:

- ``ok``: plays the first legal move (ICCS order), ranks 0-9, no UCI_Variant option;
- ``fairy``: the same in ranks 1-10, with a ``UCI_Variant`` option (like Fairy-Stockfish);
- ``illegal``: answers a well-formed but illegal move; ``unreadable``: answers junk;
- ``junk``: prints noise lines before and during each search, then a legal move;
- ``crash N``: dies (exit code 3, a message on stderr) at the N-th ``go``;
- ``hang``: never answers ``go``; ``mute``: never answers ``uci``;
- ``deaf``: ignores ``quit`` and the end of its input;
- ``spawn``: starts a ``sleep`` helper and names its pid in ``id name``;
- ``slow``: whatever the clock says, thinks until ``stop`` (an ``info ... pv`` line
  with its move first), then answers; ``stubborn``: the same, but ignores ``stop``;
- ``ponder [MS]``: plays the first legal move with ``ponder <the first legal reply>``;
  after ``go ponder`` it answers nothing until ``ponderhit`` or ``stop`` (as UCI
  wants), then its move (after ``stop``, MS milliseconds later: default 0).

Every line received is appended to the file named by ``$FAKE_LOG``, if set.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time


def _say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def _board(tokens: list[str]):  # type: ignore[no-untyped-def]
    from lanqi.games import xiangqi

    if tokens[1] == "startpos":
        board = xiangqi.Board()
        rest = tokens[2:]
    else:
        board = xiangqi.Board(" ".join(tokens[2:8]))
        rest = tokens[8:]
    return board, rest[1:] if rest[:1] == ["moves"] else []


def _from_fairy(text: str) -> str:
    match = re.fullmatch(r"([a-i])(10|[1-9])([a-i])(10|[1-9])", text)
    if match is None:
        raise SystemExit(f"fake engine: bad move {text!r}")
    f1, r1, f2, r2 = match.groups()
    return f"{f1}{int(r1) - 1}{f2}{int(r2) - 1}"


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
    crash_at = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    fairy = mode == "fairy"
    log_path = os.environ.get("FAKE_LOG")
    position: list[str] = ["position", "startpos"]
    searches = 0
    pending: str | None = None  # slow modes: the move kept for ``stop``
    if mode == "junk":
        _say("Hello from a very chatty engine!")
    helper = subprocess.Popen(["sleep", "60"]) if mode == "spawn" else None
    for raw in sys.stdin:
        line = raw.strip()
        if log_path:
            with open(log_path, "a", encoding="utf-8") as log:
                log.write(line + "\n")
        tokens = line.split()
        if not tokens:
            continue
        command = tokens[0]
        if command == "uci":
            if mode == "mute":
                continue
            _say(f"id name FakeUci {mode}" + (f" helper={helper.pid}" if helper else ""))
            _say("id author lanqi tests")
            _say("option name Hash type spin default 16 min 1 max 1024")
            _say("option name Skill Level type spin default 20 min 0 max 20")
            _say("option name Ponder type check default false")
            _say("option name Style type combo default normal var solid var normal var risky")
            _say("option name Clear Hash type button")
            if fairy:
                _say("option name UCI_Variant type combo default chess var chess var xiangqi")
            if mode == "junk":
                _say("garbage \x07 line")
            _say("uciok")
        elif command == "isready":
            _say("readyok")
        elif command == "position":
            position = tokens
        elif command == "go":
            searches += 1
            pondering = tokens[1:2] == ["ponder"]
            if mode == "crash" and searches >= crash_at:
                sys.stderr.write("fake engine: segmentation fault (pretend)\n")
                sys.stderr.flush()
                sys.exit(3)
            if mode == "hang":
                continue
            if mode == "junk":
                _say("info string thinking hard")
                _say("%%% not a protocol line %%%")
                _say("info depth 1 score cp 12 nodes 3 time 1 pv")
            board, moves = _board(position)
            for text in moves:
                board.push_text(_from_fairy(text) if fairy else text)
            if mode == "illegal":
                _say("bestmove a0a5")  # a rook jumping over its own soldier
                continue
            if mode == "unreadable":
                _say("bestmove zz99")
                continue
            best = sorted(str(m) for m in board.legal_moves())[0]
            if fairy:
                best = f"{best[0]}{int(best[1]) + 1}{best[2]}{int(best[3]) + 1}"
            _say(f"info depth 1 score cp 5 nodes 1 time 1 pv {best}")
            if mode in ("slow", "stubborn") or pondering:
                pending = best
                continue
            if mode == "ponder":
                board.push_text(best)
                reply = sorted(str(m) for m in board.legal_moves())[0]
                _say(f"info depth 2 score cp 5 nodes 2 time 1 pv {best} {reply}")
                _say(f"bestmove {best} ponder {reply}")
                continue
            _say(f"bestmove {best}")
        elif command == "stop":
            if mode == "ponder" and pending is not None and len(sys.argv) > 2:
                time.sleep(int(sys.argv[2]) / 1000)
            if mode in ("slow", "ponder") and pending is not None:
                _say(f"bestmove {pending}")
            pending = None
        elif command == "ponderhit":
            if pending is not None:
                _say(f"bestmove {pending}")
            pending = None
        elif command == "quit":
            if mode == "deaf":
                continue
            return
    while mode == "deaf":  # not even the end of input stops it
        time.sleep(1)


if __name__ == "__main__":
    main()
