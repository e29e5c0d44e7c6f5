"""Browsers play through ``lanqi web`` against a real ``lanqi serve``: the lobby, a
gomoku game to five in a row with a spectator checked against the referee after
every move, a xiangqi game to checkmate, a reload in the middle of a game."""

from __future__ import annotations

from selenium.webdriver.common.action_chains import ActionChains
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
    result,
    seat_of,
    seek,
    take_seek_of,
    wait,
    wait_ply,
)

#: black (seat 0) makes five on rank 8; white plays rank 9 beside it
GOMOKU_FIVE = ["h8", "h9", "i8", "i9", "j8", "j9", "k8", "k9", "l8"]
#: a xiangqi game that ends in Red's checkmate (found once by a greedy Red against a
#: random Black, checked by the rules core)
_MATE_LINE = (
    "h2h9 h7h1 b2b9 b7b2 h9f9 h1h3 f9i9 h3h9 b9b4 b2f2 i9g9 f2i2 h0i2 c9a7 b4b2 h9h8 b2b4"
    " h8h2 b4d4 h2h6 d0e1 a9c9 d4d2 c9b9 b0a2 h6h0 i0h0 b9a9 h0h5 i6i5 h5i5 a7c5 d2b2 e6e5"
    " i5e5 d9e8 g9a9 e9d9 e5e8 a6a5 b2b9"
)
XIANGQI_MATE = _MATE_LINE.split()


def pair(
    browser: Browser, server: WebServer, variant: str, names: tuple[str, str]
) -> list[WebDriver]:
    """Two browsers enter; the first seeks as the first mover, the second takes it."""
    first, second = browser(), browser()
    enter(first, server, names[0])
    enter(second, server, names[1])
    seek(first, variant, color="first")
    take_seek_of(second, names[0])
    game_id = in_game(first)
    assert in_game(second) == game_id
    assert (seat_of(first), seat_of(second)) == ("0", "1")
    return [first, second]


def test_two_browsers_play_gomoku_to_five_watched_by_a_third(
    web_server: WebServer, browser: Browser
) -> None:
    players = pair(browser, web_server, "gomoku", ("ann", "bob"))
    game_id = board(players[0])["game-id"]
    watcher = browser()
    watcher.get(f"{web_server.url}/game/{game_id}")
    wait(watcher, lambda d: board(d)["game-id"] == game_id, "the watcher's board")
    assert watcher.find_element(By.TAG_NAME, "body").get_attribute("data-seat") == "watch"
    for n, square in enumerate(GOMOKU_FIVE):
        mover = players[n % 2]
        # the legal targets come from the gateway: the square is one of them
        wait(mover, offered(square), f"{square} offered as a legal target")
        click_square(mover, square)
        for page in (*players, watcher):
            wait_ply(page, n + 1)
        referee = web_server.snapshot(game_id)
        assert board(watcher)["fen"] == referee.fen, f"after {square}"
        assert board(watcher)["ply"] == str(referee.ply)
    for page in (*players, watcher):
        assert result(page) == ("1-0", "five_in_a_row")
    assert web_server.snapshot(game_id).result == "1-0"


def test_a_xiangqi_game_to_checkmate_by_taps_and_drags(
    web_server: WebServer, browser: Browser
) -> None:
    players = pair(browser, web_server, "xiangqi", ("cai", "dee"))
    game_id = board(players[0])["game-id"]
    for n, move in enumerate(XIANGQI_MATE):
        page = players[n % 2]
        source, target = move[:2], move[2:]
        if n % 4 == 1:  # some moves dragged, the rest tapped
            piece = page.find_element(By.CSS_SELECTOR, f'.board [data-square="{source}"]')
            destination = page.find_element(By.CSS_SELECTOR, f'.board [data-square="{target}"]')
            ActionChains(page).click_and_hold(piece).move_to_element(
                destination
            ).release().perform()
        else:
            click_square(page, source)
            wait(page, offered(move), f"{move} offered after selecting {source}")
            click_square(page, target)
        wait_ply(players[0], n + 1)
        wait_ply(players[1], n + 1)
    assert result(players[0]) == ("1-0", "checkmate")
    snapshot = web_server.snapshot(game_id)
    assert (snapshot.result, snapshot.termination) == ("1-0", "checkmate")
    assert board(players[1])["fen"] == snapshot.fen
