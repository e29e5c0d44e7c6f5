"""A server machine and a client host behind a link that can be cut.

- ``site``: a :class:`Site`: a :class:`~lanqi.bench.wan.Wan` (the client host, a
  network namespace), and ``lanqi referee`` + ``lanqi matchmaker`` subprocesses bound
  to the link's host end (``wan.host_address``), with the referee's liveness flags
  the test module asks for (``REFEREE_FLAGS``).  Everything is stopped and the
  namespace removed after the test; the services' logs must hold no ERROR record.
- :meth:`Site.bot`: a ``lanqi bot`` process inside the namespace (its every
  connection crosses the link), logging at DEBUG: each move the referee accepted
  from it is a ``sent`` line, the end of each game one INFO line.
- :meth:`Site.player`: the other player, on this host: a :class:`HostPlayer` with
  the GUI's own game agent (:class:`lanqi.gui.net.GameAgent`), which plays the
  moves the test tells it and shows what the GUI would show (the opponent's away
  countdown included).

The tests skip where :func:`lanqi.bench.wan.unavailable` says why a link cannot be
made (not root, no TUN device).
"""

from __future__ import annotations

import random
import re
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from tests.matchmaker.conftest import (
    DIRECTOR_KEY,
    PORT_FLAGS,
    READY,
    Lanqi,
    LanqiProcess,
    assigned,
)

from lanqi.bench.process import ServiceProcess
from lanqi.bench.wan import Wan, unavailable
from lanqi.bot.base import SeatView
from lanqi.client.matchmaker import MatchmakerClient
from lanqi.gamestate import GameState
from lanqi.gui import commands
from lanqi.gui.net import GameAgent, ViewState
from lanqi.protocol import (
    Assignment,
    Challenge,
    ChallengeCreated,
    GameEvent,
    ListPlayers,
    PlayersList,
    Seek,
    Snapshot,
    TimeControl,
    decode_payload,
)

pytestmark = pytest.mark.skipif(unavailable() is not None, reason=str(unavailable()))

#: a ``lanqi bot -v`` line for each move the referee accepted from it
SENT_LINE = re.compile(r"game (?P<game>[0-9a-f]+): \S+ sent (?P<move>\S+) ")
#: the ready line of a scripted GUI player (gui_player.py)
GUI_READY = re.compile(rb"gui player \S+ on (?P<server>\S+): ready")
#: its line at the end of a game
END_LINE = re.compile(
    r"game (?P<game>[0-9a-f]+): \S+ (?P<outcome>won|lost|drew|stopped) as seat \d .*?"
    r"\((?P<why>[^)]*)\) after (?P<plies>\d+) plies"
)


def wait_for(what: str, check: Callable[[], Any], timeout_s: float, step: Callable[[], Any]) -> Any:
    """``check()`` once it is truthy, calling ``step()`` (which waits for news)
    in between; fails the test after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        step()
    raise AssertionError(f"{what}: not within {timeout_s:g} s")


@dataclass
class NamespaceBot:
    """A ``lanqi bot`` process (or a scripted GUI player) inside the client namespace."""

    name: str
    process: ServiceProcess

    def log(self) -> str:
        return self.process.log_text()

    def accepted(self, game_id: str) -> list[str]:
        """The moves the referee accepted from it in ``game_id``, as it heard."""
        return [m["move"] for m in SENT_LINE.finditer(self.log()) if m["game"] == game_id]

    def ended(self, game_id: str) -> re.Match[str] | None:
        return next((m for m in END_LINE.finditer(self.log()) if m["game"] == game_id), None)


@dataclass
class HostPlayer:
    """The other player, on the server's side of the link: the GUI's game agent."""

    client: MatchmakerClient
    name: str
    assignment: Assignment | None = None
    agent: GameAgent | None = None
    view: ViewState | None = None
    #: every ViewState and notice the agent gave, with when it came
    heard: list[tuple[float, object]] = field(default_factory=list)
    accepted: list[str] = field(default_factory=list)
    #: every referee snapshot the agent's table took, with when it was first seen here
    snapshots: list[tuple[float, Snapshot]] = field(default_factory=list)
    rng: random.Random = field(default_factory=lambda: random.Random(7))

    def challenge(self, bot: str, seek: Seek) -> Assignment:
        self.client.call(Challenge(to=bot, seek=seek), ChallengeCreated)
        self.assignment = a = assigned(self.client, 20.0)
        self.agent = GameAgent(
            a.referee, a.referee_pub, a.game_id, seat=a.seat, token=a.token, key=a.referee_key
        )
        self.agent.start()
        return a

    def pump(self, wait_s: float = 0.05) -> None:
        """Take in what the agent heard (waiting up to ``wait_s`` for it)."""
        assert self.agent is not None
        deadline = time.monotonic() + wait_s
        while True:
            news = self.agent.poll()
            now = time.monotonic()
            for item in news:
                self.heard.append((now, item))
                if isinstance(item, ViewState):
                    self.view = item
                elif hasattr(item, "view") and isinstance(item.view, ViewState):
                    self.view = item.view
            table = self.agent.table
            taken = table.snapshot if table is not None else None
            if taken is not None and (not self.snapshots or self.snapshots[-1][1] is not taken):
                self.snapshots.append((now, taken))
            if news or now >= deadline:
                return
            time.sleep(0.01)  # a frame: the GUI polls its agent once per frame

    @property
    def state(self) -> GameState:
        assert self.view is not None
        return self.view.state

    def my_turn(self) -> bool:
        assert self.assignment is not None
        s = self.view.state if self.view is not None else None
        return s is not None and s.status == "active" and s.to_move == self.assignment.seat

    def move(self) -> str:
        """Play a random legal move of the current position (it must be our turn)."""
        assert self.agent is not None and self.assignment is not None
        state = self.state
        board = SeatView.start(
            self.assignment.variant, options=dict(self.assignment.options), moves=list(state.moves)
        ).board
        move = str(self.rng.choice(board.legal_moves()))  # the wire notation (ICCS, h8)
        self.agent.send(commands.PlayMove(ply=state.ply, move=move))
        return move

    def close(self) -> None:
        if self.agent is not None:
            self.agent.stop()
        self.client.close()


class Site:
    """The server machine (referee and matchmaker) and a client host behind a link."""

    def __init__(self, wan: Wan, root: Path, referee_flags: list[str]) -> None:
        self.wan = wan
        self.root = root
        self.lanqi = Lanqi(root)
        host = ["--host", wan.host_address]
        try:
            self.referee = self._service("referee", [*host, *referee_flags])
            requests, events = self.referee.endpoints["requests"], self.referee.endpoints["events"]
            self.matchmaker = self._service(
                "matchmaker",
                [*host, "--referee", f"{requests},{events}", "--director-key", DIRECTOR_KEY],
            )
        except BaseException:  # a service that did not start: stop the ones that did
            self.lanqi.stop_all()
            raise
        self.bots: list[NamespaceBot] = []
        self.players: list[HostPlayer] = []

    def _service(self, command: str, args: list[str]) -> LanqiProcess:
        """``lanqi referee`` or ``lanqi matchmaker`` with a data directory of its own,
        stopped with the others; given a minute to start and 20 s to stop (the
        machine these tests run on is shared, and at times very loaded)."""
        name = f"{command}-{len(self.lanqi.started)}"
        data = self.lanqi.data_dir(f"{name}-data")
        process = LanqiProcess(
            command,
            ["--data-dir", str(data), *args],
            self.root / "logs",
            name=name,
            ready=READY[command],
            ports=PORT_FLAGS[command],
            ready_s=60.0,
            stop_s=20.0,
        )
        process.data = data
        self.lanqi.started.append(process)
        (self.root / "logs").mkdir(parents=True, exist_ok=True)
        return process.start()

    def bot(self, name: str, *args: str) -> NamespaceBot:
        """``lanqi bot --bot random`` inside the namespace, on the matchmaker."""
        logs = self.root / "logs"
        command = [
            "ip", "netns", "exec", self.wan.namespace,
            sys.executable, "-m", "lanqi.cli.main", "bot", "-v",
            "--server", self.matchmaker.lobby, "--name", name, "--bot", "random",
            "--session-dir", str(self.root / "bot-sessions"), *args,
        ]  # fmt: skip
        process = ServiceProcess(
            command,
            READY["bot"],
            logs / f"bot-{name}.log",
            name=f"bot-{name}",
            env={"LANQI_DATA_DIR": str(self.root / f"bot-{name}-data")},
        )
        bot = NamespaceBot(name, process)
        self.bots.append(bot)
        return bot

    def gui(self, name: str) -> NamespaceBot:
        """A GUI player (the GUI's game agent, scripted: ``gui_player.py``) inside
        the namespace; it accepts the first challenge and logs as a bot does."""
        command = [
            "ip", "netns", "exec", self.wan.namespace,
            sys.executable, str(Path(__file__).with_name("gui_player.py")),
            self.matchmaker.lobby, name,
        ]  # fmt: skip
        process = ServiceProcess(
            command,
            GUI_READY,
            self.root / "logs" / f"gui-{name}.log",
            name=f"gui-{name}",
            env={"LANQI_DATA_DIR": str(self.root / f"gui-{name}-data")},
        )
        player = NamespaceBot(name, process)
        self.bots.append(player)
        return player

    def player(self, name: str) -> HostPlayer:
        client = MatchmakerClient(self.matchmaker.lobby, self.matchmaker.events)
        player = HostPlayer(client, name)
        self.players.append(player)
        client.hello(name)
        return player

    def online(self, names: set[str]) -> bool:
        assert self.players
        listed = self.players[0].client.call(ListPlayers(), PlayersList).players
        return names <= {p.name for p in listed if p.online}

    def events(self, game_id: str) -> list[GameEvent]:
        """The referee's stored record of ``game_id``: its events, in ``seq`` order."""
        return [event for _, event in self.stored(game_id)]

    def stored(self, game_id: str) -> list[tuple[int, GameEvent]]:
        """The stored events of ``game_id`` with the referee's time of each (ms)."""
        path = self.referee.data / "referee.sqlite3"  # type: ignore[operator]
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5.0)
        try:
            rows = conn.execute(
                "SELECT at_ms, payload FROM events WHERE game_id = ? ORDER BY seq", (game_id,)
            ).fetchall()
        finally:
            conn.close()
        decoded = [(int(at), decode_payload(bytes(payload))) for at, payload in rows]
        return [(at, e) for at, e in decoded if isinstance(e, GameEvent)]

    def close(self) -> list[str]:
        problems: list[str] = []
        for player in self.players:
            player.close()
        for bot in self.bots:
            bot.process.stop()
        problems.extend(self.lanqi.stop_all())
        return problems


@pytest.fixture
def site(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Site]:
    """A server and a client host behind a link (see the module)."""
    flags = list(getattr(request.module, "REFEREE_FLAGS", ()))
    with Wan() as wan:
        made = Site(wan, tmp_path, flags)
        try:
            yield made
        finally:
            problems = made.close()
    assert not problems, "\n".join(problems)


#: an untimed xiangqi game (a link down for 90 s must not flag anyone)
UNTIMED = Seek(variant="xiangqi", time_control=TimeControl(kind="none"))
