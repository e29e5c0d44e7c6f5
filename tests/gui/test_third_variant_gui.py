"""The toy variant (tests/referee/test_third_variant.py) on the GUI: with its package
and the one registry line, the GUI draws it from its position, plays it by clicks
on its points, two players or against its own built-in AI, to the end."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import pytest

pygame = pytest.importorskip("pygame")

from tests.test_third_variant_everywhere import TOY  # noqa: E402

from lanqi.games.registry import VARIANTS  # noqa: E402

if TYPE_CHECKING:
    from tests.gui.conftest import Driver


#: the toy's name and its move text: data on screen, like a player's name
TOY_WORDS = ("Takeaway", "Take", "take")


@pytest.fixture
def toy() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(VARIANTS, TOY.name, TOY)  # the one registry line
        yield


def _start(gui: Callable[..., Driver], **kwargs: object) -> Driver:
    from lanqi.gui.scenes.base import ToOfflineGame

    driver = gui()
    driver.app.go(ToOfflineGame("takeaway", options={"counters": 5}, **kwargs))  # type: ignore[arg-type]
    driver.frames(2)
    return driver


@pytest.mark.usefixtures("toy")
def test_two_players_play_the_toy_by_clicks_to_the_end(gui: Callable[..., Driver]) -> None:
    from lanqi.gui.variants import VARIANTS as SHOWN

    assert "takeaway" in SHOWN and SHOWN["takeaway"].ai_levels == 2
    driver = _start(gui)
    scene = driver.scene
    model, view = scene.model, scene.view
    assert (view.files, view.ranks) == (5, 1)
    # every counter is drawn where the position says, in the neutral colour
    for n in range(5):
        assert driver.pixel(view.piece_probe(view.point((n, 0)))) == view.NEUTRAL
    driver.click_point(view.point((3, 0)))  # the fourth counter: only take2 touches it
    assert model.moves == ["take2"]
    assert driver.pixel(view.piece_probe(view.point((3, 0)))) != view.NEUTRAL
    driver.click_point(view.point((4, 0)))  # gone: no move touches it
    assert model.moves == ["take2"] and "no move here" in scene.session.notices[-1].text
    driver.click_point(view.point((2, 0)))  # the last of three: take1 touches the fewest
    driver.click_point(view.point((0, 0)))  # two left: take2 ends it
    assert model.moves == ["take2", "take1", "take2"]
    assert model.finished
    assert (model.result, model.termination, model.winner) == ("1-0", "stalemate", 0)
    driver.frames(2)
    driver.shot("takeaway-end")


@pytest.mark.usefixtures("toy")
def test_the_toy_plays_against_its_own_built_in_ai(gui: Callable[..., Driver]) -> None:
    driver = _start(gui, ai=2, seed=1)
    scene = driver.scene
    model, view = scene.model, scene.view
    driver.click_point(view.point((4, 0)))  # 5 -> take1 leaves 4
    driver.until(lambda: len(model.moves) == 2, what="the AI's reply")
    assert model.moves == ["take1", "take1"]  # the AI leaves a multiple of three
    while not model.finished:
        left = 5 - sum(int(move[-1]) for move in model.moves)
        driver.click_point(view.point((left - 1, 0)))  # take one
        plies = len(model.moves) + 1  # ours, then the AI's reply unless it ended the game

        def answered(plies: int = plies) -> bool:
            return bool(model.finished) or len(model.moves) > plies

        driver.until(answered, what="the AI's reply")
    assert (model.result, model.winner) == ("0-1", 1)  # the AI wins from 4


@pytest.mark.usefixtures("toy")
def test_the_menu_offers_the_toy_from_its_spec(gui: Callable[..., Driver]) -> None:
    """The menu's offline modes come from the registry: the toy has a two-player and
    a vs-computer entry (keyed after the built-in variants'), and its level clamp is
    its spec's (the menu's level 5 starts the toy's AI at its top, 2)."""
    from lanqi.gui.scenes.menu import MenuScene

    driver = gui()
    driver.app.settings.ai_level = 5
    driver.app.switch(MenuScene())
    driver.frames(2)
    labels = {b.id: b.label for b in driver.scene.buttons}
    assert "Takeaway: two players" in labels["4"] and "Takeaway vs computer" in labels["7"]
    assert "Xiangqi: two players" in labels["2"] and "Gomoku vs computer" in labels["6"]
    assert "Review" in labels["8"]
    driver.key(pygame.K_7, frames=2)
    scene = driver.scene
    assert scene.model.variant == "takeaway" and scene.session.level == 2
