"""Free text (chat, names) in any characters: each one drawn by the first font that has
it (the shipped subset, then the system's fonts), and a note where none has it."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

pygame = pytest.importorskip("pygame")

from lanqi.gui import fonts, theme  # noqa: E402

if TYPE_CHECKING:
    from pygame.font import Font
    from tests.gui.conftest import Driver

    from lanqi.gui.scenes.game import GameScene
    from lanqi.server.embedded import EmbeddedServer

#: what people type: common words the shipped subset lacks, and a rarer character
TYPED = "很好玩 龘"


@pytest.fixture
def font_session() -> Iterator[None]:
    pygame.font.init()
    fonts.set_system_fonts(None)
    yield
    fonts.set_system_fonts(None)
    fonts.reset()
    pygame.font.quit()


def cjk_font() -> str:
    """A system font with every character of TYPED, or skip the test saying what to install."""
    for path in fonts.system_fonts():
        if all(fonts._has_glyph(path, ch) for ch in TYPED if not ch.isspace()):
            return path
    pytest.skip("no system font has 很好玩 龘: install fonts-noto-cjk or fonts-droid-fallback")


def image(face: Font, text: str) -> bytes:
    return bytes(pygame.image.tobytes(face.render(text, False, (0, 0, 0), (255, 255, 255)), "RGB"))


def notdef(face: Font, source: str) -> bytes:
    """The font's box for a character it does not have."""
    for probe in ("\ue000", "\U000f0000", "\U0010fffd"):
        if not fonts._has_glyph(source, probe):
            return image(face, probe)
    raise AssertionError(f"{source} has every probe character")


def test_typed_cjk_is_drawn_by_a_font_that_has_it(font_session: None) -> None:
    path = cjk_font()
    assert fonts.missing(TYPED, fonts.UI_FONT) == fonts.missing(TYPED, fonts.BOARD_FONT) == ""
    shipped = fonts.font(fonts.UI_FONT, 16)
    shipped_box = notdef(shipped, fonts.UI_FONT)
    # the shipped subset alone would draw boxes: that is what the fallback is for
    assert fonts.missing_glyphs(fonts.UI_FONT, TYPED) == "很好玩龘"
    for ch in TYPED.replace(" ", ""):
        source = fonts.source_of(ch)
        assert source == path or fonts._has_glyph(source, ch), (ch, source)
        face = pygame.font.Font(source, 16)
        drawn = image(face, ch)
        assert drawn != notdef(face, source), ch
        assert drawn != shipped_box, ch
    # a line mixes fonts: ASCII and the interface's words from the subset, the rest from the system
    line = "Alice: 很好玩 棋 ok"
    assert [source for _, source in fonts.runs(line)] == [fonts.UI_FONT, path, fonts.UI_FONT]
    surface = fonts.render(line, fonts.UI_FONT, 16, theme.TEXT)
    assert surface.get_width() == fonts.text_width(line, fonts.UI_FONT, 16) > 0
    assert surface.get_bounding_rect().height > 8


def test_without_a_font_the_characters_are_named_missing(font_session: None) -> None:
    fonts.set_system_fonts([])
    assert fonts.missing(TYPED) == "很好玩龘"
    assert fonts.missing("好 ok") == "好"
    assert fonts.missing("认输 Resign") == ""  # the subset has the interface's words
    # a missing character is drawn with the shipped subset's box, not skipped
    assert fonts.runs("ok好") == [("ok好", fonts.UI_FONT)]


def test_fonts_named_in_lanqi_fonts_come_first(
    font_session: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # pygame's own font file stands in for a font the user names
    bundled = Path(pygame.__file__).parent / "freesansbold.ttf"
    monkeypatch.setenv(fonts.FONTS_ENV, os.pathsep.join([str(tmp_path / "gone.ttf"), str(bundled)]))
    fonts.set_system_fonts(None)
    assert fonts.system_fonts()[0] == str(bundled)  # a file that is not there is skipped
    assert str(tmp_path / "gone.ttf") not in fonts.system_fonts()


def open_game(gui: Callable[..., Driver], server: EmbeddedServer) -> tuple[Driver, GameScene]:
    """Alice's GUI in an online game against Bob (a scripted client who took his seat)."""
    from tests.gui.test_gomoku_options import join
    from tests.gui.test_online import click_row, connect, wait_for_game

    from lanqi.client.matchmaker import MatchmakerClient
    from lanqi.protocol import CreateSeek, Seek, SeekCreated

    driver = connect(gui, server)
    link = driver.app.lobby
    assert link is not None
    with MatchmakerClient(server.matchmaker_endpoint) as bob:
        bob.hello("Bob")
        bob.call(CreateSeek(seek=Seek(variant="gomoku")), SeekCreated)
        driver.until(lambda: any(s.player == "Bob" for s in link.state.seeks), 10, "Bob's seek")
        driver.frames()
        index = next(i for i, s in enumerate(link.state.seeks) if s.player == "Bob")
        click_row(driver, driver.scene.seeks, index)
        join(bob, server)
        scene = wait_for_game(driver)
    return driver, scene


def say(driver: Driver, scene: GameScene, text: str) -> None:
    driver.key(pygame.K_TAB)
    driver.type(text)
    driver.key(pygame.K_RETURN)
    driver.until(lambda: any(c.text == text for c in scene.model.chat), 10, "the chat line")
    driver.frames(2)


def note_drawn(driver: Driver, scene: GameScene) -> bool:
    """Is there text in the note's colour on the chat box's first row?"""
    rect = scene.panel.rects["chat"]
    for y in range(rect.y + 3, rect.y + 3 + 14):
        for x in range(rect.x + 6, rect.x + 200):
            r, g, b = driver.pixel((x, y))
            if r > 180 and g < 150 and b < 120:  # theme.ERROR, antialiased
                return True
    return False


def test_chat_in_cjk_shows_without_a_note_when_a_font_has_it(
    gui: Callable[..., Driver], server: EmbeddedServer, font_session: None
) -> None:
    cjk_font()
    driver, scene = open_game(gui, server)
    say(driver, scene, f"{TYPED} hello")
    assert scene.panel.missing_note() == ""
    assert not note_drawn(driver, scene)
    driver.shot("chat-cjk")


def test_chat_with_characters_no_font_has_says_so_once(
    gui: Callable[..., Driver], server: EmbeddedServer, font_session: None
) -> None:
    driver, scene = open_game(gui, server)
    fonts.set_system_fonts([])  # a machine without a CJK font
    say(driver, scene, "认输 ok")  # the interface's words: the subset has them
    assert scene.panel.missing_note() == ""
    assert not note_drawn(driver, scene)
    say(driver, scene, TYPED)
    say(driver, scene, "很好")
    assert scene.panel.missing_note() == fonts.MISSING_NOTE
    assert note_drawn(driver, scene)
    driver.shot("chat-missing-note")
