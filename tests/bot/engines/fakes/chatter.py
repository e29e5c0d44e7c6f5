"""A tiny line-echo program for the engine-process tests (run as a program, not a test).

Commands (one per line): ``echo TEXT``, ``crlf`` (prints lines ended by CR LF,
CR and LF in one write), ``cwd``, ``env NAME``, ``stderr TEXT``, ``exit CODE``,
``spawn`` (starts ``sleep 60`` and prints its pid), ``quit``.  With the argument
``deaf`` it ignores ``quit`` and the end of its input; ``silent`` also never answers.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time


def _say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    for raw in sys.stdin:
        command, _, rest = raw.strip().partition(" ")
        if mode == "silent":
            continue
        if command == "echo":
            _say(rest)
        elif command == "crlf":
            sys.stdout.write("one\r\ntwo\rthree\nfour\r")
            sys.stdout.flush()
        elif command == "cwd":
            _say(os.getcwd())
        elif command == "env":
            _say(os.environ.get(rest, "<unset>"))
        elif command == "stderr":
            sys.stderr.write(rest + "\n")
            sys.stderr.flush()
        elif command == "exit":
            sys.exit(int(rest))
        elif command == "spawn":
            helper = subprocess.Popen(["sleep", "60"])
            _say(str(helper.pid))
        elif command == "quit" and mode != "deaf":
            return
    while mode in ("deaf", "silent"):  # not even the end of input stops these
        time.sleep(1)


if __name__ == "__main__":
    main()
