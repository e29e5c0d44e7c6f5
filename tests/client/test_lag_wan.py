"""Lag compensation across a bad link: a real referee here, a bot in a network
namespace behind :class:`~lanqi.bench.wan.Wan` (150 ms ± 50 ms of delay and 3 %
loss, **each way**: a round trip costs 200-400 ms, and lost packets are sent again
by TCP).  The bot thinks a fixed 100 ms a move.  With compensation (its moves say
how long they were thought) its clock loses 40 x 100 ms within 10 % over 40 moves;
the same bot in the same run without it (its moves say nothing) loses the link's
time too, at least 40 x 200 ms more.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.client.lag_bot import quiet_game
from tests.referee.conftest import RefereeProcess

from lanqi.bench.wan import Wan, unavailable
from lanqi.client.connection import BlockingConnection
from lanqi.protocol import (
    CreateGame,
    GameCreated,
    MoveMade,
    MoveRequest,
    TimeControl,
    decode_payload,
)
from lanqi.table.remote import RemoteTable

pytestmark = pytest.mark.skipif(unavailable() is not None, reason=str(unavailable()))

BOT = Path(__file__).with_name("lag_bot.py")
THINK_MS = 100
MOVES = 40
BASE_MS = 180_000  # a 3-minute clock: gain 1 s a move, cap 3 s, quota at most 7 s
#: the bot runs at a real-time priority: the test measures what the link costs, and
#: a bot starved of the CPU by whatever else runs on the machine (a load of 30 on two
#: cores, when other test suites run) wakes late from its thinking: its own measure,
#: honestly charged, was 100-2000 ms a move then
BOOST = ["chrt", "--fifo", "10"]
#: each way (the link applies them to each direction on its own)
DELAY_MS, JITTER_MS, LOSS = 150, 50, 0.03


def _opponent(table: RemoteTable, plies: int) -> None:
    """Seat 0 on this host: moves at once whenever it is its turn, until ``plies``
    have been played."""
    sent_for, game = -1, quiet_game(plies)
    while table.state.ply < plies:
        table.poll()
        state = table.state
        assert state.status != "finished", f"the game ended: {state.termination}"
        if state.status == "active" and state.to_move == 0 and sent_for < state.ply < plies:
            assert table.token is not None
            move = game[state.ply]
            table.send(
                MoveRequest(game_id=table.game_id, token=table.token, ply=state.ply, move=move)
            )
            sent_for = state.ply
        else:
            table.block(30.0)


def _stored_moves(referee: RefereeProcess, game_id: str) -> list[MoveMade]:
    """The game's ``moved`` events as the referee stored them (a client's feed may
    have taken a snapshot instead of some of them)."""
    with sqlite3.connect(referee.data_dir / "referee.sqlite3") as db:
        rows = db.execute(
            "SELECT payload FROM events WHERE game_id = ? AND kind = 'moved' ORDER BY seq",
            (game_id,),
        ).fetchall()
    moves = [decode_payload(bytes(payload)) for (payload,) in rows]
    return [m for m in moves if isinstance(m, MoveMade)]


def _play(
    conn: BlockingConnection,
    referee: RefereeProcess,
    wan: Wan,
    bots: list[subprocess.Popen[str]],
    *,
    report: bool,
) -> tuple[Callable[[], int], list[int | None]]:
    """Start one game: the bot in the namespace (``report``: with compensation), the
    opponent in a thread here.  Returns a function that waits for the 40 moves and
    gives the bot's clock loss (ms), and the lags its moves were given back."""
    time_control = TimeControl(kind="fischer", base_ms=BASE_MS, first_move_ms=0)
    created = conn.referee_request(
        referee.endpoint,
        CreateGame(variant="gomoku", players=["here", "there"], time_control=time_control),
    )
    assert isinstance(created, GameCreated), created
    bot = wan.popen(
        [
            *BOOST,
            sys.executable,
            str(BOT),
            referee.endpoint,
            referee.pub_endpoint,
            created.game_id,
            "1",
            created.tokens[1],
            str(THINK_MS),
            "1" if report else "0",
            str(MOVES),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    bots.append(bot)
    table = conn.open_table(
        game_id=created.game_id,
        referee=referee.endpoint,
        events=referee.pub_endpoint,
        seat=0,
        token=created.tokens[0],
    )
    failed: list[BaseException] = []

    def run() -> None:
        try:
            _opponent(table, 2 * MOVES)
        except BaseException as exc:  # told to the test below
            failed.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()

    def loss() -> int:
        out, _ = bot.communicate(timeout=300)
        thread.join(60)
        assert not failed, failed
        assert bot.returncode == 0, out
        moved = {m.ply: m for m in _stored_moves(referee, created.game_id) if m.seat == 1}
        assert sorted(moved) == list(range(1, 2 * MOVES, 2))
        last = moved[2 * MOVES - 1].left_ms  # the bot's time left as its 40th move came
        assert last is not None
        lags.extend(moved[ply].lag_ms for ply in sorted(moved))
        return BASE_MS - last

    lags: list[int | None] = []
    return loss, lags


def test_a_bot_behind_a_bad_link_is_charged_its_thinking_not_the_link(
    referee_factory: Callable[..., RefereeProcess], capsys: Any
) -> None:
    with Wan(delay_ms=DELAY_MS, jitter_ms=JITTER_MS, loss=LOSS, seed=24) as wan:
        referee = referee_factory("--host", wan.host_address)
        bots: list[subprocess.Popen[str]] = []
        try:
            with BlockingConnection() as conn:
                compensated, lags = _play(conn, referee, wan, bots, report=True)
                control, control_lags = _play(conn, referee, wan, bots, report=False)
                with_lag, without = compensated(), control()
        finally:
            for bot in bots:
                if bot.poll() is None:
                    bot.kill()
                    bot.communicate()
    thought = MOVES * THINK_MS
    given = [lag for lag in lags if lag is not None]
    with capsys.disabled():
        print(
            f"\nclock lost over {MOVES} moves of {THINK_MS} ms: {with_lag} ms with lag"
            f" compensation (given back {sum(given)} ms, {min(given)}-{max(given)} ms a move),"
            f" {without} ms without"
        )
    assert len(given) == MOVES and control_lags == [None] * MOVES
    assert abs(with_lag - thought) <= thought / 10
    # without it every move also pays its round trip: at least 2 x (150 - 50) ms
    assert without >= thought + MOVES * 2 * (DELAY_MS - JITTER_MS)
