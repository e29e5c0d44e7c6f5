"""``lanqi bench movegen`` with a tiny budget: output structure and node counts, no timing."""

from __future__ import annotations

from pathlib import Path

import pytest

from lanqi.bench.movegen import (
    POSITIONS,
    TARGET_RATIO,
    Rival,
    find_cchess,
    format_report,
    run_movegen,
)
from lanqi.cli.main import main

PERFT_DATA = Path(__file__).resolve().parents[1] / "games" / "xiangqi" / "data" / "perft.txt"


def reference_counts() -> dict[str, dict[int, int]]:
    """FEN -> {depth: nodes} from the Fairy-Stockfish-checked perft data file."""
    table: dict[str, dict[int, int]] = {}
    for raw in PERFT_DATA.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            fen, *fields = (part.strip() for part in line.split(";"))
            table[fen] = {int(d): int(n) for d, n in (field.split() for field in fields)}
    return table


def test_bench_positions_have_checked_counts() -> None:
    known = reference_counts()
    assert len(POSITIONS) == 3
    for position in POSITIONS:
        assert len(known[position.fen]) >= 4, position.name


def test_tiny_budget_reports_right_counts() -> None:
    known = reference_counts()
    rival = find_cchess()
    report = run_movegen(seconds=0.01, rival=rival)
    engines = ["lanqi"] if rival is None else ["lanqi", rival.name]
    assert [(f.position, f.engine) for f in report.figures] == [
        (p, e) for p in POSITIONS for e in engines
    ]
    for figure in report.figures:
        assert figure.problem is None
        assert figure.depth >= 1 and figure.runs >= 1
        assert figure.nodes == known[figure.position.fen][figure.depth]
        assert figure.nodes_per_second is not None and figure.nodes_per_second > 0

    text = format_report(report)
    lines = text.splitlines()
    assert lines[0].startswith("lanqi bench movegen: perft leaf nodes per second")
    header = lines[2].split()
    assert header == ["position", "engine", "depth", "nodes", "runs", "seconds", "nodes/s"]
    assert set(lines[3]) == {"-", " "}
    rows = [line.split() for line in lines[4 : 4 + len(report.figures)]]
    for row, figure in zip(rows, report.figures, strict=True):
        assert row[:4] == [
            figure.position.name,
            figure.engine,
            str(figure.depth),
            f"{figure.nodes:,}",
        ]
    for position in POSITIONS:
        assert [position.name, *position.fen.split()] in [line.split() for line in lines]
    if rival is None:
        assert "no comparison" in text
    else:
        assert f"ratio lanqi / {rival.name} {rival.version} (nodes/s): start " in text
        assert f"target lanqi >= {TARGET_RATIO:g}x {rival.name}: " in text
        assert set(report.ratios()) == {p.name for p in POSITIONS}


def test_fixed_depth() -> None:
    report = run_movegen(POSITIONS[:1], seconds=0.0, depth=3, rival=None)
    (figure,) = report.figures
    assert (figure.depth, figure.nodes, figure.runs) == (3, 79666, 1)
    assert "depth 3" in format_report(report).splitlines()[0]


def test_cchess_counts_match_ours_when_installed() -> None:
    rival = find_cchess()
    if rival is None:
        pytest.skip("cchess is not installed")
    known = reference_counts()
    for position in POSITIONS:
        perft = rival.make_perft(position.fen)
        assert perft(1) == known[position.fen][1]
        assert perft(2) == known[position.fen][2]


def test_a_wrong_count_is_reported_not_timed() -> None:
    broken = Rival("broken", "0.0", lambda fen: lambda depth: 7)
    report = run_movegen(POSITIONS[:1], seconds=0.01, rival=broken, max_depth=2)
    ours, theirs = report.figures
    assert ours.problem is None
    assert theirs.problem == "count differs: 7 vs lanqi 44 at depth 1; not timed"
    assert theirs.nodes_per_second is None
    text = format_report(report)
    assert "COUNT WRONG" in text
    assert "start broken: count differs" in text
    assert "ratio lanqi / broken 0.0 (nodes/s): start -" in text
    assert "not measured" in text


def test_cli_bench_movegen(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "movegen", "--seconds", "0.01", "--depth", "1", "--no-cchess"]) == 0
    out = capsys.readouterr().out
    assert "no comparison: cchess left out (--no-cchess)" in out
    assert out.count(" lanqi ") == 3


@pytest.mark.parametrize(
    "argv",
    [
        ["bench"],
        ["bench", "movegen", "--depth", "0"],
        ["bench", "movegen", "--seconds", "0"],
    ],
)
def test_cli_bench_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert capsys.readouterr().err.startswith("lanqi bench")
