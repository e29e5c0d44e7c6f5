"""Exports: aligned text, CSV that reads back, escaped self-contained HTML, PGN."""

from __future__ import annotations

import csv
import io

from lanqi.tournament import (
    Player,
    Result,
    crosstable,
    crosstable_csv,
    crosstable_text,
    html_page,
    join_pgn,
    set_round_tag,
    standings,
    standings_csv,
    standings_text,
)

PLAYERS = [
    Player("a", "<script>alert(1)</script>", 1900.0),
    Player("b", 'Bo "Quote", Jr.', 1800.0),
    Player("c", "吕钦", 1700.0),
    Player("d", "Dee & Co", 1600.0),
]
RESULTS = [
    Result(1, 1, "a", "d", 1.0),
    Result(1, 2, "b", "c", 0.5),
    Result(2, 1, "d", "c", 0.5),
    Result(2, 2, "a", "b", 0.0),
    Result(3, 1, "b", "d", 0.0),
    Result(3, 2, "c", "a", 0.0),
]


def test_html_escapes_names_and_is_self_contained() -> None:
    rows = standings(PLAYERS, RESULTS)
    page = html_page("Club <Open> 2024", rows, crosstable(PLAYERS, RESULTS))
    assert "<script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "Club &lt;Open&gt; 2024" in page
    assert "Dee &amp; Co" in page and "&quot;Quote&quot;" in page
    assert page.startswith("<!DOCTYPE html>") and "<style>" in page
    assert "http" not in page and "src=" not in page and "<link" not in page


def test_standings_csv_parses_back() -> None:
    rows = standings(PLAYERS, RESULTS, ("sonneborn_berger", "buchholz"))
    parsed = list(csv.reader(io.StringIO(standings_csv(rows))))
    assert parsed[0] == [
        "Rank", "Id", "Name", "Rating", "Pts", "Games", "W", "D", "L",
        "sonneborn_berger", "buchholz",
    ]  # fmt: skip
    assert len(parsed) == 1 + len(PLAYERS)
    for line, row in zip(parsed[1:], rows, strict=True):
        assert line[1] == row.player.id and line[2] == row.player.name
        assert float(line[4]) == row.points
        assert float(line[9]) == row.tiebreaks["sonneborn_berger"]


def test_crosstable_csv_parses_back() -> None:
    table = crosstable(PLAYERS, RESULTS)
    parsed = list(csv.reader(io.StringIO(crosstable_csv(table))))
    assert parsed[0] == ["#", "Name", "1", "2", "3", "4", "Pts"]
    names = [line[1] for line in parsed[1:]]
    assert sorted(names) == sorted(p.name for p in PLAYERS)
    rounds = list(csv.reader(io.StringIO(crosstable_csv(table, "rounds"))))
    assert rounds[0] == ["#", "Name", "R1", "R2", "R3", "Pts"]


def test_text_tables_are_aligned_even_with_chinese_names() -> None:
    import unicodedata

    def width(s: str) -> int:
        return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in s)

    rows = standings(PLAYERS, RESULTS, ("wins",))
    lines = standings_text(rows).splitlines()
    assert lines[0].split() == ["#", "Name", "Pts", "Games", "W", "D", "L", "wins"]
    pts_col = width(lines[0][: lines[0].index("Pts")])
    for line, row in zip(lines[1:], rows, strict=True):
        name_end = line.index(row.player.name) + len(row.player.name)
        rest = line[name_end:]
        assert width(line[:name_end]) + len(rest) - len(rest.lstrip()) == pts_col
    assert "1½" in standings_text(rows)


def test_crosstable_text_matrix_and_rounds() -> None:
    table = crosstable(PLAYERS, RESULTS)
    matrix = crosstable_text(table).splitlines()
    assert matrix[0].split() == ["#", "Name", "1", "2", "3", "4", "Pts"]
    assert " x " in matrix[1] + " "
    swiss = crosstable_text(table, "rounds")
    assert "f 1" in swiss or "f =" in swiss or "f 0" in swiss


def test_byes_and_forfeits_in_the_rounds_view() -> None:
    players = PLAYERS[:3]
    results = [
        Result(1, 1, "a", "b", 1.0, "forfeit"),
        Result(1, 2, "c", None, 1.0, "bye"),
    ]
    text = crosstable_text(crosstable(players, results))
    assert "bye F" in text and "+" in text and "-" in text


def test_pgn_round_tags_and_joining() -> None:
    game = '[Event "LAN Open"]\n[Round "?"]\n[Red "A"]\n\n1. C2=5 H8+7 *\n'
    tagged = set_round_tag(game, 2, 3)
    assert '[Round "2.3"]' in tagged and '[Round "?"]' not in tagged
    assert set_round_tag(tagged, 9, 9) == tagged  # a real Round tag is kept
    no_round = set_round_tag('[Event "X"]\n\n*', 1, 1)
    assert no_round.splitlines()[:2] == ['[Event "X"]', '[Round "1.1"]']
    assert set_round_tag("1. C2=5 *", 4, 1).startswith('[Round "4.1"]\n\n')
    joined = join_pgn([tagged, "  \n", no_round])
    assert joined.count("[Event") == 2 and joined.endswith("*\n")
    assert "\n\n\n" not in joined
    assert join_pgn([]) == ""
