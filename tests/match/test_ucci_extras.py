"""UCCI extras in lanqi match: an engine hears the opponent's draw offer (``go draw``)
and accepts it with its move; the event's repetition rules reach the games (and so
the engines' ``banmoves``)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from lanqi.games.xiangqi.pgn import read_pgns
from lanqi.match.config import MatchConfigError, parse_args
from lanqi.match.runner import MatchSummary

Runner = Callable[[list[str]], tuple[MatchSummary, list[str]]]
UCCI_FAKE = Path(__file__).parents[1] / "bot" / "engines" / "fakes" / "ucci_fake.py"
PLAYERS = ["-engine", "name=A", "proto=builtin", "-engine", "name=B", "proto=builtin"]


def test_a_draw_offered_by_one_engine_is_accepted_by_the_other_through_go_draw(
    tmp_path: Path, run_match: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = tmp_path / "sent.log"
    monkeypatch.setenv("FAKE_LOG", str(sent))
    pgn = tmp_path / "match.pgn"
    summary, _lines = run_match(
        [
            "-engine", "name=Offers", f"cmd={sys.executable} {UCCI_FAKE} draw", "proto=ucci",
            "-engine", "name=Accepts", f"cmd={sys.executable} {UCCI_FAKE} accept", "proto=ucci",
            "-games", "2", "-maxmoves", "20", "-pgnout", str(pgn),
        ]
    )  # fmt: skip
    games = read_pgns(pgn.read_text(encoding="utf-8"))
    assert len(games) == 2 == len(summary.games)
    for game in games:
        assert game.result == "1/2-1/2"
        assert game.headers["Termination"] == "agreement"
        # the offer came with the first move of Offers; Accepts answered with its next one
        offers_first = game.headers["Red"] == "Offers"
        assert len(game.board.move_stack) <= (2 if offers_first else 3)
    assert any(line.startswith("go draw ") for line in sent.read_text().splitlines())


def test_repetition_rules_are_the_games_options() -> None:
    config = parse_args([*PLAYERS, "-repetition", "check", "-repetition-count", "4"])
    assert config.game_options() == {"repetition": "check", "repetition_count": 4}
    assert parse_args(PLAYERS).game_options() == {}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-repetition", "sometimes"], "repetition must be one of axf, check, draw"),
        (["-repetition-count", "1"], "repetition_count must be a whole number from 2 to 10"),
        (["-variant", "gomoku", "-repetition", "axf"], "unknown gomoku option.s.: repetition"),
    ],
)
def test_bad_repetition_rules_are_refused(argv: list[str], message: str) -> None:
    with pytest.raises(MatchConfigError, match=message):
        parse_args([*PLAYERS, *argv])


def test_the_referee_plays_by_the_events_repetition_rules(
    tmp_path: Path, run_match: Runner
) -> None:
    """Two-fold repetition under draw rules: engines that shuffle back and forth draw at
    the second occurrence, by repetition (the default would need a third)."""
    pgn = tmp_path / "match.pgn"
    start = "3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1"
    book = tmp_path / "book.pgn"
    book.write_text(
        f'[Game "Chinese Chess"]\n[FEN "{start}"]\n[Result "*"]\n\n1. a0a1 d9d8 2. a1a0 d8d9 *\n',
        encoding="utf-8",
    )
    _summary, _lines = run_match(
        [
            "-engine", "name=A", "proto=builtin", "depth=1",
            "-engine", "name=B", "proto=builtin", "depth=1",
            "-games", "2", "-openings", f"file={book}", "-maxmoves", "30",
            "-repetition", "draw", "-repetition-count", "2", "-pgnout", str(pgn),
        ]
    )  # fmt: skip
    games = read_pgns(pgn.read_text(encoding="utf-8"))
    assert len(games) == 2
    for game in games:
        assert game.headers["Termination"] == "repetition"
        assert len(game.board.move_stack) == 4  # the book's fourth ply repeats the start
