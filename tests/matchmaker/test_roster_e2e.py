"""A roster entered before anyone is online, claimed with codes (docs/tournaments.md,
"Entering the field"), with real processes: ``lanqi serve``, the director's
``lanqi tournament`` and ``lanqi bot --claim``.

The director enters three names the server has never seen and one it knows; the
command prints a code per new name.  A code given for another name and a used code
are refused in one line and the bot stops; the bots with the right codes play the
event to its end.  Then the director re-issues a code: the old session is refused,
the bot that held it stops, and a bot with the new code is that player again.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lanqi.client.matchmaker import MatchmakerClient, MatchmakerRefused
from lanqi.matchmaker.claims import ALPHABET, CODE_LENGTH
from lanqi.protocol import ListPlayers, PlayersList
from lanqi.security import fingerprint

from .conftest import read_store
from .test_tournament_cli_e2e import cli, ok

CODE_LINE = re.compile(rf"^(\S+) ([{ALPHABET}]{{{CODE_LENGTH}}})$")


def refused_bot(lanqi: Any, server: Any, name: str, code: str, sessions: Path) -> str:
    """Start ``lanqi bot --name NAME --claim CODE``, which must be refused and stop
    by itself (exit 1) with one line that says why; that line."""
    bot = lanqi.bot(server, name, "--claim", code, "--session-dir", str(sessions))
    assert wait_exit(bot) == 1
    log = bot.log_text()
    assert "Traceback" not in log, log
    last: str = log.strip().splitlines()[-1]  # after the bot's INFO log lines
    assert last.startswith(f"lanqi bot: {name}: "), log
    return last


def wait_online(client: MatchmakerClient, names: set[str], timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        online = {p.name for p in client.call(ListPlayers(), PlayersList).players if p.online}
        if names <= online:
            return
        assert time.monotonic() < deadline, f"not online: {sorted(names - online)}"
        time.sleep(0.1)  # polling the lobby against a deadline


def wait_exit(process: Any, timeout_s: float = 30.0) -> int:
    deadline = time.monotonic() + timeout_s
    while process.running:
        assert time.monotonic() < deadline, f"{process.name} did not stop"
        time.sleep(0.1)  # polling a process's end against a deadline
    code = process.stop()  # already ended: its exit code
    assert code is not None
    return int(code)


def test_a_roster_is_entered_before_anyone_is_online_and_claimed_with_codes(
    lanqi: Any, mm: Callable[..., MatchmakerClient], tour: Any, tmp_path: Path
) -> None:
    data = lanqi.data_dir("roster-data")
    server = lanqi.serve(data_dir=data, director_key=None)
    watcher = mm(server)
    watcher.hello("watcher")
    known = lanqi.bot(server, "Dora")  # a player the server knows already
    wait_online(watcher, {"Dora"})
    spec = ["--forfeit-after", "60", "--option", "move_limit=40"]  # round robin, xiangqi
    tournament_id = ok(cli(server, "create", "Roster Open", *spec, data_dir=data)).strip()

    # nobody but Dora is online: the director enters the field anyway
    joined = ok(cli(server, "join", tournament_id, "Ann", "Bob", "Dora", "Cai", data_dir=data))
    lines = joined.strip().splitlines()
    codes = {m.group(1): m.group(2) for m in map(CODE_LINE.match, lines) if m}
    assert sorted(codes) == ["Ann", "Bob", "Cai"], joined
    assert "join: Dora" in lines and len(lines) == 4
    assert len(set(codes.values())) == 3
    # codes are not kept in the clear
    stored = read_store(data, "SELECT name, claim_hash FROM players WHERE claim_hash IS NOT NULL")
    assert {r["name"] for r in stored} == {"Ann", "Bob", "Cai"}
    assert not {r["claim_hash"] for r in stored} & set(codes.values())

    # without a code, or with another name's code: refused in one line
    ann = mm(server)
    with pytest.raises(MatchmakerRefused) as info:
        ann.hello("Ann")
    assert info.value.code == "claim_needed"
    wrong = refused_bot(lanqi, server, "Ann", codes["Bob"], tmp_path / "wrong")
    assert "wrong or used claim code for 'Ann'" in wrong and "reclaim" in wrong

    # the right codes (typed in lower case, with a dash, for Cai)
    cai_code = codes["Cai"].lower()[:3] + "-" + codes["Cai"].lower()[3:]
    bots = {
        "Ann": lanqi.bot(server, "Ann", "--claim", codes["Ann"]),
        "Bob": lanqi.bot(server, "Bob", "--claim", codes["Bob"]),
        "Cai": lanqi.bot(server, "Cai", "--claim", cai_code),
    }
    wait_online(watcher, {"Ann", "Bob", "Cai", "Dora"})
    assert not read_store(data, "SELECT name FROM players WHERE claim_hash IS NOT NULL")
    used = refused_bot(lanqi, server, "Bob", codes["Bob"], tmp_path / "used")
    assert "wrong or used claim code for 'Bob'" in used

    ok(cli(server, "start", tournament_id, data_dir=data))
    final = tour.wait_finished(watcher, tournament_id, timeout_s=240)
    tour.check_standings(final)
    assert {row.player for row in final.rows} == {"Ann", "Bob", "Cai", "Dora"}
    assert all(row.games == 3 for row in final.rows)
    forfeits = read_store(
        data, "SELECT COUNT(*) FROM pairings WHERE kind IS NOT NULL AND kind != 'played'"
    )
    assert forfeits[0][0] == 0, "a claimed player lost by forfeit"

    # Ann's laptop "dies": the director re-issues her code
    ann_file = lanqi.data_dir("bot-sessions") / f"Ann@{fingerprint(server.keys.public)}.session"
    old_session = ann_file.read_text().strip()
    reclaimed = ok(cli(server, "reclaim", tournament_id, "ann", data_dir=data)).strip()
    match = CODE_LINE.match(reclaimed)
    assert match is not None and match.group(1) == "Ann", reclaimed
    new_code = match.group(2)
    with pytest.raises(MatchmakerRefused) as info:
        mm(server).hello("Ann", session=old_session)
    assert info.value.code == "bad_session"
    assert wait_exit(bots["Ann"]) == 1  # the bot that held the old session is refused
    assert "claim" in bots["Ann"].log_text()
    again = lanqi.bot(server, "Ann", "--claim", new_code, "--session-dir", str(tmp_path / "new"))
    wait_online(watcher, {"Ann"})
    assert again.running and known.running
    old_code = refused_bot(lanqi, server, "Ann", codes["Ann"], tmp_path / "old")
    assert "wrong or used claim code for 'Ann'" in old_code
    # reclaiming a name that is not in the tournament is refused
    result = cli(server, "reclaim", tournament_id, "watcher", data_dir=data)
    assert result.returncode != 0 and "not entered" in result.stderr


def test_a_roster_entry_nobody_claims_loses_by_forfeit(
    lanqi: Any, mm: Callable[..., MatchmakerClient], tour: Any
) -> None:
    data = lanqi.data_dir("ghost-data")
    server = lanqi.serve(data_dir=data, director_key=None)
    spec = ["--format", "round_robin", "--variant", "gomoku", "--forfeit-after", "5"]
    tournament_id = ok(cli(server, "create", "Ghost Cup", *spec, data_dir=data)).strip()
    codes = dict(
        line.split()
        for line in ok(cli(server, "join", tournament_id, "Hal", "Gus", data_dir=data)).splitlines()
    )
    lanqi.bot(server, "Hal", "--claim", codes["Hal"])  # Gus never comes
    watcher = mm(server)
    watcher.hello("watcher")
    wait_online(watcher, {"Hal"})
    ok(cli(server, "start", tournament_id, data_dir=data))
    final = tour.wait_finished(watcher, tournament_id, timeout_s=60)
    rows = {row.player: row for row in final.rows}
    assert (rows["Hal"].wins, rows["Gus"].losses) == (1, 1)
    kinds = read_store(data, "SELECT kind FROM pairings WHERE tournament_id = ?", (tournament_id,))
    assert [r["kind"] for r in kinds] == ["forfeit"]
