"""A GUI player's link cut (the GUI's own networking, :class:`lanqi.gui.net.GameAgent`,
in a process behind the link, driven by a script): for 20 s in its own turn it is
back in its seat by itself and the game goes on; for longer than the abandonment
time (``--abandon-after 15``, the documented flag) it loses by abandonment and
hears so once its link is back."""

from __future__ import annotations

from typing import Literal

import pytest
from tests.net.conftest import Site
from tests.net.drops import check_abandoned, check_countdown, check_record, play

ABANDON_S = 15
REFEREE_FLAGS = ["--abandon-after", str(ABANDON_S)]


@pytest.mark.parametrize(("down_s", "during"), [(10, "own"), (10, "theirs"), (25, "own")])
def test_the_gui_comes_back_into_its_seat(
    site: Site, down_s: int, during: Literal["own", "theirs"]
) -> None:
    gui = site.gui(f"Gui{down_s}{during}")
    host = site.player(f"Them{down_s}{during}")
    out = play(site, gui, host, down_s=down_s, during=during)
    gap = check_countdown(out, host)
    check_record(out, gui, host)
    if down_s < ABANDON_S:
        assert out.ended is not None and out.ended.termination == "resignation"
        assert out.presence == [(out.bot_seat, False), (out.bot_seat, True)]
        print(
            f"\nGUI, {down_s} s cut, {during} turn: back {out.back_after_s:.1f} s after the"
            f" link; presence {out.presence}"
        )
    else:
        check_abandoned(site, out, during=during, gap=gap, abandon_s=ABANDON_S, away_s=5)
