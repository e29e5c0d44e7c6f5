"""``lanqi bench web``: one game, many browsers watching it through ``lanqi web``.

A real ``lanqi serve --no-web`` and a real ``lanqi web`` (its own process, so its CPU
is its own) are started; two players are paired through the matchmaker and play a
gomoku game by requests straight to the referee; ``watchers`` WebSocket clients
(not browsers: this process's aiohttp, one loop) watch the game's page socket.  For
each move the delay from the move's acceptance to its ``state`` at every watcher is
measured, next to its delivery on the referee's own ``game/<id>`` topic (what the
GUI and the bots receive) in the same run.

Times are ``time.monotonic()`` (one clock for every process of the machine).  The
move's acceptance is taken as the moment its request is sent: the referee commits,
publishes and replies within that span, so the figures are upper bounds by the
request's transit (tens of microseconds on loopback).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
import zmq

from lanqi.bench.process import ServiceProcess, cpu_seconds
from lanqi.client.matchmaker import MatchmakerClient
from lanqi.client.referee import RefereeClient
from lanqi.games.registry import create_game
from lanqi.protocol import (
    Assignment,
    CreateSeek,
    GameAssigned,
    MoveMade,
    Seek,
    SeekCreated,
    TimeControl,
)
from lanqi.protocol.endpoints import game_topic
from lanqi.security import Link, server_keys

__all__ = ["WebFigures", "format_report", "run_web"]

SERVE_READY = re.compile(
    rb"lanqi server ready: lobby (?P<lobby>\S+) \(events (?P<events>\S+)\), "
    rb"referee (?P<referee>\S+), data"
)
WEB_READY = re.compile(rb"lanqi web ready: web pages at http://(?P<where>[^/\s,]+)/")
PLY = re.compile(r'"ply": (\d+)')
#: the goal of issue 21, at 200 watchers on a 2-core machine
GOAL_P99_MS = 50.0


@dataclass
class WebFigures:
    watchers: int
    moves: int
    #: ms from acceptance to the state at each watcher, every (move, watcher)
    web_ms: list[float] = field(default_factory=list)
    #: ms from acceptance to the ``moved`` event on the referee's topic
    topic_ms: list[float] = field(default_factory=list)
    gateway_cpu_s: float = 0.0

    def cpu_per_move_per_watcher_us(self) -> float:
        return self.gateway_cpu_s / max(1, self.moves * self.watchers) * 1e6


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


def format_report(figures: WebFigures) -> str:
    web, topic = figures.web_ms, figures.topic_ms
    p99 = _percentile(web, 0.99)
    verdict = "met" if p99 < GOAL_P99_MS else "missed"
    return "\n".join(
        [
            f"lanqi bench web: 1 game, {figures.watchers} WebSocket watchers, "
            f"{figures.moves} moves",
            f"  browsers (lanqi web):   p50 {_percentile(web, 0.5):6.1f} ms"
            f"   p99 {p99:6.1f} ms   max {max(web, default=0):6.1f} ms"
            f"   ({len(web)} deliveries; goal p99 < {GOAL_P99_MS:g} ms: {verdict})",
            f"  GUI's feed (game topic): p50 {_percentile(topic, 0.5):6.1f} ms"
            f"   p99 {_percentile(topic, 0.99):6.1f} ms   max {max(topic, default=0):6.1f} ms",
            f"  gateway CPU: {figures.gateway_cpu_s:.2f} s for the moves,"
            f" {figures.cpu_per_move_per_watcher_us():.0f} µs per move per watcher"
            f" (mean over the run: {statistics.fmean(web) if web else 0:.1f} ms)",
        ]
    )


def _game_moves(count: int, seed: int) -> list[str]:
    """``count`` gomoku moves that do not end the game (random, checked by the rules)."""
    rng = random.Random(seed)
    game = create_game("gomoku", size=15, rule="freestyle")
    moves: list[str] = []
    while len(moves) < count:
        move = rng.choice(game.legal_moves())
        game.push(move)
        if game.outcome() is not None:
            game.pop()
            continue
        moves.append(str(move))
    return moves


def _pair(lobby: str, link: Link) -> tuple[Assignment, Assignment]:
    seek = Seek(variant="gomoku", options={"size": 15}, time_control=TimeControl(first_move_ms=0))
    seats: list[Assignment] = []
    clients = [MatchmakerClient(lobby, link=link) for _ in range(2)]
    try:
        for n, client in enumerate(clients):
            client.hello(f"bench-{n}-{random.randrange(10**6)}", kind="bot")
            client.call(CreateSeek(seek=seek), SeekCreated)
        deadline = time.monotonic() + 10
        while len(seats) < 2 and time.monotonic() < deadline:
            for client in clients:
                push = client.next_push(100)
                if isinstance(push, GameAssigned):
                    seats.append(push.game)
    finally:
        for client in clients:
            client.close()
    if len(seats) < 2:
        raise RuntimeError("the two bench players were not paired")
    first, second = sorted(seats, key=lambda a: a.seat)
    return first, second


def run_web(watchers: int = 200, moves: int = 30, seed: int = 1) -> WebFigures:
    """Start the server and the gateway, watch one game from ``watchers`` sockets."""
    with tempfile.TemporaryDirectory(prefix="lanqi-bench-web-") as tmp:
        root = Path(tmp)
        data = root / "data"
        lanqi = [sys.executable, "-m", "lanqi.cli.main"]
        ports = ["--port", "0", "--pub-port", "0", "--referee-port", "0"]
        server = ServiceProcess(
            [
                *lanqi,
                "serve",
                *ports,
                "--referee-pub-port",
                "0",
                "--no-web",
                "--data-dir",
                str(data),
            ],
            SERVE_READY,
            root / "serve.log",
        )
        try:
            lobby = server.named["lobby"]
            gateway = ServiceProcess(
                [*lanqi, "web", "--server", lobby, "--port", "0", "--data-dir", str(data)],
                WEB_READY,
                root / "web.log",
                name="web",
            )
            try:
                return asyncio.run(
                    _measure(server, gateway, data, watchers, _game_moves(moves, seed))
                )
            finally:
                gateway.stop()
        finally:
            server.stop()


async def _measure(
    server: ServiceProcess, gateway: ServiceProcess, data: Path, watchers: int, line: list[str]
) -> WebFigures:
    link = Link.to(server_keys(data).public)
    first, second = await asyncio.to_thread(_pair, server.named["lobby"], link)
    game_id = first.game_id
    referee = RefereeClient(first.referee, first.referee_pub, link=link)
    topic = _TopicWatch(first.referee_pub, link, game_id)
    figures = WebFigures(watchers=watchers, moves=len(line))
    arrived: list[dict[int, float]] = [{} for _ in range(watchers)]
    news = asyncio.Event()  # set by the readers on every state (no busy waiting)
    url = f"http://{gateway.named['where']}/ws"
    try:
        for assignment in (first, second):
            referee.join(game_id, assignment.seat, assignment.token)
        connector = aiohttp.TCPConnector(limit=0)  # the default stops at 100 sockets
        async with aiohttp.ClientSession(connector=connector) as http:
            sockets = [await http.ws_connect(url, max_msg_size=0) for _ in range(watchers)]
            readers = [
                asyncio.get_running_loop().create_task(_read(ws, arrived[n], news))
                for n, ws in enumerate(sockets)
            ]
            for ws in sockets:
                await ws.send_str(json.dumps({"t": "watch", "game_id": game_id, "id": 1}))
            await _until(news, lambda: all(0 in a for a in arrived), "every watcher's first state")
            cpu_before = cpu_seconds(gateway.pid) or 0.0
            for ply, move in enumerate(line):
                seat = (first, second)[ply % 2]
                sent = time.monotonic()
                await asyncio.to_thread(referee.move, game_id, seat.token, ply, move)
                await _until(news, _all_at(arrived, ply + 1), f"ply {ply + 1}")
                figures.web_ms += [(a[ply + 1] - sent) * 1000 for a in arrived]
                got = topic.arrived.get(ply + 1)
                if got is not None:
                    figures.topic_ms.append((got - sent) * 1000)
            figures.gateway_cpu_s = (cpu_seconds(gateway.pid) or 0.0) - cpu_before
            for task in readers:
                task.cancel()
            for ws in sockets:
                await ws.close()
    finally:
        topic.close()
        referee.close()
    return figures


async def _read(
    ws: aiohttp.ClientWebSocketResponse, arrived: dict[int, float], news: asyncio.Event
) -> None:
    async for frame in ws:
        now = time.monotonic()
        if frame.type == aiohttp.WSMsgType.TEXT and frame.data.startswith('{"t": "state"'):
            found = PLY.search(frame.data)
            if found:
                arrived.setdefault(int(found.group(1)), now)
                news.set()


async def _until(
    news: asyncio.Event, done: Callable[[], bool], what: str, timeout: float = 30.0
) -> None:
    """Wait (on the readers' ``news``, no busy loop) until ``done()``."""
    deadline = time.monotonic() + timeout
    while not done():
        news.clear()
        if done():
            return
        left = deadline - time.monotonic()
        if left <= 0:
            raise RuntimeError(f"lanqi bench web: no {what} in {timeout:g} s")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(news.wait(), left)


def _all_at(arrived: list[dict[int, float]], ply: int) -> Callable[[], bool]:
    return lambda: all(ply in a for a in arrived)


class _TopicWatch:
    """The referee's ``game/<id>`` topic as the GUI's agent reads it, in a thread."""

    def __init__(self, endpoint: str, link: Link, game_id: str) -> None:
        self.arrived: dict[int, float] = {}
        self._context = zmq.Context()
        self._sub = self._context.socket(zmq.SUB)
        self._sub.setsockopt(zmq.LINGER, 0)
        link.setup(self._sub)
        self._sub.setsockopt(zmq.SUBSCRIBE, game_topic(game_id).encode())
        self._sub.connect(endpoint)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        from lanqi.protocol import decode

        while not self._stop.is_set():
            if self._sub.poll(50):
                frames = self._sub.recv_multipart()
                now = time.monotonic()
                message = decode(frames)
                if isinstance(message, MoveMade):
                    self.arrived.setdefault(message.ply + 1, now)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        self._sub.close(linger=0)
        self._context.term()
