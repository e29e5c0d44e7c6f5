"""``lanqi match``: engine matches in the manner of cutechess-cli, through a real referee.

Takes cutechess-cli style arguments (one dash, ``key=value`` groups), so they are
parsed here rather than by argparse; ``lanqi match -h`` prints the summary below.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

HELP = """\
usage: lanqi match [-config FILE] -engine KEY=VALUE... -engine KEY=VALUE... [options]

Engine matches through a real referee, cutechess-cli style (docs/engines.md).

  -engine name=N cmd=PATH proto=uci|ucci|gomocup|builtin [option.NAME=V] [tc=T]
          [depth=D] [nodes=N] [st=SECONDS] [level=L] [dir=DIR] [timemargin=S]
          [handshake=SECONDS] [memory=MB] [pause=true]
                                  one player (give two or more)
  -each KEY=VALUE...              the same keys, for every engine
  -variant NAME                   one of VARIANTS (default xiangqi); gomoku: -rule R -size S
  -tc 10+0.1 | move:2 | inf       the clock, in seconds (default inf)
  -games N   -rounds N            games per encounter and round; rounds (2, 1)
  -repeat [N]                     games per opening, colours alternating (default 2)
  -concurrency N                  games at once (default 1)
  -openings file=F [format=fen|epd|pgn] [order=sequential|random] [plies=N] [start=N]
  -openings builtin[:xiangqi|gomoku|renju]    the books that ship with lanqi
  -draw movenumber=M movecount=N score=CP     adjudicate a draw
  -resign movecount=N score=CP [twosided=true] adjudicate a loss
  -maxmoves N                     adjudicate a draw after N full moves
  -repetition axf|check|draw  -repetition-count N   xiangqi repetition rules (axf, 3)
  -use-affinity                   each engine process on a core of its own
  -sprt elo0=E0 elo1=E1 alpha=A beta=B        stop once the test decides
  -pgnout FILE   -psqout DIR      records (gomoku: lanqi records and .psq files)
  -autosave FILE                  rewrite this state file after every finished game
  -resume FILE                    continue a match from its state file (alone; also
                                  -config FILE when FILE is a state file)
  -event NAME  -srand N  -ratinginterval N
  -referee tcp://HOST:PORT -admin-key KEY     use a running referee (default: a private one)
  -v, --verbose                   debug log, and tracebacks on errors

example:
  lanqi match -engine name=SF cmd=/usr/games/fairy-stockfish proto=uci depth=3 \\
      -engine name=AI proto=builtin st=0.2 -games 2 -rounds 10 \\
      -openings file=openings.fen -resign movecount=3 score=800 -pgnout match.pgn
"""


def _help() -> str:
    """:data:`HELP` with the registered variants named."""
    from lanqi.games.registry import variant_names

    return HELP.replace("VARIANTS", "|".join(variant_names()), 1)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = _help()
    parser.formatter_class = argparse.RawDescriptionHelpFormatter


def run(args: argparse.Namespace) -> int:  # pragma: no cover - main() calls run_argv
    return run_argv([], verbose=bool(getattr(args, "verbose", False)))


def run_argv(argv: Sequence[str], *, verbose: bool = False) -> int:
    """Run ``lanqi match ARGV``; returns the exit status."""
    from lanqi.match.config import MatchConfigError, parse_args
    from lanqi.match.runner import EngineStartError, Match
    from lanqi.match.state import MatchState, load_state

    words = list(argv)
    if any(w in ("-h", "--help", "-help") for w in words) or not words:
        print(_help(), end="")
        return 0 if words else 2
    for flag in ("-v", "--verbose"):
        while flag in words:
            words.remove(flag)
            verbose = True
    if verbose:
        logging.getLogger().setLevel(logging.DEBUG)
    else:
        logging.getLogger().setLevel(logging.WARNING)
    match: Match | None = None
    try:
        resume = _resume_file(words)
        if resume is not None:
            state = load_state(resume)
            os.chdir(state.cwd)  # the match's relative paths, as when it began
            words = state.argv
        else:
            state = MatchState(argv=words, cwd=os.getcwd())
        config = parse_args(words)
        if resume is not None:
            config.autosave = resume.resolve() if config.autosave is None else config.autosave
        match = Match(config, say=_say, state=state)
        summary = match.run()
    except (MatchConfigError, EngineStartError, OSError) as exc:
        if verbose:
            logging.getLogger(__name__).exception("lanqi match failed")
        print(f"lanqi match: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        if match is not None:
            match.interrupt()
        print("lanqi match: interrupted", file=sys.stderr)
        return 130
    return 0 if summary.games or summary.resumed else 1


def _resume_file(words: list[str]) -> Path | None:
    """The state file of ``-resume FILE``, or of ``-config FILE`` when FILE is one
    (fastchess resumes from its autosaved config so); None for a new match."""
    from lanqi.match.config import MatchConfigError
    from lanqi.match.state import FORMAT

    if "-resume" in words:
        at = words.index("-resume")
        if len(words) != 2 or at != 0:
            raise MatchConfigError("-resume FILE takes no other settings (they are in FILE)")
        return Path(words[1]).absolute()
    if len(words) == 2 and words[0] == "-config":
        path = Path(words[1])
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            return None
        if isinstance(data, dict) and data.get("format") == FORMAT:
            return path.absolute()
    return None


def _say(line: str) -> None:
    print(line, flush=True)
