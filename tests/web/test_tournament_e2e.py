"""The tournament page and the projector in a real browser, against a real server.

A Swiss of four ``lanqi bot`` processes (gomoku, the built-in AI at 250 ms a move)
on a real ``lanqi serve`` with its web pages (``--web-port``: the gateway, its hub a
CURVE client of the server, the tournament pages registered on it); Debian's
Chromium (headless, Selenium) with a 1920x1080 page on the projector and on the
tournament page. Checked:

- the projector showed each round's pairings, as the matchmaker paired them
  ("Table 1: A (Black) - B"), the live boards of each round (every ``data-fen``
  seen equals the referee's position after ``data-ply`` moves of that game), and the
  final standings;
- the tournament page's standings equal ``lanqi tournament standings``;
- the projector's QR code decodes (zbarimg) to the gateway's URL;
- screenshots of the projector at 1920x1080 and of the page (into docs/images with
  ``LANQI_SCREENSHOTS=docs/images``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.matchmaker import conftest as matchmaker_fixtures

from lanqi.bench.process import source_path
from lanqi.client.matchmaker import MatchmakerClient, referee_link
from lanqi.client.referee import RefereeClient
from lanqi.games.registry import variant_spec
from lanqi.protocol import Standings, TimeControl

from .conftest import CHROMEDRIVER, CHROMIUM, free_port

# the matchmaker tests' fixtures: lanqi serve / lanqi bot processes, clients, tournaments
lanqi = matchmaker_fixtures.lanqi
mm = matchmaker_fixtures.mm
tour = matchmaker_fixtures.tour

PLAYERS = ["Alice", "Bob", "Carol", "Dave"]
ROUNDS = 3
#: where the projector's screenshots go: $LANQI_SCREENSHOTS (docs/images to refresh the
#: docs' pictures), else the test's own folder
SCREENSHOTS = "LANQI_SCREENSHOTS"

#: what the test reads of the projector each time it looks
LOOK = """
const body = document.body;
const phase = body.dataset.phase;
const section = document.getElementById(phase);
return {
  phase: phase,
  round: section ? section.dataset.round || "" : "",
  final: document.getElementById("standings").dataset.final || "",
  lines: [...document.querySelectorAll("#pairing-lines li")].map((li) => li.firstChild.textContent),
  boards: phase === "boards" ? [...document.querySelectorAll("#multiboard .board[data-fen]")].map(
    (b) => [b.dataset.gameId, b.dataset.fen, Number(b.dataset.ply)]) : [],
  clocks: phase === "boards"
    ? document.querySelectorAll("#multiboard .clock[data-left-ms]").length : 0,
  standings: [...document.querySelectorAll("#standings-table tbody tr")].map(
    (tr) => [...tr.cells].map((td) => td.textContent)),
};
"""
#: installed in the projector: every change of what it shows is kept (looked at ten
#: times a second by the page itself, so a screen shown for a second is not missed
#: however slowly the test polls)
RECORD = (
    "window.__look = () => {" + LOOK + "};"
    "window.__seen = []; let last = '';"
    "setInterval(() => { const look = window.__look(); const key = JSON.stringify(look);"
    " if (key !== last) { last = key; window.__seen.push(look); } }, 100);"
)


def _cli(server: Any, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "lanqi.cli.main", "tournament", "--server", server.lobby, *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": source_path()},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _points(text: str) -> float:
    return float(text.replace("½", ".5")) if text else 0.0


def _fen_after(snapshot: Any, ply: int) -> str:
    board = variant_spec(snapshot.variant).create(
        {**snapshot.options, **({"fen": snapshot.start_fen} if snapshot.start_fen else {})}
    )
    for move in snapshot.moves[:ply]:
        board.push(board.parse_move(move))
    return str(board.fen())


@pytest.fixture
def screen() -> Iterator[Callable[[int, int], Any]]:
    """``screen(width, height)``: a headless Chromium whose page is that size (the
    projector's 1920x1080); all are closed after the test."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    if not (os.path.exists(CHROMIUM) and shutil.which(CHROMEDRIVER) and shutil.which("zbarimg")):
        pytest.skip("needs Debian's chromium, chromium-driver and zbar-tools")
    os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager never downloads
    drivers: list[Any] = []

    def make(width: int, height: int) -> Any:
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
            options.add_argument(flag)
        options.add_argument(f"--window-size={width},{height}")
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        drivers.append(driver)
        # the page itself is width x height (the window's size counts its frame)
        driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )
        return driver

    try:
        yield make
    finally:
        for driver in drivers:
            driver.quit()


def test_projector_and_page_follow_a_swiss_of_bots(
    lanqi: Any,
    mm: Callable[..., MatchmakerClient],
    tour: Any,
    screen: Callable[[int, int], Any],
    tmp_path: Path,
) -> None:
    port = free_port()
    server = lanqi.serve("--web-port", str(port))
    url = f"http://127.0.0.1:{port}"
    client = mm(server)
    tid = tour.create(
        client,
        format="swiss",
        variant="gomoku",
        rounds=ROUNDS,
        options={"size": 15},
        time_control=TimeControl(kind="fischer", base_ms=120_000, increment_ms=1_000),
        name="Projector Open",
    )
    for name in PLAYERS:
        lanqi.bot(server, name, "--bot", "gomoku-ai", "--movetime", "250", "--tournament", tid)
    tour.wait_players(client, tid, len(PLAYERS))
    projector = screen(1920, 1080)
    projector.get(f"{url}/tournament/{tid}/projector?rotate=1")
    deadline = time.monotonic() + 30
    while projector.execute_script("return document.title") != "Projector Open: projector":
        assert time.monotonic() < deadline, "the projector never showed the event"
        time.sleep(0.1)
    projector.execute_script(RECORD)
    tour.start(client, tid)
    looks: list[dict[str, Any]] = []
    shots: set[str] = set()
    images = Path(os.environ.get(SCREENSHOTS) or tmp_path)
    deadline = time.monotonic() + 240
    while not any(look["phase"] == "standings" and look["final"] == "true" for look in looks):
        assert time.monotonic() < deadline, f"no final standings; last look {looks[-1:]}"
        time.sleep(0.2)  # the page records what it shows; this only collects it
        looks += projector.execute_script("return window.__seen.splice(0)")
        _screenshots(projector, projector.execute_script(LOOK), shots, images)
    final: Standings = tour.wait_finished(client, tid, timeout_s=10)
    seats = variant_spec("gomoku").seat_names

    # each round's pairings, as the matchmaker paired them
    for number in range(1, ROUNDS + 1):
        wanted = [
            f"Table {p.table}: {p.first} ({seats[0]}) - {p.second}"
            if p.second is not None
            else f"{p.first}: bye"
            for p in final.pairings
            if p.round == number
        ]
        shown = [
            look["lines"]
            for look in looks
            if look["phase"] == "pairings" and look["round"] == str(number)
        ]
        assert wanted in shown, (number, wanted, shown[:1])

    # the live boards: every position drawn is the referee's after that many moves
    samples = {(g, fen, ply) for look in looks for g, fen, ply in look["boards"]}
    boards_rounds = {look["round"] for look in looks if look["boards"]}
    assert boards_rounds == {str(n) for n in range(1, ROUNDS + 1)}, boards_rounds
    assert any(look["clocks"] for look in looks if look["boards"])
    assert any(ply > 0 for _, _, ply in samples)
    info = client.server_info().referees[0]
    with RefereeClient(info.endpoint, info.events, link=referee_link(info.key)) as referee:
        snapshots = {g: referee.sync(g) for g in {g for g, _, _ in samples}}
    for game_id, fen, ply in samples:
        assert fen == _fen_after(snapshots[game_id], ply), (game_id, ply)

    # the final standings, as the matchmaker has them
    shown_rows = next(look["standings"] for look in reversed(looks) if look["final"] == "true")
    assert [(r[1], _points(r[2])) for r in shown_rows] == [
        (row.player, row.points) for row in final.rows
    ]
    assert [int(r[0]) for r in shown_rows] == [row.rank for row in final.rows]

    _check_page(screen(1280, 900), url, server, tid, images)
    _check_qr(projector, url, tmp_path)


def _screenshots(projector: Any, look: dict[str, Any], taken: set[str], folder: Path) -> None:
    """The projector at 1920x1080 for docs/web.md: round 2's pairings, a multiboard
    once a board has a few moves, the final standings."""
    if look["phase"] == "pairings" and look["round"] == "2":
        name = "projector-pairings"
    elif look["phase"] == "boards" and any(ply >= 6 for _, _, ply in look["boards"]):
        name = "projector-boards"
    elif look["phase"] == "standings" and look["final"] == "true":
        name = "projector-standings"
    else:
        return
    if name not in taken:
        folder.mkdir(parents=True, exist_ok=True)
        projector.save_screenshot(str(folder / f"{name}.png"))
        taken.add(name)


def _check_page(page: Any, url: str, server: Any, tid: str, images: Path) -> None:
    """The tournament page's standings are `lanqi tournament standings`' (piped)."""
    page.get(f"{url}/tournament/{tid}")
    read = """
      const rows = [...document.querySelectorAll("#standings tbody tr")];
      const cells = rows.map((tr) => [...tr.cells].map((td) => td.textContent));
      const names = [...document.querySelectorAll("#standings thead th[data-tiebreak]")].map(
        (th) => th.title);
      const values = rows.map((tr) => [...tr.querySelectorAll("td[data-tiebreak]")].map(
        (td) => Number(td.dataset.value)));
      return [document.body.dataset.status || "", cells, names, values];
    """
    deadline = time.monotonic() + 20
    status, rows, names, values = page.execute_script(read)
    while status != "finished" or not rows:
        assert time.monotonic() < deadline, "the tournament page never showed the final standings"
        time.sleep(0.1)
        status, rows, names, values = page.execute_script(read)
    lines = _cli(server, "standings", tid).splitlines()
    lines = lines[next(n for n, line in enumerate(lines) if line.startswith("#")) :]
    header, body = lines[0].split(), [line for line in lines[1:] if line.strip()]
    assert header[:7] == ["#", "player", "pts", "games", "W", "D", "L"], header
    assert len(body) == len(rows) == len(PLAYERS)
    assert names, "no tie-breaks shown"
    for line, page_row, page_values in zip(body, rows, values, strict=True):
        # rank, player, points, games, W, D, L, then the rating and the tie-breaks
        cli_row = line.split()
        assert cli_row[:2] == page_row[:2]
        assert float(cli_row[2]) == _points(page_row[2])
        assert cli_row[3:7] == page_row[3:7]
        tiebreaks = ", ".join(f"{n} {v:g}" for n, v in zip(names, page_values, strict=True))
        assert line.rstrip().endswith(tiebreaks), (line, tiebreaks)
    page.save_screenshot(str(images / "tournament-page.png"))
    page.get(f"{url}/tournament/{tid}/report")
    assert "Projector Open" in page.title or "Projector Open" in page.page_source


def _check_qr(projector: Any, url: str, tmp_path: Path) -> None:
    """The QR code on the projector decodes to the gateway's URL (its lobby)."""
    image = tmp_path / "qr.png"
    image.write_bytes(projector.find_element("id", "qr").screenshot_as_png)
    done = subprocess.run(
        ["zbarimg", "--quiet", "--raw", str(image)], capture_output=True, text=True, check=False
    )
    assert done.stdout.strip() == f"{url}/", done
