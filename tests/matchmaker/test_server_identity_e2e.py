"""A name is the player's on a server under any of its addresses, and a name held
by a lost session comes back through the director (issue 19, item 1), with real
processes: ``lanqi serve``, ``lanqi bot`` and the director's ``lanqi reclaim``.

- ``lanqi bot`` keeps a session file per server, named for the server's key: a bot
  that plays on another server in between is the same player on the first one again,
  reached at another of its addresses (``127.0.0.1``, then ``127.0.0.2``: the server
  listens on every interface, loopback answers any 127.x).  The session an older
  bot left in the unkeyed file is used and moved under the key.
- A bot refused a name held by a session it does not have stops with one line that
  says what to do: ask the director for a claim code (``lanqi reclaim NAME``) and
  pass it with ``--claim``.  The director's ``lanqi reclaim`` issues that code for
  a lobby name (no tournament); with it the bot is the same player again.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lanqi.bench.process import source_path
from lanqi.client.matchmaker import MatchmakerClient
from lanqi.i18n import en, zh
from lanqi.matchmaker.claims import ALPHABET, CODE_LENGTH
from lanqi.protocol import ListPlayers, PlayersList
from lanqi.security import fingerprint

from .conftest import DIRECTOR_KEY
from .test_roster_e2e import wait_exit, wait_online

CODE_LINE = re.compile(rf"^(\S+) ([{ALPHABET}]{{{CODE_LENGTH}}})$")


def welcomed_as(bot: Any, name: str, timeout_s: float = 20.0) -> str:
    """Wait for the bot's log to say the server welcomed it; the player id it got."""
    pattern = re.compile(rf"{name} is in the lobby on \S+ \(player (\w+)\)")
    deadline = time.monotonic() + timeout_s
    while (found := pattern.search(bot.log_text())) is None:
        assert bot.running, f"{bot.name} stopped: {bot.log_text()}"
        assert time.monotonic() < deadline, f"{bot.name} was not welcomed: {bot.log_text()}"
        time.sleep(0.1)  # polling the bot's log against a deadline
    return found.group(1)


def player_id(client: MatchmakerClient, name: str) -> str:
    found = [p for p in client.call(ListPlayers(), PlayersList).players if p.name == name]
    assert len(found) == 1, found
    return found[0].player_id


def reclaim(server: Any, name: str, key: str, data: Path) -> subprocess.CompletedProcess[str]:
    """``lanqi reclaim NAME`` as the director runs it."""
    env = dict(os.environ, PYTHONPATH=source_path())
    env.pop("LANQI_DIRECTOR_KEY", None)
    command = [sys.executable, "-m", "lanqi.cli.main", "reclaim", "--server", server.lobby]
    command += ["--director-key", key, "--data-dir", str(data), name]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, env=env, check=False)


def test_a_bot_is_one_player_on_one_server_under_any_address(
    lanqi: Any, mm: Callable[..., MatchmakerClient]
) -> None:
    one = lanqi.serve("--host", "0.0.0.0")
    other = lanqi.serve()
    port = one.lobby.rsplit(":", 1)[1]
    first, second = f"tcp://127.0.0.1:{port}", f"tcp://127.0.0.2:{port}"
    watch_one, watch_other = mm(one), mm(other)
    watch_one.hello("watcher")
    watch_other.hello("watcher")
    with MatchmakerClient(first) as older_bot:  # Tiger, as an older lanqi bot registered it
        tiger = older_bot.hello("Tiger", kind="bot")
    sessions = lanqi.data_dir("bot-sessions")
    (sessions / "Tiger.session").write_text(tiger.session)
    keyed = {
        server.name: sessions / f"Tiger@{fingerprint(server.keys.public)}.session"
        for server in (one, other)
    }

    bot = lanqi.bot(one, "Tiger", address=first)
    assert welcomed_as(bot, "Tiger") == tiger.player_id, "the unkeyed session was not used"
    assert bot.stop() == 0

    bot = lanqi.bot(other, "Tiger")  # the same name on another server
    assert welcomed_as(bot, "Tiger") == player_id(watch_other, "Tiger")
    assert bot.stop() == 0

    bot = lanqi.bot(one, "Tiger", address=second)  # the first server, another address
    assert welcomed_as(bot, "Tiger") == tiger.player_id
    wait_online(watch_one, {"Tiger"})
    assert bot.stop() == 0
    # one file per server, named for its key; the unkeyed one moved to the first's
    assert keyed[one.name].read_text() == tiger.session
    assert keyed[other.name].read_text() != tiger.session
    assert not (sessions / "Tiger.session").exists(), "the unkeyed file was not moved"


def test_a_lost_session_is_replaced_by_the_directors_claim_code(
    lanqi: Any, mm: Callable[..., MatchmakerClient], tmp_path: Path
) -> None:
    server = lanqi.serve()
    watcher = mm(server)
    watcher.hello("watcher")
    with MatchmakerClient(server.lobby) as lost:  # Crane's session, on a laptop that died
        crane = lost.hello("Crane", kind="bot")

    refused = lanqi.bot(server, "Crane")
    assert wait_exit(refused) == 1, "a bot refused its name must stop and say why"
    last = refused.log_text().strip().splitlines()[-1]
    assert last == f"lanqi bot: Crane: {zh('bot.name_taken', name='Crane')} " + en(
        "bot.name_taken", name="Crane"
    ), refused.log_text()
    assert "lanqi reclaim Crane" in last and "--claim" in last

    director = tmp_path / "director"
    wrong = reclaim(server, "Crane", "not-the-key", director)
    assert wrong.returncode == 1 and "unauthorized" in wrong.stderr, wrong.stderr
    nobody = reclaim(server, "Nobody", DIRECTOR_KEY, director)
    assert nobody.returncode == 1 and "no player named 'Nobody'" in nobody.stderr
    issued = reclaim(server, "crane", DIRECTOR_KEY, director)
    assert issued.returncode == 0, issued.stderr
    match = CODE_LINE.match(issued.stdout.strip())
    assert match is not None and match.group(1) == "Crane", issued.stdout

    claimed = lanqi.bot(server, "Crane", "--claim", match.group(2))
    assert welcomed_as(claimed, "Crane") == crane.player_id  # the same player, ratings and all
    wait_online(watcher, {"Crane"})


def test_a_server_without_a_key_is_known_by_its_address(lanqi: Any) -> None:
    """``--insecure``: no key to name the server by, so the session file is named for
    the address the bot was given (the only identity there is)."""
    server = lanqi.serve("--insecure")
    bot = lanqi.bot(server, "Heron")
    first = welcomed_as(bot, "Heron")
    assert bot.stop() == 0
    address = server.lobby.replace("://", "___").replace(":", "_")
    saved = lanqi.data_dir("bot-sessions") / f"Heron@{address}.session"
    assert saved.exists(), sorted(p.name for p in saved.parent.iterdir())
    again = lanqi.bot(server, "Heron")
    assert welcomed_as(again, "Heron") == first
