"""``adjudicate``: the admin key ends a game with a result and a reason, through a real
referee subprocess; and games an earlier lanqi stored (a seat's words as the
termination) load as the closed word plus that reason, their bytes untouched."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lanqi.client.referee import GameView, RefereeClient
from lanqi.protocol import Adjudicate, ErrorReply, GameResult, Ok, termination_label

Factory = Callable[..., Any]
KEY = "s3cret"
#: a referee store written by lanqi main c672c11 (data/make_store_main_c672c11.py.txt)
MAIN_STORE = Path(__file__).parent / "data" / "store-main-c672c11.sqlite3"


def _game(client: RefereeClient) -> tuple[str, list[str]]:
    created = client.create_game("xiangqi", players=["ann", "bob"], casual=False, admin_key=KEY)
    for seat, token in enumerate(created.tokens):
        client.join(created.game_id, seat=seat, token=token)
    return created.game_id, created.tokens


def _result(client: RefereeClient, game_id: str) -> GameResult:
    (found,) = [r for r in client.results_since(0, 1000).results if r.game_id == game_id]
    return found


def test_the_admin_key_adjudicates_a_game(
    referee_factory: Factory, connect: Callable[..., RefereeClient]
) -> None:
    process = referee_factory("--admin-key", KEY)
    client, watcher = connect(process), connect(process)
    watcher.watch_results()
    game_id, tokens = _game(client)
    view = GameView(watcher, game_id)
    client.move(game_id, tokens[0], 0, "h2e2")
    # the view saw an event: its subscriptions (results first) are live
    assert view.wait_for(lambda v: v.ply == 1, 5000)
    before = client.sync(game_id)
    # without the key, or with a wrong one: refused, and nothing changes
    for key in (None, "wrong"):
        request = Adjudicate(
            game_id=game_id, result="0-1", reason="adjudication: score", admin_key=key
        )
        reply = client.request(request)
        assert isinstance(reply, ErrorReply) and reply.code == "unauthorized", reply
        assert "admin key" in reply.msg
    after = client.sync(game_id)
    assert (after.seq, after.status, after.moves) == (before.seq, "active", ["h2e2"])
    # with the key: the game ends as an adjudication, with the reason, for everyone
    asked = Adjudicate(game_id=game_id, result="0-1", reason="adjudication: score", admin_key=KEY)
    assert isinstance(client.request(asked), Ok)
    assert view.wait_for(lambda v: v.finished, 5000)
    assert (view.result, view.termination, view.winner) == ("0-1", "adjudication", 1)
    assert view.state.reason == "adjudication: score"
    snapshot = client.sync(game_id)
    assert (snapshot.termination, snapshot.reason) == ("adjudication", "adjudication: score")
    published = watcher.next_result(5000)
    assert published is not None and published.game_id == game_id
    for entry in (published, _result(client, game_id)):
        assert (entry.result, entry.termination, entry.reason) == (
            "0-1",
            "adjudication",
            "adjudication: score",
        )
    # a retry is answered the same and publishes nothing; anything else is game_over
    assert isinstance(client.request(asked), Ok)
    assert client.sync(game_id).seq == snapshot.seq
    for other in (
        Adjudicate(game_id=game_id, result="1-0", reason="adjudication: score", admin_key=KEY),
        Adjudicate(game_id=game_id, result="0-1", reason="tablebase", admin_key=KEY),
    ):
        reply = client.request(other)
        assert isinstance(reply, ErrorReply) and reply.code == "game_over", reply
    # the store's column says what a record says
    db = sqlite3.connect(f"file:{process.data_dir / 'referee.sqlite3'}?mode=ro", uri=True)
    with db:
        (column,) = db.execute(
            "SELECT termination FROM games WHERE game_id = ?", (game_id,)
        ).fetchone()
    db.close()
    assert column == "adjudication: score"


def test_an_adjudication_of_a_finished_game_is_refused(
    referee_factory: Factory, connect: Callable[..., RefereeClient]
) -> None:
    client = connect(referee_factory("--admin-key", KEY))
    game_id, tokens = _game(client)
    client.resign(game_id, tokens[0])
    reply = client.request(Adjudicate(game_id=game_id, result="1/2-1/2", reason="x", admin_key=KEY))
    assert isinstance(reply, ErrorReply) and reply.code == "game_over", reply
    blank = Adjudicate(game_id="nope", result="1-0", reason="x", admin_key=KEY)
    reply = client.request(blank)
    assert isinstance(reply, ErrorReply) and reply.code == "unknown_game", reply
    assert (client.sync(game_id).termination, client.sync(game_id).reason) == ("resignation", "")


def _events(path: Path) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return list(db.execute("SELECT * FROM events ORDER BY game_id, seq"))
    finally:
        db.close()


def test_a_store_written_by_main_loads_with_reasons(
    tmp_path: Path, referee_factory: Factory, connect: Callable[..., RefereeClient]
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(MAIN_STORE, data / "referee.sqlite3")
    stored = _events(data / "referee.sqlite3")
    process = referee_factory("--admin-key", "k", data_dir=data)
    client = connect(process)
    want = {
        "crashed": ("1-0", "resignation", "crash"),
        "illegal": ("0-1", "resignation", "illegal move h2h9"),
        "adjudicated": ("1/2-1/2", "adjudication", "adjudication: draw"),
        "scored": ("1-0", "adjudication", "adjudication: score"),
        "plain": ("1-0", "resignation", ""),
    }
    results = {r.game_id: r for r in client.results_since(0, 100).results}
    assert set(results) == set(want)
    for game_id, (result, termination, reason) in want.items():
        snapshot = client.sync(game_id)
        assert (snapshot.result, snapshot.termination, snapshot.reason) == want[game_id]
        entry = results[game_id]
        assert (entry.result, entry.termination, entry.reason) == (result, termination, reason)
        # what a record says is what main's store said
        assert termination_label(termination, reason) == (reason or termination)
    # the unfinished game plays on
    running = client.sync("running")
    assert (running.status, running.moves) == ("active", ["h2e2"])
    # loading changed no stored event
    process.stop()
    assert set(stored) <= set(_events(data / "referee.sqlite3"))
