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
    SeekCreated,
    SeeksList,
    TimeControl,
    TournamentsList,
    Welcome,
)
from lanqi.protocol.endpoints import TOPIC_LOBBY
from lanqi.security import Link
from lanqi.table.port import Answered, LinkChanged
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
#: a player whose wait (an assignment, the next event of its game) lasts longer than
#: this gives up, and is reported stuck with what it waited for (WorkerSpec.stuck_s)
STUCK_S = 120.0


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
    #: a wait longer than this is given up and reported stuck (STUCK_S)
    stuck_s: float = STUCK_S

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
    #: players that gave up a wait: what each waited for
    stuck: list[str] = field(default_factory=list)
    seekers_stuck: int = 0
    #: lobby links lost (as the connection's inbox says), hellos said again after one,
    #: and games learnt only from such a welcome (their ``game_assigned`` was lost)
    links_lost: int = 0
    welcomed_again: int = 0
    games_from_welcome: int = 0
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
        self.games: set[asyncio.Task[bool]] = set()
        self.dirty = asyncio.Event()
        #: private pushes that were not assignments (a ``game_failed``...), for a report
        self.other_pushes: list[str] = []
        #: the games this player was given (pushed, or in a welcome after a lost link)
        self.given: set[str] = set()
        #: timed players whose presence this one has seen (shown online again later
        #: after a silence is not their hello)
        self.subjects_seen: set[str] = set()
        #: what the player is doing or waiting for (for a report at the stop)
        self.doing = ""

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
            and message.player not in self.subjects_seen  # its hello: the first time only
        ):
            self.subjects_seen.add(message.player)
            seen = self.worker.figures.presence_seen.setdefault(message.player, [])
            seen.append(_now_ms())

    def _push(self, message: Message) -> None:
        if isinstance(message, GameAssigned):
            self._given(message.game)
        else:
            self.other_pushes.append(repr(message)[:160])

    def _given(self, game: Assignment) -> bool:
        """A game to play (once: a welcome may name one pushed before)."""
        if game.game_id in self.given:
            return False
        self.given.add(game.game_id)
        if game.tournament_id is not None:
            self._start(game)
        else:
            self.assigned.put_nowait(game)
        return True

    async def follow_inbox(self) -> None:
        """As every client does: after a lost link the connection says hello again, and
        the welcome names the games in progress (a ``game_assigned`` sent while the
        link was down is lost); play those not known yet."""
        figures = self.worker.figures
        while True:
            await self.conn.inbox_wait(None)
            for item in self.conn.inbox.take():
                if isinstance(item, LinkChanged) and not item.up:
                    figures.links_lost += 1
                elif isinstance(item, Welcome):
                    figures.welcomed_again += 1
                    figures.games_from_welcome += sum(self._given(g) for g in item.games)

    def _stuck(self, what: str) -> None:
        self.worker.figures.stuck.append(f"{self.spec.name}: {what}"[:600])

    def _start(self, game: Assignment) -> asyncio.Task[bool]:
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
        self.worker.spawn(self.follow_inbox())
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
        """Post a seek, play the game it brings, ``games`` times; a seek refused or
        an assignment that does not come within ``stuck_s`` ends it as stuck."""
        spec = self.worker.spec
        seek = Seek(
            variant=spec.variant,
            time_control=TimeControl(**spec.time_control),
            rated=False,
        )
        for number in range(1, spec.games + 1):
            sent = _now_ms()
            self.doing = f"game {number}: waiting for its create_seek's reply"
            try:
                posted = await self.conn.call(CreateSeek(seek=seek), SeekCreated, REPLY_S)
            except (NoAnswer, Refused) as exc:
                self._gave_up(f"game {number}: create_seek: {exc}")
                return
            self.doing = f"game {number}: waiting for the game_assigned of seek {posted.seek_id}"
            try:
                game = await asyncio.wait_for(self.assigned.get(), spec.stuck_s)
            except TimeoutError:
                self._gave_up(
                    f"game {number}: no game_assigned {spec.stuck_s:.0f} s after its seek "
                    f"{posted.seek_id} (paired at once: {posted.paired})"
                    + await self._seek_listed(posted.seek_id)
                )
                return
            self.worker.figures.seek_ms.append(_now_ms() - sent)
            self.doing = f"game {number}: playing {game.game_id}"
            if not await self.play(game):  # reported stuck by play
                self._gave_up(None)
                return
            self.worker.figures.seek_games += 1
        self.doing = ""
        self.worker.figures.seekers_done += 1
        self._said_seekers()

    async def _seek_listed(self, seek_id: str) -> str:
        """Whether the matchmaker still lists ``seek_id`` (for a stuck report)."""
        try:
            seeks = await self.conn.call(ListSeeks(), SeeksList, REPLY_S)
        except (NoAnswer, Refused) as exc:
            return f"; list_seeks: {exc}"
        mine = [s.seek_id for s in seeks.seeks if s.player == self.spec.name]
        listed = "still listed" if seek_id in mine else f"not listed (its open seeks: {mine})"
        pushes = f"; other pushes: {self.other_pushes[-3:]}" if self.other_pushes else ""
        return f"; the seek is {listed}, {len(seeks.seeks)} seeks open{pushes}"

    def _gave_up(self, what: str | None) -> None:
        self.doing = ""
        if what is not None:
            self._stuck(what)
        self.worker.figures.seekers_stuck += 1
        self._said_seekers()

    def _said_seekers(self) -> None:
        figures = self.worker.figures
        self.worker.say(seekers_done=figures.seekers_done, seekers_stuck=figures.seekers_stuck)

    async def play(self, game: Assignment) -> bool:
        """Random legal moves after a think time; after ``plies`` plies the side to
        move resigns.  Every move's round trip (request to its reply) is timed.  A
        game whose state does not change for ``stuck_s`` is given up (reported
        stuck with where it stood); False then, or when it could not be opened."""
        figures = self.worker.figures
        table = await self._open(game)
        if table is None:
            figures.games_unfinished += 1
            return False
        board = create_game(game.variant, **dict(game.options))
        sent: dict[int, float] = {}
        asked_ply = -1  # the ply whose move (or resignation) is in flight or was answered
        last_seq, changed = -1, time.monotonic()
        last_request = "nothing"
        finished = False
        try:
            while True:
                for news in table.poll():
                    if not isinstance(news, Answered):
                        continue
                    request = news.request
                    at = sent.pop(request.id, None)
                    if isinstance(news.reply, ErrorReply):
                        code = news.reply.code
                        last_request = f"{request.T} refused ({code})"
                        if isinstance(request, MoveRequest):
                            figures.move_refused[code] = figures.move_refused.get(code, 0) + 1
                        if isinstance(request, MoveRequest | Resign):
                            asked_ply = -1  # send again at the next news
                    elif isinstance(request, MoveRequest | Resign):
                        last_request = f"{request.T} answered {news.reply.T}"
                        if isinstance(news.reply, MoveAccepted) and at is not None:
                            figures.move_ms.append(_now_ms() - at)
                state = table.state
                if state.finished:
                    finished = True
                    break
                now = time.monotonic()
                if state.seq != last_seq:
                    last_seq, changed = state.seq, now
                elif now - changed > self.worker.spec.stuck_s:
                    self._stuck(
                        f"game {game.game_id} ({'Swiss' if game.tournament_id else 'seek'}) "
                        f"unchanged for {now - changed:.0f} s: ply {len(state.moves)}, "
                        f"status {state.status}, seat {table.seat} of to-move {state.to_move}, "
                        f"seq {state.seq}, link {'up' if table.link_up else 'down'}, "
                        f"last request: {last_request}, unanswered: "
                        f"{[r.T for r in table.unanswered.values()]}"
                    )
                    break
                if len(state.moves) < board.ply:  # a takeback cannot happen here: rebuild
                    board = create_game(game.variant, **dict(game.options))
                for text in state.moves[board.ply :]:
                    board.push(board.parse_move(text))
                ply = len(state.moves)
                if state.status == "active" and state.to_move == table.seat and asked_ply != ply:
                    asked_ply = ply
                    last_request = await self._move(table, board, ply, sent)
                await table.wait(1.0)
        finally:
            table.close()
        if not finished:
            figures.games_unfinished += 1
            return False
        figures.games_played += 1
        if game.tournament_id is not None:
            figures.swiss_games += 1
        return True

    async def _open(self, game: Assignment) -> RemoteTable | None:
        """The game's table; a join or snapshot not answered in time (a busy referee)
        is asked again, for up to ``stuck_s``; None (reported stuck) after that."""
        deadline = time.monotonic() + self.worker.spec.stuck_s
        tries = 0
        while True:
            tries += 1
            try:
                return await self.conn.open_table(game)
            except NoAnswer as exc:
                if time.monotonic() >= deadline:
                    self._stuck(f"game {game.game_id}: not opened after {tries} tries ({exc})")
                    return None
            except Refused as exc:
                self.worker.figures.errors.append(f"{self.spec.name} open {game.game_id}: {exc}")
                self._stuck(f"game {game.game_id}: join refused ({exc})")
                return None
            await asyncio.sleep(1.0)

    async def _move(self, table: RemoteTable, board: Any, ply: int, sent: dict[int, float]) -> str:
        """Send this ply's move (or the resignation after ``plies``); what was sent."""
        spec = self.worker.spec
        token = table.token or ""
        if ply >= spec.plies:
            request_id = table.send(Resign(game_id=table.game_id, token=token))
            sent[request_id] = _now_ms()
            return f"resign at ply {ply}, unanswered"
        think = spec.think_ms * (0.5 + self.rng.random())
        await asyncio.sleep(think / 1000.0)
        moves = board.legal_moves()
        if not moves:
            return f"no legal move at ply {ply}"
        move = board.move_text(self.rng.choice(moves))
        request_id = table.send(MoveRequest(game_id=table.game_id, token=token, ply=ply, move=move))
        sent[request_id] = _now_ms()
        return f"move {move} at ply {ply}, unanswered"

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
        for player in self.players:
            if player.doing:
                player._stuck(f"{player.doing}, still at the stop")
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
