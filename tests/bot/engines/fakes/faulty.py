"""A UCI/UCCI xiangqi engine that keeps to its protocol but for one fault (for the
compliance checker's tests; run as a program, not a test).

    faulty.py uci|ucci FAULT

Faults (``none`` for a clean engine):

- ``no-ok``: never says ``uciok``/``ucciok``; ``no-name``: no ``id name``;
- ``bad-option``: a spin option whose default lies outside its range;
- ``late-ready``: answers the first ``isready`` only 1.5 s late;
- ``crash-malformed``: dies on an unknown command;
- ``illegal``: its ``bestmove`` is illegal (the chariot through its own pawn);
- ``wrong-time``: thinks on the opponent's clock instead of its own (an eighth of it);
- ``early``: ends an infinite search by itself at once, without ``stop``;
- ``ignores-stop``: never answers ``stop`` in an infinite search;
- ``ponder-early``: answers ``go ponder`` at once, before ``ponderhit``;
- ``crash-quit``: exits with code 3 on ``quit``;
- ``hungry``: allocates a gigabyte at every ``go`` (run it under a memory cap only).

It moves the first legal move (ICCS order) after thinking: depth or nodes at once,
``movetime``/``time ... movestogo 1`` half of it, a Fischer clock a twentieth of its
own time; an infinite or ponder search until ``stop`` (or ``ponderhit``).
"""

from __future__ import annotations

import queue
import sys
import threading
import time


def _say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def _number(tokens: list[str], key: str) -> int | None:
    if key in tokens:
        at = tokens.index(key)
        if at + 1 < len(tokens) and tokens[at + 1].lstrip("-").isdigit():
            return int(tokens[at + 1])
    return None


def main() -> None:
    from lanqi.games import xiangqi

    protocol, fault = sys.argv[1], sys.argv[2]
    ucci = protocol == "ucci"
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        for raw in sys.stdin:
            lines.put(raw.strip())
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    board = xiangqi.Board()
    deadline: float | None = None
    searching = False
    pondering = False
    readies = 0
    move = ""

    def finish() -> None:
        nonlocal searching, pondering, deadline
        searching, pondering, deadline = False, False, None
        _say(f"bestmove {move}")

    while True:
        wait = None if not searching or deadline is None else max(0.0, deadline - time.monotonic())
        try:
            line = lines.get(timeout=wait)
        except queue.Empty:
            finish()
            continue
        if line is None:
            return
        tokens = line.split()
        if not tokens:
            continue
        command = tokens[0]
        if command in ("uci", "ucci"):
            if fault != "no-name":
                _say("id name Faulty 1.0")
            _say("id author lanqi tests")
            if ucci:
                _say("option usemillisec type check default false")
            else:
                _say("option name Ponder type check default false")
            default = 99 if fault == "bad-option" else 16
            hash_line = "option hashsize" if ucci else "option name Hash"
            _say(f"{hash_line} type spin default {default} min 1 max 64")
            if fault != "no-ok":
                _say("ucciok" if ucci else "uciok")
        elif command == "isready":
            readies += 1
            if fault == "late-ready" and readies == 1:
                time.sleep(1.5)
            _say("readyok")
        elif command in ("setoption", "ucinewgame", "banmoves"):
            pass
        elif command == "position":
            try:
                if tokens[1] == "startpos":
                    new, rest = xiangqi.Board(), tokens[2:]
                else:
                    end = tokens.index("moves") if "moves" in tokens else len(tokens)
                    new, rest = xiangqi.Board(" ".join(tokens[2:end])), tokens[end:]
                for text in rest[1:]:
                    played = xiangqi.Move.from_iccs(text)
                    if not new.is_legal(played):
                        break
                    new.push(played)
                board = new
            except Exception:  # a broken FEN or move: the start position
                board = xiangqi.Board()
        elif command == "go":
            if fault == "hungry":  # a search that wants a gigabyte at once
                tables = bytearray(1 << 30)
                _say(f"info string {len(tables)} bytes")
            first = str(min(board.legal_moves(), key=str))
            move = "a0a5" if fault == "illegal" else first
            _say(f"info depth 1 score cp 0 nodes 1 pv {move}")
            searching = True
            now = time.monotonic()
            red = board.turn == xiangqi.Color.RED
            if "ponder" in tokens:
                pondering = True
                deadline = now if fault == "ponder-early" else None
            elif "infinite" in tokens:
                deadline = now if fault == "early" else None
            elif "depth" in tokens or "nodes" in tokens:
                deadline = now
            elif "movetime" in tokens or "movestogo" in tokens:
                think = _number(tokens, "movetime") or _number(tokens, "time") or 0
                deadline = now + think / 2000
            else:
                if ucci:
                    own, theirs = _number(tokens, "time"), _number(tokens, "opptime")
                else:
                    own, theirs = _number(tokens, "wtime"), _number(tokens, "btime")
                    if not red:
                        own, theirs = theirs, own
                clock = theirs if fault == "wrong-time" else own
                deadline = now + (clock or 0) / (8000 if fault == "wrong-time" else 20000)
            if deadline is not None and deadline <= now:
                finish()  # at once, before any later command is read
        elif command == "stop":
            if searching and not (fault == "ignores-stop" and not pondering):
                finish()
        elif command == "ponderhit":
            if pondering:
                pondering = False
                deadline = time.monotonic() + 0.05
        elif command == "quit":
            if fault == "crash-quit":
                sys.exit(3)
            if ucci:
                _say("bye")
            return
        elif fault == "crash-malformed":
            sys.exit(4)
        else:
            _say(f"Unknown command: {line}")


if __name__ == "__main__":
    main()
