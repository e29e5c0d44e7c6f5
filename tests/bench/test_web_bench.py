"""``lanqi bench web`` runs end to end on a small scale: every watcher gets every move."""

from __future__ import annotations

from lanqi.bench.web import format_report, run_web


def test_every_watcher_gets_every_move_and_the_report_says_so() -> None:
    figures = run_web(watchers=5, moves=4)
    assert (figures.watchers, figures.moves) == (5, 4)
    assert len(figures.web_ms) == 20 and all(ms >= 0 for ms in figures.web_ms)
    assert 0 < len(figures.topic_ms) <= 4
    assert figures.gateway_cpu_s >= 0
    report = format_report(figures)
    assert "5 WebSocket watchers, 4 moves" in report and "GUI's feed" in report
