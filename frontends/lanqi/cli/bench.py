"""``lanqi bench``: benchmarks.  ``lanqi bench movegen`` times perft (see lanqi.bench.movegen)."""

from __future__ import annotations

import argparse
import sys


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="bench", metavar="BENCHMARK")
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


def run(args: argparse.Namespace) -> int:
    if args.bench != "movegen":
        print("lanqi bench: name a benchmark: movegen", file=sys.stderr)
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
