"""Fixtures for clock tests: a real referee subprocess and games played by real runners.

- ``referee_endpoints``: ``(requests, events)`` of a ``lanqi referee`` subprocess
  shared by a test module (stopped with SIGTERM, then SIGKILL, at the end).
- ``play_game``: create a game on that referee, give each seat to a
  :class:`~lanqi.bot.runner.GamePlayer` running a bot, and wait (by events) until
  the game ends or reaches a number of plies.  A seat's runner can be given a
  silent event endpoint instead of the referee's, so it hears no event at all.
  The referee's clock decides whether a move was in time, so a test asserts on the
  game's result, never on wall time.
"""

from __future__ import annotations

import os
import re
import selectors
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from lanqi.bot.base import Bot
from lanqi.bot.runner import GamePlayer
from lanqi.client.referee import GameView, RefereeClient
from lanqi.protocol import Assignment, TimeControl

REPO = Path(__file__).resolve().parents[2]
SOURCE_PATH = os.pathsep.join(str(REPO / part) for part in ("shared", "services", "frontends"))
READY_LINE = re.compile(rb"referee ready: requests (\S+), events ([^\s,]+)")


@pytest.fixture(scope="module")
def referee_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the module's referee keeps its log and (in ``data``) its data and keys."""
    return tmp_path_factory.mktemp("referee")


@pytest.fixture(scope="module")
def referee_endpoints(referee_folder: Path) -> Iterator[tuple[str, str]]:
    folder = referee_folder
    env = dict(os.environ, PYTHONPATH=SOURCE_PATH, PYTHONUNBUFFERED="1")
    command = [sys.executable, "-m", "lanqi.cli.main", "referee", "--port", "0"]
    command += ["--pub-port", "0", "--data-dir", str(folder / "data")]
    with (folder / "referee.log").open("wb") as log:
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, env=env)
    try:
        assert proc.stdout is not None
        buffer = b""
        with selectors.DefaultSelector() as selector:
            selector.register(proc.stdout, selectors.EVENT_READ)
            while b"\n" not in buffer:
                assert selector.select(30), "the referee did not start within 30 s"
                chunk = os.read(proc.stdout.fileno(), 4096)
                assert chunk, (folder / "referee.log").read_text(errors="replace")
                buffer += chunk
        match = READY_LINE.search(buffer)
        assert match is not None, buffer
        yield match.group(1).decode(), match.group(2).decode()
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@dataclass(slots=True)
class Played:
    """How a game went: its status, result, termination (and the reason beside it:
    what a resigning runner said) and plies at the end."""

    status: str
    result: str | None
    termination: str | None
    ply: int
    moves: list[str]
    reason: str = ""


PlayGame = Callable[..., Played]


@pytest.fixture
def play_game(referee_endpoints: tuple[str, str]) -> Iterator[PlayGame]:
    requests, events = referee_endpoints
    stops: list[threading.Event] = []
    players: list[GamePlayer] = []

    def play(
        first: Bot,
        second: Bot,
        variant: str,
        time_control: TimeControl,
        *,
        options: dict[str, Any] | None = None,
        max_plies: int = 1000,
        timeout_s: float = 300.0,
        events_for: dict[int, str] | None = None,
    ) -> Played:
        """``events_for`` gives a seat's runner another event endpoint than the
        referee's (a silent PUB: every event lost)."""
        stop = threading.Event()
        stops.append(stop)
        names = [f"{type(first).__name__}-a", f"{type(second).__name__}-b"]
        with RefereeClient(requests, events) as client:
            created = client.create_game(
                variant, players=names, options=options or {}, time_control=time_control
            )
            for seat, bot in enumerate((first, second)):
                assignment = Assignment(
                    game_id=created.game_id,
                    referee=requests,
                    referee_pub=(events_for or {}).get(seat, events),
                    seat=seat,
                    token=created.tokens[seat],
                    variant=variant,
                    options=dict(options or {}),
                    time_control=time_control,
                    players=names,
                )
                player = GamePlayer(bot, assignment, close_bot=True, stop=stop)
                players.append(player)
                player.start()
            view = GameView(client, created.game_id)
            view.wait_for(lambda v: v.finished or v.ply >= max_plies, int(timeout_s * 1000))
            if view.finished:  # let both runners see the end and say how it went
                for player in players[-2:]:
                    player.join(timeout=30)
            stop.set()
            return Played(
                view.status,
                view.result,
                view.termination,
                view.ply,
                list(view.moves),
                view.state.reason,
            )

    yield play
    for stop in stops:
        stop.set()
    for player in players:
        player.join(timeout=10)
