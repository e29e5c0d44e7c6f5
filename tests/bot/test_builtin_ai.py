"""The built-in AI of a variant is made in one place, at a level its spec clamps:
the GUI, ``lanqi bot`` (``builtin``, ``VARIANT-ai``) and ``lanqi match`` agree."""

from __future__ import annotations

import pytest

from lanqi.bot.catalog import BuiltinBot, bot_factory, bot_names, builtin_ai, variants_of
from lanqi.bot.gomoku_ai import GomokuAI
from lanqi.bot.xiangqi_ai import XiangqiAI
from lanqi.match.config import EngineConfig


@pytest.mark.parametrize(
    ("level", "xiangqi", "gomoku"), [(1, 1, 1), (3, 3, 3), (5, 5, 5), (8, 8, 5), (None, 8, 5)]
)
def test_every_frontend_makes_the_ai_at_the_same_clamped_level(
    level: int | None, xiangqi: int, gomoku: int
) -> None:
    made = {variant: builtin_ai(variant, level=level) for variant in ("xiangqi", "gomoku")}
    assert isinstance(made["xiangqi"], XiangqiAI) and isinstance(made["gomoku"], GomokuAI)
    assert (made["xiangqi"].level, made["gomoku"].level) == (xiangqi, gomoku)
    match = EngineConfig(name="AI", proto="builtin", level=level)
    assert [match.make_bot(v).level for v in ("xiangqi", "gomoku")] == [xiangqi, gomoku]  # type: ignore[attr-defined]
    if level is not None:
        builtin = BuiltinBot(level=level)
        assert [builtin._by_variant[v].level for v in ("xiangqi", "gomoku")] == [xiangqi, gomoku]  # type: ignore[attr-defined]
        assert bot_factory("gomoku-ai", level=level)().level == gomoku  # type: ignore[attr-defined]
        assert bot_factory("xiangqi-ai", level=level)().level == xiangqi  # type: ignore[attr-defined]


def test_the_gui_makes_the_same_ai() -> None:
    pytest.importorskip("pygame")
    from lanqi.gui.variants import variant_ui

    ai = variant_ui("gomoku").ai(8, 200, 1)
    assert isinstance(ai, GomokuAI) and (ai.level, ai.time_ms) == (5, 200)
    assert variant_ui("xiangqi").ai_levels == 8 and variant_ui("gomoku").ai_levels == 5


def test_the_names_and_games_come_from_the_registry() -> None:
    assert bot_names() == ("builtin", "xiangqi-ai", "gomoku-ai", "random", "greedy")
    assert variants_of("builtin") == ("xiangqi", "gomoku")
    assert variants_of("gomoku-ai") == ("gomoku",) == variants_of("greedy")
    assert variants_of("uci:/bin/engine") == ("xiangqi",) == variants_of("ucci")
    assert variants_of("gomocup:pbrain") == ("gomoku",)
    assert variants_of("random") == ("xiangqi", "gomoku")
    with pytest.raises(ValueError, match="xiangqi-ai, gomoku-ai"):
        bot_factory("chess-ai")
