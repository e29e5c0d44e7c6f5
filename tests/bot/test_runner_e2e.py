"""Four kinds of bot play a round robin through the real services.

Two built-in players, Fairy-Stockfish through the UCI adapter, and the example bot
from docs/bots.md, each run by a BotRunner against a real matchmaker and referee.
"""

from __future__ import annotations

import re
import shutil
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from lanqi.bot.catalog import bot_factory
from lanqi.bot.runner import BotRunner, Policy
from lanqi.client.matchmaker import MatchmakerClient
from lanqi.protocol import (
    CreateTournament,
    GetStandings,
    Ok,
    Standings,
    StartTournament,
    TimeControl,
    TournamentCreated,
    TournamentSpec,
)
from lanqi.server.embedded import EmbeddedServer

FAIRY = shutil.which("fairy-stockfish") or "/usr/games/fairy-stockfish"
DOC = Path(__file__).resolve().parents[2] / "docs" / "bots.md"


@pytest.fixture
def example_module(tmp_path: Path) -> Iterator[str]:
    code = re.search(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)
    assert code is not None
    (tmp_path / "capture_bot.py").write_text(code.group(1), encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    yield "capture_bot"
    sys.path.remove(str(tmp_path))
    sys.modules.pop("capture_bot", None)


def test_builtin_engine_and_sdk_bots_play_a_round_robin(
    server: EmbeddedServer, tmp_path: Path, example_module: str
) -> None:
    if not Path(FAIRY).exists():
        pytest.fail("Fairy-Stockfish is missing: apt-get install fairy-stockfish")
    stop = threading.Event()
    client = MatchmakerClient(server.matchmaker_endpoint)
    threads = []
    try:
        spec = TournamentSpec(
            name="four kinds",
            format="round_robin",
            variant="xiangqi",
            options={"move_limit": 40},  # short games: 40 plies without a capture draw
            time_control=TimeControl(kind="per_move", per_move_ms=2000),
        )
        tid = client.call(CreateTournament(director_key="k", spec=spec), TournamentCreated)
        tid_ = tid.tournament_id
        players = {
            "Tiger": bot_factory("builtin", level=3, seed=1),
            "Monkey": bot_factory("random", seed=2),
            "Fairy": bot_factory(f"uci:{FAIRY}", depth=1, options={"Threads": 1}),
            "Grabber": bot_factory(f"python:{example_module}:CaptureBot"),
        }
        for name, make in players.items():
            runner = BotRunner(
                make_bot=make,
                matchmaker=server.matchmaker_endpoint,
                name=name,
                policy=Policy(variants=("xiangqi",), tournaments=(tid_,)),
                session_file=tmp_path / f"{name}.session",
                stop=stop,
            )
            thread = threading.Thread(target=runner.run, daemon=True)
            thread.start()
            threads.append(thread)
        deadline = time.monotonic() + 30
        while len(client.call(GetStandings(tournament_id=tid_), Standings).tournament.players) < 4:
            assert time.monotonic() < deadline, "the bots did not all join"
            time.sleep(0.1)
        client.call(StartTournament(tournament_id=tid_, director_key="k"), Ok)
        deadline = time.monotonic() + 240
        while True:
            standings = client.call(GetStandings(tournament_id=tid_), Standings)
            if standings.tournament.status == "finished":
                break
            assert time.monotonic() < deadline, "the round robin did not finish"
            time.sleep(0.5)
        assert len(standings.pairings) == 6  # 4 players: 3 rounds of 2 games
        assert all(p.result in ("1-0", "0-1", "1/2-1/2") for p in standings.pairings)
        assert sum(row.points for row in standings.rows) == 6
        assert {row.player for row in standings.rows} == set(players)
        assert all(row.games == 3 for row in standings.rows)
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=10)
        client.close()
