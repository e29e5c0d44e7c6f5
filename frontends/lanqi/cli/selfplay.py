"""``lanqi selfplay``: random-move games of every variant, played through the rules core.

A demonstration and smoke test of the rules: every game is created through the
registry, every move goes through ``parse_move`` from its human notation, and
each game ends by a rule (mate, stalemate, repetition, move limit, five in a row...).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

from lanqi.cli.common import RegistryChoices

EXAMPLES = """examples:
  lanqi selfplay --games 3 --seed 7
  lanqi selfplay --out games/
"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--variant",
        choices=RegistryChoices(extra=("all",)),
        default="all",
        help="which game to play (default: all)",
    )
    parser.add_argument("--games", type=int, default=2, help="games per variant (default: 2)")
    parser.add_argument("--seed", type=int, default=None, help="random seed, for a repeatable run")
    parser.add_argument(
        "--max-plies", type=int, default=400, help="stop a game after this many plies (default 400)"
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="write the games here: PGN for xiangqi, the gomoku record format for gomoku",
    )
    parser.add_argument("--quiet", action="store_true", help="print only the summary lines")


def run(args: argparse.Namespace) -> int:
    from lanqi.games.registry import VARIANTS, create_game, variant_spec

    if args.games < 1 or args.max_plies < 1:
        print("lanqi selfplay: --games and --max-plies must be at least 1", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    variants = list(VARIANTS) if args.variant == "all" else [args.variant]
    records: dict[str, list[str]] = {v: [] for v in variants}
    for variant in variants:
        for number in range(1, args.games + 1):
            game = create_game(variant)
            started = time.perf_counter()
            line: list[str] = []
            while game.outcome() is None and game.ply < args.max_plies:
                moves = game.legal_moves()
                move = rng.choice(moves)
                text = game.move_text(move)
                parsed = game.parse_move(text)  # round trip through the human notation
                game.push(parsed)
                line.append(text)
            elapsed = time.perf_counter() - started
            outcome = game.outcome()
            why = outcome.termination.value if outcome else f"stopped at {args.max_plies} plies"
            result = outcome.result() if outcome else "*"
            print(
                f"{variant} game {number}: {result} ({why}) after {game.ply} plies, "
                f"{elapsed * 1000:.0f} ms"
            )
            if not args.quiet:
                print("  " + " ".join(line[-12:]) + ("  (last 12 plies)" if len(line) > 12 else ""))
                print("  final position: " + game.fen())
            headers = {"Event": "lanqi selfplay", "Round": str(number)}
            spec = variant_spec(variant)
            players = dict.fromkeys(spec.seat_names, "random")
            records[variant].append(spec.write_record(game, {**headers, **players}, None))
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        for variant, texts in records.items():
            suffix = variant_spec(variant).record_suffix
            path = args.out / f"selfplay-{variant}.{suffix}"
            path.write_text("\n".join(texts), encoding="utf-8")
            print(f"wrote {len(texts)} {variant} game(s) to {path}")
    return 0
