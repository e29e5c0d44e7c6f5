"""Nothing secret crosses the wire in clear: a whole game between real processes,
its loopback traffic captured with tcpdump.

``lanqi serve`` runs as a subprocess; two players (scripted clients, lanqi's own
``MatchmakerClient`` and ``RefereeClient``, in this process) say hello (each gets a
session), are paired by seeks (each gets a seat token), join, chat a line of CJK and
Latin text and play a gomoku game to five in a row.  tcpdump records every packet
of the server's six ports (the matchmaker's and the referee's request, event and
key ports) from before the first client connects to after the game ended.

With CURVE (the default) no seat token, session or chat text may appear in the
captured bytes, neither as UTF-8 text nor in its msgpack form.  The control is the
same game on a server run with ``--insecure``: there every one of them does appear,
so the search can fail.  Both captures must hold the ZMTP greeting naming the
mechanism (``CURVE`` / ``NULL``): the traffic searched is really the game's.

The same again with lanqi's own client processes: two ``lanqi bot`` processes seek
gomoku and play until the server has finished two games; the secrets are then read
from the server's stores (every seat token the referee issued, both bots' sessions).

Needs tcpdump and root (to capture); skips, saying which is missing, otherwise.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgpack
import pytest
import zmq

from lanqi.bench.process import LanqiService
from lanqi.client.matchmaker import MatchmakerClient, referee_link
from lanqi.client.referee import GameView, RefereeClient
from lanqi.protocol import Assignment, CreateSeek, GameAssigned, Seek, SeekCreated
from lanqi.security import KEY_PORT_OFFSET

READY = re.compile(
    rb"lanqi server ready: lobby (?P<lobby>\S+) \(events (?P<events>\S+)\), "
    rb"referee (?P<referee>\S+), data"
)
BOT_READY = re.compile(rb"\d+ bot\(s\) on (?P<server>\S+): ")
#: games the two bot processes finish before they are stopped
BOT_GAMES = 2
#: the chat line: distinctive, CJK and Latin (as UTF-8 it is one run of bytes)
CHAT = "秘密的棋局 sniff-canary-7Q"
#: every packet whole, each written as it comes (not when a kernel buffer block fills),
#: with a 32 MiB capture buffer (the bots' games are many packets in a short time)
TCPDUMP = ("tcpdump", "-i", "lo", "-U", "--immediate-mode", "-s", "0", "-n", "-B", "32768")
TCPDUMP_READY_S = 20.0
WAIT_S = 10.0

pytestmark = pytest.mark.skipif(
    shutil.which("tcpdump") is None or os.geteuid() != 0,
    reason="the sniff test captures loopback traffic: it needs tcpdump"
    f" ({shutil.which('tcpdump') or 'not installed'}) and root (uid {os.geteuid()})",
)


@dataclass
class Played:
    """What the game put on the wire that must stay private, and the capture."""

    secrets: dict[str, str]
    capture: bytes
    report: str  # what tcpdump said when it stopped (packets captured...)


#: plays on the server whose lobby it is given; returns the secrets it put on the wire
Play = Callable[[str], dict[str, str]]


def _port(endpoint: str) -> int:
    return int(endpoint.rsplit(":", 1)[1])


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Any]:
    """``serve(*flags)``: ``lanqi serve`` on free loopback ports, stopped after the test."""
    started: list[LanqiService] = []

    def start(*flags: str) -> LanqiService:
        process = LanqiService(
            "serve",
            [
                "--referee-pub-port",
                "0",
                "--no-web",
                "--data-dir",
                str(tmp_path / f"serve-{len(started)}"),
                "--director-key",
                "sniff-director",
                *flags,
            ],
            tmp_path,
            name=f"serve-{len(started)}",
            ready=READY,
            ports={"--port": "lobby", "--pub-port": "events", "--referee-port": "referee"},
        )
        started.append(process)
        return process.start()

    try:
        yield start
    finally:
        for process in started:
            code = process.stop()
            assert code in (0, None), f"{process.name} exited with {code}"
            assert not process.new_errors(), process.new_errors()


class Capture:
    """tcpdump on ``lo`` for some TCP ports, writing a pcap file.

    tcpdump says it is listening a moment before packets really reach the file, and
    its last packets may still be on their way when it is stopped; so a probe
    connection of the test's own (its port captured too) sends a marker, and
    :meth:`sync` waits until the marker is in the file: once after the start and
    once before the stop, so the capture holds everything sent in between.
    """

    def __init__(self, path: Path, ports: list[int]) -> None:
        self.path = path
        self.said = ""
        self.connections: list[socket.socket] = []
        self.listener = socket.create_server(("127.0.0.1", 0))
        probe_port = self.listener.getsockname()[1]
        rule = " or ".join(f"port {port}" for port in sorted({*ports, probe_port}))
        self.proc = subprocess.Popen(
            [*TCPDUMP, "-w", str(path), f"tcp and ({rule})"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        assert self.proc.stderr is not None
        said = b""
        deadline = time.monotonic() + TCPDUMP_READY_S
        while b"listening on" not in said:  # tcpdump's stderr line once it captures
            line = self.proc.stderr.readline()
            if not line or time.monotonic() > deadline:
                self.close()
                raise AssertionError(f"tcpdump did not start: {(said + line).decode()!r}")
            said += line
        self.probe = socket.create_connection(("127.0.0.1", probe_port))
        self.accepted, _ = self.listener.accept()
        self.connections += [self.probe, self.accepted]
        self.markers = 0
        self.sync()

    def sync(self) -> None:
        """Send a new marker on the probe and wait until tcpdump wrote it."""
        self.markers += 1
        marker = f"sniff-probe-marker-{self.markers}-{os.getpid()}".encode()
        deadline = time.monotonic() + TCPDUMP_READY_S
        while marker not in self.path.read_bytes():
            assert time.monotonic() < deadline, "tcpdump does not capture the probe's packets"
            self.probe.sendall(marker)  # again: the first ones may predate the capture
            self.accepted.recv(4096)
            time.sleep(0.02)  # polling the file for the marker against a deadline

    def stop(self) -> bytes:
        """Sync, SIGINT (tcpdump flushes and exits), then the captured bytes."""
        try:
            self.sync()
        finally:
            self.close()
        return self.path.read_bytes()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(WAIT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        assert self.proc.stderr is not None
        self.said = self.proc.stderr.read().decode(errors="replace")  # its packet counts
        self.proc.stderr.close()
        for sock in (*self.connections, self.listener):
            sock.close()


def _assignment(client: MatchmakerClient) -> GameAssigned:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        push = client.next_push(100)
        if isinstance(push, GameAssigned):
            return push
    raise AssertionError("no game_assigned push")


def play_captured(
    server: LanqiService, pcap: Path, context: zmq.Context[Any], play: Play
) -> Played:
    """``play(lobby)`` on ``server`` while tcpdump records its ports."""
    lobby = server.endpoints["lobby"]
    with MatchmakerClient(lobby, context=context) as probe:  # pins the key, learns the ports
        info = probe.server_info()
    referee = info.referees[0]
    ports = [_port(e) for e in (lobby, info.events, referee.endpoint, referee.events)]
    ports += [_port(lobby) + KEY_PORT_OFFSET, _port(referee.endpoint) + KEY_PORT_OFFSET]
    capture = Capture(pcap, ports)
    try:
        secrets = play(lobby)
    except BaseException:
        capture.close()
        raise
    data = capture.stop()
    report = f"rc {capture.proc.returncode}, {capture.said!r}"
    dropped = re.search(r"(\d+) packets? dropped by kernel", capture.said)
    # a capture with holes proves nothing either way (a big buffer, -B, makes them rare)
    assert dropped is not None and dropped[1] == "0", f"tcpdump missed packets: {report}"
    return Played(secrets, data, report)


def _referee(seat: Assignment, context: zmq.Context[Any]) -> RefereeClient:
    """A player's referee connection, trusting the key the matchmaker vouched for."""
    link = referee_link(seat.referee_key)
    return RefereeClient(seat.referee, seat.referee_pub, context=context, link=link)


def _play(lobby: str, context: zmq.Context[Any]) -> dict[str, str]:
    with (
        MatchmakerClient(lobby, context=context) as ann,
        MatchmakerClient(lobby, context=context) as bob,
    ):
        welcome_ann, welcome_bob = ann.hello("安妮"), bob.hello("Bob")
        seek = Seek(variant="gomoku", color="first")
        assert not ann.call(CreateSeek(seek=seek), SeekCreated).paired
        assert bob.call(CreateSeek(seek=Seek(variant="gomoku")), SeekCreated).paired
        first, second = _assignment(ann).game, _assignment(bob).game
        assert (first.seat, second.seat) == (0, 1)
        game = first.game_id
        with _referee(first, context) as one, _referee(second, context) as two:
            two.wait_connected()
            view = GameView(two, game)  # the second player's view: events over its SUB
            one.join(game, 0, first.token)
            two.join(game, 1, second.token)
            assert view.wait_for(lambda v: v.status == "active"), "the game never started"
            one.chat(game, CHAT, token=first.token)
            assert view.wait_for(lambda v: any(line.text == CHAT for line in v.chat))
            for ply, move in enumerate(["h8", "a1", "h9", "b1", "h10", "c1", "h11", "d1", "h12"]):
                (one, two)[ply % 2].move(game, (first, second)[ply % 2].token, ply, move)
            assert view.wait_for(lambda v: v.finished), "the game did not end"
            assert view.termination == "five_in_a_row"
    return {
        "seat token 0": first.token,
        "seat token 1": second.token,
        "session of 安妮": welcome_ann.session,
        "session of Bob": welcome_bob.session,
        "chat text": CHAT,
    }


def found(capture: bytes, secrets: dict[str, str]) -> dict[str, list[str]]:
    """Which secrets appear in ``capture``, and in which form."""
    seen: dict[str, list[str]] = {}
    for what, text in secrets.items():
        packed = msgpack.packb(text)
        assert isinstance(packed, bytes)
        forms = {"UTF-8": text.encode("utf-8"), "msgpack": packed}
        hits = [form for form, raw in forms.items() if raw in capture]
        if hits:
            seen[what] = hits
    return seen


def _bots_play(lobby: str, data: Path, log_dir: Path) -> dict[str, str]:
    """Two ``lanqi bot`` processes seek gomoku on ``lobby`` and play until the server
    (data directory ``data``) has finished :data:`BOT_GAMES` games; the secrets are
    read from its stores: every seat token it issued, both bots' sessions."""
    bots = [
        LanqiService(
            "bot",
            ["--server", lobby, "--name", name, "--bot", "random", "--seek", "gomoku"],
            log_dir,
            name=f"bot-{n}",
            ready=BOT_READY,
            ports={},
        )
        for n, name in enumerate(("Tiger", "老虎"))
    ]
    try:
        for bot in bots:
            bot.start()
        deadline = time.monotonic() + 60
        while _finished(data) < BOT_GAMES:
            assert time.monotonic() < deadline, "the bots did not finish their games"
            time.sleep(0.1)  # polling the referee's store against a deadline
    finally:
        for bot in bots:
            assert bot.stop() in (0, None), f"{bot.name} did not stop cleanly"
            assert not bot.new_errors(), bot.new_errors()
    secrets: dict[str, str] = {}
    with sqlite3.connect(f"file:{data / 'referee.sqlite3'}?mode=ro", uri=True) as db:
        for game_id, tokens, status in db.execute("SELECT game_id, tokens, status FROM games"):
            for seat, token in enumerate(json.loads(tokens)):
                secrets[f"seat {seat} token of {status} game {game_id}"] = token
    with sqlite3.connect(f"file:{data / 'matchmaker.sqlite3'}?mode=ro", uri=True) as db:
        for name, session in db.execute("SELECT name, session FROM players"):
            secrets[f"session of {name}"] = session
    return secrets


def _finished(data: Path) -> int:
    with sqlite3.connect(f"file:{data / 'referee.sqlite3'}?mode=ro", uri=True) as db:
        row = db.execute("SELECT count(*) FROM games WHERE status = 'finished'").fetchone()
    return int(row[0])


def _data_dir(server: LanqiService) -> Path:
    return Path(server.args[server.args.index("--data-dir") + 1])


def test_curve_game_shows_no_secret_on_the_wire(
    serve: Any, tmp_path: Path, zmq_context: zmq.Context[Any]
) -> None:
    played = play_captured(
        serve(), tmp_path / "curve.pcap", zmq_context, lambda lobby: _play(lobby, zmq_context)
    )
    # the ZMTP greetings of the game's connections: the capture holds the game
    assert b"CURVE" in played.capture, played.report
    assert found(played.capture, played.secrets) == {}


def test_insecure_game_shows_every_secret_on_the_wire(
    serve: Any, tmp_path: Path, zmq_context: zmq.Context[Any]
) -> None:
    """The control: the same search finds everything when the server runs plain."""
    played = play_captured(
        serve("--insecure"),
        tmp_path / "plain.pcap",
        zmq_context,
        lambda lobby: _play(lobby, zmq_context),
    )
    assert b"NULL" in played.capture and b"CURVE" not in played.capture, played.report
    assert found(played.capture, played.secrets) == {
        what: ["UTF-8", "msgpack"] for what in played.secrets
    }


@pytest.mark.parametrize("insecure", [False, True], ids=["curve", "insecure"])
def test_bot_processes_games(
    insecure: bool, serve: Any, tmp_path: Path, zmq_context: zmq.Context[Any]
) -> None:
    """Two ``lanqi bot`` processes play games to their end: no seat token the referee
    issued and no session of theirs is on the wire with CURVE; with ``--insecure``
    (the control) the tokens of every finished game and both sessions are."""
    server = serve("--insecure") if insecure else serve()
    data = _data_dir(server)
    played = play_captured(
        server, tmp_path / "bots.pcap", zmq_context, lambda lobby: _bots_play(lobby, data, tmp_path)
    )
    assert sum(what.startswith("session of ") for what in played.secrets) == 2
    assert sum(" finished game " in what for what in played.secrets) >= 2 * BOT_GAMES
    seen = found(played.capture, played.secrets)
    if not insecure:
        assert b"CURVE" in played.capture, played.report
        assert seen == {}
        return
    assert b"CURVE" not in played.capture, played.report
    # a game created as the bots stopped may never have reached them: finished ones did
    delivered = [w for w in played.secrets if " finished game " in w or w.startswith("session")]
    assert {what: seen.get(what) for what in delivered} == {
        what: ["UTF-8", "msgpack"] for what in delivered
    }, played.report
