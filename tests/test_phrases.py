"""lanqi.phrases: one function each for results, terminations, time controls,
clocks and the countdown from a reading, in every form its callers write."""

from __future__ import annotations

import pytest

from lanqi.games.base import RESULTS, Termination
from lanqi.phrases import (
    clock_text,
    result_text,
    termination_words,
    time_control_text,
    time_left_ms,
)
from lanqi.protocol import TimeControl

#: every termination as people read it, and as a record's Termination tag
TERMINATION_FORMS = {
    "checkmate": ("checkmate", "checkmate"),
    "stalemate": ("stalemate", "stalemate"),
    "repetition": ("repetition", "repetition"),
    "perpetual_check": ("perpetual check", "perpetual_check"),
    "perpetual_chase": ("perpetual chase", "perpetual_chase"),
    "move_limit": ("move limit", "move_limit"),
    "insufficient_material": ("insufficient material", "insufficient_material"),
    "five_in_a_row": ("five in a row", "five_in_a_row"),
    "board_full": ("board full", "board_full"),
    "forbidden_move": ("forbidden move (renju)", "forbidden_move"),
    "resignation": ("resignation", "resignation"),
    "timeout": ("lost on time", "time forfeit"),
    "agreement": ("draw agreed", "agreement"),
    "abandoned": ("abandoned (a player went silent)", "abandoned"),
    "aborted": ("aborted", "aborted"),
    "no_first_move": ("no first move", "no_first_move"),
}


def test_the_table_covers_every_termination() -> None:
    assert set(TERMINATION_FORMS) == {t.value for t in Termination}


@pytest.mark.parametrize("termination", sorted(TERMINATION_FORMS))
def test_each_termination_in_words_and_in_a_record(termination: str) -> None:
    words, record = TERMINATION_FORMS[termination]
    assert termination_words(termination) == words
    assert termination_words(termination, style="record") == record


def test_a_variant_says_its_own_words_where_its_spec_has_a_note() -> None:
    assert termination_words("stalemate", "xiangqi") == (
        "stalemate (in xiangqi the side that cannot move loses)"
    )
    assert termination_words("stalemate", "gomoku") == "stalemate"
    assert termination_words("checkmate", "xiangqi") == "checkmate"
    assert termination_words("checkmate", "no-such-game") == "checkmate"


def test_no_termination_and_a_director_s_verdict() -> None:
    assert termination_words(None) == termination_words("") == ""
    assert termination_words("", style="record") == "unterminated"
    assert termination_words("over_the_board") == "over the board"
    assert termination_words("adjudication") == "adjudication"  # a newer word: as it comes


def test_each_result_for_a_record_and_for_people() -> None:
    assert [result_text(r) for r in RESULTS] == ["1-0", "0-1", "1/2-1/2", "*"]
    assert [result_text(r, style="people") for r in RESULTS] == ["1-0", "0-1", "½-½", "*"]
    assert result_text(None) == result_text("", style="people") == "*"


FISCHER = TimeControl(kind="fischer", base_ms=600_000, increment_ms=5_000)
SUDDEN = TimeControl(kind="fischer", base_ms=90_000)
FRACTION = TimeControl(kind="fischer", base_ms=10_000, increment_ms=100)
PER_MOVE = TimeControl(kind="per_move", per_move_ms=30_000)
UNTIMED = TimeControl()


@pytest.mark.parametrize(
    ("tc", "words", "short", "pgn"),
    [
        (FISCHER, "10 min + 5 s per move", "10+5", "600+5"),
        (SUDDEN, "90 s", "1.5+0", "90+0"),
        (FRACTION, "10 s + 0.1 s per move", "0.166667+0", "10+0.1"),
        (PER_MOVE, "30 s per move", "30 s/move", "1/30"),
        (UNTIMED, "untimed", "untimed", "-"),
    ],
)
def test_each_time_control_kind_in_each_form(
    tc: TimeControl, words: str, short: str, pgn: str
) -> None:
    assert time_control_text(tc) == words
    assert time_control_text(tc, "short") == short
    assert time_control_text(tc, "pgn") == pgn


@pytest.mark.parametrize(
    ("ms", "panel", "display"),
    [
        (None, "--:--", ""),
        (3_725_000, "1:02:05", "1:02:05"),
        (600_000, "10:00", "10:00"),
        (65_000, "01:05", "1:05"),
        (10_000, "00:10", "0:10"),
        (9_999, "9.9", "0:09.9"),
        (9_450, "9.4", "0:09.4"),
        (0, "0.0", "0:00.0"),
        (-5, "0.0", "0:00.0"),
    ],
)
def test_each_clock_format(ms: float | None, panel: str, display: str) -> None:
    assert clock_text(ms) == clock_text(ms, "panel") == panel
    assert clock_text(ms, "display") == display


def test_the_countdown_from_a_reading() -> None:
    assert time_left_ms(60_000, read_at=100.0, now=100.0) == 60_000
    assert time_left_ms(60_000, read_at=100.0, now=101.25) == 58_750
    assert time_left_ms(60_000, read_at=100.0, now=400.0) == 0  # never below zero
    assert time_left_ms(60_000, read_at=100.0, now=99.0) == 60_000  # a reading from ahead
    assert time_left_ms(60_000, read_at=100.0, now=130.0, running=False) == 60_000
    assert time_left_ms(-3.0, read_at=0.0, now=0.0, running=False) == 0
