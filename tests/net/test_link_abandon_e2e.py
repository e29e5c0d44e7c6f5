"""A bot's link cut for longer than the referee's abandonment time, in its own turn
and in its opponent's: the bot loses by abandonment, as docs/protocol.md says, the
time after its last sign of life that ``--abandon-after`` gives (15 s here: the
documented flag, so that this runs by default; the 90 s cut against the default
60 s is the slow test in test_link_cuts_e2e).  The opponent's GUI showed the
referee's countdown; the bot, once its link is back, hears the end and is back in
the lobby by itself; nothing accepted was lost or doubled."""

from __future__ import annotations

from typing import Literal

import pytest
from tests.net.conftest import Site
from tests.net.drops import check_abandoned, check_countdown, check_record, play

ABANDON_S = 15
DISCONNECT_S = 5
REFEREE_FLAGS = ["--abandon-after", str(ABANDON_S), "--disconnect-after", str(DISCONNECT_S)]


@pytest.mark.parametrize("during", ["own", "theirs"])
def test_a_cut_longer_than_the_abandon_time_loses_by_abandonment(
    site: Site, during: Literal["own", "theirs"]
) -> None:
    bot = site.bot(f"Gone{during}")
    host = site.player(f"Stays{during}")
    out = play(site, bot, host, down_s=ABANDON_S + 10, during=during)
    gap = check_countdown(out, host)
    check_abandoned(site, out, during=during, gap=gap, abandon_s=ABANDON_S, away_s=DISCONNECT_S)
    check_record(out, bot, host)
