"""``lanqi demo``: a whole LAN event on this machine, start to finish.

Starts a server (matchmaker + referee, SQLite in a fresh data directory), puts
built-in bots in the lobby as separate processes, runs a round robin of xiangqi
and one of gomoku at the same time, shows every result as it comes, then the
standings, and writes the exports (PGN, text, CSV, HTML).
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

#: name, bot spec, level: a field from strong to weak
FIELD = [
    ("Tiger", "builtin", 6),
    ("Crane", "builtin", 4),
    ("Monkey", "builtin", 2),
    ("Snake", "random", 1),
    ("Leopard", "builtin", 5),
    ("Mantis", "builtin", 3),
    ("Dragon", "builtin", 7),
    ("Rabbit", "random", 1),
]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bots", type=int, default=4, help=f"players (2-{len(FIELD)}, default 4)")
    parser.add_argument(
        "--variant",
        choices=("both", "xiangqi", "gomoku"),
        default="both",
        help="which tournaments to run (default both, at the same time)",
    )
    parser.add_argument(
        "--move-time",
        type=float,
        default=0.5,
        help="seconds per move (per-move clock; default 0.5)",
    )
    parser.add_argument(
        "--format",
        choices=("round_robin", "double_round_robin", "swiss"),
        default="round_robin",
        help="tournament format (default round_robin)",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="where the server keeps its database and the exports go "
        "(default: a new folder demo-<time> in the lanqi data directory)",
    )
    parser.add_argument(
        "--timeout", type=float, default=900.0, help="give up after this many seconds"
    )


def _spawn_bot(
    entry: tuple[str, str, int], server: str, tournaments: list[str], folder: Path
) -> subprocess.Popen[bytes]:
    name, spec, level = entry
    args = [
        sys.executable,
        "-m",
        "lanqi.cli.main",
        "bot",
        "--server",
        server,
        "--name",
        name,
        "--bot",
        spec,
        "--level",
        str(level),
        "--max-games",
        "2",
        "--session-dir",
        str(folder / "bots"),
    ]
    for tid in tournaments:
        args += ["--tournament", tid]
    log = open(folder / f"bot-{name}.log", "wb")  # noqa: SIM115 - closed with the process
    return subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=os.environ.copy())


def run(args: argparse.Namespace) -> int:
    import logging

    from lanqi.cli.tournament import format_standings
    from lanqi.client.matchmaker import MatchmakerClient
    from lanqi.client.referee import RefereeClient
    from lanqi.paths import data_dir
    from lanqi.protocol import (
        CreateTournament,
        Exported,
        ExportTournament,
        GetStandings,
        Ok,
        Standings,
        StartTournament,
        TimeControl,
        TournamentCreated,
        TournamentEvent,
        TournamentSpec,
    )
    from lanqi.server.embedded import EmbeddedServer

    if not 2 <= args.bots <= len(FIELD):
        print(f"lanqi demo: --bots must be from 2 to {len(FIELD)}", file=sys.stderr)
        return 2
    if args.move_time <= 0:
        print("lanqi demo: --move-time must be positive", file=sys.stderr)
        return 2
    logging.getLogger().setLevel(logging.WARNING)  # the demo prints its own progress
    folder = args.data_dir or data_dir(None) / time.strftime("demo-%Y%m%d-%H%M%S")
    folder.mkdir(parents=True, exist_ok=True)
    key = "demo-director"
    server = EmbeddedServer(
        folder, port=0, pub_port=0, referee_port=0, referee_pub_port=0, director_key=key
    )
    server.start()
    print(f"server up: lobby {server.matchmaker_endpoint}, referee {server.referee.endpoint}")
    print(f"data in {folder}")
    client = MatchmakerClient(server.matchmaker_endpoint, server.matchmaker_pub_endpoint)
    referee = RefereeClient(server.referee.endpoint, server.referee.pub_endpoint)
    variants = ["xiangqi", "gomoku"] if args.variant == "both" else [args.variant]
    tc = TimeControl(kind="per_move", per_move_ms=int(args.move_time * 1000), join_within_ms=60_000)
    tournaments: dict[str, str] = {}
    for variant in variants:
        spec = TournamentSpec(
            name=f"lanqi demo {variant}",
            format=args.format,
            variant=variant,
            time_control=tc,
            forfeit_after_s=60,
        )
        created = client.call(CreateTournament(director_key=key, spec=spec), TournamentCreated)
        tournaments[created.tournament_id] = variant
        client.subscribe(f"tour/{created.tournament_id}")
    field = FIELD[: args.bots]
    bots = [
        _spawn_bot(entry, server.matchmaker_endpoint, list(tournaments), folder) for entry in field
    ]
    print(
        "players: "
        + ", ".join(f"{n} ({s} {lv})" if s != "random" else f"{n} (random)" for n, s, lv in field)
    )
    code = 0
    started = time.monotonic()
    try:
        deadline = started + 60
        for tid in tournaments:
            while True:
                reply = client.call(GetStandings(tournament_id=tid), Standings)
                if len(reply.tournament.players) == len(field):
                    break
                if time.monotonic() > deadline or any(b.poll() is not None for b in bots):
                    raise RuntimeError(f"bots did not all join; see the bot logs in {folder}")
                time.sleep(0.2)
            client.call(StartTournament(tournament_id=tid, director_key=key), Ok)
        print(f"started: {', '.join(f'{v} ({t})' for t, v in tournaments.items())}\n")
        done: set[str] = set()
        seen: set[str] = set()
        while len(done) < len(tournaments):
            if time.monotonic() - started > args.timeout:
                print("lanqi demo: timed out", file=sys.stderr)
                code = 1
                break
            event = client.next_event(1000)
            if not isinstance(event, TournamentEvent):
                continue
            variant = tournaments.get(event.tournament_id, "?")
            if event.kind == "round":
                print(
                    f"[{variant}] round {event.round} paired: "
                    + ", ".join(f"{p.first} - {p.second or 'bye'}" for p in event.pairings)
                )
            for p in event.pairings if event.kind == "result" else []:
                if p.result and p.game_id and p.game_id not in seen:
                    seen.add(p.game_id)
                    snap = referee.sync(p.game_id)
                    print(
                        f"[{variant}] round {p.round}: {p.first} {p.result} {p.second}"
                        f"  ({snap.termination}, {snap.ply} plies)"
                    )
            if event.kind == "finished":
                done.add(event.tournament_id)
        elapsed = time.monotonic() - started
        print(f"\nfinished in {elapsed:.0f} s\n")
        exports = folder / "exports"
        exports.mkdir(exist_ok=True)
        for tid, variant in tournaments.items():
            standing = client.call(GetStandings(tournament_id=tid), Standings)
            print(format_standings(standing) + "\n")
            for fmt in ("pgn", "txt", "csv", "html"):
                text = client.call(ExportTournament(tournament_id=tid, format=fmt), Exported).text
                suffix = fmt if (fmt != "pgn" or variant == "xiangqi") else "txt"
                name = f"{variant}.{suffix}" if fmt == "pgn" else f"{variant}-standings.{fmt}"
                (exports / name).write_text(text, encoding="utf-8")
        print(f"exports (games, standings, crosstable) in {exports}:")
        for path in sorted(exports.iterdir()):
            print(f"  {path}")
    except KeyboardInterrupt:
        code = 130
    except Exception as exc:  # report, then clean up the processes below
        print(f"lanqi demo: {exc}", file=sys.stderr)
        code = 1
    finally:
        for bot in bots:
            if bot.poll() is None:
                bot.send_signal(signal.SIGTERM)
        for bot in bots:
            try:
                bot.wait(timeout=5)
            except subprocess.TimeoutExpired:
                bot.kill()
                bot.wait()
        client.close()
        referee.close()
        server.stop()
    return code
