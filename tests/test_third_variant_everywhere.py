"""The toy variant of ``tests/referee/test_third_variant.py`` plays everywhere.

Its package (that module, plus the built-in AI below: a variant brings its own)
and the one registry line are all it takes: the bot catalog plays it (``builtin``
and ``takeaway-ai``), ``lanqi match`` runs a match of it through the CLI,
``lanqi selfplay`` plays it and every ``--variant`` offers it, the registry reads
its records.  The GUI half is tests/gui/test_third_variant_gui.py.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest
from tests.referee.test_third_variant import SPEC, TakeAway

from lanqi.bot.base import Bot, SeatView
from lanqi.bot.catalog import AISettings
from lanqi.games.base import RecordGames
from lanqi.games.registry import VARIANTS, variant_names


class ToyAI(Bot):
    """The toy's built-in AI: leave the opponent a multiple of three when it can
    (level 2), else take one."""

    name: ClassVar[str] = "takeaway-ai"
    variants: ClassVar[tuple[str, ...]] = ("takeaway",)

    def __init__(self, level: int) -> None:
        self.level = level

    def engine_id(self) -> str:
        return f"toy AI level {self.level}"

    def choose_move(self, state: SeatView) -> str:
        left = int(state.board.fen().split()[0])
        take = left % 3 if self.level >= 2 and left % 3 else 1
        return f"take{take}"


def toy_ai(ai: AISettings) -> ToyAI:
    return ToyAI(ai.level)


def _read(text: str) -> RecordGames:
    """The toy's record: ``Tag=value`` words, then its moves (``take2``)."""
    words = text.split()
    headers = dict(word.split("=", 1) for word in words if "=" in word)
    board = TakeAway(int(headers.get("Counters", "7")))
    for word in words:
        if word.startswith("take"):
            board.push_text(word)
    return [(headers, board, headers.get("Result", "*"))]


#: the toy's spec, with what a variant brings for the frontends: its AI (named, as
#: the rules may not import the bots), its levels and its record reader
TOY = dataclasses.replace(
    SPEC, ai=f"{__name__}:toy_ai", ai_levels=2, read=_read, record_game="Takeaway"
)


@pytest.fixture
def toy() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(VARIANTS, TOY.name, TOY)  # the one registry line
        yield


@pytest.mark.usefixtures("toy")
def test_the_bot_catalog_plays_the_toy_with_its_own_ai_clamped_once() -> None:
    from lanqi.bot.catalog import BuiltinBot, bot_factory, bot_names, builtin_ai, variants_of

    assert "takeaway-ai" in bot_names()
    assert "takeaway" in variants_of("builtin") and variants_of("takeaway-ai") == ("takeaway",)
    ai = builtin_ai("takeaway", level=8)
    assert isinstance(ai, ToyAI) and ai.level == 2  # the spec's levels clamp it
    assert builtin_ai("takeaway").engine_id() == "toy AI level 2"  # None: the strongest
    state = SeatView.start("takeaway", seat=0, options={"counters": 7})
    assert bot_factory("takeaway-ai", level=2)().choose_move(state) == "take1"
    builtin = bot_factory("builtin", level=5)()
    assert isinstance(builtin, BuiltinBot)
    assert builtin.choose_move(state) == "take1"  # 7 -> 6, a multiple of three
    after = SeatView.start("takeaway", seat=1, options={"counters": 7}, moves=["take1"])
    assert builtin.choose_move(after) == "take1"  # 6: no good move, the AI takes one


@pytest.mark.usefixtures("toy")
def test_lanqi_match_runs_a_match_of_the_toy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from lanqi.cli.main import main

    record = tmp_path / "toy.txt"
    code = main(
        [
            "match", "-variant", "takeaway",
            "-engine", "name=Strong", "proto=builtin", "level=2",
            "-engine", "name=Weak", "proto=builtin", "level=1",
            "-games", "2", "-pgnout", str(record),
        ]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    # 7 counters: the first to move wins by leaving multiples of three, and the weak
    # AI (always one) never does; so the strong AI wins both games, first or second
    assert "Strong" in out and "Weak" in out
    games = record.read_text(encoding="utf-8").strip().splitlines()
    assert len(games) == 2, games
    firsts = {line.split("First=")[1].split()[0] for line in games}
    assert firsts == {"Strong", "Weak"}  # colours alternate
    assert TOY.read is not None
    for line in games:
        headers, board, _ = TOY.read(line)[0]
        outcome = board.outcome()
        assert outcome is not None and headers["Result"] == outcome.result()
        assert outcome.winner_seat == [headers["First"], headers["Second"]].index("Strong")


@pytest.mark.usefixtures("toy")
def test_the_cli_offers_and_plays_the_toy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from lanqi.cli.main import build_parser, main

    assert "takeaway" in variant_names()
    parser = build_parser()
    for words in (
        ["gui", "--offline", "takeaway"],
        ["bot", "--seek", "takeaway"],
        ["tournament", "create", "Toy cup", "--variant", "takeaway"],
        ["bench", "referee", "--variant", "takeaway"],
        ["selfplay", "--variant", "takeaway"],
    ):
        args = parser.parse_args(words)
        assert "takeaway" in vars(args).values(), words
    code = main(["selfplay", "--variant", "takeaway", "--games", "2", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "takeaway" in out
    assert list(tmp_path.glob("*.txt")), list(tmp_path.iterdir())


@pytest.mark.usefixtures("toy")
def test_a_hello_and_the_matchmakers_ratings_take_the_toy_from_the_registry(
    tmp_path: Path,
) -> None:
    """A hello that names no variants plays every registered one, and a new player
    has a rating in each: the toy's too."""
    from lanqi.matchmaker.store import MatchmakerStore, PlayerRecord
    from lanqi.protocol import Hello

    assert Hello(name="Ann").variants == ["xiangqi", "gomoku", "takeaway"]
    store = MatchmakerStore(tmp_path / "matchmaker.sqlite3")
    store.add_player(PlayerRecord("p1", "Ann", "human", "s-p1"), 0)
    assert set(store.ratings("p1")) == {"xiangqi", "gomoku", "takeaway"}
