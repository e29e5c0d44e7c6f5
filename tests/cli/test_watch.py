"""The live view's fold and its rendering (``lanqi tournament watch``).

The fold takes the matchmaker's standings and says what happened since the last
ones; the dashboard is rendered to a recording rich Console and read as text.
The piped view against a real server is in tests/matchmaker/test_reports_e2e.py.
"""

from __future__ import annotations

import io
import time

from rich.cells import cell_len
from rich.console import Console

from lanqi.cli.watch import EventState, LiveGame, dashboard, plain_text, standings_table
from lanqi.protocol import (
    PairingInfo,
    StandingInfo,
    Standings,
    TimeControl,
    TournamentInfo,
    TournamentSpec,
)
from lanqi.protocol.messages import TournamentStatus
from lanqi.security import KeyPair, Link

PLAYERS = ["王小明", "Bo", "Carla", "Dmitri"]


def _standings(
    status: TournamentStatus,
    round_no: int,
    pairings: list[PairingInfo],
    points: str = "1-0.5-0",
    tiebreaks: dict[str, float] | None = None,
) -> Standings:
    spec = TournamentSpec(
        name="Club night",
        format="swiss",
        variant="xiangqi",
        time_control=TimeControl(kind="fischer", base_ms=600_000, increment_ms=5_000),
        points=points,
    )
    rows = [
        StandingInfo(
            rank=i + 1,
            player=name,
            points=float(3 - i) / 2,
            games=2,
            wins=1,
            draws=1,
            losses=0,
            tiebreaks=tiebreaks or {"buchholz": 2.5, "sonneborn_berger": 1.25},
        )
        for i, name in enumerate(PLAYERS)
    ]
    info = TournamentInfo(
        tournament_id="t1", spec=spec, status=status, round=round_no, players=PLAYERS
    )
    return Standings(tournament=info, rows=rows, pairings=pairings)


ROUND1 = [
    PairingInfo(round=1, board=1, first="王小明", second="Bo", game_id="g1"),
    PairingInfo(round=1, board=2, first="Carla", second="Dmitri", game_id="g2"),
]


def _done(p: PairingInfo, result: str) -> PairingInfo:
    return PairingInfo(
        round=p.round,
        board=p.board,
        first=p.first,
        second=p.second,
        game_id=p.game_id,
        result=result,
    )


def test_the_fold_says_each_round_and_result_once() -> None:
    state = EventState("t1")
    ends = {"g1": "checkmate", "g2": "timeout", "g3": "agreement"}
    first = state.update(_standings("running", 1, ROUND1), ends.__getitem__)
    assert first == [
        "Club night: swiss of xiangqi, 4 players, 10 min + 5 s per move, running",
        "round 1 paired: 1. 王小明 - Bo, 2. Carla - Dmitri",
    ]
    assert state.update(_standings("running", 1, ROUND1), ends.__getitem__) == []
    one_done = [_done(ROUND1[0], "1-0"), ROUND1[1]]
    assert state.update(_standings("running", 1, one_done), ends.__getitem__) == [
        "round 1 board 1: 王小明 1-0 Bo (checkmate)"
    ]
    # an event lost on the way costs nothing: the next standings tell all of it
    round2 = [PairingInfo(round=2, board=1, first="Bo", second="Carla", game_id="g3")]
    later = [_done(ROUND1[0], "1-0"), _done(ROUND1[1], "0-1"), *round2]
    assert state.update(_standings("running", 2, later), ends.__getitem__) == [
        "round 1 board 2: Carla 0-1 Dmitri (lost on time)",
        "round 2 paired: 1. Bo - Carla",
    ]
    end = [*later[:2], _done(round2[0], "1/2-1/2")]
    assert state.update(_standings("finished", 2, end), ends.__getitem__) == [
        "round 2 board 1: Bo 1/2-1/2 Carla (draw agreed)",
        "Club night finished after 2 rounds",
    ]
    assert state.finished
    assert state.recent[0] == "round 2 board 1: Bo 1/2-1/2 Carla (draw agreed)"


def test_the_dashboard_shows_boards_clocks_last_moves_results_and_standings() -> None:
    state = EventState("t1")
    state.update(
        _standings("running", 1, [_done(ROUND1[0], "1-0"), ROUND1[1]]), lambda g: "checkmate"
    )
    state.ratings = {"王小明": 1712.4, "Bo": 1490.0, "Carla": 1601.0, "Dmitri": 1555.0}
    now = time.monotonic()
    state.live["g2"] = LiveGame(
        "g2", ply=23, last_move="C2=5", clock_ms=[254_000, 61_000], running=1, read_at=now - 1.0
    )
    console = Console(width=140, record=True, file=io.StringIO(), color_system=None)
    console.print(dashboard(state, now=now))
    text = console.export_text()
    assert "Club night" in text and "round 1" in text and "10 min + 5 s per move" in text
    lines = text.splitlines()
    board1 = next(line for line in lines if "王小明 1712" in line)
    assert "Bo 1490" in board1 and "1-0 checkmate" in board1
    board2 = next(line for line in lines if "Carla 1601" in line)
    # the running side's clock counts down from its reading; the other stands
    assert "Dmitri 1555" in board2 and " 23 " in board2 and "4:14 - 1:00" in board2
    assert "C2=5" in board2 and "playing" in board2
    assert "Sonneborn-Berger" in text and "Buchholz" in text and "sonneborn" not in text
    assert "round 1 board 1: 王小明 1-0 Bo (checkmate)" in text  # the latest results


def test_standings_columns_line_up_with_chinese_names() -> None:
    text = plain_text(standings_table(_standings("running", 1, []).rows, plain=True))
    lines = text.splitlines()
    assert lines[0].split()[:7] == ["#", "player", "pts", "games", "W", "D", "L"]
    # "pts" ends in the same display column on every line, whatever the name's width
    ends = set()
    for line, value in zip(lines[1:], ("1.5", "1", "0.5", "0"), strict=True):
        cut = line.index(f" {value} ") + 1 + len(value)
        ends.add(cell_len(line[:cut]))
    assert len(ends) == 1, text
    head = lines[0]
    assert cell_len(head[: head.index("pts") + 3]) in ends


def test_a_silent_referee_is_said_once_and_the_rest_is_shown() -> None:
    """No referee at the address: one note, no view, and no wait per game."""
    import socket

    from lanqi.cli.watch import _Games
    from lanqi.client.referee import RefereeClient

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"  # a referee trusted before, gone now
    referee = RefereeClient(
        address, address, timeout_ms=300, link=Link.to(KeyPair.ephemeral().public)
    )
    try:
        state = EventState("t1")
        state.update(_standings("running", 1, ROUND1))
        games = _Games(referee)
        games.follow([state])
        assert games.trouble == (
            f"live games not shown: no answer from the referee at tcp://127.0.0.1:{port} "
            "(name it with --referee)"
        )
        assert games.views == {} and games.referee is None
        games.follow([state])  # asks no more
        assert games.termination("g1") == ""
        # asked only for how a game ended, it gives up after one silence too
        quiet = _Games(referee)
        assert quiet.termination("g2") == "" and quiet.trouble == games.trouble
        assert quiet.referee is None
        console = Console(width=140, record=True, file=io.StringIO(), color_system=None)
        console.print(dashboard(state, note=games.trouble))
        text = console.export_text()
        assert "no answer from the referee" in text and "王小明" in text
    finally:
        referee.close()


def test_a_210_event_says_its_points_system_and_names_the_cxa_tiebreaks() -> None:
    state = EventState("t1")
    cxa = {"cxa_opponents": 5.0, "cxa_wins": 1.0, "cxa_black_games": 1.0, "cxa_black_wins": 0.0}
    first = state.update(_standings("running", 1, ROUND1, "2-1-0", cxa), lambda g: "")
    assert first[0] == (
        "Club night: swiss of xiangqi, 4 players, 10 min + 5 s per move, points 2/1/0, running"
    )
    console = Console(width=200, record=True, file=io.StringIO(), color_system=None)
    console.print(dashboard(state))
    text = console.export_text()
    assert "points 2/1/0" in text.splitlines()[0]
    for name in ("对手分 Opponents' points", "胜局 Wins", "后走局数 Games with Black", "后胜局"):
        assert name in text, name
    assert "cxa_" not in text
