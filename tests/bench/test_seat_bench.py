"""``lanqi bench seat`` measures what it says on a real referee: every figure has its
samples, the bot runs their CPU time, and the raw round trip is there to compare."""

from __future__ import annotations

from lanqi.bench.seat import format_figure, measure, script


def test_the_seat_bench_measures_bots_agents_and_the_raw_floor() -> None:
    report = measure([1, 2], plies=6)
    kinds = [(f.what, f.games) for f in report.figures]
    assert kinds == [("raw", 1), ("bot", 1), ("gui", 1), ("bot", 2), ("gui", 2)]
    for figure in report.figures:
        assert figure.samples > 0 and 0 < figure.p50_ms <= figure.p99_ms, figure
        assert (figure.cpu_per_game_s is not None) == (figure.what == "bot")
    assert "p99" in format_figure("this", report.figures[0])


def test_the_script_never_ends_the_game() -> None:
    from lanqi.games.registry import create_game

    moves = script(3, 60)
    board = create_game("gomoku")
    for move in moves:
        assert board.outcome() is None
        board.push(board.parse_move(move))
    assert len(set(moves)) == 60
