"""``lanqi perft``: output format, errors, and one run as a real process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lanqi.cli.main import main

REPO = Path(__file__).resolve().parents[2]
CHECKED = "3k5/R8/9/9/4c2r1/9/2N6/1C7/4A4/4K4 w - - 0 1"  # red checked over its own advisor


def test_perft_prints_the_node_count(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["perft", "3"]) == 0
    out, err = capsys.readouterr()
    assert out == "Nodes searched: 79666\n"
    assert "nodes/s" in err and "perft 3" in err


def test_divide_is_stockfish_style_and_sorted(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["perft", "--fen", CHECKED, "2", "--divide"]) == 0
    out, _ = capsys.readouterr()
    assert out == (
        "b2e2: 25\nc3e2: 26\nc3e4: 24\ne0f0: 26\n"
        "e1d0: 27\ne1d2: 27\ne1f0: 27\ne1f2: 27\n"
        "\nNodes searched: 209\n"
    )


def test_divide_of_the_start_position(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["perft", "2", "--divide"]) == 0
    lines = capsys.readouterr().out.splitlines()
    moves = lines[:-2]
    assert len(moves) == 44
    assert moves == sorted(moves)
    assert "h2e2: 45" in moves  # Fairy-Stockfish agrees
    assert sum(int(line.split(": ")[1]) for line in moves) == 1920
    assert lines[-2:] == ["", "Nodes searched: 1920"]


def test_checkmate_counts_zero(capsys: pytest.CaptureFixture[str]) -> None:
    mate = "4k4/9/9/P8/3r5/9/9/9/9/3K5 w - - 0 1"
    assert main(["perft", "--fen", mate, "1", "--divide"]) == 0
    assert capsys.readouterr().out == "\nNodes searched: 0\n"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["perft", "0"], "DEPTH must be from 1 to 8"),
        (["perft", "-1"], "DEPTH must be from 1 to 8"),
        (["perft", "9"], "DEPTH must be from 1 to 8"),
        (["perft", "--fen", "not a fen", "2"], "bad FEN"),
        (["perft", "--fen", "4k4/9/9/9/9/9/9/9/9/4K4 w", "1"], "bad FEN"),  # generals face
        (["perft", "--fen", "rnbakabnr/9/1c5c1/p1p1p1p1p/9 w", "1"], "10 ranks"),
    ],
)
def test_errors_exit_2_with_a_message(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert message in err


def test_depth_must_be_a_number(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["perft", "three"])
    assert exc.value.code == 2
    assert "invalid int value" in capsys.readouterr().err


def test_real_process() -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        str(REPO / folder) for folder in ("shared", "services", "frontends")
    )
    done = subprocess.run(
        [sys.executable, "-m", "lanqi.cli.main", "perft", "2"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Nodes searched: 1920\n"
    assert "nodes/s" in done.stderr
