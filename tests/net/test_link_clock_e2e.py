"""A timed game whose player's link is cut for 5 s in that player's own turn: what
its clock is charged is what docs/protocol.md ("When a link drops", "Lag
compensation") says - the referee's clock runs through the outage, and the move
made after it gets back its lag (the time the clock ran less the time the player
thought once the news reached it), at most the seat's cap per move and what its
quota holds.

A ``lanqi bot`` (random: it moves the moment it hears its turn, and says so with
``think_ms``) behind the link, a 3+2 clock (gain 1 s, cap 3 s, quota 3 s at the
start and 7 s at most: the table in docs/protocol.md), against the GUI's game agent
on the server's side, which moves at once after the cut so that the whole outage
falls in the bot's turn.  Checked on the referee's stored record alone.
"""

from __future__ import annotations

import os
import time

from tests.net.conftest import Site, wait_for
from tests.net.drops import BEFORE, Match, check_record

from lanqi.protocol import MoveMade, Presence, Seek, TimeControl

CUT_S = 5
#: 3 minutes + 2 s a move; the first moves have their 30 s windows, as in the lobby
TIMED = Seek(
    variant="xiangqi",
    time_control=TimeControl(kind="fischer", base_ms=180_000, increment_ms=2_000),
)
#: lag compensation of a 3+2 clock, as docs/protocol.md's table gives it
GAIN_MS, CAP_MS, START_MS, MOST_MS = 1_000, 3_000, 3_000, 7_000
#: the referee's clock and its stored wall-clock times are read a moment apart (ms)
READ_MS = 50


def test_a_5_s_cut_in_the_own_turn_is_charged_less_the_cap(site: Site) -> None:
    bot = site.bot("Clocked")
    host = site.player("Timer")
    match = Match(site, bot, host, TIMED)
    out = match.out
    match.play_until(BEFORE)
    cut_wall = time.time()
    site.wan.down()
    match.host_moves()  # the bot's turn, the whole cut long
    match.hold(CUT_S)
    up_wall = time.time()
    site.wan.up()

    def bot_moved() -> bool:
        state = host.state
        return state.ply > BEFORE + 1 and host.my_turn()

    wait_for("the bot's move after the cut", bot_moved, 60, match.note)
    match.finish()
    check_record(out, bot, host)

    stored = site.stored(out.game_id)
    moves = [(at, e) for at, e in stored if isinstance(e, MoveMade)]
    assert [e.ply for _, e in moves] == list(range(len(moves)))
    seat = out.bot_seat
    # the host's move in the cut and the bot's answer after it
    cut = [i for i, (at, e) in enumerate(moves) if cut_wall * 1000 <= at <= up_wall * 1000]
    assert len(cut) == 1, f"moves stored during the cut: {cut}"
    (host_at, host_move), (bot_at, after) = moves[cut[0]], moves[cut[0] + 1]
    assert host_move.seat != seat and after.seat == seat
    before = [e for _, e in moves[: cut[0]] if e.seat == seat]
    # the quota, as the docs say: 3 gains, then after each move less what it got back
    # plus a gain, at most 7 gains (a first move, in its window, gets nothing back)
    quota = START_MS
    for e in before:
        quota = min(MOST_MS, quota - (e.lag_ms or 0) + GAIN_MS)
    ran_ms = bot_at - host_at  # the bot's clock ran this long: the cut and the way back
    assert ran_ms > CUT_S * 1000
    assert after.lag_ms is not None, "the bot's move after the cut said nothing of think_ms"
    # its lag is the outage (it moved at once): more than the cap, so the cap comes back
    assert after.lag_ms == min(CAP_MS, quota), (after.lag_ms, quota)
    left_before = before[-1].clock.remaining_ms[seat]  # after its last move, increment in
    assert after.left_ms is not None
    charged_ms = left_before - after.left_ms
    assert abs(charged_ms - (ran_ms - after.lag_ms)) <= READ_MS, (charged_ms, ran_ms, after)
    presence = [(e.seat, e.connected) for _, e in stored if isinstance(e, Presence)]
    print(
        f"\n{CUT_S} s cut in the bot's own turn, 3+2: its clock ran {ran_ms / 1000:.2f} s,"
        f" {after.lag_ms / 1000:.2f} s given back (quota {quota / 1000:.1f} s), charged"
        f" {charged_ms / 1000:.2f} s; presence {presence}; load"
        f" {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
