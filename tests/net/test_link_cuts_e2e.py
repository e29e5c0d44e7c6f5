"""A bot's link cut for 5, 20 and 90 s, in its own turn and in its opponent's, with
the referee's default liveness (``--disconnect-after 5``, ``--abandon-after 60``).

Up to 20 s the game goes on: the referee shows the bot away and back, nothing
accepted is lost or doubled, the bot is back in its seat by itself, and the away
countdown its opponent's GUI shows is the referee's.  At 90 s the bot loses by
abandonment 60 s after its last sign of life (slow: the real durations; the same
rule with a shorter ``--abandon-after`` runs by default in test_link_abandon_e2e)."""

from __future__ import annotations

from typing import Literal

import pytest
from tests.net.conftest import Site
from tests.net.drops import check_abandoned, check_countdown, check_record, play


@pytest.mark.parametrize("down_s", [5, 20])
@pytest.mark.parametrize("during", ["own", "theirs"])
def test_a_cut_shorter_than_the_abandon_time_loses_nothing(
    site: Site, down_s: int, during: Literal["own", "theirs"]
) -> None:
    bot = site.bot(f"Cut{down_s}{during}")
    host = site.player(f"Host{down_s}{during}")
    out = play(site, bot, host, down_s=down_s, during=during)
    gap = check_countdown(out, host)
    print(
        f"\n{down_s} s cut, {during} turn: back {out.back_after_s:.1f} s after the link;"
        f" presence {out.presence}; countdowns {len(out.countdowns)} (off by {gap:.3f} s);"
        f" ended {out.ended and out.ended.termination}"
    )
    check_record(out, bot, host)
    assert out.ended is not None and out.ended.termination == "resignation"
    assert out.ended.winner == out.bot_seat
    # away and back as the referee counts: shown away once, back once, never abandoned
    assert out.presence == [(out.bot_seat, False), (out.bot_seat, True)]
    assert out.countdowns, "the opponent's view never showed how long the bot has"


@pytest.mark.slow
@pytest.mark.parametrize("during", ["own", "theirs"])
def test_a_90_s_cut_loses_by_abandonment_after_60_s(
    site: Site, during: Literal["own", "theirs"]
) -> None:
    bot = site.bot(f"Cut90{during}")
    host = site.player(f"Host90{during}")
    out = play(site, bot, host, down_s=90, during=during)
    gap = check_countdown(out, host)
    check_abandoned(site, out, during=during, gap=gap, abandon_s=60, away_s=5)
    check_record(out, bot, host)
