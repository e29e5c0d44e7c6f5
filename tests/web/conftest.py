"""Fixtures for the browser frontend: a real ``lanqi serve`` with its web pages on a
free port, and real browsers (Debian's chromium through its chromedriver, driven by
Selenium; nothing is downloaded)."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from lanqi.bench.process import LanqiService
from lanqi.client.matchmaker import MatchmakerClient
from lanqi.client.referee import RefereeClient
from lanqi.protocol import Snapshot, Sync
from lanqi.security import Link, server_keys

webdriver = pytest.importorskip("selenium.webdriver")

from selenium.common.exceptions import (  # noqa: E402
    StaleElementReferenceException,
    TimeoutException,
)
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.actions import interaction  # noqa: E402
from selenium.webdriver.common.actions.action_builder import ActionBuilder  # noqa: E402
from selenium.webdriver.common.actions.pointer_input import PointerInput  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402
from selenium.webdriver.remote.webelement import WebElement  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
SERVE_READY = re.compile(
    rb"lanqi server ready: lobby (?P<lobby>\S+) \(events (?P<events>\S+)\), "
    rb"referee (?P<referee>\S+), data"
)
BOT_READY = re.compile(rb"\d+ bot\(s\) on (?P<server>\S+): ")
PHONE = (390, 844)
WAIT_S = 20.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class WebServer:
    """One ``lanqi serve`` with its web pages, and a referee client to check them."""

    def __init__(self, root: Path) -> None:
        self.data = root / "data"
        self.data.mkdir(parents=True, exist_ok=True)
        self.web_port = free_port()
        self.service = LanqiService(
            "serve",
            [
                "--referee-pub-port",
                "0",
                "--web-port",
                str(self.web_port),
                "--data-dir",
                str(self.data),
                "--director-key",
                "web-tests-director",
            ],
            root,
            name="serve",
            ready=SERVE_READY,
            ports={"--port": "lobby", "--pub-port": "events", "--referee-port": "referee"},
        ).start()
        self._referee: RefereeClient | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.web_port}"

    @property
    def lobby(self) -> str:
        return self.service.endpoints["lobby"]

    @property
    def referee(self) -> RefereeClient:
        if self._referee is None:
            link = Link.to(server_keys(self.data).public)
            with MatchmakerClient(self.lobby, link=link) as lobby:
                where = lobby.server_info().referees[0]
            self._referee = RefereeClient(where.endpoint, where.events, link=link)
        return self._referee

    def snapshot(self, game_id: str) -> Snapshot:
        reply = self.referee.request(Sync(game_id=game_id))
        assert isinstance(reply, Snapshot), reply
        return reply

    def restart(self) -> None:
        if self._referee is not None:
            self._referee.close()
            self._referee = None
        self.service.restart()

    def stop(self) -> None:
        if self._referee is not None:
            self._referee.close()
        self.service.stop()


@pytest.fixture(scope="module")
def web_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    server = WebServer(tmp_path_factory.mktemp("web"))
    try:
        yield server
    finally:
        server.stop()


Browser = Callable[..., WebDriver]


@contextlib.contextmanager
def browsers() -> Iterator[Browser]:
    """Open browsers: ``open()`` a desktop window, ``open(phone=True)`` a 390x844
    touch screen; each its own profile (its own localStorage); all quit at the end."""
    if not (os.path.exists(CHROMIUM) and shutil.which(CHROMEDRIVER)):
        pytest.skip("needs Debian's chromium and chromium-driver (apt install chromium-driver)")
    opened: list[WebDriver] = []

    def open_browser(*, phone: bool = False) -> WebDriver:
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--mute-audio"):
            options.add_argument(flag)
        options.add_argument("--disable-dev-shm-usage")
        if phone:
            width, height = PHONE
            options.add_experimental_option(
                "mobileEmulation",
                {
                    "deviceMetrics": {
                        "width": width,
                        "height": height,
                        "pixelRatio": 3.0,
                        "touch": True,
                    }
                },
            )
        else:
            options.add_argument("--window-size=1280,900")
        driver: WebDriver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        opened.append(driver)
        return driver

    os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager never downloads
    try:
        yield open_browser
    finally:
        for driver in opened:
            driver.quit()


@pytest.fixture
def browser() -> Iterator[Browser]:
    """:func:`browsers` for one test."""
    with browsers() as open_browser:
        yield open_browser


def wait(driver: WebDriver, condition: Callable[[WebDriver], Any], what: str) -> Any:
    """Wait for ``condition`` (stale elements are retried), failing with ``what``."""

    def check(d: WebDriver) -> Any:
        try:
            return condition(d)
        except StaleElementReferenceException:
            return False

    try:
        return WebDriverWait(driver, WAIT_S).until(check)
    except TimeoutException:
        note = driver.find_elements(By.ID, "note")
        said = note[0].text if note else ""
        raise AssertionError(f"timed out waiting for {what} (page says {said!r})") from None


def board(driver: WebDriver) -> dict[str, str]:
    """The board's data-* attributes (the page's public surface)."""
    element = driver.find_element(By.CSS_SELECTOR, ".board[data-fen]")
    return {
        name: element.get_attribute(f"data-{name}") or ""
        for name in ("game-id", "fen", "ply", "variant")
    }


def ply(driver: WebDriver) -> int:
    found = driver.find_elements(By.CSS_SELECTOR, ".board[data-ply]")
    return int(found[0].get_attribute("data-ply") or -1) if found else -1


def enter(driver: WebDriver, server: WebServer, name: str) -> None:
    """Open the lobby and enter it as ``name``."""
    driver.get(server.url + "/")
    wait(driver, lambda d: d.find_element(By.ID, "enter").is_displayed(), "the name form")
    driver.find_element(By.ID, "name").send_keys(name)
    driver.find_element(By.ID, "enter-button").click()
    wait(driver, lambda d: d.find_element(By.ID, "seek-form").is_displayed(), "the lobby")


def seek(driver: WebDriver, variant: str, *, clock: str = "none", color: str = "any") -> None:
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element(By.ID, "variant")).select_by_value(variant)
    Select(driver.find_element(By.ID, "clock")).select_by_value(clock)
    Select(driver.find_element(By.ID, "color")).select_by_value(color)
    driver.find_element(By.ID, "seek-button").click()


def take_seek_of(driver: WebDriver, player: str) -> None:
    def button(d: WebDriver) -> Any:
        for row in d.find_elements(By.CSS_SELECTOR, "#seeks li[data-seek-id]"):
            if row.text.startswith(player + " "):
                return row.find_element(By.CSS_SELECTOR, "button.take")
        return False

    wait(driver, button, f"{player}'s seek in the lobby").click()


def in_game(driver: WebDriver) -> str:
    """Wait until the browser is on a game page with its board; the game's id."""
    wait(driver, lambda d: "/game/" in d.current_url, "the game page")
    wait(driver, lambda d: ply(d) >= 0, "the board")
    return board(driver)["game-id"]


def seat_of(driver: WebDriver) -> str:
    return str(
        wait(
            driver,
            lambda d: (
                (s := d.find_element(By.TAG_NAME, "body").get_attribute("data-seat")) != "watch"
                and s
            ),
            "the page to know its seat",
        )
    )


def click_square(driver: WebDriver, square: str) -> None:
    """Click the point or piece ``square`` (found again if the board was redrawn)."""

    def clicked(d: WebDriver) -> bool:
        d.find_element(By.CSS_SELECTOR, f'.board [data-square="{square}"]').click()
        return True

    wait(driver, clicked, f"square {square}")


def wait_ply(driver: WebDriver, n: int) -> None:
    wait(driver, lambda d: ply(d) >= n, f"ply {n}")


def result(driver: WebDriver) -> tuple[str, str]:
    banner = wait(
        driver,
        lambda d: (b := d.find_element(By.ID, "result")).get_attribute("data-result") and b,
        "the result banner",
    )
    return banner.get_attribute("data-result"), banner.get_attribute("data-termination")


def offered(move: str) -> Callable[[WebDriver], bool]:
    """A condition: ``move`` is shown as a legal target (a ``data-move`` marker)."""

    def check(driver: WebDriver) -> bool:
        return bool(driver.find_elements(By.CSS_SELECTOR, f'.board [data-move="{move}"]'))

    return check


def tap(driver: WebDriver, element: WebElement) -> None:
    """A finger's tap on ``element`` (touch pointer events, not a mouse click)."""
    finger = PointerInput(interaction.POINTER_TOUCH, "finger")  # type: ignore[no-untyped-call]
    actions = ActionBuilder(driver, mouse=finger)
    pointer = actions.pointer_action
    pointer.move_to(element)  # type: ignore[no-untyped-call]
    pointer.pointer_down().pointer_up()  # type: ignore[no-untyped-call]
    actions.perform()


def stones(driver: WebDriver, seat: int) -> set[str]:
    found = driver.find_elements(By.CSS_SELECTOR, f".board .piece.seat{seat}[data-square]")
    return {e.get_attribute("data-square") or "" for e in found}


def targets(driver: WebDriver) -> list[str]:
    return [
        e.get_attribute("data-move") or ""
        for e in driver.find_elements(By.CSS_SELECTOR, ".board [data-move]")
    ]


def gomoku_turn(driver: WebDriver, seat: int, *, touch: bool = False) -> None:
    """Play one gomoku move for ``seat``: towards five on the first row of five the
    opponent has not touched (files d-h, ranks 8, 7, 9, 6...), else any legal point."""
    over = "return !!document.getElementById('result').dataset.result"

    def turn_or_end(d: WebDriver) -> list[str] | bool:
        return targets(d) or bool(d.execute_script(over))

    found = wait(driver, turn_or_end, "my turn")
    if found is True:
        return  # the game is over
    legal = set(found)
    theirs = stones(driver, 1 - seat)
    choice = None
    for rank in (8, 7, 9, 6, 10, 5, 11, 4, 12, 3):
        line = [f"{f}{rank}" for f in "defgh"]
        if theirs.isdisjoint(line):
            choice = next((s for s in line if s in legal), None)
            if choice:
                break
    choice = choice or sorted(legal)[0]

    def played(d: WebDriver) -> bool:
        element = d.find_element(By.CSS_SELECTOR, f'.board [data-square="{choice}"]')
        if touch:
            tap(d, element)
        else:
            element.click()
        return True

    wait(driver, played, f"{choice} played")
