"""``lanqi serve --lan --advertise ADDR``: it listens on every interface, and players are
sent to the referee at ADDR.

ADDR is 127.0.0.2, still loopback: a server bound to 127.0.0.1 alone cannot be reached
there, one bound to every interface can.  The players below reach the lobby and the
referee only at 127.0.0.2, and only through what the matchmaker told them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import zmq

from lanqi.client.matchmaker import MatchmakerClient
from lanqi.client.referee import GameView, RefereeClient
from lanqi.protocol import CreateSeek, GameAssigned, Seek, SeekCreated, TimeControl

REPO = Path(__file__).resolve().parents[2]
SOURCE_PATH = os.pathsep.join(str(REPO / part) for part in ("shared", "services", "frontends"))
ADDRESS = "127.0.0.2"


def _at(endpoint: str, host: str) -> str:
    port = endpoint.rsplit(":", 1)[1]
    return f"tcp://{host}:{port}"


def _assigned(client: MatchmakerClient) -> GameAssigned:
    for _ in range(20):
        push = client.next_push(5000)
        if isinstance(push, GameAssigned):
            return push
    raise AssertionError("no game_assigned push")


def test_lan_server_sends_players_to_the_advertised_address(
    lanqi: Any, zmq_context: zmq.Context[Any], names: Callable[..., list[str]]
) -> None:
    server = lanqi.serve("--lan", "--advertise", ADDRESS)
    assert server.lobby.startswith("tcp://0.0.0.0:"), server.lobby  # every interface
    lobby, events = _at(server.lobby, ADDRESS), _at(server.events, ADDRESS)
    ann_name, bob_name = names(2, "lan")
    with (
        MatchmakerClient(lobby, events, context=zmq_context) as ann,
        MatchmakerClient(lobby, events, context=zmq_context) as bob,
    ):
        ann.hello(ann_name)
        bob.hello(bob_name)
        tc = TimeControl(kind="per_move", per_move_ms=60_000)
        ann.call(CreateSeek(seek=Seek(variant="gomoku", time_control=tc)), SeekCreated)
        assert bob.call(
            CreateSeek(seek=Seek(variant="gomoku", time_control=tc)), SeekCreated
        ).paired
        seats = [_assigned(ann).game, _assigned(bob).game]
    for seat in seats:  # the referee's address players are given is the advertised one
        assert seat.referee.startswith(f"tcp://{ADDRESS}:"), seat.referee
        assert seat.referee_pub.startswith(f"tcp://{ADDRESS}:"), seat.referee_pub
    first, second = sorted(seats, key=lambda s: s.seat)
    with (
        RefereeClient(first.referee, first.referee_pub, context=zmq_context) as one,
        RefereeClient(second.referee, second.referee_pub, context=zmq_context) as two,
    ):
        one.wait_connected()
        view = GameView(one, first.game_id)
        one.join(first.game_id, first.seat, first.token)
        two.join(second.game_id, second.seat, second.token)
        one.move(first.game_id, first.token, 0, "h8")
        assert view.wait_for(lambda v: v.moves == ["h8"]), "the move never arrived"


def test_lan_without_advertise_is_refused_in_one_line(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=SOURCE_PATH)
    done = subprocess.run(
        [sys.executable, "-m", "lanqi.cli.main", "serve", "--lan", "--data-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "--advertise" in done.stderr
