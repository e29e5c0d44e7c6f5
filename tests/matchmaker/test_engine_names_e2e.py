"""Engine id names in tournament records, through real processes: a ``lanqi bot``
running Fairy-Stockfish tells the matchmaker its engine's ``id name`` in ``hello``;
the tournament's PGN carries it as the seat's ``RedEngine``/``BlackEngine`` tag and
the HTML report shows it next to the player's name."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lanqi.games.xiangqi.pgn import read_pgns
from lanqi.protocol import Hello, ListPlayers, PlayersList, Welcome

from .conftest import DIRECTOR_KEY, read_store
from .test_refusals_e2e import code_of
from .test_tournament_cli_e2e import cli, ok

FAIRY = Path("/usr/games/fairy-stockfish")


def _id_name() -> str:
    """What the engine itself says its name is (its ``id name`` line)."""
    out = subprocess.run(
        [str(FAIRY)], check=True, input="uci\nquit\n", capture_output=True, text=True, timeout=30
    ).stdout
    return next(
        line[len("id name ") :].strip() for line in out.splitlines() if line.startswith("id name ")
    )


@pytest.mark.skipif(not FAIRY.exists(), reason="Fairy-Stockfish is not installed")
def test_engine_id_name_reaches_the_pgn_and_the_report(
    lanqi: Any,
    mm: Callable[..., Any],
    tour: Any,
    *,
    names: Callable[..., list[str]],
    tmp_path: Path,
) -> None:
    engine_bot, random_bot = names(2, "eng")
    data = lanqi.data_dir("engines")
    server = lanqi.serve(data_dir=data)
    lanqi.bot(server, engine_bot, "--engine", f"uci:{FAIRY}", "--movetime", "20")
    lanqi.bot(server, random_bot)
    client = mm(server)
    client.subscribe("lobby")
    tid = tour.create(
        client,
        format="round_robin",
        variant="xiangqi",
        options={"move_limit": 20},
        time_control={"kind": "fischer", "base_ms": 20_000, "increment_ms": 200},
        name="Engine Cup",
    )
    for _ in range(300):
        online = {p.name for p in client.call(ListPlayers(), PlayersList).players if p.online}
        if {engine_bot, random_bot} <= online:
            break
        client.next_event(100)
    else:
        pytest.fail("the bots never said hello")
    ok(cli(server, "--director-key", DIRECTOR_KEY, "join", tid, engine_bot, random_bot))
    tour.start(client, tid)
    tour.wait_finished(client, tid, timeout_s=120)

    id_name = _id_name()
    assert id_name.startswith("Fairy-Stockfish")
    # the matchmaker stored it on the player, as hello said
    rows = read_store(
        data, "SELECT name, engine FROM players WHERE name IN (?, ?)", (engine_bot, random_bot)
    )
    assert {r["name"]: r["engine"] for r in rows} == {engine_bot: id_name, random_bot: None}

    pgn = ok(cli(server, "export", tid, "--format", "pgn"))
    games = read_pgns(pgn)
    assert games, pgn
    for game in games:
        headers = game.headers
        engine_seat = "Red" if headers["Red"] == engine_bot else "Black"
        other_seat = "Black" if engine_seat == "Red" else "Red"
        assert headers[other_seat] == random_bot
        assert headers[f"{engine_seat}Engine"] == id_name
        assert f"{other_seat}Engine" not in headers  # the random bot names no engine
    assert f'Engine "{id_name}"]' in pgn

    page = tmp_path / "report.html"
    ok(cli(server, "export", tid, "--format", "html", "--out", str(page)))
    html = page.read_text(encoding="utf-8")
    assert f'{engine_bot} <span class="engine">({id_name})</span>' in html


def test_the_last_hello_says_which_engine(
    lanqi: Any, mm: Callable[..., Any], names: Callable[..., list[str]]
) -> None:
    """``hello.engine`` is trimmed and stored; a later hello replaces it, and one
    without it (or only blanks) clears it; a non-printable one is refused."""
    data = lanqi.data_dir("hello-engine")
    server = lanqi.serve(data_dir=data)
    name = names(1, "eng")[0]

    def stored() -> str | None:
        rows = read_store(data, "SELECT engine FROM players WHERE name = ?", (name,))
        engine: str | None = rows[0]["engine"]
        return engine

    first = mm(server).call(Hello(name=name, kind="bot", engine="  Brain 1.0 "), Welcome)
    assert stored() == "Brain 1.0"
    mm(server).call(Hello(name=name, kind="bot", session=first.session, engine="Brain 2"), Welcome)
    assert stored() == "Brain 2"
    assert code_of(mm(server), Hello(name=name, session=first.session, engine="a\tb")) == (
        "bad_request"
    )
    assert stored() == "Brain 2"
    mm(server).call(Hello(name=name, kind="bot", session=first.session, engine=" "), Welcome)
    assert stored() is None
