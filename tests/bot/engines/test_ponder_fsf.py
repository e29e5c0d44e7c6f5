"""Pondering with the real Fairy-Stockfish, as UCI and as UCCI engine: the engine
searches on the opponent's time, goes on with ``ponderhit`` when the opponent plays
the expected reply, and is stopped (its answer dropped) when it does not."""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest

from lanqi.bot.base import SeatView
from lanqi.bot.engines import UcciEngine, UciEngine
from lanqi.bot.engines.uci import XiangqiEngine

ADAPTERS: dict[str, Callable[..., XiangqiEngine]] = {"uci": UciEngine, "ucci": UcciEngine}


def red(moves: list[str]) -> SeatView:
    return SeatView.start(
        "xiangqi", seat=0, moves=moves, remaining_ms=(20_000, 20_000), increment_ms=100
    )


def sent_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The engine transcript: what the adapter sent (the process logs each line)."""
    return [r.getMessage().split(" >> ", 1)[1] for r in caplog.records if " >> " in r.getMessage()]


@pytest.mark.parametrize("proto", ["uci", "ucci"])
def test_fairy_stockfish_ponders_hits_and_misses(
    proto: str, fsf: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="lanqi.bot.engines.process")
    bot = ADAPTERS[proto](fsf, options={"Threads": 1, "Hash": 16}, ponder=True)
    try:
        assert bot.engine_options["Ponder"].type == "check"
        bot.on_game_start(red([]))
        moves: list[str] = []
        for turn in range(4):
            moves.append(bot.choose_move(red(moves)))
            expected = bot._expected  # the reply Fairy-Stockfish named after "ponder"
            assert expected is not None and expected[0].moves == moves
            bot.on_opponent_turn(red(moves))
            assert bot.last_go.startswith("go ponder ")
            legal = red(moves).legal_moves()
            # even turns: the opponent plays the expected reply; odd turns: another move
            reply = expected[1] if turn % 2 == 0 else next(m for m in legal if m != expected[1])
            moves.append(reply)
        moves.append(bot.choose_move(red(moves)))
        assert (bot.ponderhits, bot.pondermisses) == (2, 2)
        red(moves)  # every move was legal where it was played
    finally:
        bot.close()
    sent = sent_lines(caplog)
    ponder_option = (
        "setoption name Ponder value true" if proto == "uci" else "setoption Ponder true"
    )
    assert ponder_option in sent
    gos = [line for line in sent if line.split()[0] in ("go", "ponderhit", "stop")]
    search = "wtime" if proto == "uci" else "time"  # a search of its own: "go wtime ..."
    assert [line.split()[1] if line.startswith("go") else line for line in gos] == [
        search,
        *(["ponder", "ponderhit", "ponder", "stop", search] * 2),
    ]
