"""One process of ``lanqi bench crowd``'s players: many real client connections on
one asyncio loop (``python -m lanqi.bench.crowd_players SPEC``).

Each player is one :class:`~lanqi.client.connection.Connection`, as one GUI, bot
runner or web gateway session has: a DEALER to the matchmaker, a SUB on its lobby
topic, and while it plays a DEALER and a SUB to the game's referee, each with its
monitor, its ZMTP heartbeats, the connection's pings and seat heartbeats.  Only the
move choice is cheap (a random legal move), so what a player costs the services is
what a real client costs them.

The process talks to :mod:`lanqi.bench.crowd` by lines: JSON objects on stdout
(``{"ready": n}``, progress, the final ``{"report": ...}``), and one word per line
on stdin that starts each phase:

- ``hello``: every player says hello at once (the lobby's storm), timed;
- ``join TOURNAMENT``: the Swiss players enter the event;
- ``play``: the seekers post seeks, one game after another; Swiss players play
  whatever game the matchmaker assigns them from the start;
- ``stop``: close everything and print the report.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import sys
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any

import zmq
import zmq.asyncio

from lanqi.bench.process import cpu_seconds
from lanqi.client.connection import Connection, NoAnswer, Refused
from lanqi.games.registry import create_game
from lanqi.protocol import (
    Assignment,
    CreateSeek,
    ErrorReply,
    GameAssigned,
    Hello,
    JoinTournament,
    ListPlayers,
    ListSeeks,
    ListTournaments,
    LobbyEvent,
    LobbyPresence,
    Message,
    MoveAccepted,
    MoveRequest,
    Ok,
    PlayersList,
    Resign,
    Seek,
    SeeksList,
    TimeControl,
    TournamentsList,
    Welcome,
)
from lanqi.protocol.endpoints import TOPIC_LOBBY
from lanqi.security import Link
from lanqi.table.port import Answered
from lanqi.table.remote import RemoteTable

__all__ = ["PlayerSpec", "WorkerSpec", "main"]

log = logging.getLogger(__name__)

#: a reply the bench waits for (a hello in the storm may queue behind many)
REPLY_S = 120.0
#: sockets of one player while it plays: 4 (matchmaker, lobby, referee, game events),
#: each with a monitor pair; ZeroMQ's default of 1023 per context is far too few
SOCKETS_PER_PLAYER = 12
#: the GUI's lobby refresh (lanqi.gui.net): after news, and at least this often
LOBBY_DIRTY_S = 0.2
LOBBY_REFRESH_S = 5.0


@dataclass(frozen=True, slots=True)
class PlayerSpec:
    name: str
    role: str  # "seek", "swiss" or "idle"
    #: follows the lobby as the GUI's lobby screen does (a SUB on ``lobby``, the lists
    #: read again 0.2 s after news and every 5 s); bots (the runner) do not
    #: this player's hello is a presence subject others time (a sample, not all)
    subject: bool
    watcher: bool = False


@dataclass(slots=True)
class WorkerSpec:
    matchmaker: str
    events: str
    key: str | None
    players: list[PlayerSpec]
    variant: str
    time_control: dict[str, Any]
    games: int  # games each seeker plays, one after another
    plies: int  # plies before the side to move resigns
    think_ms: float  # mean think time before a move (uniform 0.5x-1.5x)
    seed: int
    #: players whose number is a multiple of this are timed presence subjects
    subject_every: int = 1

    @classmethod
    def from_json(cls, text: str) -> WorkerSpec:
        raw = json.loads(text)
        raw["players"] = [PlayerSpec(**p) for p in raw["players"]]
        return cls(**raw)


@dataclass(slots=True)
class Figures:
    """What this process measured (milliseconds, monotonic clock: one for the
    whole machine, so the coordinator can set another process's times beside them)."""

    hello_ms: list[float] = field(default_factory=list)
    hello_failed: list[str] = field(default_factory=list)
    hello_sent: dict[str, float] = field(default_factory=dict)  # subject -> when
    presence_seen: dict[str, list[float]] = field(default_factory=dict)  # subject -> whens
    seek_ms: list[float] = field(default_factory=list)
    move_ms: list[float] = field(default_factory=list)
    move_refused: dict[str, int] = field(default_factory=dict)
    games_played: int = 0
    games_unfinished: int = 0
    seek_games: int = 0
    swiss_games: int = 0
    seekers_done: int = 0
    joined: int = 0
    join_failed: list[str] = field(default_factory=list)
    lists_ms: list[float] = field(default_factory=list)  # list_players round trips
    lists_failed: int = 0
    errors: list[str] = field(default_factory=list)


def _now_ms() -> float:
    return time.monotonic() * 1000.0


class Player:
    """One crowd player: its connection, its role, its games."""

    def __init__(self, worker: Worker, spec: PlayerSpec, link: Link) -> None:
        self.worker = worker
        self.spec = spec
        self.conn = Connection(
            worker.spec.matchmaker, events=worker.spec.events, link=link, context=worker.context
        )
        self.rng = random.Random(f"{worker.spec.seed}/{spec.name}")
        self.assigned: asyncio.Queue[Assignment] = asyncio.Queue()
        self.games: set[asyncio.Task[None]] = set()
        self.dirty = asyncio.Event()

    async def connect(self) -> None:
        """The matchmaker's DEALER and the lobby's SUB, both up."""
        service = await self.conn.matchmaker()
        service.on_push = self._push
        if self.spec.watcher:
            link = self.conn.link or Link.plain()
            publisher = self.conn.publisher(self.worker.spec.events, link)
            publisher.listen(TOPIC_LOBBY, self._lobby)
            await publisher.ready.wait()
        while not service.up:
            await asyncio.sleep(0.05)

    async def watch_lobby(self) -> None:
        """The GUI's lobby screen: the players, seeks and events read again 0.2 s
        after lobby news (LOBBY_DIRTY_S) and at least every 5 s (LOBBY_REFRESH_S)."""
        figures = self.worker.figures
        last = 0.0
        while True:
            wait = LOBBY_REFRESH_S - (time.monotonic() - last)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.dirty.wait(), max(0.0, wait))
            pause = LOBBY_DIRTY_S - (time.monotonic() - last)
            if pause > 0:
                await asyncio.sleep(pause)
            self.dirty.clear()
            last = time.monotonic()
            sent = _now_ms()
            try:
                await self.conn.call(ListPlayers(), PlayersList, REPLY_S)
                figures.lists_ms.append(_now_ms() - sent)
                await self.conn.call(ListSeeks(), SeeksList, REPLY_S)
                await self.conn.call(ListTournaments(), TournamentsList, REPLY_S)
            except (NoAnswer, Refused):
                figures.lists_failed += 1

    def _lobby(self, message: Message) -> None:
        if isinstance(message, LobbyEvent):
            self.dirty.set()
        if (
            isinstance(message, LobbyPresence)
            and message.online
            and self.worker.is_subject(message.player)
            and message.player != self.spec.name
        ):
            seen = self.worker.figures.presence_seen.setdefault(message.player, [])
            seen.append(_now_ms())

    def _push(self, message: Message) -> None:
        if isinstance(message, GameAssigned):
            game = message.game
            if game.tournament_id is not None:
                self._start(game)
            else:
                self.assigned.put_nowait(game)

    def _start(self, game: Assignment) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(self.play(game))
        self.games.add(task)
        task.add_done_callback(self.games.discard)
        return task

    async def hello(self) -> None:
        figures = self.worker.figures
        hello = Hello(name=self.spec.name, kind="bot")
        sent = _now_ms()
        if self.spec.subject:
            figures.hello_sent[self.spec.name] = sent
        try:
            welcome = await self.conn.call(hello, Welcome, REPLY_S)
        except (NoAnswer, Refused) as exc:
            figures.hello_failed.append(f"{self.spec.name}: {exc}")
            return
        figures.hello_ms.append(_now_ms() - sent)
        self.conn.welcomed(hello, welcome)
        if self.spec.watcher:  # the GUI shows its lobby from its welcome on
            self.worker.spawn(self.watch_lobby())

    async def join(self, tournament_id: str) -> None:
        try:
            await self.conn.call(JoinTournament(tournament_id=tournament_id), Ok, REPLY_S)
        except (NoAnswer, Refused) as exc:
            self.worker.figures.join_failed.append(f"{self.spec.name}: {exc}")
            return
        self.worker.figures.joined += 1

    async def seek_games(self) -> None:
        spec = self.worker.spec
        seek = Seek(
            variant=spec.variant,
            time_control=TimeControl(**spec.time_control),
            rated=False,
        )
        for _ in range(spec.games):
            sent = _now_ms()
            try:
                await self.conn.call(CreateSeek(seek=seek), Message, REPLY_S)
            except (NoAnswer, Refused) as exc:
                self.worker.figures.errors.append(f"{self.spec.name} seek: {exc}")
                return
            game = await self.assigned.get()
            self.worker.figures.seek_ms.append(_now_ms() - sent)
            await self.play(game)
            self.worker.figures.seek_games += 1
        self.worker.figures.seekers_done += 1
        self.worker.say(seekers_done=self.worker.figures.seekers_done)

    async def play(self, game: Assignment) -> None:
        """Random legal moves after a think time; after ``plies`` plies the side to
        move resigns.  Every move's round trip (request to its reply) is timed."""
        figures = self.worker.figures
        try:
            table = await self.conn.open_table(game)
        except (NoAnswer, Refused) as exc:
            figures.errors.append(f"{self.spec.name} open {game.game_id}: {exc}")
            figures.games_unfinished += 1
            return
        board = create_game(game.variant, **dict(game.options))
        sent: dict[int, float] = {}
        asked_ply = -1  # the ply whose move is in flight (or was answered)
        try:
            while True:
                for news in table.poll():
                    if isinstance(news, Answered) and isinstance(news.request, MoveRequest):
                        at = sent.pop(news.request.id, None)
                        if isinstance(news.reply, MoveAccepted) and at is not None:
                            figures.move_ms.append(_now_ms() - at)
                        elif isinstance(news.reply, ErrorReply):
                            code = news.reply.code
                            figures.move_refused[code] = figures.move_refused.get(code, 0) + 1
                            asked_ply = -1  # send again at the next news
                state = table.state
                if state.finished:
                    break
                if len(state.moves) < board.ply:  # a takeback cannot happen here: rebuild
                    board = create_game(game.variant, **dict(game.options))
                for text in state.moves[board.ply :]:
                    board.push(board.parse_move(text))
                ply = len(state.moves)
                if state.status == "active" and state.to_move == table.seat and asked_ply != ply:
                    asked_ply = ply
                    await self._move(table, board, ply, sent)
                await table.wait(1.0)
        finally:
            table.close()
        figures.games_played += 1
        if game.tournament_id is not None:
            figures.swiss_games += 1

    async def _move(self, table: RemoteTable, board: Any, ply: int, sent: dict[int, float]) -> None:
        spec = self.worker.spec
        token = table.token or ""
        if ply >= spec.plies:
            table.send(Resign(game_id=table.game_id, token=token))
            return
        think = spec.think_ms * (0.5 + self.rng.random())
        await asyncio.sleep(think / 1000.0)
        moves = board.legal_moves()
        if not moves:
            return
        move = board.move_text(self.rng.choice(moves))
        request_id = table.send(MoveRequest(game_id=table.game_id, token=token, ply=ply, move=move))
        sent[request_id] = _now_ms()

    async def close(self) -> None:
        for task in list(self.games):
            task.cancel()
            self.worker.figures.games_unfinished += 1
        await asyncio.gather(*self.games, return_exceptions=True)
        await self.conn.close()


class Worker:
    """The players of this process and the phases the coordinator starts."""

    def __init__(self, spec: WorkerSpec) -> None:
        self.spec = spec
        self.figures = Figures()
        self.context = zmq.asyncio.Context()
        self.context.set(zmq.MAX_SOCKETS, max(1024, SOCKETS_PER_PLAYER * len(spec.players) + 64))
        self.subject_every = spec.subject_every
        self.players: list[Player] = []
        self.tasks: list[asyncio.Task[None]] = []

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        task.add_done_callback(self._done)
        self.tasks.append(task)

    def _done(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            self.figures.errors.append(f"a player's task failed: {task.exception()!r}"[:300])

    def is_subject(self, name: str) -> bool:
        """Whether ``name`` (``prefix-NUMBER``, any process's) is a timed presence subject."""
        number = name.rsplit("-", 1)[-1]
        return number.isdigit() and int(number) % self.subject_every == 0

    def say(self, **fields: Any) -> None:
        print(json.dumps(fields), flush=True)

    async def run(self) -> None:
        link = Link.to(self.spec.key) if self.spec.key else Link.plain()
        started = time.monotonic()
        self.players = [Player(self, p, link) for p in self.spec.players]
        results = await asyncio.gather(*(p.connect() for p in self.players), return_exceptions=True)
        failed = [r for r in results if isinstance(r, BaseException)]
        self.say(
            ready=len(self.players) - len(failed),
            connect_s=time.monotonic() - started,
            failed=[repr(f)[:200] for f in failed[:5]],
        )
        reader = asyncio.StreamReader()
        loop = asyncio.get_running_loop()
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        while True:
            line = (await reader.readline()).decode().split()
            if not line or line[0] == "stop":
                break
            await self.command(line)
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await asyncio.gather(*(p.close() for p in self.players), return_exceptions=True)
        self.context.term()
        self.report()

    async def command(self, line: list[str]) -> None:
        if line[0] == "hello":
            await asyncio.gather(*(p.hello() for p in self.players))
            self.say(hellos=len(self.figures.hello_ms), failed=len(self.figures.hello_failed))
        elif line[0] == "join":
            swiss = [p for p in self.players if p.spec.role == "swiss"]
            await asyncio.gather(*(p.join(line[1]) for p in swiss))
            self.say(joined=self.figures.joined, failed=len(self.figures.join_failed))
        elif line[0] == "play":
            for player in self.players:
                if player.spec.role == "seek":
                    self.spawn(player.seek_games())
            self.say(playing=sum(1 for p in self.players if p.spec.role == "seek"))

    def report(self) -> None:
        import resource

        figures = self.figures
        usage = resource.getrusage(resource.RUSAGE_SELF)
        self.say(
            report={
                "players": len(self.players),
                "cpu_s": cpu_seconds_self(),
                "peak_rss_mib": usage.ru_maxrss / 1024,
                **{name: getattr(figures, name) for name in Figures.__slots__},
            }
        )


def cpu_seconds_self() -> float:
    import os

    return cpu_seconds(os.getpid()) or 0.0


def main() -> int:
    logging.basicConfig(
        level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s %(message)s"
    )
    spec = WorkerSpec.from_json(sys.argv[1])
    asyncio.run(Worker(spec).run())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
