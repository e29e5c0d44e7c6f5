"""What the tournament pages' tests run them on: a stand-in for the gateway's hub and
an aiohttp server in a thread.

:class:`ThreadHub` has the hub's shape that :func:`lanqi.web.tournament.register`
uses (``ask``, ``on_tour``/``off_tour``, ``follow``/``unfollow``, ``urls``) on the
project's synchronous clients (:class:`MatchmakerClient`, :class:`RefereeClient`
and its :class:`GameView`: snapshot + events), run in a thread of their own that
talks to the app's loop by ``call_soon_threadsafe``. It is a real CURVE client of a
real ``lanqi serve``. (The gateway's own hub, ``lanqi.web.hub``, comes from the
web-play branch; once merged the e2e test can run on it unchanged.)

:class:`AppServer` serves an aiohttp app on a free loopback port from a thread.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from lanqi.client.matchmaker import MatchmakerClient, referee_link
from lanqi.client.referee import GameView, RefereeClient
from lanqi.gamestate import GameState
from lanqi.protocol import Message, Request, TournamentEvent

__all__ = ["AppServer", "Feed", "ThreadHub"]


@dataclass
class Feed:
    """A followed game: its folded state (updated on the app's loop) and listeners."""

    state: GameState
    listeners: set[Callable[[Any], object]] = field(default_factory=set)


class ThreadHub:
    """The hub's tournament half on the synchronous clients, in one thread."""

    def __init__(
        self, lobby: str, loop: asyncio.AbstractEventLoop, urls: Sequence[str] = ()
    ) -> None:
        self.lobby = lobby
        self.loop = loop
        self.urls = list(urls)
        self.tour_callbacks: dict[str, list[Callable[[TournamentEvent], object]]] = {}
        self.feeds: dict[str, Feed] = {}
        self._jobs: queue.Queue[Callable[[], None]] = queue.Queue()
        self._views: dict[str, GameView] = {}
        self._stop = threading.Event()
        self._ready: Future[None] = Future()
        self._thread = threading.Thread(target=self._run, name="thread-hub", daemon=True)
        self._thread.start()
        self._ready.result(timeout=20)

    # ------------------------------------------------------------ the hub's shape

    async def ask(self, request: Request) -> Message:
        future: Future[Message] = Future()
        self._jobs.put(lambda: future.set_result(self.mm.request(request)))
        return await asyncio.wrap_future(future)

    def on_tour(self, tournament_id: str, callback: Callable[[TournamentEvent], object]) -> None:
        self.tour_callbacks.setdefault(tournament_id, []).append(callback)
        self._jobs.put(lambda: self.mm.subscribe(f"tour/{tournament_id}"))

    def off_tour(self, tournament_id: str, callback: Callable[[TournamentEvent], object]) -> None:
        callbacks = self.tour_callbacks.get(tournament_id, [])
        if callback in callbacks:
            callbacks.remove(callback)

    async def follow(self, game_id: str) -> Feed:
        future: Future[GameState] = Future()

        def start() -> None:
            try:
                view = self._views.get(game_id) or GameView(self.referee, game_id)
            except Exception as exc:  # handed to the caller
                future.set_exception(exc)
                return
            self._views[game_id] = view
            future.set_result(view.state)

        self._jobs.put(start)
        state = await asyncio.wrap_future(future)
        feed = self.feeds.get(game_id)
        if feed is None:
            feed = self.feeds[game_id] = Feed(state)
        return feed

    def unfollow(self, game_id: str, callback: Callable[[Any], object]) -> None:
        feed = self.feeds.get(game_id)
        if feed is not None:
            feed.listeners.discard(callback)

    # ------------------------------------------------------------ the thread

    def _run(self) -> None:
        try:
            self.mm = MatchmakerClient(self.lobby, timeout_ms=5000)
            info = self.mm.server_info()
            referee = info.referees[0]
            self.referee = RefereeClient(
                referee.endpoint, referee.events, link=referee_link(referee.key)
            )
        except BaseException as exc:
            self._ready.set_exception(exc)
            return
        self._ready.set_result(None)
        try:
            while not self._stop.is_set():
                while True:
                    try:
                        job = self._jobs.get_nowait()
                    except queue.Empty:
                        break
                    try:
                        job()
                    except Exception:  # a request that timed out: the room tries again
                        continue
                event = self.mm.next_event(10)
                while event is not None:
                    if isinstance(event, TournamentEvent):
                        self.loop.call_soon_threadsafe(self._tour_event, event)
                    event = self.mm.next_event(0)
                game_event = self.referee.next_event(10)
                while game_event is not None:
                    view = self._views.get(game_event.game_id)
                    if view is not None and view.apply(game_event):
                        self.loop.call_soon_threadsafe(self._changed, view.game_id, view.state)
                    game_event = self.referee.next_event(0)
        finally:
            self.mm.close()
            self.referee.close()

    def _tour_event(self, event: TournamentEvent) -> None:
        for callback in list(self.tour_callbacks.get(event.tournament_id, [])):
            callback(event)

    def _changed(self, game_id: str, state: GameState) -> None:
        feed = self.feeds.get(game_id)
        if feed is None:
            return
        feed.state = state
        for callback in list(feed.listeners):
            callback(feed)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)


class AppServer:
    """An aiohttp app served on 127.0.0.1 from a thread with its own loop.

    ``make_app(loop)`` builds the app on that loop (a hub needs the loop)."""

    def __init__(self, make_app: Callable[[asyncio.AbstractEventLoop], web.Application]) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="app", daemon=True)
        self._thread.start()
        self.app = self.call(lambda: make_app(self.loop))
        self.runner = web.AppRunner(self.app)
        self.run(self.runner.setup())
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        self.run(site.start())
        host, port = self.runner.addresses[0][:2]
        self.url = f"http://{host}:{port}"

    def call(self, function: Callable[[], Any]) -> Any:
        async def wrapped() -> Any:
            return function()

        return self.run(wrapped())

    def run(self, coroutine: Any, timeout: float = 30) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def close(self) -> None:
        self.run(self.runner.cleanup())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)
        self.loop.close()
