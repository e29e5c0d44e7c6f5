"""The tournament pages of the web gateway: ``/tournament/<id>`` and its projector.

:func:`register` adds them to the gateway's aiohttp application (``lanqi web`` calls
it once, see docs/web.md).  The pages are plain HTML and JavaScript modules from
``static/tournament/``; what they show comes over one WebSocket per page,
``/tournament/<id>/ws``, as JSON (:mod:`lanqi.web.tournament_view`):

- the event, folded the way ``lanqi tournament watch`` folds it: the matchmaker's
  ``standings`` are asked again after every ``tour/<id>`` event and every few
  seconds (an event lost on the way costs nothing), and sent to the page as a
  ``tour`` message;
- the games of the current round, followed through the gateway's one referee
  connection (``hub.follow``: snapshot + events, the Clone pattern), each change
  sent as a ``game`` message.

One :class:`TourRoom` per tournament serves every page open on it, so a hundred
phones on the standings cost the matchmaker one request per event, not a hundred.
The room starts with the first page and stops with the last.

Other routes: ``/tournaments`` (every event, newest first, with links to its pages),
``/tournament/<id>/report`` (the event's HTML report, from the
matchmaker's ``tour_export``) and ``/tournament/<id>/qr.svg`` (a QR code of the
gateway's URL, for the projector: scanning it opens the lobby).
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import io
import json
import logging
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import segno
from aiohttp import WSMsgType, web

from lanqi.gamestate import GameState
from lanqi.i18n import tr
from lanqi.protocol import (
    ErrorReply,
    Exported,
    ExportTournament,
    GetStandings,
    ListTournaments,
    Message,
    Request,
    Standings,
    TourDeleted,
    TournamentEvent,
    TournamentsList,
)
from lanqi.web.tournament_view import JsonMap, game_json, tour_json

__all__ = ["GameFeed", "TourHub", "TourRoom", "join_url", "qr_svg", "register"]

log = logging.getLogger(__name__)

#: how often a room asks for the standings when no event says so (s)
REFRESH_S = 3.0
#: messages a page may fall behind by before its socket is closed (it reconnects)
MAX_BACKLOG = 2000
#: the URL prefix of this module's static files (``static/tournament/``)
STATIC = "/tour-static"
_ID = r"{tid:[0-9A-Za-z_-]{1,64}}"


class GameFeed(Protocol):
    """A live game as the hub follows it: the folded state, and the callbacks run
    after each change (``callback(feed)``)."""

    @property
    def state(self) -> GameState | None:
        """None until the first snapshot came."""
        ...

    @property
    def listeners(self) -> set[Any]:
        """Callables ``callback(feed)``."""
        ...


class TourHub(Protocol):
    """What the tournament pages need of the gateway's connection to the services
    (``lanqi.web.hub.Hub`` has it; tests give a stand-in)."""

    async def ask(self, request: Request) -> Message:
        """One matchmaker request without a session; an error comes back as ErrorReply."""
        ...

    def on_tour(
        self, tournament_id: str, callback: Callable[[TournamentEvent], object]
    ) -> None: ...

    def off_tour(
        self, tournament_id: str, callback: Callable[[TournamentEvent], object]
    ) -> None: ...

    async def follow(self, game_id: str) -> GameFeed: ...

    def unfollow(self, game_id: str, callback: Callable[[Any], object]) -> None: ...

    @property
    def urls(self) -> Sequence[str]:
        """The gateway's own URLs, one per LAN address."""
        ...


class TourRoom:
    """One tournament as every open page of it sees it.

    Each page is a queue of JSON texts (:meth:`enter`); the room puts the latest
    ``tour`` message and every followed game into a new queue first, then each
    change into every queue.
    """

    def __init__(self, hub: TourHub, tournament_id: str, *, refresh_s: float = REFRESH_S) -> None:
        self.hub = hub
        self.tournament_id = tournament_id
        self.refresh_s = refresh_s
        self.viewers: set[asyncio.Queue[str]] = set()
        #: the latest ``tour`` message, as sent
        self.tour: str | None = None
        #: the latest ``game`` message of each followed game (without its clock's
        #: age), and time.monotonic() when its clock was read
        self.games: dict[str, JsonMap] = {}
        self._read_at: dict[str, float] = {}
        self._feeds: set[str] = set()
        #: games no referee would show (asked once, not every refresh)
        self._unfollowable: set[str] = set()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    # ------------------------------------------------------------ life

    def start(self) -> None:
        self.hub.on_tour(self.tournament_id, self._on_event)
        self._task = asyncio.create_task(self._run(), name=f"tour-room-{self.tournament_id}")

    async def stop(self) -> None:
        self.hub.off_tour(self.tournament_id, self._on_event)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        for game_id in list(self._feeds):
            self._unfollow(game_id)

    def enter(self) -> asyncio.Queue[str]:
        """A new page: its queue, primed with what the room knows."""
        queue: asyncio.Queue[str] = asyncio.Queue()
        if self.tour is not None:
            queue.put_nowait(self.tour)
        now = time.monotonic()
        for game_id, game in self.games.items():  # clocks as they read now
            age = round((now - self._read_at[game_id]) * 1000)
            queue.put_nowait(json.dumps({**game, "age_ms": age}, ensure_ascii=False))
        self.viewers.add(queue)
        return queue

    def leave(self, queue: asyncio.Queue[str]) -> None:
        self.viewers.discard(queue)

    # ------------------------------------------------------------ folding

    def _on_event(self, event: TournamentEvent) -> None:
        if isinstance(event, TourDeleted):
            log.info("tournament %s deleted", self.tournament_id)
        self._wake.set()  # one refresh answers a burst of events

    async def _run(self) -> None:
        while True:
            self._wake.clear()
            try:
                await self.refresh()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the next event or tick tries again; pages keep theirs
                log.warning("tournament %s: standings not refreshed: %s", self.tournament_id, exc)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.refresh_s)

    async def refresh(self) -> None:
        """Ask the matchmaker for the standings; send them if they changed; follow
        the games of the current round."""
        reply = await self.hub.ask(GetStandings(tournament_id=self.tournament_id))
        if isinstance(reply, ErrorReply):  # an unknown (or deleted) tournament: said once
            error = json.dumps({"t": "error", "code": reply.code, "msg": reply.msg})
            if error != self.tour:
                self.tour = error
                self._send(error)
            return
        if not isinstance(reply, Standings):
            log.warning(
                "tournament %s: %s in answer to tour_standings", self.tournament_id, reply.T
            )
            return
        text = json.dumps(tour_json(reply), ensure_ascii=False)
        if text != self.tour:
            self.tour = text
            self._send(text)
        current = reply.tournament.round
        wanted = {p.game_id for p in reply.pairings if p.round == current and p.game_id}
        for game_id in self._feeds - wanted:
            self._unfollow(game_id)
            self.games.pop(game_id, None)
            self._read_at.pop(game_id, None)
        for game_id in sorted(wanted - self._feeds - self._unfollowable):
            await self._follow(game_id)

    async def _follow(self, game_id: str) -> None:
        try:
            feed = await self.hub.follow(game_id)
        except Exception as exc:  # a game no referee has (any more): no live board for it
            log.warning(
                "tournament %s: cannot follow game %s: %s", self.tournament_id, game_id, exc
            )
            self._unfollowable.add(game_id)
            return
        self._feeds.add(game_id)
        feed.listeners.add(self._on_game)
        self._on_game(feed)

    def _unfollow(self, game_id: str) -> None:
        self._feeds.discard(game_id)
        self.hub.unfollow(game_id, self._on_game)

    def _on_game(self, feed: GameFeed) -> None:
        state = feed.state
        if state is None:  # no snapshot yet: the next change brings one
            return
        game = game_json(state)
        if self.games.get(state.game_id) != game:
            self.games[state.game_id] = game
            self._read_at[state.game_id] = time.monotonic()
            self._send(json.dumps({**game, "age_ms": 0}, ensure_ascii=False))

    def _send(self, text: str) -> None:
        for queue in list(self.viewers):
            if queue.qsize() >= MAX_BACKLOG:  # a page that stopped reading: it reconnects
                self.viewers.discard(queue)
                queue.put_nowait("")
                continue
            queue.put_nowait(text)


class _Rooms:
    """The open rooms by tournament, each counted by its pages."""

    def __init__(self, hub: TourHub) -> None:
        self.hub = hub
        self.rooms: dict[str, TourRoom] = {}

    def room(self, tournament_id: str) -> TourRoom:
        room = self.rooms.get(tournament_id)
        if room is None:
            room = self.rooms[tournament_id] = TourRoom(self.hub, tournament_id)
            room.start()
        return room

    async def release(self, room: TourRoom) -> None:
        if not room.viewers and self.rooms.get(room.tournament_id) is room:
            del self.rooms[room.tournament_id]
            await room.stop()

    async def close(self) -> None:
        for room in list(self.rooms.values()):
            await room.stop()
        self.rooms.clear()


ROOMS = web.AppKey("lanqi_tour_rooms", _Rooms)
HUB = web.AppKey("lanqi_tour_hub", TourHub)


def join_url(hub: TourHub, request: web.Request) -> str:
    """The URL people open to join (the lobby): the gateway's first LAN URL, else the
    address this page was reached at."""
    for url in hub.urls:
        return url if url.endswith("/") else url + "/"
    return str(request.url.origin()) + "/"


def qr_svg(text: str) -> str:
    """``text``'s QR code as an SVG image (black on white, the standard's quiet zone)."""
    out = io.BytesIO()
    segno.make(text, micro=False).save(
        out, kind="svg", scale=10, border=4, dark="#000", light="#fff", xmldecl=False
    )
    return out.getvalue().decode("utf-8")


#: this module's pages, scripts and styles
FILES = Path(__file__).parent / "static" / "tournament"


def _static(name: str) -> str:
    return (FILES / name).read_text("utf-8")


async def _page(request: web.Request) -> web.Response:
    return web.Response(text=_static("page.html"), content_type="text/html")


async def _projector(request: web.Request) -> web.Response:
    return web.Response(text=_static("projector.html"), content_type="text/html")


async def _index(request: web.Request) -> web.Response:
    """Every event the matchmaker has, newest first: a line with links to its pages."""
    reply = await request.app[HUB].ask(ListTournaments())
    if not isinstance(reply, TournamentsList):
        raise web.HTTPBadGateway(text=f"the server did not list its tournaments: {reply.T}")
    items = []
    for t in reversed(reply.tournaments):
        tid = html.escape(t.tournament_id)
        facts = f"{t.spec.format.replace('_', ' ')} of {t.spec.variant}, {t.status}"
        items.append(
            f'<li data-tournament-id="{tid}"><a href="/tournament/{tid}">'
            f"{html.escape(t.spec.name)}</a> ({html.escape(facts)}, {len(t.players)} players)"
            f' · <a href="/tournament/{tid}/projector">projector</a></li>'
        )
    body = "".join(items) or f"<li>{html.escape(tr('tour.no_tournaments'))}</li>"
    page = _static("index.html").replace("<!-- tournaments -->", body)
    page = page.replace("<!-- title -->", html.escape(tr("tour.tournaments")))
    page = page.replace("<!-- lobby -->", html.escape(tr("tour.lobby")))
    return web.Response(text=page, content_type="text/html")


async def _qr(request: web.Request) -> web.Response:
    url = join_url(request.app[HUB], request)
    return web.Response(text=qr_svg(url), content_type="image/svg+xml")


async def _report(request: web.Request) -> web.Response:
    tid = request.match_info["tid"]
    reply = await request.app[HUB].ask(ExportTournament(tournament_id=tid, format="html"))
    if isinstance(reply, Exported):
        return web.Response(text=reply.text, content_type="text/html")
    if isinstance(reply, ErrorReply) and reply.code == "unknown_tournament":
        raise web.HTTPNotFound(text=f"no tournament {tid!r} on this server")
    raise web.HTTPBadGateway(text=f"the server did not give the report: {reply.T}")


async def _socket(request: web.Request) -> web.WebSocketResponse:
    tid = request.match_info["tid"]
    ws = web.WebSocketResponse(heartbeat=20.0)
    await ws.prepare(request)
    rooms = request.app[ROOMS]
    room = rooms.room(tid)
    queue = room.enter()
    await ws.send_str(json.dumps({"t": "hello", "join_url": join_url(request.app[HUB], request)}))

    async def pump() -> None:
        while True:
            text = await queue.get()
            if not text:  # fell too far behind
                await ws.close()
                return
            await ws.send_str(text)

    writer = asyncio.create_task(pump())
    try:
        async for message in ws:  # the page says nothing that matters; read to see it go
            if message.type == WSMsgType.ERROR:
                break
    finally:
        writer.cancel()
        with contextlib.suppress(asyncio.CancelledError, ConnectionError):
            await writer
        room.leave(queue)
        await rooms.release(room)
    return ws


async def _close_rooms(app: web.Application) -> None:
    await app[ROOMS].close()


def register(app: web.Application, hub: TourHub) -> None:
    """Add the tournament pages to the gateway's ``app`` (before it starts)."""
    app[HUB] = hub
    app[ROOMS] = _Rooms(hub)
    app.on_shutdown.append(_close_rooms)
    app.router.add_get("/tournaments", _index)
    app.router.add_get(f"/tournament/{_ID}", _page)
    app.router.add_get(f"/tournament/{_ID}/projector", _projector)
    app.router.add_get(f"/tournament/{_ID}/ws", _socket)
    app.router.add_get(f"/tournament/{_ID}/report", _report)
    app.router.add_get(f"/tournament/{_ID}/qr.svg", _qr)
    app.router.add_static(STATIC, FILES)
