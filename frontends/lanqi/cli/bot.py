"""``lanqi bot``: put a bot or an engine in the lobby; it plays seeks, challenges, tournaments.

One bot from the command line, or several from a TOML file::

    [[bot]]
    name = "Pikachess"
    bot = "uci:/usr/games/fairy-stockfish"
    options = { Threads = 1, "Skill Level" = 5 }
    max_games = 2

    [[bot]]
    name = "Tiger"
    bot = "builtin"
    level = 6
    tournaments = ["<tournament id>"]
"""

from __future__ import annotations

import argparse
import logging
import sys
import threading
import time
import tomllib
from pathlib import Path
from typing import Any

from lanqi.cli.common import (
    CliError,
    RegistryChoices,
    add_server_flag,
    ai_level,
    int_in,
    resolve_server,
    server_endpoint,
)

log = logging.getLogger(__name__)

EXAMPLES = """examples:
  lanqi bot --name Tiger --level 6 --seek xiangqi --server 192.168.1.20
  LANQI_SERVER=192.168.1.20 lanqi bot --name Fairy --engine uci:/usr/games/fairy-stockfish
  lanqi bot --config bots.toml
"""


def configure(parser: argparse.ArgumentParser) -> None:
    add_server_flag(parser)
    parser.add_argument("--name", default=None, help="the bot's name in the lobby")
    parser.add_argument(
        "--claim",
        default=None,
        metavar="CODE",
        help="claim code the director gave for --name (lanqi tournament join prints it)",
    )
    parser.add_argument(
        "--bot",
        default="builtin",
        help="builtin, xiangqi-ai, gomoku-ai, random, greedy, uci:PROGRAM, ucci:PROGRAM, "
        "gomocup:PROGRAM or python:module:Class (default builtin)",
    )
    parser.add_argument(
        "--engine",
        default=None,
        help="same as --bot for an engine, e.g. uci:/usr/games/fairy-stockfish",
    )
    parser.add_argument(
        "--level",
        type=ai_level,
        default=5,
        help="built-in AI level, 1 (weak) up (each game's AI takes it up to its strongest)",
    )
    parser.add_argument("--depth", type=int, default=None, help="fixed search depth (AI, UCI)")
    parser.add_argument(
        "--movetime", type=int, default=None, help="fixed time per move in ms (engines, AI)"
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="engine option (UCI setoption) or constructor argument (python:)",
    )
    parser.add_argument("--seed", type=int, default=None, help="random seed")
    parser.add_argument("--max-games", type=int_in(1, 64), default=2, help="games played at once")
    parser.add_argument(
        "--tournament", action="append", default=[], metavar="ID", help="join this tournament"
    )
    parser.add_argument(
        "--seek",
        choices=RegistryChoices(),
        default=None,
        help="keep a seek open for this game while idle",
    )
    parser.add_argument("--bots-only", action="store_true", help="decline humans' challenges")
    parser.add_argument("--humans-only", action="store_true", help="decline bots' challenges")
    parser.add_argument(
        "--config", type=Path, default=None, help="TOML file with several [[bot]] entries"
    )
    parser.add_argument(
        "--referee-host",
        default=None,
        help="reach referees through this host name instead of the one the matchmaker "
        "advertises (inside a compose network: referee)",
    )
    parser.add_argument(
        "--session-dir",
        type=Path,
        default=None,
        help="where sessions are kept so a restarted bot is the same player "
        "(default: the data directory)",
    )


def _entry_server(entry: dict[str, Any], default: str) -> str:
    """A config entry's own ``server`` (normalised; ``auto``: the one heard on the
    LAN), else the command's."""
    given = entry.get("server")
    return resolve_server(str(given), "server") if given else default


def _options(pairs: list[str]) -> dict[str, object]:
    options: dict[str, object] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise ValueError(f"option {pair!r} must be KEY=VALUE")
        options[key.strip()] = value.strip()
    return options


def _entries(args: argparse.Namespace) -> list[dict[str, Any]]:
    if args.config is not None:
        data = tomllib.loads(args.config.read_text(encoding="utf-8"))
        bots = data.get("bot", [])
        if not isinstance(bots, list) or not bots:
            raise ValueError(f"{args.config}: no [[bot]] entries")
        return [dict(b) for b in bots]
    spec = args.engine or args.bot
    return [
        {
            "name": args.name or spec.partition(":")[0].replace("/", "-"),
            "bot": spec,
            "level": args.level,
            "depth": args.depth,
            "movetime": args.movetime,
            "options": _options(args.option),
            "seed": args.seed,
            "max_games": args.max_games,
            "tournaments": list(args.tournament),
            "claim": args.claim,
            "seek": args.seek,
            "accept_humans": not args.bots_only,
            "accept_bots": not args.humans_only,
        }
    ]


#: Self-check positions: a few moves into a game, so the bot must really search
#: (an opening book or a centre stone would prove nothing), under every gomoku rule;
#: any other variant's start position.
SELF_CHECK: dict[str, list[tuple[dict[str, str], list[str]]]] = {
    "xiangqi": [({}, ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0"])],
    "gomoku": [
        ({"rule": rule}, ["h8", "h9", "i8", "g8", "i9", "j10", "g7"])
        for rule in ("freestyle", "standard", "renju")
    ],
}
SELF_CHECK_MOVE_MS = 500


def _self_check(make: Any, variants: tuple[str, ...]) -> str | None:
    """Start the bot and have it move in a real position of each game and rule, on a
    clock, before it enters the lobby: an engine that will not run fails here, not at
    its first game, and set-up work (the gomoku AI's pattern tables, an engine's
    start) is done off every game's clock.  Returns what the bot says it is (an
    engine's ``id name``), learnt on the way."""
    from lanqi.bot.base import SeatView, clock_margin_ms

    probe = make()
    try:
        for variant in variants:
            for options, moves in SELF_CHECK.get(variant, [({}, [])]):
                state = SeatView.start(
                    variant, options=options, moves=moves, per_move_ms=SELF_CHECK_MOVE_MS
                )
                margin = clock_margin_ms(SELF_CHECK_MOVE_MS, per_move=True)
                started = time.monotonic()
                state.deadline = started + (SELF_CHECK_MOVE_MS - margin) / 1000
                move = probe.choose_move(state)
                took_ms = (time.monotonic() - started) * 1000
                if move not in state.legal_moves():
                    raise ValueError(
                        f"self-check: the bot played {move!r}, not a legal {variant} move"
                    )
                rule = f" ({options['rule']})" if "rule" in options else ""
                note = f"self-check {variant}{rule}: played {move} in {took_ms:.0f} ms"
                if took_ms > SELF_CHECK_MOVE_MS:
                    log.warning("%s, over a %d ms clock", note, SELF_CHECK_MOVE_MS)
                else:
                    log.info("%s", note)
        engine: str | None = probe.engine_id()
        return engine
    finally:
        probe.close()


def run(args: argparse.Namespace) -> int:
    from lanqi.bot.catalog import bot_factory, variants_of
    from lanqi.bot.engines.process import EngineError
    from lanqi.bot.runner import BotRunner, Policy
    from lanqi.cli.servers import on_signals
    from lanqi.paths import data_dir
    from lanqi.protocol import Seek

    server = server_endpoint(args)
    try:
        entries = _entries(args)
        runners = []
        stop = threading.Event()
        sessions = args.session_dir or data_dir(None) / "bots"
        for entry in entries:
            spec = str(entry.get("bot", "builtin"))
            name = str(entry.get("name") or spec)
            make = bot_factory(
                spec,
                level=int(entry.get("level", 5)),
                seed=entry.get("seed"),
                options=entry.get("options") or {},
                depth=entry.get("depth"),
                movetime=entry.get("movetime"),
            )
            variants = variants_of(spec)
            engine = _self_check(make, variants)
            seek_variant = entry.get("seek")
            policy = Policy(
                variants=variants,
                max_games=int(entry.get("max_games", 2)),
                accept_humans=bool(entry.get("accept_humans", True)),
                accept_bots=bool(entry.get("accept_bots", True)),
                seek=Seek(variant=str(seek_variant)) if seek_variant else None,
                tournaments=tuple(entry.get("tournaments", ())),
            )
            runners.append(
                BotRunner(
                    make_bot=make,
                    matchmaker=_entry_server(entry, server),
                    name=name,
                    policy=policy,
                    session_file=sessions / f"{name}.session",
                    claim=entry.get("claim"),
                    engine=engine,
                    referee_host=args.referee_host,
                    stop=stop,
                )
            )
    except EngineError as exc:
        raise CliError(f"{exc}; check the program given with --engine/--bot", 1) from None
    except (ValueError, OSError, tomllib.TOMLDecodeError) as exc:
        raise CliError(str(exc)) from None
    on_signals(stop.set)
    threads = [threading.Thread(target=r.run, name=f"bot-{r.name}", daemon=True) for r in runners]
    for thread in threads:
        thread.start()
    print(
        f"{len(runners)} bot(s) on {server}: {', '.join(r.name for r in runners)} "
        "(connecting to the server)",
        flush=True,
    )
    try:
        while not stop.wait(0.5):
            if not any(t.is_alive() for t in threads):
                break
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=5)
    failures = [f"{r.name}: {r.failure}" for r in runners if r.failure]
    for failure in failures:
        print(f"lanqi bot: {failure}", file=sys.stderr)
    return 1 if failures else 0
