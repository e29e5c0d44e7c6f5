"""The connect screen's fields and its list of servers heard on the LAN (issue 19,
item 7): Ctrl+A selects a field's text and typing replaces it; a list that hears
nothing for a few seconds says why that may be and what to do."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

pygame = pytest.importorskip("pygame")

if TYPE_CHECKING:
    from tests.gui.conftest import Driver


def connect_screen(gui: Callable[..., Driver]) -> tuple[Driver, object]:
    from lanqi.gui.scenes.base import ToConnect
    from lanqi.gui.scenes.connect import ConnectScene

    driver = gui()
    driver.app.settings.name = "Alice"  # the server field gets the focus
    driver.app.go(ToConnect())
    driver.frames()
    scene = driver.scene
    assert isinstance(scene, ConnectScene)
    return driver, scene


def test_ctrl_a_selects_the_prefilled_server_and_typing_replaces_it(
    gui: Callable[..., Driver],
) -> None:
    driver, scene = connect_screen(gui)
    server = scene.server  # type: ignore[attr-defined]
    assert server.focused and server.text == "tcp://127.0.0.1:5050"
    driver.key(pygame.K_a, unicode="a", mod=pygame.KMOD_LCTRL)
    assert server.selected_all
    driver.key(pygame.K_1, unicode="1")
    driver.type("1")
    driver.type("92.0.2.7")
    assert server.text == "192.0.2.7"
    # selected again, then Backspace clears it; an arrow key lets the selection go
    driver.key(pygame.K_a, unicode="a", mod=pygame.KMOD_LCTRL)
    driver.key(pygame.K_BACKSPACE, unicode="\b")
    assert server.text == ""
    driver.type("host:5050")
    driver.key(pygame.K_a, unicode="a", mod=pygame.KMOD_LCTRL)
    driver.key(pygame.K_RIGHT)
    driver.type("0")
    assert server.text == "host:50500"


def test_every_text_field_selects_all_with_ctrl_a() -> None:
    from lanqi.gui.widgets import TextInput

    field = TextInput("说点什么 old text")
    field.focus(True)
    ctrl_a = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_a, mod=pygame.KMOD_RCTRL, unicode="")
    assert field.handle_event(ctrl_a)
    assert field.handle_event(pygame.event.Event(pygame.TEXTINPUT, text="新"))
    assert field.text == "新"


def test_a_quiet_lan_gets_a_hint_after_a_few_seconds(gui: Callable[..., Driver]) -> None:
    from lanqi.gui.scenes.connect import LAN_QUIET_S
    from lanqi.i18n import en, tr

    driver, scene = connect_screen(gui)
    lan = scene.lan  # type: ignore[attr-defined]
    lan.close()  # nothing is heard, whatever this network holds
    lan.servers = []
    driver.frames()
    assert scene.list.empty_text == tr("connect.listening")  # type: ignore[attr-defined]
    # as if listening had begun a while ago: the hint replaces "looking for servers..."
    scene.listening_since = time.monotonic() - LAN_QUIET_S - 1  # type: ignore[attr-defined]
    driver.frames()
    text = scene.list.empty_text  # type: ignore[attr-defined]
    assert en("connect.lan_quiet") in text
    assert "--lan" in text and "multicast" in text
    for size in ((800, 540), (640, 900), (1280, 800)):  # the whole hint in its box
        driver.resize(size)
        lines, small = scene.list.empty_lines()  # type: ignore[attr-defined]
        needs = scene.list.empty_height(len(lines), small)  # type: ignore[attr-defined]
        assert needs <= scene.list.rect.height, (size, lines)  # type: ignore[attr-defined]
    driver.shot("connect-lan-quiet")
