"""``lanqi engine check SPEC``: does an engine keep to its protocol?

Runs :func:`lanqi.bot.engines.check.check_engine` and prints one line per step
(``ok``, ``FAIL``, ``note``, ``skip``), then a summary.  Exit status 0 when the
engine is clean, 1 with deviations, 2 when the command line is wrong.
"""

from __future__ import annotations

import argparse
import sys

EXAMPLES = """examples:
  lanqi engine check uci:/usr/games/fairy-stockfish
  lanqi engine check ucci:/usr/games/fairy-stockfish
  lanqi engine check gomocup:/opt/rapfi/pbrain-rapfi --rule standard
  lanqi engine check "uci:/opt/pikafish/pikafish" --quiet     # deviations only
"""


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="engine_command", metavar="ACTION")
    check = sub.add_parser(
        "check",
        help="run the protocol's compliance steps against an engine",
        description="Talk to an engine step by step (handshake, options, isready, go on "
        "each clock, stop, ponder, malformed input, quit) and report every deviation "
        "in one line.  Exit status 0: clean; 1: deviations.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument("spec", metavar="SPEC", help="uci:COMMAND, ucci:COMMAND or gomocup:COMMAND")
    check.add_argument(
        "--variant",
        default=None,
        help="UCI_Variant to set, when the engine has it (default: xiangqi)",
    )
    check.add_argument(
        "--rule",
        default="freestyle",
        choices=("freestyle", "standard", "renju"),
        help="gomocup: the rule sent as INFO rule (default: freestyle)",
    )
    check.add_argument("--size", type=int, default=15, help="gomocup: the board size (default: 15)")
    check.add_argument(
        "--margin-ms",
        type=int,
        default=1000,
        help="how far past its time an engine may answer before it counts (default: 1000)",
    )
    check.add_argument("--quiet", "-q", action="store_true", help="print only the deviations")


def run(args: argparse.Namespace) -> int:
    from lanqi.bot.engines.check import CheckLimits, check_engine

    if args.engine_command != "check":
        print("lanqi engine: say what to do: lanqi engine check SPEC", file=sys.stderr)
        return 2

    try:
        report = check_engine(
            args.spec,
            variant=args.variant,
            rule=args.rule,
            size=args.size,
            limits=CheckLimits(margin_ms=args.margin_ms),
        )
    except ValueError as exc:
        print(f"lanqi engine check: {exc}", file=sys.stderr)
        return 2
    for finding in report.findings:
        if not args.quiet or finding.status == "fail":
            print(finding.line())
    name = report.engine_name or report.command
    count = len(report.deviations)
    if count:
        print(f"{name} ({report.protocol}): {count} deviation{'s' if count != 1 else ''}")
        return 1
    print(f"{name} ({report.protocol}): clean")
    return 0
