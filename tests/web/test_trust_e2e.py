"""What the browser link protects: seat tokens and matchmaker sessions never reach a
browser (not even their owner's), and a browser cannot act for another's seat."""

from __future__ import annotations

import asyncio
import json
import secrets
import ssl
import subprocess
import sys
from pathlib import Path
from typing import Any

import aiohttp
from tests.web.conftest import WebServer

from lanqi.client.matchmaker import MatchmakerClient
from lanqi.security import Link, server_keys
from lanqi.web.tls import certificate, fingerprint

SEEK = {
    "variant": "gomoku",
    "options": {"size": 15, "rule": "freestyle"},
    "time_control": {"kind": "fischer", "base_ms": 420_000, "increment_ms": 7_000},
    "rated": False,
    "color": "first",
}


class Tab:
    """One WebSocket as a browser tab opens it; keeps every frame it receives."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.frames: list[str] = []
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.ids = 0
        self.reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        async for frame in self.ws:
            self.frames.append(frame.data)
            self.inbox.put_nowait(json.loads(frame.data))

    async def ask(self, **message: Any) -> dict[str, Any]:
        self.ids += 1
        await self.ws.send_str(json.dumps({**message, "id": self.ids}))
        while True:
            got = await asyncio.wait_for(self.inbox.get(), 10)
            if got["t"] == "answer" and got["re"] == self.ids:
                return got

    async def next(self, kind: str) -> dict[str, Any]:
        while True:
            got = await asyncio.wait_for(self.inbox.get(), 10)
            if got["t"] == kind:
                return got


async def _scenario(server: WebServer) -> tuple[list[str], dict[str, Any]]:
    found: dict[str, Any] = {}
    async with aiohttp.ClientSession() as http:
        url = server.url + "/ws"
        ann, bob, eve = [Tab(await http.ws_connect(url)) for _ in range(3)]
        secret_of = {tab: secrets.token_hex(16) for tab in (ann, bob, eve)}
        for tab, name in ((ann, "tia"), (bob, "ubo"), (eve, "eve")):
            assert (await tab.ask(t="hello", secret=secret_of[tab], name=name))["ok"]
        seek_id = (await ann.ask(t="seek", seek=SEEK))["seek_id"]
        await bob.ask(t="lobby")
        assert (await bob.ask(t="take_seek", seek_id=seek_id))["paired"]
        game_id = (await ann.next("assigned"))["game_id"]
        for tab in (ann, bob, eve):
            assert (await tab.ask(t="watch", game_id=game_id))["ok"]
        assert (await ann.ask(t="move", move="h8", ply=0))["ok"]
        # eve watches: no seat, so nothing she sends acts for one
        found["move"] = await eve.ask(t="move", move="h9", ply=1)
        found["resign"] = await eve.ask(t="action", what="resign")
        found["draw"] = await eve.ask(t="action", what="offer_draw")
        # a tab that never said hello, and one that claims bob's name without his secret
        stranger = Tab(await http.ws_connect(url))
        found["no_hello"] = await stranger.ask(t="move", move="h9", ply=1)
        found["impostor"] = await stranger.ask(t="hello", secret=secrets.token_hex(16), name="ubo")
        found["bob"] = await bob.ask(t="move", move="h9", ply=1)
        found["game_id"] = game_id
        await asyncio.sleep(0.2)  # let the last state frames arrive before closing
        frames = [f for tab in (ann, bob, eve, stranger) for f in tab.frames]
        for tab in (ann, bob, eve, stranger):
            await tab.ws.close()
    return frames, found


def test_no_browser_acts_for_another_seat_and_no_token_leaves_the_gateway(
    web_server: WebServer,
) -> None:
    frames, found = asyncio.run(_scenario(web_server))
    assert (found["move"]["ok"], found["move"]["code"]) == (False, "not_seated")
    assert (found["resign"]["ok"], found["resign"]["code"]) == (False, "not_seated")
    assert (found["draw"]["ok"], found["draw"]["code"]) == (False, "not_seated")
    assert (found["no_hello"]["ok"], found["no_hello"]["code"]) == (False, "no_session")
    assert (found["impostor"]["ok"], found["impostor"]["code"]) == (False, "name_taken")
    assert found["bob"]["ok"]
    snapshot = web_server.snapshot(found["game_id"])
    assert (snapshot.ply, snapshot.status) == (2, "active")
    # the players' sessions and seat tokens, as the matchmaker gives them to their owner
    sessions = json.loads((web_server.data / "web-sessions.json").read_text("utf-8"))
    link = Link.to(server_keys(web_server.data).public)
    secrets_seen: list[str] = []
    for saved in sessions.values():
        if saved["name"] not in ("tia", "ubo"):
            continue
        with MatchmakerClient(web_server.lobby, link=link) as lobby:
            welcome = lobby.hello(saved["name"], session=saved["session"])
        secrets_seen.append(welcome.session)
        secrets_seen += [g.token for g in welcome.games if g.game_id == found["game_id"]]
    assert len(secrets_seen) == 4  # two sessions, two seat tokens
    for secret in secrets_seen:
        assert not any(secret in frame for frame in frames), "a secret reached a browser"


def test_web_tls_makes_one_certificate_and_prints_its_fingerprint(tmp_path: Path) -> None:
    cert, key = certificate(tmp_path)
    again = certificate(tmp_path)
    assert again == (cert, key) and oct(key.stat().st_mode & 0o777) == "0o600"
    shown = fingerprint(cert)
    assert len(shown.split(":")) == 32
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)  # a usable pair
    out = subprocess.run(
        ["openssl", "x509", "-in", str(cert), "-noout", "-fingerprint", "-sha256"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.strip().endswith(shown), (out, shown)
    assert sys.executable  # the same fingerprint openssl shows, which browsers show too
