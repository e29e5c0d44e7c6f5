"""One game across a link that drops: the scenario the tests of this folder run.

A ``lanqi bot`` in the client namespace plays an untimed xiangqi game against the
GUI's game agent on the server's side (:class:`~tests.net.conftest.HostPlayer`).
After a few moves the bot's link is cut for ``down_s`` seconds:

- ``during="own"``: the cut comes on the host's turn and the host moves at once, so
  the whole cut falls in the bot's own turn (it cannot hear the move nor answer);
- ``during="theirs"``: the cut comes on the host's turn and the host holds its move
  until the link is back, so the whole cut falls in the opponent's turn.

Then the link comes back and the game goes on (or has ended, by abandonment) and is
checked against the referee's stored record.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Literal

from tests.net.conftest import UNTIMED, HostPlayer, NamespaceBot, Site, wait_for

from lanqi.gui import commands
from lanqi.gui.net import ViewState
from lanqi.protocol import GameEnded, MoveMade, Presence

#: plies played before the cut, and after the link is back (when the game goes on)
BEFORE, AFTER = 4, 6


@dataclass
class Outcome:
    """What happened, for the test to check and report."""

    game_id: str
    bot_seat: int
    #: the referee's stored events of the game
    stored_moves: list[tuple[int, int, str]] = field(default_factory=list)
    presence: list[tuple[int, bool]] = field(default_factory=list)
    ended: GameEnded | None = None
    #: seconds from the link's return to the bot's seat back (presence true, or its
    #: next accepted move where the referee never marked it away)
    back_after_s: float | None = None
    #: the away countdowns the host's view showed for the bot's seat: (when, abandon_at)
    countdowns: list[tuple[float, float]] = field(default_factory=list)
    #: when the host's view first showed the game over
    ended_seen_at: float | None = None
    cut_at: float = 0.0
    up_at: float = 0.0


def play(
    site: Site,
    bot: NamespaceBot,
    host: HostPlayer,
    *,
    down_s: float,
    during: Literal["own", "theirs"],
) -> Outcome:
    wait_for("the bot in the lobby", lambda: site.online({bot.name}), 30, lambda: time.sleep(0.1))
    a = host.challenge(bot.name, UNTIMED)
    bot_seat = 1 - a.seat
    out = Outcome(a.game_id, bot_seat)

    def note() -> None:
        host.pump(0.05)
        view = host.view
        if view is None:
            return
        at = view.abandon_at[bot_seat] if bot_seat < len(view.abandon_at) else None
        if at is not None and (not out.countdowns or out.countdowns[-1][1] != at):
            out.countdowns.append((time.monotonic(), at))
        if view.state.finished and out.ended_seen_at is None:
            out.ended_seen_at = time.monotonic()

    def play_until(plies: int) -> None:
        def reached() -> bool:
            state = host.view.state if host.view is not None else None
            if state is None:
                return False
            if state.finished or (state.ply >= plies and host.my_turn()):
                return True
            if host.my_turn() and host.state.ply not in played:
                played.add(host.state.ply)
                host.accepted.append(host.move())
            return False

        wait_for(f"ply {plies} on the host's turn", reached, 60, note)

    played: set[int] = set()
    play_until(BEFORE)
    out.cut_at = time.monotonic()
    site.wan.down()
    if during == "own":
        played.add(host.state.ply)
        host.accepted.append(host.move())
    while time.monotonic() - out.cut_at < down_s:  # the outage itself, the host's view live
        note()
    out.up_at = time.monotonic()
    site.wan.up()
    marked_away = any(
        isinstance(e, Presence) and e.seat == bot_seat and not e.connected
        for e in site.events(a.game_id)
    )

    def bot_back() -> bool:
        state = host.view.state if host.view is not None else None
        if state is None:
            return False
        if state.finished:  # abandoned meanwhile: back in the lobby, the end heard
            return bool(bot.ended(a.game_id)) and site.online({bot.name})
        if marked_away:
            return state.connected[bot_seat]
        return state.ply > BEFORE + 1 - (during == "theirs") and host.my_turn()

    if during == "theirs" and not host.state.finished:
        played.add(host.state.ply)
        host.accepted.append(host.move())
    wait_for("the bot back in its seat", bot_back, 60, note)
    out.back_after_s = time.monotonic() - out.up_at
    if not host.state.finished:
        play_until(BEFORE + AFTER)
        assert host.agent is not None
        host.agent.send(commands.Resign())
    wait_for("the game over", lambda: host.view is not None and host.view.state.finished, 30, note)
    wait_for("the bot's own end of the game", lambda: bot.ended(a.game_id), 60, note)
    for event in site.events(a.game_id):
        if isinstance(event, MoveMade):
            out.stored_moves.append((event.ply, event.seat, event.move))
        elif isinstance(event, Presence):
            out.presence.append((event.seat, event.connected))
        elif isinstance(event, GameEnded):
            out.ended = event
    return out


def check_record(out: Outcome, bot: NamespaceBot, host: HostPlayer) -> None:
    """No accepted move lost or doubled: the referee's stored record, what the bot
    heard accepted, what the host sent and what the host's view shows agree."""
    plies = [ply for ply, _, _ in out.stored_moves]
    assert plies == list(range(len(plies))), f"plies stored: {plies}"
    stored_bot = [m for _, seat, m in out.stored_moves if seat == out.bot_seat]
    stored_host = [m for _, seat, m in out.stored_moves if seat != out.bot_seat]
    assert bot.accepted(out.game_id) == stored_bot, (bot.accepted(out.game_id), stored_bot)
    assert host.accepted == stored_host, (host.accepted, stored_host)
    view = host.view
    assert isinstance(view, ViewState)
    assert list(view.state.moves) == [m for _, _, m in out.stored_moves], view.state.moves
    ended = bot.ended(out.game_id)
    assert ended is not None and int(ended["plies"]) == len(plies), (ended, plies)


def check_countdown(out: Outcome, host: HostPlayer) -> float:
    """Every away countdown the host's view showed for the bot's seat is the
    referee's: the latest snapshot the view had taken when it showed it says that
    seat away, with that much time left (counting since its last sign of life, so
    less than the whole limit).  Returns how far the shown time and the snapshot's
    differ at most, in seconds."""
    worst = 0.0
    for shown_at, at in out.countdowns:
        taken = [(t, s) for t, s in host.snapshots if t <= shown_at]
        assert taken, "a countdown shown before any snapshot"
        seen, snapshot = taken[-1]
        assert not snapshot.connected[out.bot_seat], (
            f"a countdown from a snapshot (seq {snapshot.seq}) that shows the bot there"
        )
        left_ms = snapshot.abandon_in_ms[out.bot_seat]
        assert left_ms < snapshot.abandon_after_ms, (left_ms, snapshot.abandon_after_ms)
        worst = max(worst, abs(at - (seen + left_ms / 1000)))
    return worst
