"""The GUI program itself behind a link that drops: ``lanqi gui --server ... --name
...`` in a real window (Xvfb, SDL's x11 driver) inside the client namespace, played
with keys (:mod:`tests.net.window`), seated by accepting a challenge (``y``) from a
scripted opponent on the server's side (the GUI's game agent,
:class:`~tests.net.conftest.HostPlayer`, whose timing the test controls).

Its link is cut for 5 and 20 s in its own turn and in its opponent's (90 s, slow:
abandoned after the default 60 s).  Checked from outside, as a person's window
cannot be asked: the referee's stored events (the window's seat shown away and back
once, every move it was given to type stored once, the game goes on), the window's
log (``lost the referee``, ``the referee is back``, the lobby's ``players listed
again``), the matchmaker (the window's player online again, its new seek listed
after ``Esc`` and ``s``), and screenshots during and after the cut.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import pytest
from tests.matchmaker.conftest import assigned
from tests.net.conftest import HostPlayer, Site, wait_for
from tests.net.window import Window
from tests.net.xdisplay import XDisplay, unavailable

from lanqi.bot.base import SeatView
from lanqi.gui import commands
from lanqi.gui.net import GameAgent
from lanqi.protocol import (
    Challenge,
    ChallengeCreated,
    GameEnded,
    ListSeeks,
    MoveMade,
    Presence,
    Seek,
    SeeksList,
    TimeControl,
)

pytestmark = pytest.mark.skipif(unavailable() is not None, reason=str(unavailable()))

#: the challenge: untimed xiangqi, the challenger second (the window plays Red)
SEEK = Seek(variant="xiangqi", time_control=TimeControl(kind="none"), color="second")
#: the window's seat
SEAT = 0
#: plies before the cut (the cut comes on the opponent's turn, ply 3), and after it
BEFORE, AFTER = 3, 4
#: a line of the window's log when its game's link is lost, and when it is back
LOST, BACK = r"game \w+: lost the referee", r"game \w+: the referee is back"
LOBBY_LOST, LOBBY_BACK = r"lobby: lost the matchmaker", r"lobby: \d+ players listed again"


@pytest.fixture
def display(tmp_path: Path) -> Iterator[XDisplay]:
    with XDisplay(tmp_path / "x") as x:
        yield x


@dataclass
class Figures:
    """Seconds from the link's return to the seat back and to the lobby back, and
    the screenshots taken."""

    back_after_s: float = 0.0
    lobby_back_after_s: float = 0.0
    shots: list[Path] = field(default_factory=list)


class WindowGame:
    """The window (seat 0) against the host's scripted opponent, the host's view
    kept live between the steps (:meth:`note`)."""

    def __init__(self, site: Site, display: XDisplay, tag: str, root: Path) -> None:
        self.site, self.display, self.root = site, display, root
        self.window = Window(site.wan, display, site.matchmaker.lobby, f"Win{tag}", root)
        self.host: HostPlayer = site.player(f"Opp{tag}")
        self.rng = random.Random(5)
        self.typed: list[str] = []
        self.played: set[int] = set()
        online = lambda: site.online({self.window.name})  # noqa: E731
        try:
            wait_for("the window in the lobby", online, 90, lambda: time.sleep(0.2))
            self.game_id = self._seat()
        except BaseException:
            self.close(root / "shots" / "seating.png")
            raise

    def _seat(self) -> str:
        host, window = self.host, self.window
        host.client.call(Challenge(to=window.name, seek=SEEK), ChallengeCreated)
        # "y" accepts once the challenge shows; pressed until the game is assigned
        deadline = time.monotonic() + 60
        while True:
            window.focus()
            self.display.keys("y")
            try:
                a = assigned(host.client, 2.0)
                break
            except AssertionError:
                if time.monotonic() > deadline:
                    raise
        assert a.seat == 1 - SEAT
        host.assignment = a
        host.agent = GameAgent(
            a.referee, a.referee_pub, a.game_id, seat=a.seat, token=a.token, key=a.referee_key
        )
        host.agent.start()
        return a.game_id

    def note(self) -> None:
        self.host.pump(0.05)

    def close(self, shot: Path) -> None:
        """The screen as it was last (for a failure), then the window stopped."""
        try:
            self.display.shot(shot)
        finally:
            self.window.stop()

    def state_ply(self) -> int:
        view = self.host.view
        return view.state.ply if view is not None else -1

    def window_moves(self) -> None:
        """The window's turn: a random legal move typed in; waits until the referee took it."""
        state = self.host.state
        ply = state.ply
        board = SeatView.start("xiangqi", moves=list(state.moves)).board
        move = str(self.rng.choice(board.legal_moves()))
        self.typed.append(move)
        # the window's screen has this position (its log says so) before the keys go
        shown = rf"game {self.game_id}: at ply {ply}, seat {SEAT} to move"
        wait_for(f"the window at ply {ply}", lambda: self.window.count(shown), 30, self.note)
        self.window.play(move, SEAT)
        wait_for(
            f"the window's move {move} at ply {ply}", lambda: self.state_ply() > ply, 30, self.note
        )

    def host_moves(self) -> None:
        host = self.host
        if not host.state.finished and host.state.ply not in self.played:
            self.played.add(host.state.ply)
            host.accepted.append(host.move())

    def play_until(self, plies: int) -> None:
        """Both sides play until ply ``plies`` is to be played."""
        while True:
            wait_for("a view of the game", lambda: self.host.view is not None, 30, self.note)
            state = self.host.state
            if state.finished or state.ply >= plies:
                return
            if state.to_move == SEAT:
                self.window_moves()
            else:
                self.host_moves()
                ply = state.ply
                wait_for("the host's move", lambda: self.state_ply() > ply, 30, self.note)  # noqa: B023

    def hold(self, seconds: float) -> None:
        """``seconds`` of the opponent's frames (an outage, say)."""
        began = time.monotonic()
        while time.monotonic() - began < seconds:
            self.note()

    def stored(self) -> tuple[list[tuple[int, int, str]], list[tuple[int, bool]], GameEnded | None]:
        moves: list[tuple[int, int, str]] = []
        presence: list[tuple[int, bool]] = []
        ended = None
        for event in self.site.events(self.game_id):
            if isinstance(event, MoveMade):
                moves.append((event.ply, event.seat, event.move))
            elif isinstance(event, Presence):
                presence.append((event.seat, event.connected))
            elif isinstance(event, GameEnded):
                ended = event
        return moves, presence, ended


def cut(game: WindowGame, down_s: float, during: Literal["own", "theirs"], shots: Path) -> Figures:
    """The window's link cut for ``down_s`` in its turn or its opponent's (see
    tests/net/drops.py: the cut comes on the opponent's turn, who moves at once or
    after the link is back); returns once the window is back in its seat."""
    figures = Figures()
    site, window, host = game.site, game.window, game.host
    game.play_until(BEFORE)
    lost, back = window.count(LOST), window.count(BACK)
    lobby_lost, lobby_back = window.count(LOBBY_LOST), window.count(LOBBY_BACK)
    site.wan.down()
    if during == "own":
        game.host_moves()
    # two pictures in the cut, once the window knows (3 s without a heartbeat), the
    # second near its end: the player sees the link down and a countdown that moves
    first, last = shots / f"{down_s}s-{during}-during.png", shots / f"{down_s}s-{during}-late.png"
    game.hold(3.5)
    game.display.shot(first)
    game.hold(down_s - 0.2 - 3.5)
    game.display.shot(last)
    figures.shots += [first, last]
    up_at = time.monotonic()
    site.wan.up()
    assert window.count(LOST) > lost, "the window never said its game's link was lost"
    assert pixels(first) != pixels(last), "the window looked frozen during the cut"
    if during == "theirs":
        game.host_moves()

    def seat_back() -> bool:
        view = host.view
        return view is not None and (view.state.finished or view.state.connected[SEAT])

    def said_back() -> bool:
        return window.count(BACK) > back

    wait_for("the window back in its seat", lambda: seat_back() and said_back(), 90, game.note)
    figures.back_after_s = time.monotonic() - up_at
    wait_for(
        "the window's lobby back", lambda: window.count(LOBBY_BACK) > lobby_back, 60, game.note
    )
    figures.lobby_back_after_s = time.monotonic() - up_at
    assert window.count(LOBBY_LOST) > lobby_lost, "the lobby never said the matchmaker was lost"
    after_shot = shots / f"{down_s}s-{during}-after.png"
    figures.shots.append(game.display.shot(after_shot))
    return figures


def pixels(path: Path) -> bytes:
    """A screenshot's pixels (its file also holds the time it was written)."""
    import pygame

    return pygame.image.tobytes(pygame.image.load(str(path)), "RGB")


def back_to_the_lobby_and_seek(game: WindowGame) -> None:
    """The game over: ``Esc`` leaves it, ``s`` posts a seek, which the matchmaker lists."""
    site, window = game.site, game.window
    wait_for("both online", lambda: site.online({window.name, game.host.name}), 60, game.note)

    over = rf"game {game.game_id}: over at ply"
    wait_for("the window told the end", lambda: window.count(over), 60, game.note)
    lobbies = window.count(r"screen: LobbyScene")
    window.focus()
    game.display.keys("Escape")
    back = lambda: window.count(r"screen: LobbyScene") > lobbies  # noqa: E731
    wait_for("the window's lobby screen", back, 30, game.note)
    game.display.keys("s")

    def seeking() -> bool:
        seeks = game.host.client.call(ListSeeks(), SeeksList).seeks
        return any(s.player == window.name for s in seeks)

    wait_for("the window's seek listed", seeking, 30, game.note)
    # and the window's own lobby shows it: both players online, its seek, no game left
    shown = r"lobby lists: 2 players \(2 online\), 1 seeks, 0 live games"
    seen = window.count(shown)
    wait_for("the window's lobby with its seek", lambda: window.count(shown) > seen, 30, game.note)


@pytest.mark.parametrize("down_s", [5, 20])
@pytest.mark.parametrize("during", ["own", "theirs"])
def test_the_window_comes_back_into_its_seat_and_its_lobby(
    site: Site,
    display: XDisplay,
    tmp_path: Path,
    down_s: int,
    during: Literal["own", "theirs"],
) -> None:
    game = WindowGame(site, display, f"{down_s}{during}", tmp_path)
    try:
        figures = cut(game, down_s, during, tmp_path / "shots")
        game.play_until(BEFORE + 1 + AFTER)
        assert game.host.agent is not None
        game.host.agent.send(commands.Resign())
        over = lambda: game.host.view is not None and game.host.view.state.finished  # noqa: E731
        wait_for("the game over", over, 30, game.note)
        moves, presence, ended = game.stored()
        # nothing lost or doubled: the referee stored each typed move once, in order
        assert [ply for ply, _, _ in moves] == list(range(len(moves))), moves
        assert [m for _, seat, m in moves if seat == SEAT] == game.typed, (moves, game.typed)
        assert [m for _, seat, m in moves if seat != SEAT] == game.host.accepted
        assert len(moves) >= BEFORE + 1 + AFTER
        # shown away and back once; the game went on and ended by resignation
        assert presence == [(SEAT, False), (SEAT, True)], presence
        assert ended is not None and ended.termination == "resignation" and ended.winner == SEAT
        back_to_the_lobby_and_seek(game)
        game.display.shot(tmp_path / "shots" / f"{down_s}s-{during}-lobby.png")
    finally:
        game.close(tmp_path / "shots" / "last.png")
    assert not game.window.problems(), game.window.problems()
    print(
        f"\nwindow, {down_s} s cut, {during} turn: back in its seat {figures.back_after_s:.1f} s"
        f" after the link, its lobby {figures.lobby_back_after_s:.1f} s; load"
        f" {' '.join(f'{x:.2f}' for x in os.getloadavg())}; shots {figures.shots}"
    )


@pytest.mark.slow
@pytest.mark.parametrize("during", ["own", "theirs"])
def test_a_90_s_cut_loses_the_window_its_game_and_it_is_back_in_the_lobby(
    site: Site, display: XDisplay, tmp_path: Path, during: Literal["own", "theirs"]
) -> None:
    game = WindowGame(site, display, f"90{during}", tmp_path)
    try:
        figures = cut(game, 90, during, tmp_path / "shots")
        moves, presence, ended = game.stored()
        assert [m for _, seat, m in moves if seat == SEAT] == game.typed, (moves, game.typed)
        assert [m for _, seat, m in moves if seat != SEAT] == game.host.accepted
        # away once, never back: abandoned (60 s after its last sign of life), the opponent wins
        assert presence == [(SEAT, False)], presence
        assert ended is not None and ended.termination == "abandoned" and ended.winner == 1 - SEAT
        back_to_the_lobby_and_seek(game)
        game.display.shot(tmp_path / "shots" / f"90s-{during}-lobby.png")
    finally:
        game.close(tmp_path / "shots" / "last.png")
    assert not game.window.problems(), game.window.problems()
    print(
        f"\nwindow, 90 s cut, {during} turn: the end heard {figures.back_after_s:.1f} s after"
        f" the link, its lobby {figures.lobby_back_after_s:.1f} s; load"
        f" {' '.join(f'{x:.2f}' for x in os.getloadavg())}; shots {figures.shots}"
    )
