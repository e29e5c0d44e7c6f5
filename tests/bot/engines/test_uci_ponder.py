"""Pondering against a scripted UCI engine: the exact commands of a ponder hit, a
ponder miss and a game that ends while the engine ponders."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from lanqi.bot.base import SeatView
from lanqi.bot.engines import UciEngine
from lanqi.games import xiangqi

Fake = Callable[..., list[str]]
Log = Callable[[], list[str]]
START = xiangqi.STARTING_FEN


@pytest.fixture
def make(fake: Fake, fake_env: dict[str, str]) -> Iterator[Callable[..., UciEngine]]:
    bots: list[UciEngine] = []

    def build(mode: str = "ponder", *args: str, **kwargs: Any) -> UciEngine:
        bot = UciEngine(fake("uci_fake.py", mode, *args), env=fake_env, **kwargs)
        bots.append(bot)
        return bot

    yield build
    for bot in bots:
        bot.close()


def first_legal(moves: list[str]) -> str:
    return SeatView.start("xiangqi", moves=moves).legal_moves()[0]


def red(moves: list[str], remaining: tuple[int, int]) -> SeatView:
    return SeatView.start("xiangqi", seat=0, moves=moves, remaining_ms=remaining, increment_ms=100)


def opening(bot: UciEngine) -> tuple[str, str]:
    """Red's first move and the opponent's turn after it: (the move, the expected reply)."""
    bot.on_game_start(red([], (10_000, 10_000)))
    move = bot.choose_move(red([], (10_000, 10_000)))
    bot.on_opponent_turn(red([move], (10_100, 10_000)))
    return move, first_legal([move])


def test_a_ponder_hit_goes_on_with_ponderhit(make: Callable[..., UciEngine], fake_log: Log) -> None:
    bot = make(ponder=True)
    move, expected = opening(bot)
    assert move == first_legal([])
    reply = bot.choose_move(red([move, expected], (10_100, 9_500)))
    assert reply == first_legal([move, expected])  # the pondered search's answer
    assert (bot.ponderhits, bot.pondermisses) == (1, 0)
    assert fake_log() == [
        "uci",
        "setoption name Ponder value true",
        "isready",
        "ucinewgame",
        "isready",
        f"position fen {START}",
        "go wtime 9900 btime 10000 winc 100 binc 100",
        f"position fen {START} moves {move} {expected}",
        "go ponder wtime 10000 btime 10000 winc 100 binc 100",
        "ponderhit",
    ]


def test_a_ponder_miss_stops_and_searches_afresh(
    make: Callable[..., UciEngine], fake_log: Log
) -> None:
    bot = make(ponder=True)
    move, expected = opening(bot)
    other = SeatView.start("xiangqi", moves=[move]).legal_moves()[1]  # not the expected
    reply = bot.choose_move(red([move, other], (10_100, 9_500)))
    assert reply == first_legal([move, other])  # not the pondered search's move
    assert (bot.ponderhits, bot.pondermisses) == (0, 1)
    sent = fake_log()
    assert sent[5:11] == [
        f"position fen {START}",
        "go wtime 9900 btime 10000 winc 100 binc 100",
        f"position fen {START} moves {move} {expected}",
        "go ponder wtime 10000 btime 10000 winc 100 binc 100",
        "stop",
        f"position fen {START} moves {move} {other}",
    ]
    # the engine's own clock, less the wait for the stopped search (here: none to speak of)
    go = re.fullmatch(r"go wtime (\d+) btime 9500 winc 100 binc 100", sent[11])
    assert go is not None and 9_000 < int(go.group(1)) <= 10_000 and len(sent) == 12


def test_the_wait_for_a_stopped_ponder_search_comes_off_the_clock(
    make: Callable[..., UciEngine], fake_log: Log
) -> None:
    bot = make("ponder", "400", ponder=True)  # answers stop 400 ms late
    move, _ = opening(bot)
    other = SeatView.start("xiangqi", moves=[move]).legal_moves()[1]
    bot.choose_move(red([move, other], (10_100, 9_500)))
    assert fake_log()[-3] == "stop"
    go = re.fullmatch(r"go wtime (\d+) btime 9500 winc 100 binc 100", bot.last_go)
    assert go is not None and int(go.group(1)) <= 10_000 - 400, bot.last_go


def test_the_end_of_the_game_stops_pondering(make: Callable[..., UciEngine], fake_log: Log) -> None:
    bot = make(ponder=True)
    move, _ = opening(bot)
    bot.on_game_end(red([move], (10_100, 10_000)), "1-0", "resignation")
    assert fake_log()[-2:] == ["go ponder wtime 10000 btime 10000 winc 100 binc 100", "stop"]
    bot.on_opponent_turn(red([move], (10_100, 10_000)))  # the game is over: no pondering
    bot.on_game_start(red([], (10_000, 10_000)))  # the stopped search's bestmove was read
    assert bot.choose_move(red([], (10_000, 10_000))) == first_legal([])
    assert fake_log()[-4:] == [
        "ucinewgame",
        "isready",
        f"position fen {START}",
        "go wtime 9900 btime 10000 winc 100 binc 100",
    ]


def test_without_ponder_the_engine_never_ponders(
    make: Callable[..., UciEngine], fake_log: Log
) -> None:
    bot = make()
    move, expected = opening(bot)
    bot.choose_move(red([move, expected], (10_100, 9_500)))
    sent = fake_log()
    assert not any("ponder" in line.lower() for line in sent), sent
