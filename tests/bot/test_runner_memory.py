"""A bot that plays all evening keeps a bounded memory of its games: the runner keeps
the players of its last ``FINISHED_KEPT`` games, and those hold no position, no table
(every move of the game) and no search."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from lanqi.bot import runner as runner_module
from lanqi.bot.catalog import bot_factory
from lanqi.bot.runner import BotRunner, Policy
from lanqi.protocol import Seek
from lanqi.security import KnownServers
from lanqi.server.embedded import EmbeddedServer


def test_a_runner_keeps_its_last_games_only_and_no_boards(
    server: EmbeddedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner_module, "FINISHED_KEPT", 2)
    stop = threading.Event()
    runners = [
        BotRunner(
            make_bot=bot_factory("random", seed=i),
            matchmaker=server.matchmaker_endpoint,
            name=f"house{i}",
            policy=Policy(variants=("gomoku",), max_games=1, seek=Seek(variant="gomoku")),
            known=KnownServers(tmp_path / "known_servers"),
            stop=stop,
        )
        for i in range(2)
    ]
    threads = [threading.Thread(target=r.run, daemon=True) for r in runners]
    for thread in threads:
        thread.start()
    try:
        deadline = time.monotonic() + 120
        while runners[0].games_finished < 4:  # the two play each other, game after game
            assert time.monotonic() < deadline, "four games were not played in 120 s"
            stop.wait(0.1)
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=10)
    kept = runners[0].finished
    assert len(kept) == 2, f"{len(kept)} finished players kept after {runners[0].games_finished}"
    assert all(p._board is None and not p._board_moves for p in kept)  # no position held
    assert all(p._table is None and p._thinking is None and not p._asked for p in kept)
