"""The server machine "sleeps": the referee and the matchmaker stopped (SIGSTOP) for
30 s in the middle of a game, then woken (SIGCONT).  Both players' clients - a
``lanqi bot`` behind the link and the GUI's game agent and lobby connection on the
server's side - come back by themselves; the game goes on (30 s is within the
default 60 s abandonment time, which counts from each seat's last sign of life
the referee took: the referee's own silence is counted too); nothing accepted is
lost or doubled; both players are in the lobby again."""

from __future__ import annotations

import os
import signal
import time

from tests.net.conftest import Site, wait_for
from tests.net.drops import BEFORE, Match, check_record

from lanqi.gui.net import Disconnected, Reconnected

SLEEP_S = 30


def test_both_players_survive_the_server_sleeping_30_s(site: Site) -> None:
    bot = site.bot("Sleeper")
    host = site.player("Waker")
    match = Match(site, bot, host)
    out = match.out
    match.play_until(BEFORE)
    match.host_moves()  # the bot's turn while the server sleeps
    services = [site.referee.pid, site.matchmaker.pid]
    for pid in services:
        os.kill(pid, signal.SIGSTOP)
    out.cut_at = time.monotonic()
    try:
        match.hold(SLEEP_S)
    finally:
        for pid in services:
            os.kill(pid, signal.SIGCONT)
    out.up_at = time.monotonic()
    lost = [item for at, item in host.heard if isinstance(item, Disconnected) and at > out.cut_at]
    assert lost, "the host's GUI never said the referee was lost"

    def back() -> bool:
        state = host.state
        return state.ply > BEFORE + 1 and host.my_turn() and all(state.connected)

    wait_for("the bot's move after the sleep", back, 60, match.note)
    out.back_after_s = time.monotonic() - out.up_at
    assert any(isinstance(item, Reconnected) for at, item in host.heard if at > out.up_at)
    wait_for(
        "both players in the lobby", lambda: site.online({bot.name, host.name}), 30, match.note
    )
    lobby_s = time.monotonic() - out.up_at
    match.finish()
    check_record(out, bot, host)
    assert out.ended is not None and out.ended.termination == "resignation"
    print(
        f"\nserver stopped {SLEEP_S} s: the game went on, the bot moved"
        f" {out.back_after_s:.1f} s after SIGCONT, both in the lobby after {lobby_s:.1f} s;"
        f" presence {out.presence}"
    )
