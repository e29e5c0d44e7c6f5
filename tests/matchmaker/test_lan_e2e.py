"""``lanqi serve --lan [--advertise ADDR]``: it listens on every interface, and players are
sent to the referee at ADDR, or without ``--advertise`` at the address they reached the
server at.

ADDR is 127.0.0.2, still loopback: a server bound to 127.0.0.1 alone cannot be reached
there, one bound to every interface can.  The players below reach the lobby and the
referee only at 127.0.0.2, and only through what the matchmaker told them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import zmq

from lanqi.client.matchmaker import MatchmakerClient
from lanqi.client.referee import GameView, RefereeClient
from lanqi.protocol import CreateSeek, GameAssigned, Seek, SeekCreated, TimeControl
from lanqi.protocol.endpoints import reachable

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


def _play_first_move(
    context: zmq.Context[Any], referee: str, referee_pub: str, first: Any, second: Any
) -> None:
    """Both seats join at ``referee``; the first stone is placed and seen there."""
    with (
        RefereeClient(referee, referee_pub, context=context) as one,
        RefereeClient(referee, referee_pub, context=context) as two,
    ):
        one.wait_connected()
        view = GameView(one, first.game_id)
        one.join(first.game_id, first.seat, first.token)
        two.join(second.game_id, second.seat, second.token)
        one.move(first.game_id, first.token, 0, "h8")
        assert view.wait_for(lambda v: v.moves == ["h8"]), "the move never arrived"


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
    _play_first_move(zmq_context, first.referee, first.referee_pub, first, second)


def test_lan_without_advertise_sends_clients_to_the_address_they_used(
    lanqi: Any, zmq_context: zmq.Context[Any], names: Callable[..., list[str]]
) -> None:
    """No --advertise: the matchmaker names its events and referee by wildcard or
    loopback hosts, which a client reaches at the host it reached the matchmaker at
    (here 127.0.0.2, where only a server on every interface answers)."""
    server = lanqi.serve("--lan")
    lobby = _at(server.lobby, ADDRESS)
    ann_name, bob_name = names(2, "lan")
    with (
        MatchmakerClient(lobby, context=zmq_context) as ann,
        MatchmakerClient(lobby, context=zmq_context) as bob,
    ):
        info = ann.server_info()
        assert info.events == _at(server.events, ADDRESS)
        assert [r.endpoint for r in info.referees] == [_at(server.endpoints["referee"], ADDRESS)]
        ann.subscribe("lobby")  # on the learnt event endpoint
        ann.hello(ann_name)
        bob.hello(bob_name)
        # the subscription is live only after its CURVE handshake (a slow joiner misses
        # what came before): more people come in until ann hears one of them
        heard = ann.next_event(1_000)
        for n in range(20):
            if heard is not None:
                break
            with MatchmakerClient(lobby, context=zmq_context) as someone:
                someone.hello(f"{bob_name[:30]}-{n}")
                heard = ann.next_event(1_000)
        assert heard is not None, "no event on the learnt endpoint"
        tc = TimeControl(kind="per_move", per_move_ms=60_000)
        ann.call(CreateSeek(seek=Seek(variant="gomoku", time_control=tc)), SeekCreated)
        bob.call(CreateSeek(seek=Seek(variant="gomoku", time_control=tc)), SeekCreated)
        seats = [_assigned(ann).game, _assigned(bob).game]
    first, second = sorted(seats, key=lambda s: s.seat)
    referee, referee_pub = reachable(first.referee, lobby), reachable(first.referee_pub, lobby)
    assert referee.startswith(f"tcp://{ADDRESS}:") and referee_pub.startswith(f"tcp://{ADDRESS}:")
    _play_first_move(zmq_context, referee, referee_pub, first, second)
