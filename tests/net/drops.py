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
from lanqi.protocol import GameEnded, MoveMade, Presence, Seek

#: the referee checks liveness on its loop's timer: how late it may notice a limit (ms)
TICK_MS = 500
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


class Match:
    """The bot and the host in one game, the host's view kept live (:meth:`note`)."""

    def __init__(
        self, site: Site, bot: NamespaceBot, host: HostPlayer, seek: Seek = UNTIMED
    ) -> None:
        self.site, self.bot, self.host = site, bot, host
        in_lobby = lambda: site.online({bot.name})  # noqa: E731
        wait_for("the bot in the lobby", in_lobby, 30, lambda: time.sleep(0.1))
        a = host.challenge(bot.name, seek)
        self.out = Outcome(a.game_id, 1 - a.seat)
        self.played: set[int] = set()

    def note(self) -> None:
        """One frame of the host's GUI: its view taken in, its countdowns noted."""
        out, host = self.out, self.host
        host.pump(0.05)
        view = host.view
        if view is None:
            return
        seat = out.bot_seat
        at = view.abandon_at[seat] if seat < len(view.abandon_at) else None
        if at is not None and (not out.countdowns or out.countdowns[-1][1] != at):
            out.countdowns.append((time.monotonic(), at))
        if view.state.finished and out.ended_seen_at is None:
            out.ended_seen_at = time.monotonic()

    def host_moves(self) -> None:
        host = self.host
        if not host.state.finished and host.state.ply not in self.played:
            self.played.add(host.state.ply)
            host.accepted.append(host.move())

    def play_until(self, plies: int) -> None:
        """The host plays its turns until ply ``plies`` is the host's to play."""
        host = self.host

        def reached() -> bool:
            state = host.view.state if host.view is not None else None
            if state is None:
                return False
            if state.finished or (state.ply >= plies and host.my_turn()):
                return True
            if host.my_turn():
                self.host_moves()
            return False

        wait_for(f"ply {plies} on the host's turn", reached, 60, self.note)

    def hold(self, seconds: float) -> None:
        """An outage of ``seconds``: the host's GUI keeps running its frames."""
        began = time.monotonic()
        while time.monotonic() - began < seconds:
            self.note()

    def finish(self) -> Outcome:
        """Play on a few moves, the host resigns; the record as the referee stored it."""
        out, host, bot = self.out, self.host, self.bot
        if not host.state.finished:
            self.play_until(host.state.ply + AFTER)
            assert host.agent is not None
            host.agent.send(commands.Resign())
        over = lambda: host.view is not None and host.view.state.finished  # noqa: E731
        wait_for("the game over", over, 30, self.note)
        wait_for("the bot's own end of the game", lambda: bot.ended(out.game_id), 60, self.note)
        for event in self.site.events(out.game_id):
            if isinstance(event, MoveMade):
                out.stored_moves.append((event.ply, event.seat, event.move))
            elif isinstance(event, Presence):
                out.presence.append((event.seat, event.connected))
            elif isinstance(event, GameEnded):
                out.ended = event
        return out


def play(
    site: Site,
    bot: NamespaceBot,
    host: HostPlayer,
    *,
    down_s: float,
    during: Literal["own", "theirs"],
) -> Outcome:
    """The bot's link cut for ``down_s`` seconds in its own turn or its opponent's
    (see the module); the outcome once the game is over."""
    match = Match(site, bot, host)
    out = match.out
    match.play_until(BEFORE)
    out.cut_at = time.monotonic()
    site.wan.down()
    if during == "own":
        match.host_moves()
    match.hold(down_s)
    out.up_at = time.monotonic()
    site.wan.up()
    marked_away = any(
        isinstance(e, Presence) and e.seat == out.bot_seat and not e.connected
        for e in site.events(out.game_id)
    )
    if during == "theirs":
        match.host_moves()

    def bot_back() -> bool:
        state = host.view.state if host.view is not None else None
        if state is None:
            return False
        if state.finished:  # abandoned meanwhile: back in the lobby, the end heard
            return bool(bot.ended(out.game_id)) and site.online({bot.name})
        if marked_away:
            return state.connected[out.bot_seat]
        return state.ply > BEFORE + 1 and host.my_turn()

    wait_for("the bot back in its seat", bot_back, 60, match.note)
    out.back_after_s = time.monotonic() - out.up_at
    return match.finish()


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


def check_abandoned(
    site: Site, out: Outcome, *, during: str, gap: float, abandon_s: float, away_s: float
) -> None:
    """The game ended by abandonment as documented: the bot shown away ``away_s``
    after its last sign of life (``--disconnect-after``) and abandoned ``abandon_s``
    after it (``--abandon-after``), the host winning; the host's view counted down
    to it.  Prints the figures."""
    stored = site.stored(out.game_id)
    away = [at for at, e in stored if isinstance(e, Presence) and not e.connected]
    ended = [(at, e) for at, e in stored if isinstance(e, GameEnded)]
    assert len(away) == 1 and len(ended) == 1, stored
    ended_at, end = ended[0]
    assert end.termination == "abandoned" and end.winner == 1 - out.bot_seat
    # shown away away_s after its last sign of life, abandoned abandon_s after it
    silent_ms = ended_at - away[0]
    assert abs(silent_ms - (abandon_s - away_s) * 1000) <= TICK_MS, silent_ms
    assert out.presence[0] == (out.bot_seat, False)
    assert out.countdowns, "the opponent's view never showed how long the bot had"
    last_shown = out.countdowns[-1][1]
    assert out.ended_seen_at is not None
    print(
        f"\n{out.up_at - out.cut_at:.0f} s cut, {during} turn, --abandon-after {abandon_s:g}:"
        f" abandoned {silent_ms / 1000:.2f} s after the referee showed the bot away;"
        f" the opponent's countdown ran out {out.ended_seen_at - last_shown:+.2f} s from the"
        f" end it saw (countdown off the snapshot by {gap:.3f} s); the bot back in the"
        f" lobby, the end heard, {out.back_after_s:.1f} s after the link came back"
    )
