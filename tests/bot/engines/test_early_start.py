"""``start_early``: a match starts an engine's search of the position after its
opponent's move before the referee has committed that move; the engine's ``play``
of that position then only waits for the answer, any other position (or the game's
end) stops the early search and drops its answer."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from lanqi.bot.base import SeatView
from lanqi.bot.engines import UciEngine
from lanqi.games import xiangqi

Fake = Callable[..., list[str]]
Log = Callable[[], list[str]]


@pytest.fixture
def make(fake: Fake, fake_env: dict[str, str]) -> Iterator[Callable[..., UciEngine]]:
    bots: list[UciEngine] = []

    def build(mode: str = "ok", **kwargs: Any) -> UciEngine:
        bot = UciEngine(fake("uci_fake.py", mode), env=fake_env, **kwargs)
        bots.append(bot)
        return bot

    yield build
    for bot in bots:
        bot.close()


def _after(moves: list[str], *, deadline_s: float | None = None) -> SeatView:
    state = SeatView.start("xiangqi", moves=moves)
    if deadline_s is not None:
        state.deadline = time.monotonic() + deadline_s
    return state


def _searches(sent: list[str]) -> list[str]:
    return [line for line in sent if line.startswith(("position", "go", "stop"))]


def test_the_same_position_is_searched_once(make: Callable[..., UciEngine], fake_log: Log) -> None:
    bot = make()
    bot.on_game_start(_after([]))
    state = _after(["h2e2", "h9g7"])
    before = len(fake_log())
    assert bot.start_early(state)
    found: list[tuple[str, bool, bool]] = []
    bot.move_found = lambda seen, move, draw, resign: found.append((move, draw, resign))
    move = bot.choose_move(_after(["h2e2", "h9g7"]))  # the referee's view: the same game
    assert move == state.legal_moves()[0]
    searches = _searches(fake_log()[before:])
    assert len(searches) == 2 and searches[1] == "go movetime 1000", searches  # one go
    assert (bot.early_hits, bot.early_misses) == (1, 0)
    assert found == [(move, False, False)]  # said before play returned
    assert bot.search_began is not None and bot.bestmove_at is not None
    assert bot.search_began <= bot.bestmove_at


def test_another_position_drops_the_early_answer(
    make: Callable[..., UciEngine], fake_log: Log
) -> None:
    bot = make()
    bot.on_game_start(_after([]))
    guessed = _after(["h2e2", "h9g7"])
    assert bot.start_early(guessed)
    actual = _after(["a0a1", "a9a8"])  # the fake plays the first legal move in ICCS order
    before = len(fake_log())
    move = bot.choose_move(actual)
    assert move == actual.legal_moves()[0] == "a1a0" != guessed.legal_moves()[0]
    searches = _searches(fake_log()[before:])
    # stopped if its answer was not in yet; then the position at hand searched
    start = xiangqi.STARTING_FEN
    assert searches[-2:] == [f"position fen {start} moves a0a1 a9a8", "go movetime 1000"]
    assert searches[:-2] in ([], ["stop"]), searches
    assert (bot.early_hits, bot.early_misses) == (0, 1)


def test_the_games_end_stops_an_early_search(make: Callable[..., UciEngine], fake_log: Log) -> None:
    bot = make("slow", timeout_margin_ms=2000)  # answers only when told to stop
    bot.on_game_start(_after([]))
    assert bot.start_early(_after(["h2e2", "h9g7"]))
    assert not bot.start_early(_after(["h2e2", "h9g7"]))  # one at a time
    bot.on_game_end(_after(["h2e2", "h9g7"]), "1-0", "resignation")
    assert fake_log()[-1] == "stop"
    bot.on_game_start(_after([]))
    # the next game's first move is its own, not the dropped early answer
    first = _after([], deadline_s=0.6)
    assert bot.choose_move(first) == first.legal_moves()[0]
    assert bot.restarts == 0


def test_not_while_pondering_nor_for_a_dead_engine(make: Callable[..., UciEngine]) -> None:
    assert not make(ponder=True).start_early(_after(["h2e2", "h9g7"]))
    bot = make()
    bot.on_game_start(_after([]))
    bot.process.kill()
    assert not bot.start_early(_after(["h2e2", "h9g7"]))
