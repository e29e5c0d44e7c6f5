"""A schema-1 matchmaker store (one rating per player) opens as schema 2 (a rating
per game): the old rating becomes the starting rating of each game the player
played a rated game of, and of both games for a player who played none; the other
game starts at the default.  The schema-1 file is built here with the DDL lanqi
used to write, and the migrated file is then served by a real ``lanqi serve``."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lanqi.client.matchmaker import MatchmakerClient
from lanqi.matchmaker.store import MatchmakerStore, PlayerRecord
from lanqi.protocol import ListPlayers, PlayersList

#: the matchmaker's schema 1, as lanqi wrote it before ratings per game
SCHEMA_1 = """
CREATE TABLE IF NOT EXISTS players (
    player_id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE,
    kind TEXT NOT NULL,
    session TEXT NOT NULL UNIQUE,
    rating REAL NOT NULL,
    rd REAL NOT NULL,
    volatility REAL NOT NULL,
    games INTEGER NOT NULL DEFAULT 0,
    created_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    game_id TEXT PRIMARY KEY,
    referee TEXT NOT NULL,
    variant TEXT NOT NULL,
    options TEXT NOT NULL,
    time_control TEXT NOT NULL,
    player_ids TEXT NOT NULL,
    names TEXT NOT NULL,
    tokens TEXT NOT NULL,
    rated INTEGER NOT NULL,
    tournament_id TEXT,
    round INTEGER NOT NULL DEFAULT 0,
    board INTEGER NOT NULL DEFAULT 0,
    game_no INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL,
    result TEXT,
    termination TEXT,
    start_fen TEXT,
    moves TEXT NOT NULL DEFAULT '[]',
    created_ms INTEGER NOT NULL,
    ended_ms INTEGER
);
CREATE INDEX IF NOT EXISTS games_by_status ON games (status);
CREATE INDEX IF NOT EXISTS games_by_tournament ON games (tournament_id, round);
CREATE TABLE IF NOT EXISTS tournaments (
    tournament_id TEXT PRIMARY KEY,
    spec TEXT NOT NULL,
    status TEXT NOT NULL,
    round INTEGER NOT NULL DEFAULT 0,
    created_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS entrants (
    tournament_id TEXT NOT NULL REFERENCES tournaments(tournament_id),
    player_id TEXT NOT NULL REFERENCES players(player_id),
    seed INTEGER NOT NULL,
    joined_round INTEGER NOT NULL DEFAULT 0,
    withdrawn INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tournament_id, player_id)
);
CREATE TABLE IF NOT EXISTS pairings (
    tournament_id TEXT NOT NULL REFERENCES tournaments(tournament_id),
    round INTEGER NOT NULL,
    board INTEGER NOT NULL,
    game_no INTEGER NOT NULL DEFAULT 0,
    first TEXT,
    second TEXT,
    game_id TEXT,
    result TEXT,
    score_first REAL,
    kind TEXT,
    PRIMARY KEY (tournament_id, round, board, game_no)
);
CREATE TABLE IF NOT EXISTS referee_cursors (
    referee TEXT PRIMARY KEY,
    last_result_seq INTEGER NOT NULL
);
"""

#: name -> (rating, rd, volatility, rated games) in the schema-1 file
OLD = {
    "Ann": (1620.0, 120.0, 0.059, 2),  # two rated xiangqi games
    "Bob": (1380.0, 110.0, 0.061, 3),  # rated xiangqi and gomoku
    "Cat": (1450.0, 200.0, 0.06, 1),  # one rated gomoku game, one casual xiangqi
    "Dan": (1500.0, 350.0, 0.06, 0),  # never played
}
#: (variant, rated, players) of the finished games in the file
GAMES = [
    ("xiangqi", True, ["Ann", "Bob"]),
    ("xiangqi", True, ["Bob", "Ann"]),
    ("gomoku", True, ["Bob", "Cat"]),
    ("xiangqi", False, ["Cat", "Dan"]),
]
DEFAULT = (1500.0, 350.0, 0.06)


def _schema_1_file(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA_1)
    for name, (rating, rd, vol, games) in OLD.items():
        conn.execute(
            "INSERT INTO players VALUES (?, ?, 'human', ?, ?, ?, ?, ?, 0)",
            (f"id-{name}", name, f"session-{name}", rating, rd, vol, games),
        )
    for n, (variant, rated, names) in enumerate(GAMES):
        conn.execute(
            "INSERT INTO games (game_id, referee, variant, options, time_control, player_ids, "
            "names, tokens, rated, status, result, termination, created_ms) "
            "VALUES (?, 'tcp://r:5052', ?, '{}', '{}', ?, ?, ?, ?, 'finished', '1-0', "
            "'resignation', 0)",
            (
                f"g{n}",
                variant,
                json.dumps([f"id-{x}" for x in names]),
                json.dumps(names),
                json.dumps(["a", "b"]),
                rated,
            ),
        )
    conn.execute("INSERT INTO referee_cursors VALUES ('tcp://r:5052', 4)")
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()


def _expected() -> dict[str, dict[str, tuple[float, float, float, int]]]:
    played = {name: {v for v, rated, names in GAMES if rated and name in names} for name in OLD}
    out: dict[str, dict[str, tuple[float, float, float, int]]] = {}
    for name, (rating, rd, vol, _) in OLD.items():
        out[name] = {}
        for variant in ("gomoku", "xiangqi"):
            keeps = variant in played[name] or not played[name]
            games = sum(1 for v, r, names in GAMES if r and v == variant and name in names)
            out[name][variant] = (*((rating, rd, vol) if keeps else DEFAULT), games)
    return out


def _ratings(store: MatchmakerStore, player_id: str) -> dict[str, tuple[float, float, float, int]]:
    return {v: (r.rating, r.rd, r.volatility, r.games) for v, r in store.ratings(player_id).items()}


def test_a_schema_1_store_is_migrated_to_ratings_per_game(tmp_path: Path) -> None:
    path = tmp_path / "matchmaker.sqlite3"
    _schema_1_file(path)
    store = MatchmakerStore(path)
    got = {p.name: _ratings(store, p.player_id) for p in store.players()}
    assert got == _expected()
    # spelled out: xiangqi only -> old in xiangqi; a casual game does not count; none
    # played -> old in both
    assert got["Ann"]["gomoku"] == (*DEFAULT, 0) and got["Ann"]["xiangqi"][0] == 1620.0
    assert got["Cat"]["gomoku"][0] == 1450.0 and got["Cat"]["xiangqi"] == (*DEFAULT, 0)
    assert got["Dan"]["gomoku"] == got["Dan"]["xiangqi"] == (1500.0, 350.0, 0.06, 0)
    ann = store.player_by_session("session-Ann")  # sessions, games, cursor: all kept
    assert ann is not None and ann.name == "Ann" and not ann.claimable and ann.engine is None
    assert len(store.games(status="finished")) == len(GAMES)
    assert store.referee_cursor("tcp://r:5052") == 4
    store.close()
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 3
        columns = {row[1] for row in conn.execute("PRAGMA table_info(players)")}
        assert "rating" not in columns and {"claim_hash", "engine"} <= columns
    finally:
        conn.close()
    MatchmakerStore(path).close()  # opening it again changes nothing
    again = MatchmakerStore(path)
    assert {p.name: _ratings(again, p.player_id) for p in again.players()} == _expected()
    again.close()


def test_a_store_from_before_engine_names_gains_the_column(tmp_path: Path) -> None:
    """A schema-2 file written before players had an ``engine`` gets the column on
    open (empty for everyone) and keeps what a later ``hello`` says."""
    path = tmp_path / "matchmaker.sqlite3"
    store = MatchmakerStore(path)
    store.add_player(PlayerRecord("p1", "Bo", "bot", "session-Bo"), 0)
    store.close()
    conn = sqlite3.connect(path)
    try:
        conn.execute("ALTER TABLE players DROP COLUMN engine")
        conn.commit()
    finally:
        conn.close()
    store = MatchmakerStore(path)
    bo = store.player("p1")
    assert bo is not None and bo.engine is None
    store.set_kind("p1", "bot", "Fairy-Stockfish 14")
    assert store.players() == [
        PlayerRecord("p1", "Bo", "bot", "session-Bo", engine="Fairy-Stockfish 14")
    ]
    store.close()


def test_a_migrated_store_is_served_with_ratings_per_game(
    lanqi: Any, mm: Callable[..., MatchmakerClient]
) -> None:
    data_dir = lanqi.data_dir("schema-1")
    _schema_1_file(data_dir / "matchmaker.sqlite3")
    server = lanqi.serve(data_dir=data_dir)
    client = mm(server)
    client.hello("Eve")
    listed = {p.name: p.ratings for p in client.call(ListPlayers(), PlayersList).players}
    expected = _expected()
    for name in OLD:
        assert listed[name] == {v: round(r[0], 1) for v, r in expected[name].items()}
    assert listed["Eve"] == {"gomoku": 1500.0, "xiangqi": 1500.0}
    bob = mm(server)
    assert bob.hello("Bob", session="session-Bob").player_id == "id-Bob"


#: the tables and columns of schema 2 that schema 3 (the arbiter's tools) changed
SCHEMA_2_TOURNAMENTS = """
CREATE TABLE tournaments (tournament_id TEXT PRIMARY KEY, spec TEXT NOT NULL,
    status TEXT NOT NULL, round INTEGER NOT NULL DEFAULT 0, created_ms INTEGER NOT NULL);
CREATE TABLE entrants (tournament_id TEXT NOT NULL, player_id TEXT NOT NULL,
    seed INTEGER NOT NULL, joined_round INTEGER NOT NULL DEFAULT 0,
    withdrawn INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (tournament_id, player_id));
CREATE TABLE pairings (tournament_id TEXT NOT NULL, round INTEGER NOT NULL,
    board INTEGER NOT NULL, game_no INTEGER NOT NULL DEFAULT 0, first TEXT, second TEXT,
    game_id TEXT, result TEXT, score_first REAL, kind TEXT,
    PRIMARY KEY (tournament_id, round, board, game_no));
INSERT INTO tournaments VALUES ('t1', '{"name": "Old", "format": "swiss", "variant": "xiangqi"}',
    'running', 1, 1);
INSERT INTO entrants VALUES ('t1', 'a', 1, 0, 0), ('t1', 'b', 2, 0, 0);
INSERT INTO pairings VALUES ('t1', 1, 1, 0, 'a', 'b', 'g1', '1-0', 1.0, 'played');
PRAGMA user_version = 2;
"""


def test_a_schema_2_store_gains_the_arbiters_columns(tmp_path: Path) -> None:
    path = tmp_path / "matchmaker.sqlite3"
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA_2_TOURNAMENTS)
    conn.close()
    store = MatchmakerStore(path)
    try:
        (pairing,) = store.pairings("t1")
        assert (pairing.first, pairing.result, pairing.table, pairing.otb) == (
            "a",
            "1-0",
            None,
            False,
        )
        assert pairing.origin == "" and pairing.reports == (None, None)
        entrant = store.entrants("t1")[0]
        assert entrant.fields.rating is None and entrant.fields.club is None
        spec = store.tournament("t1")
        assert spec is not None and spec.spec.boards == "screen" and spec.spec.same_club_until == 0
        assert store.forbidden("t1") == set() and store.manual("t1", 2) == []
    finally:
        store.close()
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 3
    finally:
        conn.close()
