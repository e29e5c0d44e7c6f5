"""Entry point of the ``lanqi`` console script.

Each subcommand lives in its own module under ``lanqi.cli`` with two functions:
``configure(parser)`` adds its arguments and ``run(args) -> int`` does the work
(heavy imports happen inside ``run``, so ``lanqi --help`` stays fast), and an
``EXAMPLES`` text shown at the end of its help.

Errors reach the user as one line saying what to do; ``-v`` (anywhere on the
line) adds the traceback.  Output into a closed pipe (``lanqi ... | head``) ends the
command quietly.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import logging
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lanqi.cli.common import CliError, LanqiParser, add_server_flag
from lanqi.security.errors import SecurityError
from lanqi.server.database import StoreOpenError

log = logging.getLogger(__name__)

#: subcommand -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("lanqi.cli.demo", "a whole event on this machine: server, bots, two tournaments"),
    "perft": ("lanqi.cli.perft", "count legal move paths (perft) of a xiangqi position"),
    "selfplay": (
        "lanqi.cli.selfplay",
        "self-play demo of the rules core: random games of both variants",
    ),
    "gui": ("lanqi.cli.gui", "the pygame GUI: play online or offline, watch, review (needs [gui])"),
    "serve": ("lanqi.cli.serve", "run the whole server: matchmaker and referee in one process"),
    "web": ("lanqi.cli.web", "the browser gateway: lobby and game pages for phones and laptops"),
    "tournament": (
        "lanqi.cli.tournament",
        "run a tournament: create, join, start, standings, export",
    ),
    "bot": ("lanqi.cli.bot", "put a bot or an engine in the lobby (UCI, UCCI, Gomocup, built-in)"),
    "reclaim": (
        "lanqi.cli.reclaim",
        "a claim code that gives a player back their name after a lost session (director)",
    ),
    "lobby": (
        "lanqi.cli.lobby",
        "keep order in the lobby: claim code lock-outs, mute or remove a player (director)",
    ),
    "result": (
        "lanqi.cli.result",
        "give the result of your game on a physical board (over-the-board events)",
    ),
    "referee": ("lanqi.cli.referee", "run the referee service (authoritative games)"),
    "matchmaker": ("lanqi.cli.matchmaker", "run the matchmaker (lobby, tournaments) on its own"),
    "bench": (
        "lanqi.cli.bench",
        "benchmarks: strength, movegen, referee, tournament, pairing, seat, web, match, crowd,"
        " soak",
    ),
    "match": ("lanqi.cli.match", "engine matches like cutechess-cli: openings, adjudication, SPRT"),
    "engine": (
        "lanqi.cli.engine",
        "check an engine against its protocol (UCI, UCCI, Gomocup): one line per deviation",
    ),
    "key": ("lanqi.cli.key", "the server's public key and fingerprint (for players to compare)"),
    "servers": ("lanqi.cli.known", "the servers this machine trusts: list, forget a changed key"),
}

#: commands that take cutechess-style arguments (``-engine k=v ...``) argparse cannot read
RAW_COMMANDS = ("match",)
VERBOSE_FLAGS = ("-v", "--verbose")


@dataclass(frozen=True, slots=True)
class RawLine:
    """A line for a command that reads its own arguments (:data:`RAW_COMMANDS`)."""

    command: str
    #: its arguments, ``-v`` taken out wherever it stood
    words: list[str]
    verbose: bool
    #: ``--server`` given before the command (a raw command has no use for it)
    server: str | None = None


def raw_line(words: Sequence[str]) -> RawLine | None:
    """The line as a raw command's (``lanqi [-v] [--server S] match ... -v ...``), or
    None when the command is an argparse one (or there is none)."""
    at, server = 0, None
    while at < len(words):
        word = words[at]
        if word in VERBOSE_FLAGS:
            at += 1
        elif word == "--server" and at + 1 < len(words):
            server, at = words[at + 1], at + 2
        elif word.startswith("--server="):
            server, at = word.partition("=")[2], at + 1
        else:
            break
    if at == len(words) or words[at] not in RAW_COMMANDS:
        return None
    rest = [w for w in words[at + 1 :] if w not in VERBOSE_FLAGS]
    verbose = any(w in VERBOSE_FLAGS for w in words)
    return RawLine(words[at], rest, verbose, server)


EXAMPLES = """examples:
  lanqi serve                                  # a server on this machine
  export LANQI_SERVER=192.168.1.20:5050        # name the server once for every command
  lanqi tournament list
  lanqi bot --name Tiger --level 6 --seek xiangqi
"""


def version() -> str:
    try:
        return importlib.metadata.version("lanqi")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    parser = LanqiParser(
        prog="lanqi",
        description="lanqi: LAN game server for Xiangqi (Chinese chess) and Gomoku.",
        epilog=EXAMPLES,
    )
    parser.add_argument("--version", action="version", version=f"lanqi {version()}")
    add_server_flag(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        module = importlib.import_module(module_name)
        command = sub.add_parser(
            name, help=help_text, description=help_text, epilog=getattr(module, "EXAMPLES", None)
        )
        module.configure(command)
        command.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    raw = raw_line(words)
    if raw is not None:
        logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        where = f"lanqi {raw.command}"
        if raw.server is not None:
            print(
                f"{where}: --server is not used: the match runs its own referee"
                " (-referee tcp://HOST:PORT -admin-key KEY for a running one)",
                file=sys.stderr,
            )
            return 2
        module = importlib.import_module(COMMANDS[raw.command][0])
        return _guarded(
            where, raw.verbose, lambda: int(module.run_argv(raw.words, verbose=raw.verbose))
        )
    parser = build_parser()
    args = parser.parse_args(words)
    verbose = bool(getattr(args, "verbose", False))
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    return _guarded(f"lanqi {args.command}", verbose, lambda: int(args._run(args)))


def _guarded(where: str, verbose: bool, run: Callable[[], int]) -> int:
    """Run a command: its errors as one line (the traceback with ``-v``), a closed
    pipe as a quiet end."""
    try:
        code = run()
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return _closed_pipe()
    except CliError as exc:
        if verbose:
            log.exception("%s", where)
        print(f"{where}: {exc}", file=sys.stderr)
        return exc.code
    except SecurityError as exc:  # a server not to trust, a key not to be had: one line
        if verbose:
            log.exception("%s", where)
        print(f"{where}: {exc}", file=sys.stderr)
        return 1
    except StoreOpenError as exc:  # a data directory or database we cannot use
        if verbose:
            log.exception("cannot open the store")
        print(f"{where}: cannot start: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # one line for the user; the traceback with -v
        if verbose:
            log.exception("%s failed", where)
        detail = " ".join(str(exc).split()) or type(exc).__name__
        print(f"{where}: {detail} (run with -v for the traceback)", file=sys.stderr)
        return 1
    return code


def _closed_pipe() -> int:
    """The reader went away (``| head``): stop quietly, as ``cat`` does."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())  # the final flush at exit must not fail again
    return 141  # 128 + SIGPIPE, what a shell reports for a writer killed by the pipe


if __name__ == "__main__":
    sys.exit(main())
