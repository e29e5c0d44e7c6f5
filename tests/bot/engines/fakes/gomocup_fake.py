"""A scripted Gomocup brain for the adapter tests (run as a program, not a test).

    gomocup_fake.py MODE

It keeps its own board and answers the free point nearest the centre (the first
in row-major order among the nearest).  Modes:

- ``ok``: a well-behaved brain (``ABOUT``, ``START``, ``RESTART``, ``BEGIN``,
  ``TURN``, ``BOARD``), with a ``MESSAGE`` and a ``DEBUG`` line before each move;
- ``old``: answers ``UNKNOWN`` to ``ABOUT`` and ``RESTART``;
- ``suggest``: answers ``SUGGEST x,y`` and plays what ``PLAY`` imposes;
- ``occupied``: answers a point that is taken; ``offboard``: answers 99,99;
- ``error``: answers ``ERROR`` to moves; ``junk``: prints noise before each move;
- ``only20``: refuses ``START`` for any size but 20;
- ``crash``: dies at its second move; ``hang``: never answers ``TURN``;
- ``fullturn``: a well-behaved brain that thinks for all of ``timeout_turn``.

Every line received is appended to the file named by ``$FAKE_LOG``, if set.
"""

from __future__ import annotations

import os
import sys
import time


def _say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
    log_path = os.environ.get("FAKE_LOG")
    size = 0
    stones: dict[tuple[int, int], int] = {}
    last: tuple[int, int] | None = None
    moves_made = 0
    reading_board = False
    turn_ms = 0

    def reply() -> None:
        nonlocal last, moves_made
        moves_made += 1
        if mode == "crash" and moves_made >= 2:
            sys.stderr.write("brain: out of cheese\n")
            sys.exit(5)
        if mode == "hang" and moves_made >= 2:
            return
        if mode == "fullturn":
            time.sleep(max(0, turn_ms - 5) / 1000)
        if mode == "error":
            _say("ERROR cannot think today")
            return
        if mode == "junk":
            _say("Thinking... 42%")
            _say("[[[ ]]]")
        if mode == "ok":
            _say("MESSAGE I will be the winner")
            _say("DEBUG eval +0.3")
        if mode == "offboard":
            _say("99,99")
            return
        if mode == "occupied" and last is not None:
            _say(f"{last[0]},{last[1]}")
            return
        centre = size // 2
        free = [(x, y) for y in range(size) for x in range(size) if (x, y) not in stones]
        x, y = min(free, key=lambda p: (abs(p[0] - centre) + abs(p[1] - centre), p[1], p[0]))
        if mode == "suggest":
            _say(f"SUGGEST {x},{y}")
            return
        stones[(x, y)] = 1
        _say(f"{x},{y}")

    for raw in sys.stdin:
        line = raw.strip()
        if log_path:
            with open(log_path, "a", encoding="utf-8") as log:
                log.write(line + "\n")
        if not line:
            continue
        command, _, rest = line.partition(" ")
        command = command.upper()
        if reading_board:
            if command == "DONE":
                reading_board = False
                reply()
            else:
                x, y, field = (int(v) for v in line.split(","))
                stones[(x, y)] = field
                last = (x, y)
            continue
        if command == "ABOUT":
            if mode == "old":
                _say("UNKNOWN")
            else:
                _say('name="pbrain-fake", version="1.0", author="lanqi tests", country="--"')
        elif command == "START":
            if mode == "only20" and int(rest) != 20:
                _say("ERROR unsupported size")
                continue
            size = int(rest)
            stones = {}
            _say("OK")
        elif command == "RESTART":
            if mode == "old":
                _say("UNKNOWN RESTART")
            else:
                stones = {}
                _say("OK")
        elif command == "INFO":
            key, _, value = rest.partition(" ")
            if key == "timeout_turn":
                turn_ms = int(value)
        elif command == "BEGIN":
            reply()
        elif command == "TURN":
            x, y = (int(v) for v in rest.split(","))
            stones[(x, y)] = 2
            last = (x, y)
            reply()
        elif command == "BOARD":
            stones = {}
            reading_board = True
        elif command == "PLAY":
            x, y = (int(v) for v in rest.split(","))
            stones[(x, y)] = 1
            _say(f"{x},{y}")
        elif command == "END":
            return
        else:
            _say(f"UNKNOWN {command}")


if __name__ == "__main__":
    main()
