"""A Gomocup brain that keeps to its protocol but for one fault (for the compliance
checker's tests; run as a program, not a test).

    faulty_gomocup.py FAULT

Faults (``none`` for a clean brain):

- ``no-ok``: answers ``START`` with ``ERROR`` instead of ``OK``;
- ``illegal``: answers ``TURN x,y`` with ``x,y`` itself (a taken cell);
- ``silent-unknown``: says nothing to an unknown command (``UNKNOWN`` is due);
- ``ignores-time-left``: thinks for its whole ``timeout_turn`` (up to 3 s) whatever
  ``time_left`` says;
- ``chatty``: writes a line that is no answer (nor ``MESSAGE``/``DEBUG``) after each ``INFO``;
- ``crash-end``: exits with code 5 on ``END``.

It plays the free cell nearest the centre (row by row), at once.
"""

from __future__ import annotations

import sys
import time


def _say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def main() -> None:
    fault = sys.argv[1]
    size = 15
    taken: set[tuple[int, int]] = set()
    turn_ms, left_ms = 1000, 1_000_000
    board_lines: list[str] | None = None

    def play() -> None:
        if fault == "ignores-time-left":
            time.sleep(min(turn_ms, 3000) / 1000)
        else:
            time.sleep(min(turn_ms, left_ms) / 10000)
        centre = size // 2
        cells = sorted(
            ((x, y) for x in range(size) for y in range(size) if (x, y) not in taken),
            key=lambda c: (abs(c[0] - centre) + abs(c[1] - centre), c[1], c[0]),
        )
        taken.add(cells[0])
        _say(f"{cells[0][0]},{cells[0][1]}")

    for raw in sys.stdin:
        line = raw.strip()
        words = line.split()
        if not words:
            continue
        command = words[0].upper()
        if board_lines is not None:
            if command == "DONE":
                taken.clear()
                for item in board_lines:
                    x, y, _ = (int(v) for v in item.split(","))
                    taken.add((x, y))
                board_lines = None
                play()
            else:
                board_lines.append(line)
            continue
        if command == "ABOUT":
            _say('name="faulty", version="1.0", author="lanqi tests"')
        elif command == "START":
            size = int(words[1])
            taken.clear()
            _say("ERROR no thanks" if fault == "no-ok" else "OK")
        elif command == "RESTART":
            taken.clear()
            _say("OK")
        elif command == "INFO":
            if words[1:2] == ["timeout_turn"]:
                turn_ms = int(words[2])
            elif words[1:2] == ["time_left"]:
                left_ms = int(words[2])
            if fault == "chatty":
                _say("thinking about " + line)
        elif command == "BEGIN":
            play()
        elif command == "TURN":
            x, y = (int(v) for v in words[1].split(","))
            if (x, y) in taken:
                _say("ERROR that cell is taken")
                continue
            taken.add((x, y))
            if fault == "illegal":
                _say(f"{x},{y}")
            else:
                play()
        elif command == "BOARD":
            board_lines = []
        elif command == "END":
            sys.exit(5 if fault == "crash-end" else 0)
        elif fault != "silent-unknown":
            _say(f"UNKNOWN {command}")


if __name__ == "__main__":
    main()
