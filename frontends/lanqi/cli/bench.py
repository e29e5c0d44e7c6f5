"""``lanqi bench``: benchmarks.

``lanqi bench movegen`` times perft (see lanqi.bench.movegen); ``lanqi bench referee``
loads a referee process with many concurrent games (see lanqi.bench.referee);
``lanqi bench tournament`` plays a round robin of random bots through a real server
(see lanqi.bench.tournament); ``lanqi bench pairing`` times one Swiss round of each
pairing system (see lanqi.bench.pairing); ``lanqi bench gui-idle`` reads what an untouched GUI
window costs (see lanqi.bench.gui_idle); ``lanqi bench match`` sets ``lanqi match`` beside a
direct-pipe runner (see lanqi.bench.match); ``lanqi bench crowd`` connects a thousand players
to one matchmaker and two referees (see lanqi.bench.crowd); ``lanqi bench soak`` runs a long
evening at full speed and judges whether the services' memory, descriptors and stores stay
flat (see lanqi.bench.soak).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from lanqi.cli.common import RegistryChoices

EXAMPLES = """examples:
  lanqi bench movegen
  lanqi bench referee --curve             # what CURVE encryption costs the referee
  lanqi bench tournament --players 8
  lanqi bench pairing --sizes 16,64,128
  lanqi bench gui-idle --seconds 10
  lanqi bench seat --before c672c11
  lanqi bench match --games 10 --nodes 1000   # lanqi match beside a direct-pipe runner
  lanqi bench match --tc 2+0.02 --concurrency 2   # time losses at 2 games at once
  lanqi bench crowd                           # 1,000 players, a 256-player Swiss
  lanqi bench crowd --players 1000 --double   # 1,000, 2,000, ... until something breaks
  lanqi bench soak --minutes 120 --samples soak.jsonl
"""


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="bench", metavar="BENCHMARK")
    strength = sub.add_parser(
        "strength",
        help="built-in AIs against Fairy-Stockfish (xiangqi) and greedy/random (gomoku)",
        description="Score, Elo difference with a 95%% interval and time per move of the "
        "built-in xiangqi AI against Fairy-Stockfish at fixed depths, and of the gomoku AI "
        "against the greedy one-ply player and the random player.",
    )
    strength.add_argument("--games", type=int, default=10, help="xiangqi games per depth")
    strength.add_argument(
        "--depths", default="3,5,7", help="Fairy-Stockfish depths, comma separated (default 3,5,7)"
    )
    strength.add_argument(
        "--move-ms", type=int, default=1000, help="the AIs' time per move in ms (default 1000)"
    )
    strength.add_argument("--level", type=int, default=8, help="xiangqi AI level (default 8)")
    strength.add_argument(
        "--gomoku-games", type=int, default=20, help="gomoku games against greedy (default 20)"
    )
    strength.add_argument(
        "--gomoku-engine",
        default=None,
        metavar="gomocup:PATH",
        help="also play the gomoku AI against this Gomocup brain (--gomoku-games games)",
    )
    movegen = sub.add_parser(
        "movegen",
        help="perft nodes per second of the xiangqi move generator (and of cchess if installed)",
        description="Perft nodes per second from the start and two middle games, "
        "next to the cchess package when it is importable.",
    )
    movegen.add_argument(
        "--depth",
        type=int,
        default=None,
        help="perft depth of every figure, 1-6 (default: the deepest that fits the budget; "
        "cchess takes minutes from depth 4)",
    )
    movegen.add_argument(
        "--seconds",
        type=float,
        default=2.0,
        help="time budget per figure, in seconds (default 2)",
    )
    movegen.add_argument(
        "--no-cchess", action="store_true", help="time lanqi only, even if cchess is installed"
    )
    referee = sub.add_parser(
        "referee",
        help="moves per second and move latency of a referee process with many games in flight",
        description="Start a referee process, play many scripted games on it at once and "
        "time every move and its event; then the same load against a do-nothing server "
        "(the raw ceiling); then both again at a paced load, for the latency target.  "
        "See docs/bench.md.",
    )
    referee.add_argument(
        "--games", type=int, default=64, help="games in flight at once (default 64)"
    )
    referee.add_argument(
        "--moves-per-game",
        type=int,
        default=None,
        metavar="N",
        help="moves each game table sends at most, across the games it plays one after "
        "another (default: no cap, --seconds decides)",
    )
    referee.add_argument(
        "--seconds",
        type=float,
        default=8.0,
        help="time budget of each measurement (two, or four with the paced phase), "
        "in seconds (default 8)",
    )
    referee.add_argument(
        "--variant",
        choices=RegistryChoices(),
        default="xiangqi",
        help="game to play (default xiangqi)",
    )
    referee.add_argument(
        "--durable",
        action="store_true",
        help="run the referee with --durable (fsync every commit)",
    )
    referee.add_argument(
        "--think-ms",
        type=float,
        default=0.0,
        metavar="T",
        help="wait this long after a move is accepted before sending the next one "
        "(default 0: every game always has a move in flight, which saturates the referee; "
        "above 0 the run is one paced pair, with no paced phase)",
    )
    referee.add_argument(
        "--paced-think-ms",
        type=float,
        default=20.0,
        metavar="T",
        help="after the saturated measurements, measure the referee and the raw server "
        "again with this think time (on average, per table) and judge the p99 round trip "
        "target there (default 20; 0 leaves the paced phase out)",
    )
    referee.add_argument(
        "--seed", type=int, default=1, help="seed of the random scripted games (default 1)"
    )
    referee.add_argument(
        "--curve",
        action="store_true",
        help="measure the referee and the raw ceiling with CURVE encryption too (the load's"
        " sockets speak it), beside their plain runs, in each phase: what CURVE costs",
    )
    _configure_flood(referee)
    _configure_tournament(sub)
    _configure_pairing(sub)
    _configure_gui_idle(sub)
    _configure_seat(sub)
    _configure_web(sub)
    _configure_match(sub)
    _configure_crowd(sub)
    _configure_soak(sub)


def _progress(line: str) -> None:
    """A long benchmark's progress line, on stderr (the figures go to stdout)."""
    print(f"  {line}", file=sys.stderr, flush=True)


def _run_strength(args: argparse.Namespace) -> int:
    from lanqi.bench.strength import format_report, run_strength

    try:
        depths = tuple(int(d) for d in str(args.depths).split(",") if d.strip())
    except ValueError:
        print("lanqi bench strength: --depths takes numbers like 3,5,7", file=sys.stderr)
        return 2
    if args.games < 1 or args.gomoku_games < 1 or args.move_ms < 10 or not depths:
        print("lanqi bench strength: games >= 1, --move-ms >= 10, some depth", file=sys.stderr)
        return 2
    from lanqi.bot.engines import EngineError

    try:
        reports = run_strength(
            games=args.games,
            move_ms=args.move_ms,
            depths=depths,
            level=args.level,
            gomoku_games=args.gomoku_games,
            gomoku_engine=args.gomoku_engine,
        )
    except (EngineError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        print(f"lanqi bench strength: {first}", file=sys.stderr)
        return 2
    print(format_report(reports))
    return 0


def run(args: argparse.Namespace) -> int:
    if args.bench == "strength":
        return _run_strength(args)
    if args.bench == "tournament":
        return _run_tournament(args)
    if args.bench == "pairing":
        return _run_pairing(args)
    if args.bench == "referee":
        return _run_referee(args)
    if args.bench == "gui-idle":
        return _run_gui_idle(args)
    if args.bench == "seat":
        return _run_seat(args)
    if args.bench == "web":
        return _run_web(args)
    if args.bench == "match":
        return _run_match(args)
    if args.bench == "crowd":
        return _run_crowd(args)
    if args.bench == "soak":
        return _run_soak(args)
    if args.bench != "movegen":
        print(
            "lanqi bench: name a benchmark: movegen, referee, tournament, pairing, strength, "
            "gui-idle, seat, web, match, crowd, soak",
            file=sys.stderr,
        )
        return 2
    from lanqi.bench.movegen import find_cchess, format_report, run_movegen

    if args.depth is not None and not 1 <= args.depth <= 6:
        print(
            f"lanqi bench movegen: --depth must be from 1 to 6, not {args.depth}", file=sys.stderr
        )
        return 2
    if not 0 < args.seconds <= 600:
        print("lanqi bench movegen: --seconds must be above 0 and at most 600", file=sys.stderr)
        return 2
    rival = None if args.no_cchess else find_cchess()
    missing = None
    if rival is None:
        missing = (
            "cchess left out (--no-cchess)"
            if args.no_cchess
            else "cchess is not installed (pip install 'lanqi[bench]')"
        )
    report = run_movegen(seconds=args.seconds, depth=args.depth, rival=rival, rival_missing=missing)
    print(format_report(report))
    return 0 if all(f.problem is None for f in report.figures) else 1


def _configure_flood(referee: argparse.ArgumentParser) -> None:
    referee.add_argument(
        "--flood",
        action="store_true",
        help="instead: time another client's requests without and with one client "
        "flooding the referee with bad messages (fairness; see docs/bench.md)",
    )
    referee.add_argument(
        "--flood-probes",
        type=int,
        default=500,
        metavar="N",
        help="with --flood: timed requests in each phase (default 500)",
    )
    referee.add_argument(
        "--flood-window",
        type=int,
        default=500,
        metavar="N",
        help="with --flood: bad requests kept in flight (default 500)",
    )


def _run_flood(args: argparse.Namespace) -> int:
    from lanqi.bench.flood import FloodConfig, format_flood_report, run_flood_bench

    try:
        config = FloodConfig(probes=args.flood_probes, window=args.flood_window, seed=args.seed)
    except ValueError as exc:
        print(f"lanqi bench referee: {exc}", file=sys.stderr)
        return 2
    report = run_flood_bench(config, lambda line: print(f"  {line}", file=sys.stderr, flush=True))
    print(format_flood_report(report))
    return 0 if report.ok else 1


def _run_referee(args: argparse.Namespace) -> int:
    if args.flood and args.curve:
        print("lanqi bench referee: --flood runs plain (--insecure); drop --curve", file=sys.stderr)
        return 2
    if args.flood:
        return _run_flood(args)
    from lanqi.bench.referee import RefereeBenchConfig, format_report, run_referee_bench

    try:
        config = RefereeBenchConfig(
            games=args.games,
            moves_per_game=args.moves_per_game,
            seconds=args.seconds,
            variant=args.variant,
            durable=args.durable,
            seed=args.seed,
            think_ms=args.think_ms,
            paced_think_ms=args.paced_think_ms,
            curve=args.curve,
        )
    except ValueError as exc:
        print(f"lanqi bench referee: {exc}", file=sys.stderr)
        return 2

    report = run_referee_bench(config, _progress)
    print(format_report(report))
    return 0 if report.ok else 1


def _configure_pairing(sub: Any) -> None:
    pairing = sub.add_parser(
        "pairing",
        help="seconds per Swiss round of each pairing system (dutch, dutch-2017, lanqi)",
        description="Play random Swiss events in memory and time one round's pairing by "
        "each system, side by side, on the same histories.  See docs/bench.md.",
    )
    pairing.add_argument(
        "--sizes",
        default="16,64,128,256",
        help="field sizes, comma separated (default 16,64,128,256)",
    )
    pairing.add_argument(
        "--systems", default="dutch,dutch-2017,lanqi", help="systems, comma separated (default all)"
    )
    pairing.add_argument("--rounds", type=int, default=5, help="rounds per event, 2-20 (default 5)")
    pairing.add_argument("--seed", type=int, default=1, help="seed of the results (default 1)")


def _run_pairing(args: argparse.Namespace) -> int:
    from lanqi.bench.pairing import SYSTEMS, format_report, run_pairing_bench

    try:
        sizes = [int(x) for x in args.sizes.split(",") if x.strip()]
    except ValueError:
        print("lanqi bench pairing: --sizes takes numbers, e.g. 16,64", file=sys.stderr)
        return 2
    systems = [x.strip() for x in args.systems.split(",") if x.strip()]
    unknown = [s for s in systems if s not in SYSTEMS]
    if unknown or not systems:
        print(f"lanqi bench pairing: --systems from {', '.join(SYSTEMS)}", file=sys.stderr)
        return 2
    if not sizes or any(not 4 <= n <= 1000 for n in sizes) or not 2 <= args.rounds <= 20:
        print("lanqi bench pairing: sizes 4-1000 and rounds 2-20", file=sys.stderr)
        return 2

    report = run_pairing_bench(sizes, systems, args.rounds, args.seed, _progress)
    print(format_report(report))
    return 0


def _configure_tournament(sub: Any) -> None:
    tournament = sub.add_parser(
        "tournament",
        help="games per minute of a whole round robin of random bots through a real server",
        description="Start `lanqi serve` and random-move bots (`lanqi bot` processes), play a "
        "double round robin at full speed (16 players: 240 games), and print games per "
        "minute, moves per second and how the CPU time splits between the services and the "
        "bots.  See docs/bench.md.",
    )
    tournament.add_argument(
        "--players", type=int, default=16, help="bots in the event, 2-64 (default 16)"
    )
    tournament.add_argument(
        "--variant",
        choices=RegistryChoices(),
        default="xiangqi",
        help="game to play (default xiangqi)",
    )
    tournament.add_argument(
        "--single", action="store_true", help="a single round robin (default: double)"
    )
    tournament.add_argument(
        "--bot-processes",
        type=int,
        default=1,
        metavar="N",
        help="spread the bots over N `lanqi bot` processes (default 1)",
    )
    tournament.add_argument(
        "--timeout",
        type=float,
        default=900.0,
        help="give up if the event is not finished after this many seconds (default 900)",
    )
    tournament.add_argument("--seed", type=int, default=1, help="seed of the bots (default 1)")


def _run_tournament(args: argparse.Namespace) -> int:
    from lanqi.bench.tournament import TournamentBenchConfig, format_report, run_tournament_bench

    try:
        config = TournamentBenchConfig(
            players=args.players,
            variant=args.variant,
            single=args.single,
            bot_processes=args.bot_processes,
            timeout_s=args.timeout,
            seed=args.seed,
        )
    except ValueError as exc:
        print(f"lanqi bench tournament: {exc}", file=sys.stderr)
        return 2

    report = run_tournament_bench(config, _progress)
    print(format_report(report))
    return 0 if report.ok else 1


def _configure_seat(sub: Any) -> None:
    seat = sub.add_parser(
        "seat",
        help="a move's way from one seat to the other: bot runners and GUI agents",
        description="Against a referee subprocess on loopback, in one process: the time "
        "from a bot's decision to the opponent's runner seeing the move, and from a GUI "
        "agent's click to the move event back, p50/p99 at several numbers of games at "
        "once, next to a bare DEALER/SUB round trip measured in the same run; the bot "
        "runner's CPU time per game.  --before runs the same on an older revision.",
    )
    seat.add_argument(
        "--games", default="1,16,64", help="games at once, comma separated (default 1,16,64)"
    )
    seat.add_argument("--plies", type=int, default=24, help="plies per game (default 24)")
    seat.add_argument(
        "--before",
        metavar="REV",
        default=None,
        help="also measure the code of this git revision (git archive of this checkout)",
    )


def _run_seat(args: argparse.Namespace) -> int:
    from lanqi.bench.seat import format_figure, measure, measure_before

    try:
        games = [int(g) for g in args.games.split(",")]
    except ValueError:
        print("lanqi bench seat: --games takes numbers, e.g. 1,16,64", file=sys.stderr)
        return 2
    if not games or min(games) < 1 or max(games) > 256 or not 2 <= args.plies <= 200:
        print("lanqi bench seat: 1 to 256 games, 2 to 200 plies", file=sys.stderr)
        return 2
    if args.before:
        measure_before(
            args.before,
            games,
            args.plies,
            progress=lambda f: print(format_figure(args.before, f), flush=True),
        )
    measure(games, args.plies, progress=lambda f: print(format_figure("this", f), flush=True))
    return 0


def _configure_gui_idle(sub: Any) -> None:
    idle = sub.add_parser(
        "gui-idle",
        help="the share of a core one untouched GUI window takes (needs lanqi[gui])",
        description="Run one GUI window untouched and read its CPU time, drawing frames "
        "only when they change (as the GUI does), then drawing every frame at 60/s "
        "(the baseline).  On SDL's dummy video driver unless --real-display.",
    )
    idle.add_argument(
        "--seconds", type=float, default=10.0, help="seconds per measurement (default 10)"
    )
    idle.add_argument(
        "--scene",
        choices=("game", "menu", "both"),
        default="both",
        help="an offline game with a running clock, the menu, or both (default)",
    )
    idle.add_argument("--real-display", action="store_true", help="open the window on $DISPLAY")


def _run_gui_idle(args: argparse.Namespace) -> int:
    try:
        import pygame  # noqa: F401
    except ImportError:
        print("lanqi bench gui-idle: pygame is missing: pip install 'lanqi[gui]'", file=sys.stderr)
        return 2
    from lanqi.bench.gui_idle import SCENES, format_report, measure_idle

    if not 0 < args.seconds <= 600:
        print("lanqi bench gui-idle: --seconds must be above 0 and at most 600", file=sys.stderr)
        return 2
    scenes = SCENES if args.scene == "both" else (args.scene,)
    figures = []
    for scene in scenes:
        for every_frame in (False, True):
            figure = measure_idle(
                scene, args.seconds, every_frame=every_frame, real_display=args.real_display
            )
            figures.append(figure)
            print(format_report([figure]), flush=True)
    return 0


def _configure_web(sub: Any) -> None:
    web = sub.add_parser(
        "web",
        help="one game watched by many browsers' WebSockets through lanqi web",
        description="Start lanqi serve and lanqi web, pair two players, and play a gomoku"
        " game while WATCHERS WebSocket clients watch it: the delay from each move's"
        " acceptance to its state at every watcher (p50/p99), next to the referee's own"
        " game topic (what the GUI receives), and the gateway's CPU per move per watcher.",
    )
    web.add_argument("--watchers", type=int, default=200, help="WebSocket watchers (200)")
    web.add_argument("--moves", type=int, default=30, help="moves played (30)")


def _run_web(args: argparse.Namespace) -> int:
    from lanqi.bench.web import format_report, run_web

    if not 1 <= args.watchers <= 2000 or not 1 <= args.moves <= 200:
        print("lanqi bench web: --watchers 1-2000, --moves 1-200", file=sys.stderr)
        return 2
    print(format_report(run_web(args.watchers, args.moves)))
    return 0


def _configure_match(sub: Any) -> None:
    match = sub.add_parser(
        "match",
        help="lanqi match's games per minute and per-move overhead beside a direct-pipe runner",
        description="Fairy-Stockfish against itself from the same openings both ways at the "
        "same limit: first over bare pipes (nothing between the engines), then through "
        "`lanqi match`; games per minute of each, their ratio, and the time from one "
        "engine's bestmove to the other's go (p50/p99), read by a timestamping relay "
        "around each engine.  See docs/bench.md.",
    )
    match.add_argument("--games", type=int, default=10, help="games, even (default 10)")
    match.add_argument(
        "--nodes",
        type=int,
        default=None,
        help="nodes per move (default 1000, gomoku 300; not with --tc)",
    )
    match.add_argument(
        "--variant",
        choices=("xiangqi", "gomoku"),
        default="xiangqi",
        help="gomoku: lanqi's built-in AI as a Gomocup brain (default xiangqi: Fairy-Stockfish)",
    )
    match.add_argument(
        "--concurrency", type=int, default=1, help="games at once, for each runner (default 1)"
    )
    match.add_argument(
        "--tc", default=None, metavar="BASE+INC", help="a Fischer clock in seconds, e.g. 10+0.1"
    )
    match.add_argument(
        "--engine",
        default=None,
        help="the engine (default /usr/games/fairy-stockfish; gomoku: the built-in AI's brain)",
    )
    match.add_argument(
        "--openings", default=None, help="opening book (default builtin:xiangqi or builtin:gomoku)"
    )


def _run_match(args: argparse.Namespace) -> int:
    from lanqi.bench.match import MatchBenchConfig, format_rows, format_summary, run_match_bench
    from lanqi.cli.common import print_table

    try:
        config = MatchBenchConfig.for_variant(
            args.variant,
            games=args.games,
            nodes=args.nodes,
            tc=args.tc,
            engine=args.engine,
            openings=args.openings,
            concurrency=args.concurrency,
        )
    except ValueError as exc:
        print(f"lanqi bench match: {exc}", file=sys.stderr)
        return 2

    try:
        report = run_match_bench(config, _progress)
    except (RuntimeError, OSError) as exc:
        print(f"lanqi bench match: {exc}", file=sys.stderr)
        return 1
    headers, rows = format_rows(report)
    title = (
        f"lanqi bench match: {config.games} {config.variant} games at {config.limit}, "
        f"concurrency {config.concurrency}"
    )
    print_table(headers, rows, title=title, right=range(1, len(headers)))
    for line in format_summary(report):
        print(line)
    return 0


CROWD_EXAMPLES = """examples:
  lanqi bench crowd                                  # 1,000 players, a 256-player Swiss
  lanqi bench crowd --players 40 --swiss 16 --swiss-rounds 2 --think-ms 100
  lanqi bench crowd --double --max-players 8000      # 1,000, 2,000, ... until one breaks
"""


def _configure_crowd(sub: Any) -> None:
    crowd = sub.add_parser(
        "crowd",
        help="a thousand players at one matchmaker and two referees: latencies, costs, limits",
        description="Start two `lanqi referee` processes and a `lanqi matchmaker`, connect "
        "PLAYERS real client connections (spread over a few processes) and let them all say "
        "hello at once; half post seeks and play short games of random moves while a Swiss "
        "the director creates is played by others.  Prints p50/p99 of hello, seek to "
        "game_assigned, a move's round trip and presence broadcasts, the services' CPU and "
        "memory per connected player (from /proc), the lobby lists' sizes; --double runs "
        "twice as many players each time until something breaks, and says what.  See "
        "docs/bench.md.",
        epilog=CROWD_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    crowd.add_argument("--players", type=int, default=1000, help="players (default 1000)")
    crowd.add_argument(
        "--processes",
        type=int,
        default=None,
        help="player processes (default: one per 250 players)",
    )
    crowd.add_argument(
        "--swiss", type=int, default=256, help="players in the Swiss, 0 for none (default 256)"
    )
    crowd.add_argument("--swiss-rounds", type=int, default=3, help="Swiss rounds (default 3)")
    crowd.add_argument(
        "--pairing", default="dutch-2017", help="the Swiss's pairing system (default dutch-2017)"
    )
    crowd.add_argument("--games", type=int, default=2, help="games each seeker plays (default 2)")
    crowd.add_argument(
        "--plies", type=int, default=20, help="plies before the side to move resigns (default 20)"
    )
    crowd.add_argument(
        "--think-ms",
        type=float,
        default=1000.0,
        help="mean think time before a move, uniform from half to 1.5 times (default 1000)",
    )
    crowd.add_argument(
        "--variant", choices=RegistryChoices(), default="xiangqi", help="game (default xiangqi)"
    )
    crowd.add_argument("--referees", type=int, default=2, help="referee processes (default 2)")
    crowd.add_argument(
        "--watchers",
        type=int,
        default=None,
        help="players that follow the lobby as the GUI does: its topic, and the lists read"
        " again after news (default: the players that neither seek nor play the Swiss)",
    )
    crowd.add_argument(
        "--insecure", action="store_true", help="plain ZeroMQ (default: CURVE, as served)"
    )
    crowd.add_argument(
        "--timeout",
        type=float,
        default=900.0,
        help="give up after this many seconds of games (default 900)",
    )
    crowd.add_argument(
        "--stuck-s",
        type=float,
        default=120.0,
        help="a player waiting longer than this for an assignment or its game's next event"
        " gives up and is reported stuck (default 120)",
    )
    crowd.add_argument(
        "--keep",
        action="store_true",
        help="keep the services' data directories and every process's log (the folder is said)",
    )
    crowd.add_argument(
        "--double",
        action="store_true",
        help="run again with twice the players until a run breaks (or --max-players)",
    )
    crowd.add_argument(
        "--max-players", type=int, default=16000, help="with --double: stop here (default 16000)"
    )
    crowd.add_argument("--seed", type=int, default=1, help="seed of the bots (default 1)")


def _run_crowd(args: argparse.Namespace) -> int:
    from lanqi.bench.crowd import (
        CrowdConfig,
        format_doubling,
        format_report,
        run_crowd,
        run_doubling,
    )

    try:
        config = CrowdConfig(
            players=args.players,
            processes=args.processes,
            swiss=args.swiss,
            swiss_rounds=args.swiss_rounds,
            pairing=args.pairing,
            games=args.games,
            plies=args.plies,
            think_ms=args.think_ms,
            variant=args.variant,
            referees=args.referees,
            watchers=args.watchers,
            insecure=args.insecure,
            timeout_s=args.timeout,
            stuck_s=args.stuck_s,
            seed=args.seed,
            keep=args.keep,
        )
    except ValueError as exc:
        print(f"lanqi bench crowd: {exc}", file=sys.stderr)
        return 2
    if not args.double:
        report = run_crowd(config, _progress)
        print(format_report(report))
        return 0 if report.ok else 1
    reports = run_doubling(config, args.max_players, _progress)
    for report in reports:
        print(format_report(report), end="\n\n", flush=True)
    print(format_doubling(reports))
    return 0


SOAK_EXAMPLES = """examples:
  lanqi bench soak                                  # two hours, 16 games at once
  lanqi bench soak --minutes 10 --warmup 3          # the CI run: 3 min warm-up, 7 judged
  lanqi bench soak --minutes 120 --samples soak.jsonl --keep
  lanqi bench soak --judge soak.jsonl --warmup 10   # judge a run's samples again
"""


def _configure_soak(sub: Any) -> None:
    soak = sub.add_parser(
        "soak",
        help="a long evening at full speed: do the services' memory, descriptors, stores "
        "and checkpoint lag stay flat?",
        description="Start lanqi referee(s) and lanqi matchmaker, random bots keeping GAMES\n"
        "games going at once, round robins created and finished by the director, players\n"
        "leaving, arriving and reclaiming their seats, two house bots all evening.  Sample\n"
        "each process every minute (RSS, open descriptors, threads, store and write-ahead\n"
        "log size, checkpoint lag, ERROR records) with the load average, print a row per\n"
        "sample, and judge each series at the end by its least-squares slope after the\n"
        "warm-up, against its tolerance and its own scatter.  Exit code 1 when a series\n"
        "grows or something broke.  See docs/bench.md.",
        epilog=SOAK_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    soak.add_argument(
        "--minutes", type=float, default=120.0, help="length of the run (default 120)"
    )
    soak.add_argument("--games", type=int, default=16, help="games at once (default 16)")
    soak.add_argument(
        "--warmup",
        type=float,
        default=10.0,
        metavar="MIN",
        help="minutes before the series are judged (default 10; the warm-up also lasts "
        "until the referees' caches of 512 finished games are full)",
    )
    soak.add_argument(
        "--sample-s", type=float, default=60.0, help="seconds between samples (default 60)"
    )
    soak.add_argument("--referees", type=int, default=1, help="referee processes (default 1)")
    soak.add_argument(
        "--tournament-players",
        type=int,
        default=6,
        metavar="N",
        help="players of each round robin, even (default 6; 0: no tournaments)",
    )
    soak.add_argument(
        "--bot-processes",
        type=int,
        default=4,
        metavar="N",
        help="lanqi bot processes of the casual players (default 4)",
    )
    soak.add_argument(
        "--churn-s",
        type=float,
        default=60.0,
        help="seconds between players leaving/arriving or reclaiming seats (default 60)",
    )
    soak.add_argument("--seed", type=int, default=1, help="seed of the bots (default 1)")
    soak.add_argument(
        "--samples",
        type=Path,
        default=None,
        metavar="FILE",
        help="write every sample to FILE, one JSON object a line (for --judge)",
    )
    soak.add_argument("--keep", action="store_true", help="keep the data directories and logs")
    soak.add_argument(
        "--judge",
        type=Path,
        default=None,
        metavar="FILE",
        help="run nothing: judge the samples a run wrote (--samples) with --warmup "
        "(and --referees, for the warm-up's games)",
    )


def _run_soak(args: argparse.Namespace) -> int:
    from lanqi.bench.soak import (
        SoakConfig,
        SoakReport,
        format_sample,
        read_samples,
        run_soak,
        verdict,
        warmup_games,
    )

    if args.judge is not None:
        try:
            samples = read_samples(args.judge)
        except (OSError, ValueError, TypeError) as exc:
            print(f"lanqi bench soak: cannot read {args.judge}: {exc}", file=sys.stderr)
            return 2
        minutes = samples[-1].minute if samples else 1.0
        config = SoakConfig(
            minutes=max(1.0, minutes),
            warmup_minutes=min(args.warmup, minutes * 0.99),
            referees=args.referees,
        )
        judged = verdict(samples, args.warmup, warmup_games(args.referees))
        report = SoakReport(config, samples=samples, judgements=judged)
        for i, sample in enumerate(samples):
            for line in format_sample(sample, header=i == 0):
                print(line)
        for line in report.summary():
            print(line)
        return 0 if report.ok else 1
    try:
        config = SoakConfig(
            minutes=args.minutes,
            games=args.games,
            warmup_minutes=args.warmup,
            sample_s=args.sample_s,
            referees=args.referees,
            tournament_players=args.tournament_players,
            casual_processes=args.bot_processes,
            churn_s=args.churn_s,
            seed=args.seed,
            samples_path=args.samples,
            keep=args.keep,
        )
    except ValueError as exc:
        print(f"lanqi bench soak: {exc}", file=sys.stderr)
        return 2
    report = run_soak(config, _progress, lambda line: print(line, flush=True))
    for line in report.summary():
        print(line)
    return 0 if report.ok else 1
