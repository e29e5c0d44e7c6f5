"""Discovery across a real (virtual) LAN: a server announced in one network namespace
is found from another one joined to it by a veth pair, by ``--server auto`` and by
the GUI's connect screen, and a whole game is played across them.

Everything runs as real processes: ``lanqi serve --lan`` inside namespace A, the
clients (``lanqi tournament``, ``lanqi bot``, the GUI on SDL's dummy driver) inside
namespace B, which can reach A only over the veth pair.  No address is typed: each
client learns the server from its multicast DNS announcement.  These keep README's
"No address to type on a LAN" and docs/protocol.md's "Discovery".
"""

from __future__ import annotations

import json
import re
import subprocess
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from lanqi.bench.process import ServiceProcess
from lanqi.protocol.endpoints import MATCHMAKER_PORT

if TYPE_CHECKING:
    from tests.discovery.conftest import LanPair

READY = re.compile(rb"lanqi server ready: lobby (?P<lobby>\S+)")
ANNOUNCED = re.compile(r"lanqi\.discovery: announced '(?P<instance>[^']+)'")
GUI_PROBE = Path(__file__).with_name("gui_probe.py")
WAIT_S = 60.0


def _wait_for_line(log: Path, pattern: re.Pattern[str], what: str) -> re.Match[str]:
    """The first line of ``log`` that matches, once it is written."""
    deadline = time.monotonic() + WAIT_S
    while True:
        text = log.read_text(errors="replace") if log.exists() else ""
        found = pattern.search(text)
        if found is not None:
            return found
        if time.monotonic() > deadline:
            tail = " | ".join(text.strip().splitlines()[-5:])
            raise AssertionError(f"timed out waiting for {what}; log: {tail}")
        time.sleep(0.05)


def _serve(
    lan: LanPair, tmp_path: Path, name: str, *ports: str, namespace: str | None = None
) -> ServiceProcess:
    """``lanqi serve --lan --name NAME`` in namespace A (or ``namespace``), once its
    announcement is out."""
    data = tmp_path / f"server-{uuid.uuid4().hex[:6]}"
    log = data.with_suffix(".log")
    server = ServiceProcess(
        lan.lanqi_in(
            namespace or lan.a,
            "serve",
            "--lan",
            "--no-web",
            "--name",
            name,
            "--data-dir",
            str(data),
            *ports,
        ),
        READY,
        log,
        env={"LANQI_SERVER": None},
    )
    try:
        _wait_for_line(log, ANNOUNCED, f"{name!r} announced")
    except BaseException:
        server.stop()
        raise
    server.named["data"] = str(data)
    return server


def _auto(lan: LanPair, *args: str) -> subprocess.CompletedProcess[str]:
    """``lanqi ARGS --server auto`` in namespace B."""
    return subprocess.run(
        lan.lanqi_in(lan.b, *args, "--server", "auto"),
        capture_output=True,
        text=True,
        env=lan.env(),
        timeout=WAIT_S,
        check=False,
    )


def test_server_found_by_auto_and_a_whole_game_played_across_the_lan(
    lan_pair: LanPair, tmp_path: Path
) -> None:
    name = f"象棋 Club night {uuid.uuid4().hex[:4]}"
    server = _serve(lan_pair, tmp_path, name)
    bots: list[tuple[subprocess.Popen[bytes], Path]] = []
    try:
        listed = _auto(lan_pair, "tournament", "list")
        assert listed.returncode == 0, listed.stderr
        address = f"{lan_pair.address_a}:{MATCHMAKER_PORT}"
        assert f"found {name!r} at {address}" in listed.stderr, listed.stderr

        # two bots in B, one naming the server with --server auto, one with LANQI_SERVER
        for player, how in (("Ann", "flag"), ("Bob", "env")):
            log = tmp_path / f"bot-{player}.log"
            args = ["bot", "--name", player, "--bot", "random", "--seek", "gomoku"]
            args += ["--session-dir", str(tmp_path / "sessions"), "--max-games", "1"]
            if how == "flag":
                args += ["--server", "auto"]
            with log.open("wb") as handle:
                proc = subprocess.Popen(
                    lan_pair.lanqi_in(lan_pair.b, *args),
                    stdout=subprocess.DEVNULL,
                    stderr=handle,
                    env=lan_pair.env(**({"LANQI_SERVER": "auto"} if how == "env" else {})),
                )
            bots.append((proc, log))
        ended = {}
        for (_, log), player in zip(bots, ("Ann", "Bob"), strict=True):
            found = _wait_for_line(log, re.compile(r"found '[^']+' at \S+"), f"{player} found")
            assert found.group(0) == f"found {name!r} at {address}"
            end = re.compile(rf"game (?P<id>\S+): {player} (?P<how>won|lost|drew) as seat")
            ended[player] = _wait_for_line(log, end, f"{player}'s game to end")
        assert ended["Ann"]["id"] == ended["Bob"]["id"], "they did not play each other"
        game_id = ended["Ann"]["id"]
    finally:
        for proc, _ in bots:
            proc.terminate()
        for proc, _ in bots:
            proc.wait(10)
        server.stop()

    # the game ended by the rules: replayed from the referee's own record
    from lanqi.games.registry import create_game
    from lanqi.referee.store import EventStore

    store = EventStore(Path(server.named["data"]) / "referee.sqlite3")
    try:
        row = store.game(game_id)
    finally:
        store.close()
    assert row is not None and row.status == "finished", row
    game = create_game(row.variant, **row.options)
    for move in row.moves:
        game.push_text(move)
    outcome = game.outcome()
    assert outcome is not None, f"the board says {row.moves} is not over"
    assert row.termination == outcome.termination.value, (row.termination, outcome)
    assert row.winner == (None if outcome.winner is None else outcome.winner.value)
    results = {ended["Ann"]["how"], ended["Bob"]["how"]}
    assert results == ({"drew"} if outcome.winner is None else {"won", "lost"})


def test_gui_connect_screen_lists_the_server_and_one_click_connects(
    lan_pair: LanPair, tmp_path: Path
) -> None:
    pytest.importorskip("pygame")
    name = f"GUI night {uuid.uuid4().hex[:4]}"
    server = _serve(lan_pair, tmp_path, name)
    try:
        probe = subprocess.run(
            lan_pair.python_in(lan_pair.b, str(GUI_PROBE), name, "Gina", str(tmp_path / "gui")),
            capture_output=True,
            text=True,
            env=lan_pair.env(),
            timeout=WAIT_S,
            check=False,
        )
    finally:
        server.stop()
    assert probe.returncode == 0, probe.stderr[-2000:]
    lines = [line for line in probe.stdout.splitlines() if line.startswith("{")]
    listed, connected = (json.loads(line) for line in lines[:2])
    address = f"{lan_pair.address_a}:{MATCHMAKER_PORT}"
    assert [name, address, "0"] in listed["rows"], listed  # name, address, players online
    assert connected == {
        "scene": "LobbyScene",
        "server": f"tcp://{address}",
        "welcomed": "Gina",
    }


def test_auto_says_when_no_server_or_several_are_heard(lan_pair: LanPair, tmp_path: Path) -> None:
    none = _auto(lan_pair, "tournament", "list")
    assert none.returncode == 2
    last = none.stderr.strip().splitlines()[-1]
    assert last.startswith("lanqi tournament: no lanqi server heard on the LAN"), none.stderr
    assert "--server HOST" in last

    first = _serve(lan_pair, tmp_path, "Hall")
    try:
        # another machine of the LAN (two announcers in one namespace share its mDNS
        # port, and zeroconf's answers then reach the LAN from one of them only), with
        # the same event name: its instance name gets a number
        second = _serve(
            lan_pair,
            tmp_path,
            "Hall",
            *("--port", "6599", "--pub-port", "6600"),
            *("--referee-port", "6601", "--referee-pub-port", "6602"),
            namespace=lan_pair.b,
        )
        try:
            several = _auto(lan_pair, "bot", "--name", "Carl")
        finally:
            second.stop()
    finally:
        first.stop()
    assert several.returncode == 2
    last = several.stderr.strip().splitlines()[-1]
    # (namespaces share the machine's host name, so either server's host record
    # may resolve to either address; on a real LAN each machine has its own name)
    a, b = (re.escape(x) for x in (lan_pair.address_a, lan_pair.address_b))
    assert re.fullmatch(
        f"lanqi bot: 2 lanqi servers on the LAN: 'Hall' at ({a}|{b}):5050;"
        f" 'Hall' at ({a}|{b}):6599; pick one with --server HOST:PORT",
        last,
    ), several.stderr


def test_gui_auto_is_the_same_lookup(lan_pair: LanPair, tmp_path: Path) -> None:
    """``lanqi gui --server auto`` resolves like every other command (nothing heard:
    the same one line, before any window opens)."""
    pytest.importorskip("pygame")
    done = subprocess.run(
        lan_pair.lanqi_in(lan_pair.b, "gui", "--server", "auto", "--data-dir", str(tmp_path)),
        capture_output=True,
        text=True,
        env=lan_pair.env(SDL_VIDEODRIVER="dummy"),
        timeout=WAIT_S,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("lanqi gui: no lanqi server heard on the LAN"), done.stderr
