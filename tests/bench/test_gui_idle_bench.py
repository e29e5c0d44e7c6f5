"""``lanqi bench gui-idle``: an untouched window draws nothing; the baseline draws every frame."""

from __future__ import annotations

import pytest

pytest.importorskip("pygame")

from lanqi.bench.gui_idle import format_report, measure_idle


@pytest.mark.parametrize("scene", ["menu", "game"])
def test_an_untouched_window_draws_only_what_changed(scene: str) -> None:
    idle = measure_idle(scene, 0.5, warm_up=0.3)
    baseline = measure_idle(scene, 0.3, every_frame=True, warm_up=0.1)
    assert idle.frames > 0 and baseline.frames > 0
    # the menu never changes by itself; the game's running clock changes once a second
    assert idle.draws <= (0 if scene == "menu" else 1), idle
    assert baseline.draws == baseline.frames
    report = format_report([idle, baseline])
    assert "drawn on change" in report and "every frame (60/s)" in report
