"""The gateway's web side: pages, static files, the catalogue and one WebSocket per tab.

The WebSocket speaks small JSON maps (``t`` the type), described in docs/web.md.
A socket says ``hello`` with its browser's secret first; from then on it acts for
that browser's player only: seat requests name a game, never a token, and the
gateway adds the token of the player's own seat or refuses (``not_seated``).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import importlib
import importlib.util
import json
import logging
import math
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, cast, get_args

from aiohttp import WSMsgType, web

from lanqi.i18n import CATALOGUE
from lanqi.protocol import (
    AbortGame,
    AcceptChallenge,
    AcceptDraw,
    AcceptTakeback,
    CancelChallenge,
    CancelSeek,
    Challenge,
    ChatRequest,
    CreateSeek,
    DeclineChallenge,
    DeclineDraw,
    DeclineTakeback,
    ErrorReply,
    ListSeeks,
    Message,
    MoveRequest,
    OfferDraw,
    ProtocolError,
    Request,
    RequestTakeback,
    Resign,
    Seek,
    SeeksList,
    TimeControl,
    TimeControlKind,
)
from lanqi.web.hub import GameFeed, Hub, Player, Refused
from lanqi.web.view import position_view

__all__ = ["HUB", "STATIC", "make_app"]

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
HUB: web.AppKey[Hub] = web.AppKey("hub", Hub)

#: seat requests by the page's word for them
ACTIONS: dict[str, Callable[[str, str], Request]] = {
    "resign": lambda game_id, token: Resign(game_id=game_id, token=token),
    "abort": lambda game_id, token: AbortGame(game_id=game_id, token=token),
    "offer_draw": lambda game_id, token: OfferDraw(game_id=game_id, token=token),
    "accept_draw": lambda game_id, token: AcceptDraw(game_id=game_id, token=token),
    "decline_draw": lambda game_id, token: DeclineDraw(game_id=game_id, token=token),
    "takeback": lambda game_id, token: RequestTakeback(game_id=game_id, token=token),
    "accept_takeback": lambda game_id, token: AcceptTakeback(game_id=game_id, token=token),
    "decline_takeback": lambda game_id, token: DeclineTakeback(game_id=game_id, token=token),
}
OTHER_COLOR = {"first": "second", "second": "first", "any": "any"}
#: the longest text a browser may send in one message
MAX_WS_MESSAGE = 16 * 1024


def make_app(hub: Hub) -> web.Application:
    """The application: pages, ``/ws``, ``/i18n.json``, ``/static``; and the tournament
    pages when ``lanqi.web.tournament`` exists (its ``register(app, hub)``)."""
    app = web.Application()
    app[HUB] = hub
    app.router.add_get("/", _page("index.html"))
    app.router.add_get("/game/{game_id}", _page("game.html"))
    app.router.add_get("/ws", _websocket)
    app.router.add_get("/i18n.json", _catalogue)
    app.router.add_static("/static", STATIC)
    if importlib.util.find_spec("lanqi.web.tournament") is not None:
        importlib.import_module("lanqi.web.tournament").register(app, hub)
    return app


def _page(name: str) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    async def page(request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC / name, headers={"Cache-Control": "no-cache"})

    return page


async def _catalogue(request: web.Request) -> web.Response:
    texts = {key: [text.zh, text.en, text.en_plural] for key, text in CATALOGUE.items()}
    return web.json_response(texts, headers={"Cache-Control": "max-age=300"})


async def _websocket(request: web.Request) -> web.WebSocketResponse:
    ws = web.WebSocketResponse(heartbeat=10.0, max_msg_size=MAX_WS_MESSAGE)
    await ws.prepare(request)
    tab = Tab(request.app[HUB], ws)
    try:
        await tab.run()
    finally:
        tab.close()
    return ws


class Tab:
    """One browser tab's WebSocket: what it asked for and what it is told."""

    def __init__(self, hub: Hub, ws: web.WebSocketResponse) -> None:
        self.hub = hub
        self.ws = ws
        self.player: Player | None = None
        self.feed: GameFeed | None = None
        self.outbox: asyncio.Queue[str] = asyncio.Queue()
        self.writer = asyncio.get_running_loop().create_task(self._write())
        self.watching_lobby = False
        self._ratings: dict[str, float] = {}

    # ------------------------------------------------------------ plumbing

    async def _write(self) -> None:
        while True:
            text = await self.outbox.get()
            try:
                await self.ws.send_str(text)
            except ConnectionError:
                return

    def send(self, message: dict[str, Any]) -> None:
        self.outbox.put_nowait(json.dumps(message, ensure_ascii=False))

    def send_text(self, text: str) -> None:
        self.outbox.put_nowait(text)

    async def run(self) -> None:
        async for frame in self.ws:
            if frame.type != WSMsgType.TEXT:
                continue
            try:
                message = json.loads(frame.data)
                if not isinstance(message, dict):
                    raise ValueError("not a map")
            except ValueError:
                self.send({"t": "answer", "re": None, "ok": False, "code": "bad_message"})
                continue
            await self._handle(message)

    async def _handle(self, message: dict[str, Any]) -> None:
        kind = str(message.get("t", ""))
        handler = getattr(self, "do_" + kind, None) if kind.isidentifier() else None
        answer: dict[str, Any] = {"t": "answer", "re": message.get("id"), "ok": True}
        try:
            if handler is None:
                raise Refused("unknown_type", f"no message {kind!r}")
            if (
                kind != "hello"
                and self.player is None
                and kind not in ("watch", "lobby", "position", "chat")
            ):
                raise Refused("no_session", "say hello first")
            extra = await handler(message)
            if extra:
                answer |= extra
        except Refused as exc:
            answer |= {"ok": False, "code": exc.code, "msg": exc.msg}
        except (KeyError, TypeError, ValueError, ProtocolError) as exc:
            answer |= {"ok": False, "code": "bad_request", "msg": str(exc)}
        self.send(answer)

    def close(self) -> None:
        self.writer.cancel()
        if self.player is not None:
            self.player.detach(self.send)
        if self.feed is not None:
            self.hub.unfollow(self.feed.game_id, self._on_game)
        if self.watching_lobby:
            self.hub.lobby_listeners.discard(self._on_lobby)

    @staticmethod
    def _reply(reply: Message) -> dict[str, Any]:
        if isinstance(reply, ErrorReply):
            raise Refused(reply.code, reply.msg)
        return {}

    def _me(self) -> Player:
        if self.player is None:
            raise Refused("no_session", "say hello first")
        return self.player

    # ------------------------------------------------------------ entering

    async def do_hello(self, message: dict[str, Any]) -> dict[str, Any]:
        secret = str(message["secret"])
        if not 16 <= len(secret) <= 128:
            raise Refused("bad_request", "the browser's secret must be 16 to 128 characters")
        player = await self.hub.enter(
            secret, str(message.get("name") or ""), str(message.get("claim") or "")
        )
        if self.player is not None and self.player is not player:
            self.player.detach(self.send)
        self.player = player
        player.attach(self.send)
        if self.feed is not None:
            self._send_seat()
        return {"name": player.name, "games": sorted(player.seats)}

    # ------------------------------------------------------------ lobby

    async def do_lobby(self, message: dict[str, Any]) -> dict[str, Any]:
        self.watching_lobby = True
        self.hub.lobby_listeners.add(self._on_lobby)
        self._on_lobby(await self.hub.lobby())
        if self.player is not None:
            for challenge in self.player.challenges.values():
                self.send(
                    {
                        "t": "challenge",
                        "challenge_id": challenge.challenge_id,
                        "from": challenge.challenger,
                        "seek": {"variant": challenge.seek.variant},
                    }
                )
        return {}

    def _on_lobby(self, lobby: dict[str, Any]) -> None:
        self.send({"t": "lobby"} | lobby)

    async def do_seek(self, message: dict[str, Any]) -> dict[str, Any]:
        reply = await self._me().call(CreateSeek(seek=_seek(message["seek"])))
        self._reply(reply)
        return {
            "seek_id": getattr(reply, "seek_id", None),
            "paired": getattr(reply, "paired", False),
        }

    async def do_take_seek(self, message: dict[str, Any]) -> dict[str, Any]:
        seek_id = str(message["seek_id"])
        listed = await self.hub.ask(ListSeeks())  # fresh: the lobby's copy may lag
        seeks = listed.seeks if isinstance(listed, SeeksList) else []
        theirs = next((s.seek for s in seeks if s.seek_id == seek_id), None)
        if theirs is None:
            raise Refused("unknown_seek", "that seek is gone; pick another")
        mine = dataclasses.replace(theirs, color=OTHER_COLOR.get(theirs.color, "any"))
        reply = await self._me().call(CreateSeek(seek=mine))
        self._reply(reply)
        return {"paired": getattr(reply, "paired", False)}

    async def do_cancel_seek(self, message: dict[str, Any]) -> dict[str, Any]:
        return self._reply(await self._me().call(CancelSeek(seek_id=str(message["seek_id"]))))

    async def do_challenge(self, message: dict[str, Any]) -> dict[str, Any]:
        reply = await self._me().call(Challenge(to=str(message["to"]), seek=_seek(message["seek"])))
        self._reply(reply)
        return {"challenge_id": getattr(reply, "challenge_id", None)}

    async def do_accept_challenge(self, message: dict[str, Any]) -> dict[str, Any]:
        challenge_id = str(message["challenge_id"])
        return self._reply(await self._me().call(AcceptChallenge(challenge_id=challenge_id)))

    async def do_decline_challenge(self, message: dict[str, Any]) -> dict[str, Any]:
        challenge_id = str(message["challenge_id"])
        return self._reply(await self._me().call(DeclineChallenge(challenge_id=challenge_id)))

    async def do_cancel_challenge(self, message: dict[str, Any]) -> dict[str, Any]:
        challenge_id = str(message["challenge_id"])
        return self._reply(await self._me().call(CancelChallenge(challenge_id=challenge_id)))

    # ------------------------------------------------------------ a game

    async def do_watch(self, message: dict[str, Any]) -> dict[str, Any]:
        game_id = str(message["game_id"])
        if self.feed is not None:
            self.hub.unfollow(self.feed.game_id, self._on_game)
        self.feed = await self.hub.follow(game_id, self._on_game)
        self._send_seat()
        if self.feed.state is not None:
            self.send_text(self.feed.encode())  # its clock's age as of now
        return {}

    def _seat(self) -> int | None:
        if self.player is None or self.feed is None:
            return None
        assignment = self.player.seats.get(self.feed.game_id)
        return None if assignment is None else assignment.seat

    def _send_seat(self) -> None:
        seat = self._seat()
        self.send({"t": "seat", "seat": seat})
        if seat is not None and self.player is not None and self.feed is not None:
            asyncio.get_running_loop().create_task(self._note_ratings())

    async def _note_ratings(self) -> None:
        assert self.player is not None
        with contextlib.suppress(Refused):
            self._ratings = await self.hub.ratings(self.player.name)

    def _on_game(self, feed: GameFeed) -> None:
        if feed.state is None:
            return
        self.send_text(feed.state_text())
        state = feed.state
        if state.result and not state.casual and self._seat() is not None and self._ratings:
            ratings, self._ratings = self._ratings, {}
            asyncio.get_running_loop().create_task(self._rating_change(state.variant, ratings))

    async def _rating_change(self, variant: str, before: dict[str, float]) -> None:
        assert self.player is not None
        old = before.get(variant)
        for _ in range(20):  # the matchmaker learns the result from the referee first
            with contextlib.suppress(Refused):
                new = (await self.hub.ratings(self.player.name)).get(variant)
                if new is not None and new != old:
                    self.send({"t": "rating", "variant": variant, "before": old, "after": new})
                    return
            await asyncio.sleep(0.5)

    def _game(self) -> str:
        if self.feed is None:
            raise Refused("no_game", "open a game first")
        return self.feed.game_id

    async def do_move(self, message: dict[str, Any]) -> dict[str, Any]:
        """A move; its ``think_ms`` (how long the player thought, as the page measured
        it from the state that gave it the turn) goes on to the referee, which gives
        back the rest - the lag of both links - within the seat's quota."""
        game_id, move, ply = self._game(), str(message["move"]), int(message["ply"])
        think = _think_ms(message.get("think_ms"))
        reply = await self._me().seat_request(
            game_id,
            lambda token: MoveRequest(
                game_id=game_id, token=token, ply=ply, move=move, think_ms=think
            ),
        )
        return self._reply(reply)

    async def do_action(self, message: dict[str, Any]) -> dict[str, Any]:
        game_id, make = self._game(), ACTIONS[str(message["what"])]
        return self._reply(await self._me().seat_request(game_id, lambda t: make(game_id, t)))

    async def do_position(self, message: dict[str, Any]) -> dict[str, Any]:
        self._game()
        assert self.feed is not None and self.feed.state is not None
        return {"view": position_view(self.feed.state, int(message["ply"]))}

    async def do_chat(self, message: dict[str, Any]) -> dict[str, Any]:
        game_id, text = self._game(), str(message["text"])
        if self.player is None:
            return await self._guest_chat(game_id, text, str(message.get("name") or "").strip())
        player = self.player
        if game_id in player.seats:
            reply = await player.seat_request(
                game_id, lambda token: ChatRequest(game_id=game_id, text=text, token=token)
            )
        else:
            feed = self.feed
            assert feed is not None
            reply = await feed.request(ChatRequest(game_id=game_id, text=text, name=player.name))
        return self._reply(reply)

    async def _guest_chat(self, game_id: str, text: str, name: str) -> dict[str, Any]:
        """A spectator who has not entered the lobby says ``text`` in the spectators'
        room under a typed ``name`` (never the name of a player in the lobby)."""
        if not name:
            raise Refused("need_name", "type a name to chat")
        if any(p["name"] == name for p in (await self.hub.lobby())["players"]):
            raise Refused("name_taken", f"{name} is a player's name here; type another")
        assert self.feed is not None
        return self._reply(
            await self.feed.request(ChatRequest(game_id=game_id, text=text, name=name))
        )

    async def do_rematch(self, message: dict[str, Any]) -> dict[str, Any]:
        game_id, player = self._game(), self._me()
        assignment = player.seats.get(game_id)
        if assignment is None:
            raise Refused("not_seated", "you have no seat in this game")
        opponent = assignment.players[1 - assignment.seat]
        seek = Seek(
            variant=assignment.variant,
            options=dict(assignment.options),
            time_control=assignment.time_control,
            rated=assignment.rated,
            color="second" if assignment.seat == 0 else "first",
        )
        reply = await player.call(Challenge(to=opponent, seek=seek))
        self._reply(reply)
        return {"challenge_id": getattr(reply, "challenge_id", None)}


#: the longest think a page may report (the protocol's limit of ``think_ms``)
MAX_THINK_MS = 24 * 3600 * 1000


def _think_ms(value: object) -> int | None:
    """A page's ``think_ms``: whole milliseconds within the protocol's range, or
    None (not given, or not a number: the move is charged all it took)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        return None
    return round(min(max(value, 0), MAX_THINK_MS))


def _seek(data: dict[str, Any]) -> Seek:
    """A seek from the page's map (checked again by the matchmaker)."""
    clock = data.get("time_control") or {}
    kind = str(clock.get("kind", "none"))
    if kind not in get_args(TimeControlKind):
        raise ValueError(f"unknown clock kind {kind!r}: none, fischer or per_move")
    return Seek(
        variant=str(data["variant"]),
        options={str(k): v for k, v in dict(data.get("options") or {}).items()},
        time_control=TimeControl(
            kind=cast("TimeControlKind", kind),
            base_ms=int(clock.get("base_ms", 0)),
            increment_ms=int(clock.get("increment_ms", 0)),
            per_move_ms=int(clock.get("per_move_ms", 0)),
            first_move_ms=int(clock.get("first_move_ms", 30000)),
        ),
        rated=bool(data.get("rated", False)),
        color=str(data.get("color", "any")),
    )
