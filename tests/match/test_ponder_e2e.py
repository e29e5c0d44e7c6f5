"""lanqi match with pondering engines, through a real referee: Fairy-Stockfish as a
UCI and as a UCCI engine, both with ``ponder``, on a 5+0.1 clock.  Every game ends
by the rules or by adjudication (never on time), and the engines' transcript shows
them pondering: ``go ponder``, then ``ponderhit`` or ``stop``.

Two pondering engines keep both cores of a 2-core machine busy all game (engines.md
asks for a core per pondering engine); on a machine loaded besides, the base time is
longer by ``clock_scale`` (tests/conftest.py), or the engines' clocks drain by what
the scheduler withholds from them (seen at a load of 16: a clock down to 0.1 s
within 20 moves, a ``stop`` not answered by the deadline) and the test measures the
load, not the adapters."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from lanqi.games.xiangqi.pgn import read_pgns
from lanqi.match.runner import MatchSummary

Runner = Callable[[list[str]], tuple[MatchSummary, list[str]]]


def test_pondering_engines_play_whole_games_without_losing_on_time(
    fsf: str,
    tmp_path: Path,
    run_match: Runner,
    caplog: pytest.LogCaptureFixture,
    clock_scale: float,
) -> None:
    caplog.set_level(logging.DEBUG, logger="lanqi.bot.engines.process")
    pgn = tmp_path / "ponder.pgn"
    summary, _ = run_match(
        [
            "-engine", "name=SF-uci", f"cmd={fsf}", "proto=uci", "ponder",
            "-engine", "name=SF-ucci", f"cmd={fsf}", "proto=ucci", "ponder",
            "-each", "option.Threads=1", "option.Hash=16", f"tc={5 * clock_scale:.1f}+0.1",
            "-games", "2", "-maxmoves", "30", "-pgnout", str(pgn),
        ]
    )  # fmt: skip
    games = read_pgns(pgn.read_text(encoding="utf-8"))  # every game replays legally
    assert len(games) == len(summary.games) == 2
    for game in summary.games:
        assert game.result in ("1-0", "0-1", "1/2-1/2")
        assert game.termination not in ("timeout", "abandoned"), game.termination
        assert not game.termination.startswith(("crash", "hang")), game.termination
    # the transcript: what the adapters sent to each engine process, in order
    sent: dict[str, list[str]] = {}
    for record in caplog.records:
        found = re.fullmatch(r"(\S+) >> (.*)", record.getMessage())
        if found:
            sent.setdefault(found.group(1), []).append(found.group(2))
    assert len(sent) == 2  # one engine process each, reused for both games
    for lines in sent.values():
        assert any(
            line in ("setoption name Ponder value true", "setoption Ponder true") for line in lines
        )
        ponders = [i for i, line in enumerate(lines) if line.startswith("go ponder ")]
        assert len(ponders) > 10
        # every ponder search ends in ponderhit or stop before the engine's next search
        for i in ponders:
            after = [ln for ln in lines[i + 1 :] if ln.split()[0] in ("go", "ponderhit", "stop")]
            assert not after or after[0] in ("ponderhit", "stop"), lines[i : i + 4]
        assert "ponderhit" in lines
