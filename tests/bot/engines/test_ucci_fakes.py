"""UcciEngine against a scripted UCCI engine: handshake, options, position, banmoves, go."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest

from lanqi.bot.base import SeatView
from lanqi.bot.engines import IllegalEngineMove, UcciEngine, create_engine
from lanqi.games import xiangqi

Fake = Callable[..., list[str]]
Log = Callable[[], list[str]]

PERPETUAL_FEN = "R3k4/9/9/9/9/9/9/9/9/5K3 b - - 0 1"
PERPETUAL_MOVES = ["e9e8", "a9a8", "e8e9", "a8a9", "e9e8", "a9a8", "e8e9"]


@pytest.fixture
def make(fake: Fake, fake_env: dict[str, str]) -> Iterator[Callable[..., UcciEngine]]:
    bots: list[UcciEngine] = []

    def build(mode: str = "ok", **kwargs: Any) -> UcciEngine:
        bot = UcciEngine(fake("ucci_fake.py", mode), env=fake_env, **kwargs)
        bots.append(bot)
        return bot

    yield build
    for bot in bots:
        bot.close()


def test_handshake_options_and_new_game(make: Callable[..., UcciEngine], fake_log: Log) -> None:
    bot = make(options={"hashsize": 16, "randomness": "SMALL"})
    assert bot.engine_name == "FakeUcci"
    assert bot.time_unit == "ms"
    bot.on_game_start(SeatView.start("xiangqi"))
    assert fake_log() == [
        "ucci",
        "setoption usemillisec true",
        "setoption hashsize 16",
        "setoption randomness small",
        "isready",
        "setoption newgame",
        "isready",
    ]


def test_position_starts_after_the_last_capture(
    make: Callable[..., UcciEngine], fake_log: Log
) -> None:
    bot = make()
    moves = ["b2b9", "a9b9", "h2e2"]  # a cannon takes a horse, a rook takes the cannon
    state = SeatView.start("xiangqi", moves=moves)
    assert bot.choose_move(state) == state.legal_moves()[0]
    board = xiangqi.Board()
    for text in moves[:2]:
        board.push(xiangqi.Move.from_iccs(text))
    assert fake_log()[-2] == f"position fen {board.fen()} moves h2e2"
    quiet = SeatView.start("xiangqi", moves=["h2e2", "h9g7"])
    bot.choose_move(quiet)
    assert fake_log()[-2] == f"position fen {xiangqi.STARTING_FEN} moves h2e2 h9g7"


def test_banmoves_are_sent_and_obeyed_once(make: Callable[..., UcciEngine], fake_log: Log) -> None:
    bot = make()
    state = SeatView.start("xiangqi")
    first = bot.choose_move(state)
    assert first == "a0a1"
    bot.set_banned_moves(["a0a1", "A0-A2"])
    assert bot.choose_move(state) == "a3a4"
    assert fake_log()[-2:] == ["banmoves a0a1 a0a2", "go time 1000 movestogo 1"]
    assert bot.choose_move(state) == first
    assert not fake_log()[-2].startswith("banmoves")


def test_losing_repetition_is_banned(make: Callable[..., UcciEngine], fake_log: Log) -> None:
    bot = make()
    state = SeatView.start("xiangqi", start_fen=PERPETUAL_FEN, moves=PERPETUAL_MOVES)
    assert bot.choose_move(state) != "a8a9"
    assert "banmoves a8a9" in fake_log()


@pytest.mark.parametrize(
    ("state", "go"),
    [
        (
            SeatView.start("xiangqi", seat=0, remaining_ms=(30_000, 20_000), increment_ms=500),
            "go time 29900 increment 500 opptime 20000 oppincrement 500",
        ),
        (
            SeatView.start("xiangqi", seat=1, moves=["h2e2"], remaining_ms=(30_000, 20_000)),
            "go time 19900 increment 0 opptime 30000 oppincrement 0",
        ),
        (  # time odds: Black has its own increment
            replace(
                SeatView.start("xiangqi", seat=1, moves=["h2e2"], remaining_ms=(30_000, 20_000)),
                increment_ms=50,
                opponent_increment_ms=100,
            ),
            "go time 19900 increment 50 opptime 30000 oppincrement 100",
        ),
        (SeatView.start("xiangqi", per_move_ms=3000), "go time 2900 movestogo 1"),
        (SeatView.start("xiangqi"), "go time 1000 movestogo 1"),
    ],
)
def test_go_in_milliseconds(make: Callable[..., UcciEngine], state: SeatView, go: str) -> None:
    bot = make()
    bot.choose_move(state)
    assert bot.last_go == go


def test_go_in_seconds_for_old_engines(make: Callable[..., UcciEngine], fake_log: Log) -> None:
    bot = make("seconds")
    assert bot.time_unit == "s"
    assert "setoption usemillisec true" not in fake_log()
    bot.choose_move(SeatView.start("xiangqi", remaining_ms=(30_000, 20_000), increment_ms=1500))
    assert bot.last_go == "go time 29 increment 1 opptime 20 oppincrement 1"
    forced = make("seconds", time_unit="ms")
    forced.choose_move(SeatView.start("xiangqi", per_move_ms=500))
    assert forced.last_go == "go time 400 movestogo 1"


def test_fixed_limits(make: Callable[..., UcciEngine]) -> None:
    state = SeatView.start("xiangqi", remaining_ms=(30_000, 20_000))
    for kwargs, go in (
        ({"depth": 5}, "go depth 5"),
        ({"nodes": 10_000}, "go nodes 10000"),
        ({"movetime": 300}, "go time 300 movestogo 1"),
    ):
        bot = make(**kwargs)
        bot.choose_move(state)
        assert bot.last_go == go


def test_draw_flag_and_no_move(make: Callable[..., UcciEngine]) -> None:
    bot = make("draw")
    played = bot.play(SeatView.start("xiangqi"))
    assert played.offer_draw and not played.resign
    nomove = make("nomove")
    with pytest.raises(IllegalEngineMove, match="gave no move"):
        nomove.choose_move(SeatView.start("xiangqi"))


def test_quit_on_close(make: Callable[..., UcciEngine], fake_log: Log, procs: Any) -> None:
    bot = make()
    pid = bot.process.pid
    bot.close()
    assert fake_log()[-1] == "quit"
    assert bot.process.returncode == 0 and procs.reaped(pid)


def test_create_engine_spec(fake: Fake, fake_env: dict[str, str]) -> None:
    command = " ".join(fake("ucci_fake.py", "ok"))
    bot = create_engine(f"ucci:{command}", env=fake_env)
    try:
        assert isinstance(bot, UcciEngine)
    finally:
        bot.close()
    with pytest.raises(ValueError, match="must look like"):
        create_engine("xboard:/usr/games/crafty")


@pytest.mark.parametrize(("rule", "banned"), [("axf", True), ("check", True), ("draw", False)])
def test_banmoves_follow_the_games_repetition_rules(
    make: Callable[..., UcciEngine], fake_log: Log, rule: str, banned: bool
) -> None:
    """Completing a perpetual check loses under axf and check rules (banned), draws
    under draw rules (allowed): the ban comes from the game's own rules."""
    bot = make()
    state = SeatView.start(
        "xiangqi", options={"repetition": rule}, start_fen=PERPETUAL_FEN, moves=PERPETUAL_MOVES
    )
    bot.choose_move(state)
    assert ("banmoves a8a9" in fake_log()) is banned


def test_go_draw_when_the_opponent_offers_one(
    make: Callable[..., UcciEngine], fake_log: Log
) -> None:
    bot = make("accept")
    state = SeatView.start("xiangqi")
    assert bot.on_draw_offer(state) is False  # its last move did not offer a draw itself
    bot.choose_move(state)
    assert fake_log()[-1] == "go draw time 1000 movestogo 1"
    assert bot.draw_offered  # it accepted with its move: "bestmove a0a1 draw"
    assert bot.on_draw_offer(state) is True  # and a new offer now finds it willing
    bot.draw_proposed = False
    bot.choose_move(state)
    assert fake_log()[-1] == "go time 1000 movestogo 1"  # the offer is answered once
    assert not bot.draw_offered
