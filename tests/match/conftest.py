"""Fixtures for lanqi match: Fairy-Stockfish, the fake engines, a match runner."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from lanqi.match.config import parse_args
from lanqi.match.runner import Match, MatchSummary

FAKES = Path(__file__).parent / "fakes"
DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="session")
def fsf() -> str:
    """Fairy-Stockfish; a missing binary fails the test (LANQI_ALLOW_NO_ENGINE=1 skips)."""
    path = shutil.which(os.environ.get("LANQI_FAIRY_STOCKFISH", "/usr/games/fairy-stockfish"))
    if path is None:
        if os.environ.get("LANQI_ALLOW_NO_ENGINE") == "1":
            pytest.skip("Fairy-Stockfish not installed and LANQI_ALLOW_NO_ENGINE=1")
        pytest.fail("install Fairy-Stockfish: apt-get install fairy-stockfish", pytrace=False)
    return path


@pytest.fixture
def faulty() -> Callable[..., str]:
    """``faulty(MODE, N, *extra)``: the command of the faulty fake engine."""

    def command(mode: str, good: int, *extra: str) -> str:
        return " ".join([sys.executable, str(FAKES / "faulty_uci.py"), mode, str(good), *extra])

    return command


@pytest.fixture
def run_match() -> Callable[[list[str]], tuple[MatchSummary, list[str]]]:
    """Run ``lanqi match ARGV`` in this process: (summary, output lines)."""

    def run(argv: list[str]) -> tuple[MatchSummary, list[str]]:
        lines: list[str] = []
        summary = Match(parse_args(argv), say=lines.append).run()
        return summary, lines

    return run
