"""The buttons and prompts of a game page: a draw offer declined, a takeback allowed,
chat seen by a spectator, resign (asked twice), review step by step, and a rematch
accepted from the other browser."""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from tests.web.conftest import (
    Browser,
    WebServer,
    board,
    click_square,
    enter,
    in_game,
    offered,
    ply,
    result,
    seat_of,
    seek,
    take_seek_of,
    wait,
    wait_ply,
)

START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w"


def button(driver: WebDriver, element_id: str) -> None:
    """Click the button ``element_id`` once it is shown (found again if redrawn)."""

    def clicked(d: WebDriver) -> bool:
        element = d.find_element(By.ID, element_id)
        if not element.is_displayed():
            return False
        element.click()
        return True

    wait(driver, clicked, f"the {element_id} button")


def play(driver: WebDriver, move: str) -> None:
    click_square(driver, move[:2])
    wait(driver, offered(move), f"{move} offered")
    click_square(driver, move[2:])


def test_offers_takebacks_chat_resign_review_and_rematch(
    web_server: WebServer, browser: Browser
) -> None:
    red, black = browser(), browser()
    enter(red, web_server, "Wen")
    enter(black, web_server, "Xu")
    seek(red, "xiangqi", clock="900+10", color="first")
    take_seek_of(black, "Wen")
    game_id = in_game(red)
    assert in_game(black) == game_id and seat_of(black) == "1"
    watcher = browser()
    watcher.get(f"{web_server.url}/game/{game_id}")
    wait(watcher, lambda d: ply(d) == 0, "the watcher's board")

    play(red, "h2e2")
    wait_ply(black, 1)
    # a draw offer: the other side is asked, in both languages, and declines
    button(red, "draw")
    prompt = wait(
        black,
        lambda d: (
            d.find_element(By.ID, "prompt").is_displayed() and d.find_element(By.ID, "prompt")
        ),
        "the draw prompt",
    )
    assert "提和" in prompt.text and "offers a draw" in prompt.text
    button(black, "decline")
    wait(black, lambda d: not d.find_element(By.ID, "prompt").is_displayed(), "prompt gone")
    # a takeback: asked by Red, allowed by Black
    button(red, "takeback")
    wait(black, lambda d: "悔棋" in d.find_element(By.ID, "prompt").text, "the takeback prompt")
    button(black, "allow_takeback")
    for page in (red, black, watcher):
        wait(page, lambda d: ply(d) == 0, "the move taken back")
    assert board(watcher)["fen"].startswith(START)
    # chat in any script reaches the spectator
    red.find_element(By.ID, "chat-text").send_keys("加油 good game ☺")
    button(red, "chat-send")
    wait(
        watcher,
        lambda d: "加油 good game ☺" in d.find_element(By.ID, "chat-lines").text,
        "the chat line at the spectator",
    )
    play(red, "b2e2")
    wait_ply(black, 1)
    play(black, "h9g7")
    wait_ply(red, 2)
    # resign takes two presses
    button(black, "resign")
    assert "确认认输" in black.find_element(By.ID, "resign").text
    button(black, "resign")
    assert result(red) == ("1-0", "resignation")
    assert result(watcher) == ("1-0", "resignation")
    # review: step back to the start and forward again
    button(watcher, "first")
    wait(watcher, lambda d: ply(d) == 0, "the review at the start")
    assert board(watcher)["fen"].startswith(START)
    button(watcher, "next")
    wait(watcher, lambda d: ply(d) == 1, "the review at move 1")
    moves = [e.text for e in watcher.find_elements(By.CSS_SELECTOR, "#moves li")]
    assert moves == ["炮八平五", "马８进７"]
    # a rematch: a challenge with the colours swapped, accepted from the game page
    button(red, "rematch")
    button(black, "accept-challenge")
    for page in (red, black):
        wait(page, lambda d: game_id not in d.current_url, "the rematch's page")
    rematch = in_game(red)
    assert in_game(black) == rematch != game_id
    assert (seat_of(red), seat_of(black)) == ("1", "0")


def test_a_tap_on_the_opponents_turn_is_a_premove_played_when_the_turn_comes(
    web_server: WebServer, browser: Browser
) -> None:
    black, white = browser(), browser()
    enter(black, web_server, "Yan")
    enter(white, web_server, "Zoe")
    seek(black, "gomoku", clock="180+2", color="first")
    take_seek_of(white, "Yan")
    game_id = in_game(black)
    assert in_game(white) == game_id
    click_square(black, "h8")
    wait_ply(black, 1)
    click_square(black, "j10")  # White is to move: a premove
    wait(black, lambda d: d.find_elements(By.CSS_SELECTOR, ".premove"), "the premove shown")
    assert ply(black) == 1
    click_square(white, "h9")
    wait_ply(white, 3)  # White's move, then Black's premove at once
    snapshot = web_server.snapshot(game_id)
    assert snapshot.moves == ["h8", "h9", "j10"]
