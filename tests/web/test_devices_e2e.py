"""A phone (390x844, touch) plays a whole gomoku game; a browser plays a ``lanqi bot``;
a reload and a server restart in the middle of a game come back into the same seat."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from tests.web.conftest import (
    BOT_READY,
    Browser,
    WebServer,
    board,
    click_square,
    enter,
    gomoku_turn,
    in_game,
    ply,
    result,
    seat_of,
    seek,
    take_seek_of,
    tap,
    wait,
    wait_ply,
)

from lanqi.bench.process import LanqiService


def to_move(driver: WebDriver) -> bool:
    """Whether the page shows legal targets: its player's turn."""
    return bool(driver.find_elements(By.CSS_SELECTOR, ".board [data-move]"))


def finished(driver: WebDriver) -> bool:
    return bool(driver.find_element(By.ID, "result").get_attribute("data-result"))


def turn_at(n: int) -> Callable[[WebDriver], bool]:
    """A condition: the page is at ply ``n`` and its player may move (or it is over)."""
    return lambda d: ply(d) == n and (to_move(d) or finished(d))


def past(n: int) -> Callable[[WebDriver], bool]:
    """A condition: the page is past ply ``n`` (or the game is over)."""
    return lambda d: ply(d) > n or finished(d)


def test_a_phone_plays_a_whole_gomoku_game_by_touch(
    web_server: WebServer, browser: Browser
) -> None:
    phone, laptop = browser(phone=True), browser()
    phone.get(web_server.url + "/")
    touch = "return [innerWidth, innerHeight, navigator.maxTouchPoints > 0]"
    assert phone.execute_script(touch) == [390, 844, True]
    wait(phone, lambda d: d.find_element(By.ID, "enter").is_displayed(), "the name form")
    phone.find_element(By.ID, "name").send_keys("pia")
    tap(phone, phone.find_element(By.ID, "enter-button"))
    wait(phone, lambda d: d.find_element(By.ID, "seek-form").is_displayed(), "the lobby")
    enter(laptop, web_server, "lou")
    seek(phone, "gomoku", color="first")
    take_seek_of(laptop, "pia")
    game_id = in_game(phone)
    assert in_game(laptop) == game_id
    seats = {phone: 0, laptop: 1}
    while not finished(phone):
        n = ply(phone)
        mover = phone if n % 2 == 0 else laptop
        wait(mover, turn_at(n), "the turn")
        if finished(mover):
            break
        gomoku_turn(mover, seats[mover], touch=mover is phone)
        wait_ply(phone, n + 1)
    assert result(phone)[0] == "1-0"  # the phone (Black) made five: the laptop only blocks
    assert web_server.snapshot(game_id).result == "1-0"


def test_a_browser_plays_a_bot(web_server: WebServer, browser: Browser, tmp_path: Path) -> None:
    bot = LanqiService(
        "bot",
        [
            "--server",
            web_server.lobby,
            "--name",
            "robo",
            "--bot",
            "random",
            "--seek",
            "gomoku",
            "--session-dir",
            str(tmp_path / "sessions"),
        ],
        tmp_path,
        name="bot",
        ready=BOT_READY,
        ports={},
    ).start()
    try:
        page = browser()
        enter(page, web_server, "hana")
        take_seek_of(page, "robo")
        game_id = in_game(page)
        seat = int(seat_of(page))
        while not finished(page):
            wait(page, lambda d: to_move(d) or finished(d), "my turn or the end")
            if finished(page):
                break
            n = ply(page)
            gomoku_turn(page, seat)
            wait(page, past(n), "my move accepted")
        snapshot = web_server.snapshot(game_id)
        assert result(page)[0] == snapshot.result
        assert board(page)["fen"] == snapshot.fen
        assert snapshot.ply >= 9
    finally:
        bot.stop()


def test_a_reload_and_a_server_restart_come_back_into_the_same_seat(
    web_server: WebServer, browser: Browser
) -> None:
    first, second = browser(), browser()
    enter(first, web_server, "rey")
    enter(second, web_server, "sol")
    seek(first, "gomoku", clock="600+5", color="first")  # a seek no other test's fits
    take_seek_of(second, "rey")
    game_id = in_game(first)
    in_game(second)
    click_square(first, "h8")
    wait_ply(second, 1)
    first.refresh()  # a reload: the page finds its seat again from localStorage
    assert in_game(first) == game_id and seat_of(first) == "0"
    click_square(second, "h9")
    wait_ply(first, 2)
    click_square(first, "i8")
    wait_ply(second, 3)
    web_server.restart()  # the whole server: matchmaker, referee and gateway
    for page in (first, second):
        wait(
            page,
            lambda d: d.find_element(By.ID, "link").get_attribute("data-state") == "up",
            "the link back up",
        )
    assert seat_of(second) == "1"
    wait(second, to_move, "sol's turn after the restart")
    click_square(second, "i9")
    wait_ply(first, 4)
    assert web_server.snapshot(game_id).ply == 4
    assert board(first)["fen"] == web_server.snapshot(game_id).fen
