"""``lanqi gui``: the pygame GUI (needs the ``gui`` extra: ``pip install 'lanqi[gui]'``).

::

    lanqi gui                                   # the menu
    lanqi gui --offline xiangqi --ai 4          # against the built-in AI, level 4
    lanqi gui --offline gomoku                  # two players on one computer
  lanqi gui --offline gomoku --option size=19 --option rule=renju
    lanqi gui --server tcp://host:5050 --name Alice   # straight to the lobby
    lanqi gui --review game.pgn                 # step through a record
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path

from lanqi.cli.common import (
    SERVER_ENV,
    CliError,
    RegistryChoices,
    ai_level,
    endpoint_arg,
    resolve_server,
)
from lanqi.protocol.endpoints import (
    ENDPOINT_FORMS,
    MATCHMAKER_PUB_PORT,
    REFEREE_PORT,
    REFEREE_PUB_PORT,
)
from lanqi.protocol.timecontrol import TIME_FORMS, parse_time_control

EXAMPLES = """examples:
  lanqi gui --server 192.168.1.20 --name Alice      # straight to the lobby
  lanqi gui --server auto --name Alice              # the one server heard on the LAN
  lanqi gui --offline xiangqi --ai 4                # against the built-in AI
"""


def _time(text: str) -> str:
    try:
        parse_time_control(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--server",
        default=argparse.SUPPRESS,
        metavar="ADDRESS",
        help=f"the matchmaker, to connect to its lobby: {ENDPOINT_FORMS}, or auto for the one"
        f" server heard on the LAN (default: ${SERVER_ENV}, else the menu; the connect screen"
        " lists the servers heard)",
    )
    parser.add_argument("--name", default=None, help="your name in the lobby")
    parser.add_argument(
        "--events",
        type=endpoint_arg(MATCHMAKER_PUB_PORT),
        default=None,
        help="matchmaker event endpoint (default: the one the server names)",
    )
    parser.add_argument(
        "--referee",
        type=endpoint_arg(REFEREE_PORT),
        default=None,
        help="one more referee to list and watch games on, for this run (default: only the ones"
        " the server names)",
    )
    parser.add_argument(
        "--referee-events",
        type=endpoint_arg(REFEREE_PUB_PORT),
        default=None,
        help="referee event endpoint (default: the referee's port + 1)",
    )
    parser.add_argument(
        "--offline",
        choices=RegistryChoices(),
        default=None,
        help="play on this computer: two players, or against the AI with --ai",
    )
    parser.add_argument(
        "--ai",
        type=ai_level,
        default=None,
        metavar="LEVEL",
        help="built-in AI level, 1 (weak) up (each game's AI takes it up to its strongest)",
    )
    parser.add_argument(
        "--side",
        choices=("first", "second"),
        default="first",
        help="your side against the AI: first (Red / Black stones) or second",
    )
    parser.add_argument(
        "--fen",
        default=None,
        help="start an offline game from this position (a gomoku position sets the board size)",
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an option of the offline game, e.g. --option size=19 --option rule=renju (gomoku)",
    )
    parser.add_argument(
        "--time",
        type=_time,
        default=None,
        help=f"clock of offline games: {TIME_FORMS}",
    )
    parser.add_argument(
        "--ai-time", type=int, default=None, metavar="MS", help="the AI's thinking time per move"
    )
    parser.add_argument("--review", type=Path, default=None, help="open a PGN or gomoku record")
    parser.add_argument("--size", default="1180x780", help="window size WIDTHxHEIGHT")
    parser.add_argument(
        "--data-dir", default=None, help="where settings and saved games live (default: per user)"
    )


def _size(text: str) -> tuple[int, int]:
    width, _, height = text.lower().partition("x")
    return max(640, int(width)), max(480, int(height))


def _offline_options(variant: str | None, pairs: list[str], fen: str | None) -> dict[str, object]:
    """The ``--option`` pairs, checked with the rules (and ``--fen``) before a window opens."""
    from lanqi.cli.tournament import parse_option
    from lanqi.games.registry import create_game

    try:
        options = dict(parse_option(pair) for pair in pairs)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if variant is None:
        if options or fen:
            raise CliError("--option and --fen are for offline games: add --offline VARIANT")
        return options
    try:
        create_game(variant, **options, **({"fen": fen} if fen else {}))
    except ValueError as exc:
        raise CliError(str(exc)) from None
    return options


def run(args: argparse.Namespace) -> int:
    if importlib.util.find_spec("pygame") is None:
        print(
            "lanqi gui: pygame is not installed; install the GUI extra: pip install 'lanqi[gui]'",
            file=sys.stderr,
        )
        return 2
    # pygame greets on import ("Hello from the pygame community"); lanqi's output is its own
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    from lanqi.gui.app import App, AppConfig
    from lanqi.paths import data_dir

    try:
        size = _size(args.size)
    except ValueError:
        raise CliError(f"bad --size {args.size!r}: use WIDTHxHEIGHT, e.g. 1180x780") from None
    server = getattr(args, "server", None) or os.environ.get(SERVER_ENV) or None
    if server:
        server = resolve_server(server)  # "auto": the one server heard on the LAN
    # --ai alone: the first registered game (xiangqi)
    offline = args.offline or (RegistryChoices()[0] if args.ai is not None else None)
    options = _offline_options(offline, args.option, args.fen)
    config = AppConfig(
        data_dir=data_dir(args.data_dir),
        server=server,
        events=args.events,
        referee=args.referee,
        referee_events=args.referee_events,
        name=args.name,
        offline=offline,
        options=options,
        ai=args.ai,
        side=args.side,
        fen=args.fen,
        time=args.time,
        ai_time_ms=args.ai_time,
        review=args.review,
        size=size,
        connect=bool(server and args.name),
    )
    app = App(config)
    return app.run()
