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
from typing import Any

from lanqi.cli.common import RegistryChoices

#: How the demo names the ways a game ends (the rest: the name with spaces), as the
#: live view and the event's report do.

#: The demo's clock and how long its bots think: the clock is a limit, the think time
#: sets the pace.  What is left is headroom for a busy machine: loaded to three times
#: its cores (or more), a process can wait a second for a CPU now and then, and the
#: move must still reach the referee in time.  A longer clock costs an idle machine
#: nothing.
MOVE_TIME_S = 2.0
THINK_TIME_S = 0.3

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


EXAMPLES = """examples:
  lanqi demo
  lanqi demo --bots 6
"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bots", type=int, default=4, help=f"players (2-{len(FIELD)}, default 4)")
    parser.add_argument(
        "--variant",
        choices=RegistryChoices(first=("both",)),
        default="both",
        help="which tournaments to run (default both, at the same time)",
    )
    parser.add_argument(
        "--move-time",
        type=float,
        default=MOVE_TIME_S,
        help=f"seconds per move (per-move clock; default {MOVE_TIME_S:g})",
    )
    parser.add_argument(
        "--think-time",
        type=float,
        default=THINK_TIME_S,
        help=f"seconds the bots think per move (default {THINK_TIME_S:g}; less than "
        "--move-time, the rest is headroom for a busy machine)",
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
    entry: tuple[str, str, int],
    server: str,
    tournaments: list[str],
    folder: Path,
    think_ms: int,
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
        "--movetime",
        str(think_ms),
        "--max-games",
        "2",
        "--session-dir",
        str(folder / "bots"),
    ]
    for tid in tournaments:
        args += ["--tournament", tid]
    log = open(folder / f"bot-{name}.log", "wb")  # noqa: SIM115 - closed with the process
    # the bots pin the demo server's key in the demo's folder, not the user's data
    env = dict(os.environ, LANQI_DATA_DIR=str(folder))
    return subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=env)


def _describe(entry: tuple[str, str, int]) -> str:
    name, spec, level = entry
    return f"{name} (random moves)" if spec == "random" else f"{name} (built-in AI, level {level})"


def ending(
    variant: str, *, first: str, second: str, result: str, termination: str, ply: int
) -> str:
    """One finished game in words: ``Tiger beat Crane: checkmate at move 40``."""
    from lanqi.games.base import winner_of
    from lanqi.games.registry import variant_spec
    from lanqi.phrases import termination_words

    how = termination_words(termination, variant)
    when = variant_spec(variant).ply_label(ply)
    winner = winner_of(result)
    if winner is None:
        who = f"{first} and {second} drew"
    else:
        who = f"{first} beat {second}" if winner == 0 else f"{second} beat {first}"
    return f"{who}: {how} at {when}"


def _export_name(variant: str, fmt: str) -> str:
    """``xiangqi.pgn``, ``gomoku.txt`` (its record), ``xiangqi-report.html``..."""
    if fmt == "pgn":
        from lanqi.games.registry import variant_spec

        return f"{variant}.{variant_spec(variant).record_suffix}"
    return f"{variant}-{'report' if fmt == 'html' else 'standings'}.{fmt}"


def _live_view(client: Any, referee: Any, tournament_ids: list[str], until: float) -> list[Any]:
    """The dashboard of ``lanqi tournament watch`` for the demo's events."""
    from rich.console import Console

    from lanqi.cli.watch import watch

    console = Console(highlight=False)
    return watch(
        client,
        tournament_ids,
        referee=referee,
        console=console,
        live=True,
        until=until,
    )


class _Progress:
    """A status line rewritten in place on a terminal (nothing when piped), so no
    wait is silent: what is running and for how long."""

    def __init__(self, started: float) -> None:
        self.live = sys.stdout.isatty()
        self.started = started
        self.shown = False

    def show(self, text: str) -> None:
        if self.live:
            elapsed = time.monotonic() - self.started
            sys.stdout.write(f"\r\033[K  {text} ({elapsed:.0f} s)")
            sys.stdout.flush()
            self.shown = True

    def clear(self) -> None:
        """Remove the status line, if one is shown."""
        if self.shown:
            sys.stdout.write("\r\033[K")
            sys.stdout.flush()
            self.shown = False

    def say(self, line: str) -> None:
        """Print a line of the report (over the status line, if one is shown)."""
        self.clear()
        print(line, flush=True)


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
        TourFinished,
        TournamentCreated,
        TournamentEvent,
        TournamentSpec,
        TourResult,
        TourRound,
    )
    from lanqi.server.embedded import EmbeddedServer

    if not 2 <= args.bots <= len(FIELD):
        print(f"lanqi demo: --bots must be from 2 to {len(FIELD)}", file=sys.stderr)
        return 2
    if args.move_time <= 0:
        print("lanqi demo: --move-time must be positive", file=sys.stderr)
        return 2
    if not 0 < args.think_time < args.move_time:
        print("lanqi demo: --think-time must be positive and below --move-time", file=sys.stderr)
        return 2
    logging.getLogger().setLevel(logging.WARNING)  # the demo prints its own progress
    folder = args.data_dir or data_dir(None) / time.strftime("demo-%Y%m%d-%H%M%S")
    folder.mkdir(parents=True, exist_ok=True)
    variants = list(RegistryChoices()) if args.variant == "both" else [args.variant]
    field = FIELD[: args.bots]
    kind = args.format.replace("_", " ")
    print(
        f"lanqi demo: {len(field)} bots play a {kind} of {' and one of '.join(variants)} "
        f"on this machine, {args.move_time:g} s per move (the bots think "
        f"{args.think_time:g} s of it)",
        flush=True,
    )
    key = "demo-director"
    server = EmbeddedServer(
        folder, port=0, pub_port=0, referee_port=0, referee_pub_port=0, director_key=key
    )
    server.start()
    print(f"server: lobby {server.matchmaker_endpoint}, referee {server.referee.endpoint}")
    print(f"data, bot logs and exports go to {folder}")
    link = server.client_link()
    client = MatchmakerClient(server.matchmaker_endpoint, server.matchmaker_pub_endpoint, link=link)
    referee = RefereeClient(server.referee.endpoint, server.referee.pub_endpoint, link=link)
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
    think_ms = max(10, int(args.think_time * 1000))
    bots = [
        _spawn_bot(entry, server.matchmaker_endpoint, list(tournaments), folder, think_ms)
        for entry in field
    ]
    print("players: " + ", ".join(_describe(entry) for entry in field))
    print("starting the bots: each checks that it can play, then joins...", flush=True)
    code = 0
    started = time.monotonic()
    progress = _Progress(started)
    try:
        deadline = started + 60
        for tid in tournaments:
            while True:
                reply = client.call(GetStandings(tournament_id=tid), Standings)
                joined = len(reply.tournament.players)
                if joined == len(field):
                    break
                for entry, bot in zip(field, bots, strict=True):
                    if bot.poll() is not None:
                        raise RuntimeError(
                            f"the bot {entry[0]} stopped before it joined; "
                            f"see {folder / f'bot-{entry[0]}.log'}"
                        )
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"the bots did not all join in 60 s; see the logs in {folder}"
                    )
                progress.show(f"{joined} of {len(field)} bots joined")
                time.sleep(0.2)
            client.call(StartTournament(tournament_id=tid, director_key=key), Ok)
        names = " and ".join(f"{v} (tournament {t})" for t, v in tournaments.items())
        progress.say(f"all {len(field)} bots joined; started {names}")
        progress.say("in each pairing the first player moves first (Red, or Black in gomoku)\n")
        done: set[str] = set()
        seen: set[str] = set()
        if progress.live:  # a terminal: the director's live view, the same as `watch`
            states = _live_view(client, referee, list(tournaments), started + args.timeout)
            done = {s.tournament_id for s in states if s.finished}
            seen = {g for s in states for g in s.terminations}
            if len(done) < len(tournaments):
                print(
                    f"lanqi demo: gave up after {args.timeout:g} s with games still running; "
                    f"raise --timeout, or see the bot logs in {folder}",
                    file=sys.stderr,
                )
                code = 1
        while len(done) < len(tournaments) and code == 0:
            if time.monotonic() - started > args.timeout:
                progress.clear()
                print(
                    f"lanqi demo: gave up after {args.timeout:g} s with games still running; "
                    f"raise --timeout, or see the bot logs in {folder}",
                    file=sys.stderr,
                )
                code = 1
                break
            progress.show(f"playing: {len(seen)} games finished")
            event = client.next_event(1000)
            if not isinstance(event, TournamentEvent):
                continue
            variant = tournaments.get(event.tournament_id, "?")
            if isinstance(event, TourRound):
                progress.say(
                    f"[{variant}] round {event.round}: "
                    + ", ".join(f"{p.first} - {p.second or '(bye)'}" for p in event.pairings)
                )
            for p in event.pairings if isinstance(event, TourResult) else []:
                if p.result and p.game_id and p.game_id not in seen:
                    seen.add(p.game_id)
                    snap = referee.sync(p.game_id)
                    text = ending(
                        variant,
                        first=p.first or "",
                        second=p.second or "",
                        result=p.result,
                        termination=snap.termination or "",
                        ply=snap.ply,
                    )
                    progress.say(f"[{variant}] round {p.round}: {text}")
            if isinstance(event, TourFinished):
                done.add(event.tournament_id)
        elapsed = time.monotonic() - started
        progress.say(f"\nall {len(seen)} games finished in {elapsed:.0f} s\n")
        exports = folder / "exports"
        exports.mkdir(exist_ok=True)
        for tid, variant in tournaments.items():
            standing = client.call(GetStandings(tournament_id=tid), Standings)
            if not progress.live:  # the live view printed the final standings already
                print(format_standings(standing) + "\n")
            for fmt in ("pgn", "txt", "csv", "html"):
                text = client.call(ExportTournament(tournament_id=tid, format=fmt), Exported).text
                (exports / _export_name(variant, fmt)).write_text(text, encoding="utf-8")
        print(f"games and standings (text, CSV, HTML) are in {exports}:")
        for path in sorted(exports.iterdir()):
            print(f"  {path.name}")
        for variant in tournaments.values():
            report = exports / _export_name(variant, "html")
            print(f"the {variant} event's report (open it in a browser): {report}")
    except KeyboardInterrupt:
        progress.clear()
        print("lanqi demo: interrupted; stopping the bots and the server", file=sys.stderr)
        code = 130
    except Exception as exc:  # report, then clean up the processes below
        progress.clear()
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
