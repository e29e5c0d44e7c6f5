"""CURVE end to end (issue 15): real ``lanqi`` processes, real sockets.

Trust on first use and its refusals (a changed key, a server gone ``--insecure``, a
client without the key), a referee that takes ``create_game`` only from the keys it
allows, and a matchmaker in front of such a referee playing games over CURVE.
Every refusal must come at once, as one line saying what to do: nothing here waits
for a timeout to prove a connection does not work.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import pytest
import zmq

from lanqi.bench.process import source_path
from lanqi.client.matchmaker import MatchmakerClient
from lanqi.client.referee import RefereeClient, RequestRefused
from lanqi.protocol import GetServerInfo, ServerInfo
from lanqi.security import (
    HandshakeRefused,
    InsecureServer,
    KeyChanged,
    KeyPair,
    KnownServers,
    Link,
    address_of,
    fingerprint,
    public_key_file,
)

#: a refusal comes from the handshake or the key port, well before any request timeout
QUICK_MS = 20_000


def lanqi_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``lanqi ARGS`` with the test's data directory (``$LANQI_DATA_DIR``)."""
    env = dict(os.environ, PYTHONPATH=source_path())
    return subprocess.run(
        [sys.executable, "-m", "lanqi.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )


def reinstall(server: Any) -> None:
    """Stop the server, delete its key pair (as a reinstalled machine would have a new
    one), and start it again on the same ports and data."""
    server.stop()
    for name in ("server_curve.key_secret", "server_curve.key"):
        (server.data / name).unlink()
    server.start()


def test_a_client_pins_the_key_and_refuses_a_changed_one(lanqi: Any) -> None:
    server = lanqi.serve()
    known = KnownServers.of()
    with MatchmakerClient(server.lobby, timeout_ms=QUICK_MS) as client:
        assert client.call(GetServerInfo(), ServerInfo).referees[0].key is not None
    pin = known.lookup(address_of(server.lobby))
    assert pin is not None and pin.key == server.keys.public.decode()
    old = fingerprint(pin.key)

    reinstall(server)
    new = fingerprint(server.keys.public)
    with pytest.raises(KeyChanged) as refused:
        MatchmakerClient(server.lobby, timeout_ms=QUICK_MS)
    address = address_of(server.lobby)
    message = str(refused.value)
    assert "\n" not in message
    assert f"offers key {new}, not {old}" in message
    assert f"run `lanqi servers forget {address}`" in message

    # the command line says the same, in one line, and the fix works
    listed = lanqi_cli("tournament", "list", "--server", server.lobby)
    assert listed.returncode == 1 and listed.stderr.count("\n") == 1
    assert f"lanqi servers forget {address}" in listed.stderr
    forgot = lanqi_cli("servers", "forget", address)
    assert forgot.returncode == 0, forgot.stderr
    assert lanqi_cli("tournament", "list", "--server", server.lobby).returncode == 0
    pin = known.lookup(address)
    assert pin is not None and fingerprint(pin.key) == new


def test_a_pinned_client_refuses_a_server_that_went_insecure(lanqi: Any) -> None:
    server = lanqi.serve()
    MatchmakerClient(server.lobby, timeout_ms=QUICK_MS).close()  # pinned
    server.stop()
    server.args = [*server.args, "--insecure"]
    server.start()
    with pytest.raises(InsecureServer, match=r"now runs without encryption .*servers forget"):
        MatchmakerClient(server.lobby, timeout_ms=QUICK_MS)


def test_a_client_without_the_key_gets_a_clear_refusal(
    lanqi: Any, zmq_context: zmq.Context[Any]
) -> None:
    """A plain client, and one set to another key (its pin skipped): the first request
    fails at once with what to do, instead of waiting for a reply that never comes."""
    server = lanqi.serve()
    plain = MatchmakerClient(
        server.lobby, context=zmq_context, timeout_ms=600_000, link=Link.plain()
    )
    started = time.monotonic()
    try:
        with pytest.raises(HandshakeRefused, match=r"requires encryption .* no key for it"):
            plain.call(GetServerInfo(), ServerInfo)
    finally:
        plain.close()
    other = Link.to(KeyPair.ephemeral().public)
    wrong = MatchmakerClient(server.lobby, context=zmq_context, timeout_ms=600_000, link=other)
    try:
        with pytest.raises(HandshakeRefused, match="did not accept the encrypted handshake"):
            wrong.call(GetServerInfo(), ServerInfo)
    finally:
        wrong.close()
    # not a timeout: the 600 s above would have failed the test long before
    assert time.monotonic() - started < 600


def test_a_raw_client_without_curve_is_turned_down_in_the_handshake(
    lanqi: Any, zmq_context: zmq.Context[Any]
) -> None:
    """What a plain libzmq client sees against a CURVE server (docs/protocol.md): its
    socket monitor reports a failed handshake, a mechanism mismatch."""
    from zmq.utils.monitor import recv_monitor_message

    server = lanqi.serve()
    dealer = zmq_context.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    monitor = dealer.get_monitor_socket(zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL)
    try:
        dealer.connect(server.lobby)
        assert monitor.poll(QUICK_MS), "no handshake failure reported"
        event = recv_monitor_message(monitor)
        assert event["value"] == zmq.PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH
    finally:
        dealer.disable_monitor()
        monitor.close(linger=0)
        dealer.close(linger=0)


def test_the_referee_creates_games_only_for_allowed_keys(
    lanqi: Any, zmq_context: zmq.Context[Any]
) -> None:
    service_keys = KeyPair.ephemeral()
    allowed_file = lanqi.data_dir("allowed") / "service.key"
    allowed_file.write_text(f'curve\n    public-key = "{service_keys.public.decode()}"\n')
    referee = lanqi.referee("--allow-key", str(allowed_file))
    requests, events = referee.endpoints["requests"], referee.endpoints["events"]
    key = referee.keys.public
    with RefereeClient(requests, events, context=zmq_context, link=Link.to(key)) as stranger:
        with pytest.raises(RequestRefused) as refused:
            stranger.create_game("gomoku", players=["ann", "bob"])
        assert refused.value.code == "unauthorized"
        assert "--allow-key" in refused.value.msg
        assert stranger.list_games("all").games == []  # reading stays open
    service = Link.to(key, service_keys)
    with RefereeClient(requests, events, context=zmq_context, link=service) as allowed:
        created = allowed.create_game("gomoku", players=["ann", "bob"])
        assert [g.game_id for g in allowed.list_games("all").games] == [created.game_id]


def test_a_matchmaker_plays_games_on_an_allow_listed_referee_over_curve(
    lanqi: Any,
    mm: Callable[..., MatchmakerClient],
    tour: Any,
    names: Callable[..., list[str]],
    bot_pool: Any,
) -> None:
    """The matchmaker's key on the referee's allow-list, its referee's key learnt at
    the key port and pinned; players reach the referee with the key server_info and
    game_assigned give them; a whole round robin is played over CURVE."""
    mm_data = lanqi.data_dir("mm-data")
    lanqi_cli("key", "--data-dir", str(mm_data))  # made before the matchmaker starts
    referee = lanqi.referee("--allow-key", str(public_key_file(mm_data)))
    matchmaker = lanqi.matchmaker(referee, data_dir=mm_data)
    pins = KnownServers(mm_data / "known_servers").pins()
    assert [(p.address, p.key) for p in pins] == [
        (address_of(referee.endpoints["requests"]), referee.keys.public.decode())
    ]
    client = mm(matchmaker)
    info = client.call(GetServerInfo(), ServerInfo)
    assert [r.key for r in info.referees] == [referee.keys.public.decode()]
    tid = tour.create(client, format="round_robin", variant="gomoku")
    players = names(3, "curve")
    bot_pool.start(matchmaker, players, tournament=tid, seed=40)
    tour.wait_players(client, tid, 3)
    tour.start(client, tid)
    final = tour.wait_finished(client, tid, timeout_s=120)
    assert len([p for p in final.pairings if p.second is not None]) == 3
    tour.check_standings(final)


def test_a_matchmaker_refuses_a_referee_whose_key_changed(lanqi: Any) -> None:
    """The matchmaker pins its referee's key on its first start; a referee with another
    key (reinstalled, or someone posing as it) stops the next start, in one line."""
    referee = lanqi.referee()
    matchmaker = lanqi.matchmaker(referee)
    matchmaker.stop()
    reinstall(referee)
    with pytest.raises(RuntimeError, match="exited with code 1"):
        matchmaker.start()
    address = address_of(referee.endpoints["requests"])
    log = matchmaker.log_dir / f"{matchmaker.name}-{matchmaker.attempts}.log"
    (line,) = [ln for ln in log.read_text().splitlines() if "cannot start" in ln]
    assert line.startswith("lanqi matchmaker: cannot start: ")
    assert f"{address} offers key {fingerprint(referee.keys.public)}" in line
    assert f"lanqi servers forget {address}" in line


def test_a_bot_stops_with_one_line_on_a_server_it_must_not_trust(lanqi: Any) -> None:
    server = lanqi.serve()
    KnownServers.of().remember(address_of(server.lobby), KeyPair.ephemeral().public.decode())
    done = lanqi_cli("bot", "--server", server.lobby, "--name", "wary", "--bot", "random")
    assert done.returncode == 1, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("lanqi bot: wary: ") and "offers key" in last
    assert f"lanqi servers forget {address_of(server.lobby)}" in last
