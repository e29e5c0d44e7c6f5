"""Entry point of the ``lanqi`` console script.

Each subcommand lives in its own module under ``lanqi.cli`` with two functions:
``configure(parser)`` adds its arguments and ``run(args) -> int`` does the work
(heavy imports happen inside ``run``, so ``lanqi --help`` stays fast).
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence

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
    "tournament": (
        "lanqi.cli.tournament",
        "run a tournament: create, join, start, standings, export",
    ),
    "bot": ("lanqi.cli.bot", "put a bot or an engine in the lobby (UCI, UCCI, Gomocup, built-in)"),
    "referee": ("lanqi.cli.referee", "run the referee service (authoritative games)"),
    "matchmaker": ("lanqi.cli.matchmaker", "run the matchmaker (lobby, tournaments) on its own"),
    "bench": ("lanqi.cli.bench", "benchmarks: movegen, referee, tournament, strength"),
    "match": ("lanqi.cli.match", "engine matches like cutechess-cli: openings, adjudication, SPRT"),
}

#: commands that take cutechess-style arguments (``-engine k=v ...``) argparse cannot read
RAW_COMMANDS = ("match",)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lanqi",
        description="lanqi: LAN game server for Xiangqi (Chinese chess) and Gomoku.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        module = importlib.import_module(module_name)
        command = sub.add_parser(name, help=help_text, description=help_text)
        module.configure(command)
        command.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    leading = [w for w in words[:2] if w in ("-v", "--verbose")]
    rest = words[len(leading) :]
    if rest and rest[0] in RAW_COMMANDS:
        logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        module = importlib.import_module(COMMANDS[rest[0]][0])
        try:
            code: int = module.run_argv(rest[1:], verbose=bool(leading))
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
            return 130
        return code
    parser = build_parser()
    args = parser.parse_args(words)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    try:
        code = args._run(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except StoreOpenError as exc:  # a data directory or database we cannot use
        if args.verbose:
            log.exception("cannot open the store")
        print(f"lanqi {args.command}: cannot start: {exc}", file=sys.stderr)
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
