"""The tournament pages' server side without a server: what the pages are drawn from
(:mod:`lanqi.web.tournament_view`), one room per tournament folding the
matchmaker's standings and the round's live games (:class:`TourRoom`), and the
routes (:func:`register`) on an aiohttp test server, with a scripted hub.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Callable
from typing import Any

from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from lanqi.gamestate import GameState
from lanqi.protocol import (
    ClockInfo,
    ErrorReply,
    Exported,
    ExportTournament,
    GetStandings,
    ListTournaments,
    Message,
    PairingInfo,
    Request,
    StandingInfo,
    Standings,
    TimeControl,
    TournamentEvent,
    TournamentInfo,
    TournamentsList,
    TournamentSpec,
    TourResult,
)
from lanqi.protocol.messages import TournamentStatus
from lanqi.web.tournament import TourRoom, qr_svg, register
from lanqi.web.tournament_view import crosstable_json, pairing_line, tour_json

PLAYERS = ["王小明", "Bo", "Carla", "Dmitri", "Eve"]


def _standings(
    round_no: int,
    pairings: list[PairingInfo],
    *,
    status: TournamentStatus = "running",
    points: str = "2-1-0",
) -> Standings:
    spec = TournamentSpec(
        name="Club night",
        format="swiss",
        variant="xiangqi",
        rounds=3,
        time_control=TimeControl(kind="fischer", base_ms=600_000, increment_ms=5_000),
        points=points,
    )
    rows = [
        StandingInfo(
            rank=i + 1,
            player=name,
            points=float(4 - i),
            games=2,
            wins=1,
            draws=1,
            losses=0,
            tiebreaks={"buchholz_cut1": 2.5, "sonneborn_berger": 1.25},
            rating=1500.0 + i,
        )
        for i, name in enumerate(PLAYERS)
    ]
    info = TournamentInfo(
        tournament_id="t1", spec=spec, status=status, round=round_no, players=PLAYERS
    )
    return Standings(tournament=info, rows=rows, pairings=pairings)


ROUND_1 = [
    PairingInfo(round=1, board=1, first="王小明", second="Bo", game_id="g1", result="1-0", table=1),
    PairingInfo(
        round=1, board=2, first="Carla", second="Dmitri", game_id="g2", result="1/2-1/2", table=2
    ),
    PairingInfo(round=1, board=3, first="Eve", second=None, result="bye"),
]
ROUND_2 = [
    PairingInfo(round=2, board=1, first="Bo", second="Carla", game_id="g3", table=1),
    PairingInfo(round=2, board=2, first="Dmitri", second="Eve", game_id="g4", table=2),
    PairingInfo(round=2, board=3, first="王小明", second=None, result="bye", note="absent"),
]


def _state(game_id: str, ply: int = 0) -> GameState:
    return GameState.new(
        game_id,
        "xiangqi",
        {},
        None,
        ("Bo", "Carla"),
        fen="rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
        clock=ClockInfo(remaining_ms=[600_000, 600_000], running=0),
    )._replace(moves=("h2e2",) * ply, status="active")


class Feed:
    def __init__(self, state: GameState) -> None:
        self.state: GameState | None = state
        self.listeners: set[Callable[[Any], object]] = set()

    def change(self, state: GameState) -> None:
        self.state = state
        for listener in list(self.listeners):
            listener(self)


class ScriptedHub:
    """Answers ``tour_standings`` with :attr:`standings`, follows games from :attr:`feeds`."""

    def __init__(self, standings: Standings) -> None:
        self.standings = standings
        self.asked: list[Request] = []
        self.tour: dict[str, list[Callable[[TournamentEvent], object]]] = {}
        self.feeds: dict[str, Feed] = {}
        self.followed: list[str] = []
        self.urls: list[str] = []

    async def ask(self, request: Request) -> Message:
        self.asked.append(request)
        if isinstance(request, GetStandings):
            if request.tournament_id != "t1":
                return ErrorReply(code="unknown_tournament", msg="no tournament 'x'")
            return self.standings
        if isinstance(request, ListTournaments):
            return TournamentsList(tournaments=[self.standings.tournament])
        if isinstance(request, ExportTournament) and request.tournament_id == "t1":
            return Exported(format="html", text="<html><title>Club night</title></html>")
        return ErrorReply(code="unknown_tournament", msg="no tournament")

    def on_tour(self, tid: str, callback: Callable[[TournamentEvent], object]) -> None:
        self.tour.setdefault(tid, []).append(callback)

    def off_tour(self, tid: str, callback: Callable[[TournamentEvent], object]) -> None:
        self.tour[tid].remove(callback)

    async def follow(self, game_id: str) -> Feed:
        self.followed.append(game_id)
        feed = self.feeds.setdefault(game_id, Feed(_state(game_id)))
        return feed

    def unfollow(self, game_id: str, callback: Callable[[Any], object]) -> None:
        self.feeds[game_id].listeners.discard(callback)

    def publish(self, tid: str) -> None:
        for callback in list(self.tour.get(tid, [])):
            callback(TourResult(tournament_id=tid, round=1, pairings=[], standings=[]))


# ---------------------------------------------------------------- the view


def test_the_event_as_the_page_draws_it() -> None:
    tour = tour_json(_standings(1, ROUND_1))
    assert (tour["name"], tour["status"], tour["round"], tour["rounds"]) == (
        "Club night",
        "running",
        1,
        3,
    )
    assert tour["points"] == "2/1/0"
    assert tour["time_control"] == "10 min + 5 s per move"
    assert tour["seat_names"] == ["Red", "Black"]
    assert [(b["key"], b["label"]) for b in tour["tiebreaks"]] == [
        ("buchholz_cut1", "BH-C1"),
        ("sonneborn_berger", "SB"),
    ]
    assert [p["line"] for p in tour["pairings"]] == [
        "Table 1: 王小明 (Red) - Bo",
        "Table 2: Carla (Red) - Dmitri",
        "Eve: bye",
    ]
    assert tour["rows"][0]["tiebreaks"] == {"buchholz_cut1": 2.5, "sonneborn_berger": 1.25}
    json.dumps(tour)  # all of it is JSON


def test_pairing_lines_of_a_gomoku_table_and_an_absent_player() -> None:
    gomoku = ("Black", "White")
    game = PairingInfo(round=4, board=2, first="Ann", second="Bob", table=7)
    assert pairing_line(game, gomoku) == "Table 7: Ann (Black) - Bob"
    assert pairing_line(ROUND_2[2], gomoku) == "王小明: absent"


def test_crosstable_lines_name_the_opponents_line_seat_and_result() -> None:
    rows = _standings(2, ROUND_1 + ROUND_2).rows
    lines = {line["player"]: line for line in crosstable_json(rows, ROUND_1 + ROUND_2)}
    assert lines["王小明"]["line"] == 1
    assert lines["王小明"]["rounds"] == {
        "1": {"opponent": 2, "seat": "f", "code": "1"},
        "2": {"bye": True, "code": "0"},  # absent: a zero-point bye
    }
    assert lines["Bo"]["rounds"]["1"] == {"opponent": 1, "seat": "s", "code": "0"}
    assert lines["Bo"]["rounds"]["2"] == {"opponent": 3, "seat": "f", "code": ""}  # playing
    assert lines["Dmitri"]["rounds"]["1"]["code"] == "½"
    assert lines["Eve"]["rounds"]["1"] == {"bye": True, "code": "bye"}


# ---------------------------------------------------------------- the room


async def _next(queue: asyncio.Queue[str]) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(await asyncio.wait_for(queue.get(), 5))
    return message


def test_a_room_folds_standings_on_events_and_follows_the_rounds_games() -> None:
    async def scenario() -> None:
        playing = dataclasses.replace(ROUND_1[1], result=None)
        hub = ScriptedHub(_standings(1, [ROUND_1[0], playing, ROUND_1[2]]))
        room = TourRoom(hub, "t1", refresh_s=60)  # refreshed by events only, here
        first = room.enter()
        room.start()
        tour = await _next(first)
        assert (tour["t"], tour["round"]) == ("tour", 1)
        # the round's games are followed (a finished one shows its end)
        assert {(await _next(first))["game_id"] for _ in range(2)} == {"g1", "g2"}
        # a move on a followed game reaches the page
        hub.feeds["g2"].change(_state("g2", ply=3))
        while (message := await _next(first))["game_id"] != "g2" or message["ply"] != 3:
            pass
        assert message["clock"] == {"remaining_ms": [600_000, 600_000], "running": 0}
        assert message["age_ms"] == 0
        # round 2 is paired: the event says so, the room asks again and follows its games
        hub.standings = _standings(2, ROUND_1 + ROUND_2)
        hub.publish("t1")
        while (message := await _next(first))["t"] != "tour":
            pass
        assert message["round"] == 2
        while {"g3", "g4"} - set(hub.followed):
            await asyncio.sleep(0)
        assert not hub.feeds["g2"].listeners  # last round's game is let go
        # a page opened now gets the event and the live games at once, clocks aged
        late = room.enter()
        assert (await _next(late))["round"] == 2
        games = {(await _next(late))["game_id"] for _ in range(2)}
        assert games == {"g3", "g4"}
        await room.stop()
        assert hub.tour["t1"] == []
        assert all(not feed.listeners for feed in hub.feeds.values())

    asyncio.run(scenario())


# ---------------------------------------------------------------- the routes


def test_routes_serve_the_pages_report_qr_and_live_socket() -> None:
    async def scenario() -> None:
        standings = _standings(1, ROUND_1)
        spec = dataclasses.replace(standings.tournament.spec, name="<b>Club</b> night")
        tournament = dataclasses.replace(standings.tournament, spec=spec)
        hub = ScriptedHub(dataclasses.replace(standings, tournament=tournament))
        hub.urls = ["http://192.0.2.7:8080/"]
        app = web.Application()
        register(app, hub)
        async with TestClient(TestServer(app)) as client:
            index = await (await client.get("/tournaments")).text()
            assert '<li data-tournament-id="t1"><a href="/tournament/t1">' in index
            assert "&lt;b&gt;Club&lt;/b&gt; night" in index  # names are escaped
            assert "比赛 Tournaments" in index
            page = await client.get("/tournament/t1")
            assert page.status == 200 and 'src="/tour-static/page.js"' in await page.text()
            projector = await client.get("/tournament/t1/projector")
            assert "/tour-static/projector.js" in await projector.text()
            script = await client.get("/tour-static/projector.js")
            assert script.status == 200
            report = await client.get("/tournament/t1/report")
            assert "<title>Club night</title>" in await report.text()
            missing = await client.get("/tournament/x/report")
            assert missing.status == 404
            qr = await client.get("/tournament/t1/qr.svg")
            assert qr.content_type == "image/svg+xml"
            assert await qr.text() == qr_svg("http://192.0.2.7:8080/")
            socket = await client.ws_connect("/tournament/t1/ws")
            hello = await socket.receive_json(timeout=5)
            assert hello == {"t": "hello", "join_url": "http://192.0.2.7:8080/"}
            tour = await socket.receive_json(timeout=5)
            assert (tour["t"], tour["name"]) == ("tour", "<b>Club</b> night")
            await socket.close()
            unknown = await client.ws_connect("/tournament/x/ws")
            await unknown.receive_json(timeout=5)  # hello
            error = await unknown.receive_json(timeout=5)
            assert (error["t"], error["code"]) == ("error", "unknown_tournament")
            await unknown.close()

    asyncio.run(scenario())


def test_a_game_no_referee_has_is_asked_for_once_and_an_unknown_event_said_once() -> None:
    class Forgetful(ScriptedHub):
        async def follow(self, game_id: str) -> Feed:
            self.followed.append(game_id)
            raise LookupError(f"no game {game_id} on this server")

    async def scenario() -> None:
        hub = Forgetful(_standings(2, ROUND_1 + ROUND_2))
        room = TourRoom(hub, "t1", refresh_s=60)
        page = room.enter()
        room.start()
        assert (await _next(page))["t"] == "tour"
        for _ in range(3):  # three more refreshes, by events
            hub.publish("t1")
            while hub.asked.count(GetStandings(tournament_id="t1")) < 2 + _:
                await asyncio.sleep(0)
        assert sorted(hub.followed) == ["g3", "g4"]  # once each
        hub.standings = _standings(2, [])
        await room.stop()

        gone = TourRoom(hub, "x", refresh_s=60)
        page = gone.enter()
        gone.start()
        assert (await _next(page))["code"] == "unknown_tournament"
        hub.publish("x")
        while hub.asked.count(GetStandings(tournament_id="x")) < 2:
            await asyncio.sleep(0)
        await gone.stop()
        assert page.empty()  # the second refresh said nothing new

    asyncio.run(scenario())
