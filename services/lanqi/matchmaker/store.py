"""The matchmaker's SQLite file: players, ratings, games, tournaments, pairings, results.

Every write is one transaction.  Results are keyed by game id and recorded once:
:meth:`MatchmakerStore.record_result` returns False for a result it already has,
so a result seen live and again while reconciling counts once.  Seeks and
challenges are not stored: they are short-lived and players make them again.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from lanqi.games.registry import variant_names
from lanqi.protocol import EntrantFields, TimeControl, TournamentSpec
from lanqi.protocol.messages import TournamentStatus
from lanqi.protocol.schema import struct_from_wire, struct_to_wire
from lanqi.server.database import StoreOpenError, connect, explain
from lanqi.tournament.model import ResultKind
from lanqi.tournament.ratings import Glicko2, glicko2_game
from lanqi.tournament.scoring import GameScore, points_of

__all__ = [
    "EntrantRecord",
    "GameRecord",
    "GameStatus",
    "MatchmakerStore",
    "PairingRecord",
    "PlayerRecord",
    "RatingRecord",
    "TournamentRecord",
    "TournamentStatus",
]

GameStatus = Literal["playing", "finished"]

log = logging.getLogger(__name__)

#: 1: one rating per player (columns of ``players``); 2: a rating per player and game
#: (``ratings``), claim codes, ratings before/after per game, result seqs seen ahead;
#: 3: the arbiter's tools: entrants' fields (federation rating, club, title, birth
#: year), forbidden pairs, manual pairings, check-ins, table numbers and
#: over-the-board games (their players' reported results) on pairings
SCHEMA_VERSION = 3


def rated_variants() -> tuple[str, ...]:
    """Every variant a player has a rating in: the registry's."""
    return variant_names()


_SCHEMA = """
CREATE TABLE IF NOT EXISTS players (
    player_id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE,
    kind TEXT NOT NULL,
    session TEXT NOT NULL UNIQUE,
    created_ms INTEGER NOT NULL,
    claim_hash TEXT,
    engine TEXT
);
CREATE TABLE IF NOT EXISTS ratings (
    player_id TEXT NOT NULL REFERENCES players(player_id),
    variant TEXT NOT NULL,
    rating REAL NOT NULL,
    rd REAL NOT NULL,
    volatility REAL NOT NULL,
    games INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (player_id, variant)
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
    ended_ms INTEGER,
    ratings_before TEXT,
    ratings_after TEXT,
    clocks TEXT NOT NULL DEFAULT '[]'
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
    fed_rating REAL,
    club TEXT,
    title TEXT,
    birth_year INTEGER,
    sex TEXT,
    federation TEXT,
    fide_id INTEGER,
    fixed_table INTEGER,
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
    table_no INTEGER,
    otb INTEGER NOT NULL DEFAULT 0,
    origin TEXT NOT NULL DEFAULT '',
    report_first TEXT,
    report_second TEXT,
    warning TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (tournament_id, round, board, game_no)
);
CREATE TABLE IF NOT EXISTS forbidden_pairs (
    tournament_id TEXT NOT NULL REFERENCES tournaments(tournament_id),
    a TEXT NOT NULL,
    b TEXT NOT NULL,
    PRIMARY KEY (tournament_id, a, b)
);
CREATE TABLE IF NOT EXISTS manual_pairings (
    tournament_id TEXT NOT NULL REFERENCES tournaments(tournament_id),
    round INTEGER NOT NULL,
    board INTEGER NOT NULL,
    first TEXT NOT NULL,
    second TEXT NOT NULL,
    PRIMARY KEY (tournament_id, round, board)
);
CREATE TABLE IF NOT EXISTS checkins (
    tournament_id TEXT NOT NULL REFERENCES tournaments(tournament_id),
    round INTEGER NOT NULL,
    player_id TEXT NOT NULL,
    PRIMARY KEY (tournament_id, round, player_id)
);
CREATE TABLE IF NOT EXISTS requested_byes (
    tournament_id TEXT NOT NULL REFERENCES tournaments(tournament_id),
    round INTEGER NOT NULL,
    player_id TEXT NOT NULL,
    score REAL NOT NULL,
    PRIMARY KEY (tournament_id, round, player_id)
);
CREATE TABLE IF NOT EXISTS referee_cursors (
    referee TEXT PRIMARY KEY,
    last_result_seq INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS results_ahead (
    referee TEXT NOT NULL,
    result_seq INTEGER NOT NULL,
    PRIMARY KEY (referee, result_seq)
);
CREATE TABLE IF NOT EXISTS strikes (
    kind TEXT NOT NULL,
    target TEXT NOT NULL,
    failures INTEGER NOT NULL,
    locks INTEGER NOT NULL,
    until_ms INTEGER NOT NULL,
    PRIMARY KEY (kind, target)
);
"""

#: schema 1 -> 2.  The old single rating becomes the starting rating of each game the
#: player played a rated game of (a player who played none keeps it in both: it was
#: never moved, or moved by games whose records are gone); the other game starts at
#: the default.  See docs/tournaments.md, "Ratings".
_MIGRATE_1_TO_2 = """
CREATE TABLE ratings (
    player_id TEXT NOT NULL REFERENCES players(player_id),
    variant TEXT NOT NULL,
    rating REAL NOT NULL,
    rd REAL NOT NULL,
    volatility REAL NOT NULL,
    games INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (player_id, variant)
);
CREATE TEMP TABLE played AS
    SELECT DISTINCT p.player_id AS player_id, g.variant AS variant
    FROM players p JOIN games g
    ON g.rated = 1 AND g.status = 'finished' AND g.player_ids LIKE '%"' || p.player_id || '"%';
INSERT INTO ratings
    SELECT p.player_id, v.variant,
        CASE WHEN v.variant IN (SELECT variant FROM played WHERE player_id = p.player_id)
            OR NOT EXISTS (SELECT 1 FROM played WHERE player_id = p.player_id)
        THEN p.rating ELSE {rating} END,
        CASE WHEN v.variant IN (SELECT variant FROM played WHERE player_id = p.player_id)
            OR NOT EXISTS (SELECT 1 FROM played WHERE player_id = p.player_id)
        THEN p.rd ELSE {rd} END,
        CASE WHEN v.variant IN (SELECT variant FROM played WHERE player_id = p.player_id)
            OR NOT EXISTS (SELECT 1 FROM played WHERE player_id = p.player_id)
        THEN p.volatility ELSE {volatility} END,
        (SELECT COUNT(*) FROM games g WHERE g.rated = 1 AND g.status = 'finished'
            AND g.variant = v.variant AND g.player_ids LIKE '%"' || p.player_id || '"%')
    FROM players p CROSS JOIN ({variants}) v;
DROP TABLE played;
ALTER TABLE players DROP COLUMN rating;
ALTER TABLE players DROP COLUMN rd;
ALTER TABLE players DROP COLUMN volatility;
ALTER TABLE players DROP COLUMN games;
ALTER TABLE players ADD COLUMN claim_hash TEXT;
ALTER TABLE games ADD COLUMN ratings_before TEXT;
ALTER TABLE games ADD COLUMN ratings_after TEXT;
"""

#: schema 2 -> 3: columns added to existing tables (see ``_add_columns``)
_ADDED_COLUMNS: dict[str, tuple[tuple[str, str], ...]] = {
    "entrants": (
        ("fed_rating", "REAL"),
        ("club", "TEXT"),
        ("title", "TEXT"),
        ("birth_year", "INTEGER"),
        ("sex", "TEXT"),
        ("federation", "TEXT"),
        ("fide_id", "INTEGER"),
        ("fixed_table", "INTEGER"),
    ),
    "pairings": (
        ("table_no", "INTEGER"),
        ("otb", "INTEGER NOT NULL DEFAULT 0"),
        ("origin", "TEXT NOT NULL DEFAULT ''"),
        ("report_first", "TEXT"),
        ("report_second", "TEXT"),
        ("warning", "TEXT NOT NULL DEFAULT ''"),
    ),
}


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    """A player.  ``claimable``: a roster entry (or a player the director re-issued a
    code for) that a ``hello`` with the claim code takes over."""

    player_id: str
    name: str
    kind: str
    session: str
    claimable: bool = False
    #: the program playing for a bot, as its last ``hello`` said (an engine's ``id name``)
    engine: str | None = None


@dataclass(frozen=True, slots=True)
class RatingRecord:
    """A player's Glicko-2 rating in one game (``variant``), and rated games played."""

    variant: str
    rating: float
    rd: float
    volatility: float
    games: int = 0


@dataclass(frozen=True, slots=True)
class GameRecord:
    game_id: str
    referee: str
    variant: str
    options: dict[str, Any]
    time_control: TimeControl
    player_ids: list[str]
    names: list[str]
    tokens: list[str]
    rated: bool
    status: GameStatus
    created_ms: int
    tournament_id: str | None = None
    round: int = 0
    board: int = 0
    game_no: int = 0
    result: str | None = None
    termination: str | None = None
    start_fen: str | None = None
    moves: list[str] = field(default_factory=list)
    #: the players' ratings in this game's variant before and after it, by seat
    #: (empty unless the game was rated and played)
    ratings_before: list[float] = field(default_factory=list)
    ratings_after: list[float] = field(default_factory=list)
    #: the mover's time left (ms) as each move arrived, from the referee's clock
    clocks: list[int] = field(default_factory=list)
    ended_ms: int | None = None


@dataclass(frozen=True, slots=True)
class TournamentRecord:
    tournament_id: str
    spec: TournamentSpec
    status: TournamentStatus
    round: int
    created_ms: int


@dataclass(frozen=True, slots=True)
class EntrantRecord:
    player_id: str
    seed: int
    joined_round: int
    withdrawn: bool
    #: what the director entered: federation rating, club, title, birth year
    fields: EntrantFields = field(default_factory=EntrantFields)


@dataclass(frozen=True, slots=True)
class PairingRecord:
    tournament_id: str
    round: int
    board: int
    game_no: int
    first: str | None
    second: str | None
    game_id: str | None = None
    result: str | None = None
    score_first: float | None = None
    kind: ResultKind | None = None
    #: the table the game is played at (None: a bye)
    table: int | None = None
    #: played on a physical board: the result comes from the director or the players
    otb: bool = False
    #: ``manual`` (the director paired it), ``absent`` (not checked in: a zero-point
    #: bye) or empty (the pairing engine)
    origin: str = ""
    #: what each player reported of an over-the-board game (first, second)
    reports: tuple[str | None, str | None] = (None, None)
    #: the pairing rule this pairing had to break (a rematch, a second bye), for the
    #: director; empty when none
    warning: str = ""


#: the columns of ``pairings`` in the order :func:`_pairing_row` gives them
_PAIRING_COLUMNS = (
    "tournament_id, round, board, game_no, first, second, game_id, result, score_first, "
    "kind, table_no, otb, origin, report_first, report_second, warning"
)


def _pairing_row(p: PairingRecord) -> tuple[Any, ...]:
    return (
        p.tournament_id,
        p.round,
        p.board,
        p.game_no,
        p.first,
        p.second,
        p.game_id,
        p.result,
        p.score_first,
        p.kind,
        p.table,
        int(p.otb),
        p.origin,
        *p.reports,
        p.warning,
    )


def _game(row: sqlite3.Row) -> GameRecord:
    return GameRecord(
        game_id=row["game_id"],
        referee=row["referee"],
        variant=row["variant"],
        options=json.loads(row["options"]),
        time_control=struct_from_wire(TimeControl, json.loads(row["time_control"])),
        player_ids=json.loads(row["player_ids"]),
        names=json.loads(row["names"]),
        tokens=json.loads(row["tokens"]),
        rated=bool(row["rated"]),
        status=row["status"],
        created_ms=row["created_ms"],
        tournament_id=row["tournament_id"],
        round=row["round"],
        board=row["board"],
        game_no=row["game_no"],
        result=row["result"],
        termination=row["termination"],
        start_fen=row["start_fen"],
        moves=json.loads(row["moves"]),
        ratings_before=json.loads(row["ratings_before"] or "[]"),
        ratings_after=json.loads(row["ratings_after"] or "[]"),
        clocks=json.loads(row["clocks"]),
        ended_ms=row["ended_ms"],
    )


def _pairing(row: sqlite3.Row) -> PairingRecord:
    return PairingRecord(
        tournament_id=row["tournament_id"],
        round=row["round"],
        board=row["board"],
        game_no=row["game_no"],
        first=row["first"],
        second=row["second"],
        game_id=row["game_id"],
        result=row["result"],
        score_first=row["score_first"],
        kind=row["kind"],
        table=row["table_no"],
        otb=bool(row["otb"]),
        origin=row["origin"],
        reports=(row["report_first"], row["report_second"]),
        warning=row["warning"],
    )


def _player(row: sqlite3.Row) -> PlayerRecord:
    return PlayerRecord(row[0], row[1], row[2], row[3], bool(row[4]), row[5])


class MatchmakerStore:
    """One SQLite file (WAL; durable against process crashes)."""

    def __init__(
        self, path: str | Path, *, durable: bool = False, default_rating: Glicko2 | None = None
    ) -> None:
        self.path = Path(path)
        self.default_rating = default_rating or Glicko2()
        self._conn = connect(self.path, timeout_s=5.0)  # StoreOpenError: one line to show
        self._conn.row_factory = sqlite3.Row
        try:
            self._open(durable=durable)
        except sqlite3.Error as exc:
            self._conn.close()
            raise explain(self.path, exc) from exc
        except BaseException:
            self._conn.close()
            raise

    def _open(self, *, durable: bool) -> None:
        version = self._conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreOpenError(
                f"{self.path}: matchmaker store has schema version {version}, newer than "
                f"{SCHEMA_VERSION}; upgrade lanqi or use another data directory"
            )
        self._conn.execute("PRAGMA journal_mode=WAL")
        # the log file is cut back to 4 MiB once a checkpoint restarts it (else it
        # stays at its high-water mark, a burst's size, until the store is closed)
        self._conn.execute(f"PRAGMA journal_size_limit={4 * 1024 * 1024}")
        self._conn.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
        if version == 1:
            self._migrate_from_1()
        self._conn.execute("PRAGMA foreign_keys=ON")
        self._conn.executescript(_SCHEMA)
        self._add_columns(_ADDED_COLUMNS)
        columns = {r[1] for r in self._conn.execute("PRAGMA table_info(games)")}
        if "clocks" not in columns:  # a store from before games kept their clock readings
            self._conn.execute("ALTER TABLE games ADD COLUMN clocks TEXT NOT NULL DEFAULT '[]'")
        columns = {r[1] for r in self._conn.execute("PRAGMA table_info(players)")}
        if "engine" not in columns:  # a store from before bots named their engines
            self._conn.execute("ALTER TABLE players ADD COLUMN engine TEXT")
        self._conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _add_columns(self, added: dict[str, tuple[tuple[str, str], ...]]) -> None:
        """Schema 2 -> 3: the columns a store from before them lacks (the new tables
        come with ``_SCHEMA``); existing rows get the defaults."""
        for table, columns in added.items():
            have = {r[1] for r in self._conn.execute(f"PRAGMA table_info({table})")}
            for name, decl in columns:
                if name not in have:
                    self._conn.execute(f"ALTER TABLE {table} ADD COLUMN {name} {decl}")

    def _migrate_from_1(self) -> None:
        """Schema 1 -> 2 in one transaction (see ``_MIGRATE_1_TO_2``)."""
        d = self.default_rating
        variants = " UNION ALL ".join(f"SELECT '{v}' AS variant" for v in rated_variants())
        script = _MIGRATE_1_TO_2.format(
            rating=d.rating, rd=d.rd, volatility=d.volatility, variants=variants
        )
        self._conn.execute("PRAGMA foreign_keys=OFF")
        self._conn.executescript(f"BEGIN IMMEDIATE;\n{script}\nPRAGMA user_version = 2;\nCOMMIT;")
        log.info("%s: matchmaker store migrated to schema 2 (ratings per game)", self.path)

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def close(self) -> None:
        self._conn.close()

    # ------------------------------------------------------------ players

    def add_player(
        self, player: PlayerRecord, created_ms: int, claim_hash: str | None = None
    ) -> None:
        """A new player (a roster entry if ``claim_hash``), rated at the default in
        every game."""
        d = self.default_rating
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO players VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    player.player_id,
                    player.name,
                    player.kind,
                    player.session,
                    created_ms,
                    claim_hash,
                    player.engine,
                ),
            )
            conn.executemany(
                "INSERT INTO ratings VALUES (?, ?, ?, ?, ?, 0)",
                [(player.player_id, v, d.rating, d.rd, d.volatility) for v in rated_variants()],
            )

    def _player_where(self, clause: str, value: str) -> PlayerRecord | None:
        row = self._conn.execute(
            "SELECT player_id, name, kind, session, claim_hash IS NOT NULL, engine "
            f"FROM players WHERE {clause} = ?",
            (value,),
        ).fetchone()
        return _player(row) if row else None

    def player(self, player_id: str) -> PlayerRecord | None:
        return self._player_where("player_id", player_id)

    def player_by_name(self, name: str) -> PlayerRecord | None:
        return self._player_where("name", name)

    def player_by_session(self, session: str) -> PlayerRecord | None:
        return self._player_where("session", session)

    def players(self) -> list[PlayerRecord]:
        rows = self._conn.execute(
            "SELECT player_id, name, kind, session, claim_hash IS NOT NULL, engine "
            "FROM players ORDER BY name"
        ).fetchall()
        return [_player(r) for r in rows]

    def set_kind(self, player_id: str, kind: str, engine: str | None = None) -> None:
        """The player's kind and engine, as its latest ``hello`` said."""
        with self._tx() as conn:
            conn.execute(
                "UPDATE players SET kind = ?, engine = ? WHERE player_id = ?",
                (kind, engine, player_id),
            )

    # ------------------------------------------------------------ claim codes

    def set_claim(self, player_id: str, claim_hash: str, session: str) -> None:
        """A new claim code (its hash) for a player, and a new session nobody holds:
        the session the player had stops working."""
        with self._tx() as conn:
            conn.execute(
                "UPDATE players SET claim_hash = ?, session = ? WHERE player_id = ?",
                (claim_hash, session, player_id),
            )

    def claim(self, player_id: str, claim_hash: str, session: str) -> bool:
        """Take a player over with its claim code (once): the code is used up and
        ``session`` becomes the player's; False if the code is not the player's."""
        with self._tx() as conn:
            cur = conn.execute(
                "UPDATE players SET claim_hash = NULL, session = ? "
                "WHERE player_id = ? AND claim_hash = ?",
                (session, player_id, claim_hash),
            )
            return cur.rowcount > 0

    # ------------------------------------------------------------ ratings

    def rating(self, player_id: str, variant: str) -> RatingRecord:
        """The player's rating in ``variant`` (the default if it has none there)."""
        row = self._conn.execute(
            "SELECT variant, rating, rd, volatility, games FROM ratings "
            "WHERE player_id = ? AND variant = ?",
            (player_id, variant),
        ).fetchone()
        if row is None:
            d = self.default_rating
            return RatingRecord(variant, d.rating, d.rd, d.volatility)
        return RatingRecord(*row)

    def all_ratings(self) -> dict[str, dict[str, float]]:
        """Every player's rating by variant (player id -> variant -> rating), in one
        query: the lobby's player list asks for all of them at once."""
        out: dict[str, dict[str, float]] = {}
        for player_id, variant, rating in self._conn.execute(
            "SELECT player_id, variant, rating FROM ratings ORDER BY player_id, variant"
        ):
            out.setdefault(player_id, {})[variant] = rating
        return out

    @property
    def changes(self) -> int:
        """Rows this store has written since it was opened (SQLite's ``total_changes``):
        equal counts, nothing written in between."""
        return self._conn.total_changes

    def ratings(self, player_id: str) -> dict[str, RatingRecord]:
        """The player's rating in every game, by variant."""
        rows = self._conn.execute(
            "SELECT variant, rating, rd, volatility, games FROM ratings WHERE player_id = ? "
            "ORDER BY variant",
            (player_id,),
        ).fetchall()
        return {row[0]: RatingRecord(*row) for row in rows}

    # ------------------------------------------------------------ games

    def add_game(self, game: GameRecord) -> None:
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO games (game_id, referee, variant, options, time_control, "
                "player_ids, names, tokens, rated, tournament_id, round, board, game_no, "
                "status, start_fen, created_ms) VALUES "
                "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    game.game_id,
                    game.referee,
                    game.variant,
                    json.dumps(game.options),
                    json.dumps(struct_to_wire(game.time_control)),
                    json.dumps(game.player_ids),
                    json.dumps(game.names),
                    json.dumps(game.tokens),
                    int(game.rated),
                    game.tournament_id,
                    game.round,
                    game.board,
                    game.game_no,
                    game.status,
                    game.start_fen,
                    game.created_ms,
                ),
            )
            if game.tournament_id is not None:
                conn.execute(
                    "UPDATE pairings SET game_id = ? WHERE tournament_id = ? AND round = ? "
                    "AND board = ? AND game_no = ?",
                    (game.game_id, game.tournament_id, game.round, game.board, game.game_no),
                )

    def game(self, game_id: str) -> GameRecord | None:
        row = self._conn.execute("SELECT * FROM games WHERE game_id = ?", (game_id,)).fetchone()
        return _game(row) if row else None

    def games(
        self, *, status: GameStatus | None = None, tournament_id: str | None = None
    ) -> list[GameRecord]:
        sql = "SELECT * FROM games WHERE 1 = 1"
        args: list[Any] = []
        if status is not None:
            sql += " AND status = ?"
            args.append(status)
        if tournament_id is not None:
            sql += " AND tournament_id = ?"
            args.append(tournament_id)
        sql += " ORDER BY created_ms, round, board, game_no"
        return [_game(row) for row in self._conn.execute(sql, args).fetchall()]

    def record_result(
        self,
        game_id: str,
        *,
        result: str,
        termination: str,
        moves: list[str],
        ended_ms: int,
        referee: str,
        result_seq: int,
        score: GameScore,
        ratings: dict[str, Glicko2] | None = None,
        clocks: list[int] | None = None,
    ) -> bool:
        """Record a game's result once (with the pairing, and the players' new ratings
        in the game's variant, by player id) and note ``result_seq`` as recorded;
        returns False if the game is unknown, not on ``referee``, or already finished."""
        with self._tx() as conn:
            self._note_result(conn, referee, result_seq)
            row = conn.execute(
                "SELECT status, variant, tournament_id, round, board, game_no, player_ids "
                "FROM games WHERE game_id = ? AND referee = ?",
                (game_id, referee),
            ).fetchone()
            if row is None or row["status"] == "finished":
                return False
            player_ids: list[str] = json.loads(row["player_ids"])
            before, after = self._rate(conn, row["variant"], player_ids, ratings)
            conn.execute(
                "UPDATE games SET status = 'finished', result = ?, termination = ?, moves = ?, "
                "ended_ms = ?, ratings_before = ?, ratings_after = ?, clocks = ? WHERE game_id = ?",
                (
                    result,
                    termination,
                    json.dumps(moves),
                    ended_ms,
                    json.dumps(before),
                    json.dumps(after),
                    json.dumps(clocks or []),
                    game_id,
                ),
            )
            if row["tournament_id"] is not None:
                conn.execute(
                    "UPDATE pairings SET result = ?, score_first = ?, kind = ? "
                    "WHERE tournament_id = ? AND round = ? AND board = ? AND game_no = ? "
                    "AND game_id = ?",
                    (
                        result,
                        score.score_first,
                        score.kind,
                        row["tournament_id"],
                        row["round"],
                        row["board"],
                        row["game_no"],
                        game_id,
                    ),
                )
            return True

    def _rate(
        self,
        conn: sqlite3.Connection,
        variant: str,
        player_ids: list[str],
        ratings: dict[str, Glicko2] | None,
    ) -> tuple[list[float], list[float]]:
        """Store the players' new ratings; their ratings before and after, by seat."""
        before: list[float] = []
        after: list[float] = []
        if ratings and all(pid in ratings for pid in player_ids):
            for pid in player_ids:
                old = conn.execute(
                    "SELECT rating FROM ratings WHERE player_id = ? AND variant = ?",
                    (pid, variant),
                ).fetchone()
                new = ratings[pid]
                before.append(float(old[0]) if old else self.default_rating.rating)
                after.append(new.rating)
                conn.execute(
                    "INSERT INTO ratings VALUES (?, ?, ?, ?, ?, 1) "
                    "ON CONFLICT(player_id, variant) DO UPDATE SET rating = excluded.rating, "
                    "rd = excluded.rd, volatility = excluded.volatility, games = games + 1",
                    (pid, variant, new.rating, new.rd, new.volatility),
                )
        return before, after

    def record_board_result(
        self,
        game: GameRecord,
        *,
        score: GameScore,
        ratings: dict[str, Glicko2] | None = None,
    ) -> bool:
        """Record an over-the-board game once: ``game`` (finished, with its result;
        its referee is ``otb``), its pairing's result and the players' new ratings;
        False if the pairing has a result already."""
        assert game.tournament_id is not None and game.result is not None
        with self._tx() as conn:
            cur = conn.execute(
                "UPDATE pairings SET result = ?, score_first = ?, kind = ?, game_id = ? "
                "WHERE tournament_id = ? AND round = ? AND board = ? AND game_no = ? "
                "AND result IS NULL",
                (
                    game.result,
                    score.score_first,
                    score.kind,
                    game.game_id,
                    game.tournament_id,
                    game.round,
                    game.board,
                    game.game_no,
                ),
            )
            if cur.rowcount == 0:
                return False
            before, after = self._rate(conn, game.variant, game.player_ids, ratings)
            conn.execute(
                "INSERT INTO games (game_id, referee, variant, options, time_control, "
                "player_ids, names, tokens, rated, tournament_id, round, board, game_no, "
                "status, result, termination, start_fen, created_ms, ended_ms, "
                "ratings_before, ratings_after) VALUES "
                "(?, ?, ?, ?, ?, ?, ?, '[]', ?, ?, ?, ?, ?, 'finished', ?, ?, ?, ?, ?, ?, ?)",
                (
                    game.game_id,
                    game.referee,
                    game.variant,
                    json.dumps(game.options),
                    json.dumps(struct_to_wire(game.time_control)),
                    json.dumps(game.player_ids),
                    json.dumps(game.names),
                    int(game.rated),
                    game.tournament_id,
                    game.round,
                    game.board,
                    game.game_no,
                    game.result,
                    game.termination,
                    game.start_fen,
                    game.created_ms,
                    game.ended_ms,
                    json.dumps(before),
                    json.dumps(after),
                ),
            )
            return True

    def correct_board_result(
        self,
        game_id: str,
        *,
        result: str,
        termination: str,
        score: GameScore,
        rated: bool,
    ) -> bool:
        """Correct a counted over-the-board game (its referee ``otb``): the game's
        and its pairing's result, then every rating of the game's variant replayed
        (see :meth:`_replay_ratings`), in one transaction; False if there is no such
        finished game."""
        with self._tx() as conn:
            row = conn.execute(
                "SELECT variant FROM games WHERE game_id = ? AND referee = 'otb' "
                "AND status = 'finished'",
                (game_id,),
            ).fetchone()
            if row is None:
                return False
            conn.execute(
                "UPDATE games SET result = ?, termination = ? WHERE game_id = ?",
                (result, termination, game_id),
            )
            conn.execute(
                "UPDATE pairings SET result = ?, score_first = ?, kind = ?, "
                "report_first = NULL, report_second = NULL WHERE game_id = ?",
                (result, score.score_first, score.kind, game_id),
            )
            self._replay_ratings(conn, row["variant"], game_id, rated)
            return True

    def _replay_ratings(
        self, conn: sqlite3.Connection, variant: str, changed: str, rated: bool
    ) -> None:
        """Every rated game of ``variant`` rated again, in the order the games ended,
        one game at a time as they were (``changed`` is rated if ``rated``, the
        others if they were): the games' ratings before and after, and the players'
        ratings, follow a corrected result. Each player starts from their rating
        before their first rated game there, with the default deviation and
        volatility (exactly the state a player starts with; an approximation only
        for a store migrated from schema 1, whose old ratings kept their own)."""
        d = self.default_rating
        rows = conn.execute(
            "SELECT game_id, player_ids, result, ratings_before, ratings_after FROM games "
            "WHERE variant = ? AND status = 'finished' "
            "ORDER BY ended_ms, created_ms, game_id",
            (variant,),
        ).fetchall()
        state: dict[str, Glicko2] = {}
        games: dict[str, int] = {}
        for row in rows:
            was_rated = bool(json.loads(row["ratings_after"] or "[]"))
            is_rated = rated if row["game_id"] == changed else was_rated
            score = points_of(row["result"] or "*")
            player_ids: list[str] = json.loads(row["player_ids"])
            if not is_rated or score is None or len(player_ids) != 2:
                if row["game_id"] == changed:
                    conn.execute(
                        "UPDATE games SET ratings_before = '[]', ratings_after = '[]' "
                        "WHERE game_id = ?",
                        (changed,),
                    )
                continue
            before_stored: list[float] = json.loads(row["ratings_before"] or "[]")
            for seat, pid in enumerate(player_ids):
                if pid not in state:
                    start = before_stored[seat] if len(before_stored) == 2 else d.rating
                    state[pid] = Glicko2(start, d.rd, d.volatility)
            first, second = player_ids
            before = [state[first].rating, state[second].rating]
            state[first], state[second] = glicko2_game(state[first], state[second], score)
            after = [state[first].rating, state[second].rating]
            for pid in player_ids:
                games[pid] = games.get(pid, 0) + 1
            conn.execute(
                "UPDATE games SET ratings_before = ?, ratings_after = ? WHERE game_id = ?",
                (json.dumps(before), json.dumps(after), row["game_id"]),
            )
        for pid, new in state.items():
            conn.execute(
                "INSERT INTO ratings VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT(player_id, variant) DO UPDATE SET rating = excluded.rating, "
                "rd = excluded.rd, volatility = excluded.volatility, games = excluded.games",
                (pid, variant, new.rating, new.rd, new.volatility, games[pid]),
            )

    def set_report(
        self, tournament_id: str, round_no: int, board: int, seat: int, result: str | None
    ) -> None:
        """What the player of ``seat`` (0 first, 1 second) says an over-the-board game
        ended (None: forget both players' words, after the director decided)."""
        with self._tx() as conn:
            where = "WHERE tournament_id = ? AND round = ? AND board = ? AND game_no = 0"
            args = (tournament_id, round_no, board)
            if result is None:
                conn.execute(
                    f"UPDATE pairings SET report_first = NULL, report_second = NULL {where}", args
                )
            else:
                column = "report_first" if seat == 0 else "report_second"
                conn.execute(f"UPDATE pairings SET {column} = ? {where}", (result, *args))

    # The referee numbers its results 1, 2, 3...  The cursor is the last seq up to
    # which every result has been recorded; a result heard ahead of a gap is kept in
    # ``results_ahead`` until the gap is filled, so a result missed live (and a lost
    # ``results_since`` reply) is asked for again from the cursor, never skipped.

    def note_result(self, referee: str, result_seq: int) -> None:
        """Note a result that is not one of our games as recorded."""
        with self._tx() as conn:
            self._note_result(conn, referee, result_seq)

    def cover_results(self, referee: str, after: int, upto: int) -> None:
        """A ``results_since(after)`` answer has been recorded in full: every result
        in (after, upto] is known (the referee has no other), so if the cursor had
        reached ``after`` it moves to ``upto``."""
        with self._tx() as conn:
            cursor = self._cursor(conn, referee)
            if cursor >= after and upto > cursor:
                self._set_cursor(conn, referee, upto)

    def _note_result(self, conn: sqlite3.Connection, referee: str, result_seq: int) -> None:
        cursor = self._cursor(conn, referee)
        if result_seq == cursor + 1:
            self._set_cursor(conn, referee, result_seq)
        elif result_seq > cursor:
            conn.execute("INSERT OR IGNORE INTO results_ahead VALUES (?, ?)", (referee, result_seq))

    def _set_cursor(self, conn: sqlite3.Connection, referee: str, cursor: int) -> None:
        """Move the cursor to ``cursor`` and on over the results heard ahead of it."""
        ahead = {
            r[0]
            for r in conn.execute(
                "SELECT result_seq FROM results_ahead WHERE referee = ? AND result_seq > ?",
                (referee, cursor),
            )
        }
        while cursor + 1 in ahead:
            cursor += 1
        conn.execute(
            "INSERT INTO referee_cursors VALUES (?, ?) ON CONFLICT(referee) DO UPDATE SET "
            "last_result_seq = MAX(last_result_seq, excluded.last_result_seq)",
            (referee, cursor),
        )
        conn.execute(
            "DELETE FROM results_ahead WHERE referee = ? AND result_seq <= ?", (referee, cursor)
        )

    @staticmethod
    def _cursor(conn: sqlite3.Connection, referee: str) -> int:
        row = conn.execute(
            "SELECT last_result_seq FROM referee_cursors WHERE referee = ?", (referee,)
        ).fetchone()
        return int(row[0]) if row else 0

    # ------------------------------------------------------------ wrong claim codes

    def save_strikes(self, kind: str, target: str, strikes: tuple[int, int, int] | None) -> None:
        """The wrong claim codes held against a name or an address: ``(failures,
        locks, locked until in wall-clock ms)``; None forgets them."""
        with self._tx() as conn:
            if strikes is None:
                conn.execute("DELETE FROM strikes WHERE kind = ? AND target = ?", (kind, target))
            else:
                conn.execute(
                    "INSERT OR REPLACE INTO strikes VALUES (?, ?, ?, ?, ?)",
                    (kind, target, *strikes),
                )

    def strikes(self) -> list[tuple[str, str, int, int, int]]:
        """Every ``(kind, target, failures, locks, until_ms)`` stored."""
        rows = self._conn.execute(
            "SELECT kind, target, failures, locks, until_ms FROM strikes ORDER BY kind, target"
        ).fetchall()
        return [(r[0], r[1], int(r[2]), int(r[3]), int(r[4])) for r in rows]

    def referee_cursor(self, referee: str) -> int:
        """The last result seq up to which every result of ``referee`` is recorded."""
        return self._cursor(self._conn, referee)

    def results_ahead(self, referee: str) -> int:
        """How many results of ``referee`` are recorded beyond a gap after the cursor."""
        row = self._conn.execute(
            "SELECT COUNT(*) FROM results_ahead WHERE referee = ?", (referee,)
        ).fetchone()
        return int(row[0])

    # ------------------------------------------------------------ tournaments

    def add_tournament(self, record: TournamentRecord) -> None:
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO tournaments VALUES (?, ?, ?, ?, ?)",
                (
                    record.tournament_id,
                    json.dumps(struct_to_wire(record.spec)),
                    record.status,
                    record.round,
                    record.created_ms,
                ),
            )

    def tournament(self, tournament_id: str) -> TournamentRecord | None:
        row = self._conn.execute(
            "SELECT * FROM tournaments WHERE tournament_id = ?", (tournament_id,)
        ).fetchone()
        if row is None:
            return None
        return TournamentRecord(
            row["tournament_id"],
            struct_from_wire(TournamentSpec, json.loads(row["spec"])),
            row["status"],
            row["round"],
            row["created_ms"],
        )

    def tournaments(self) -> list[TournamentRecord]:
        rows = self._conn.execute("SELECT tournament_id FROM tournaments ORDER BY created_ms")
        found = [self.tournament(r[0]) for r in rows.fetchall()]
        return [t for t in found if t is not None]

    def set_tournament_status(self, tournament_id: str, status: TournamentStatus) -> None:
        with self._tx() as conn:
            conn.execute(
                "UPDATE tournaments SET status = ? WHERE tournament_id = ?",
                (status, tournament_id),
            )

    def delete_tournament(self, tournament_id: str) -> bool:
        """Remove a tournament that never started, and its entries; False if it is not
        there or has begun (it has pairings)."""
        with self._tx() as conn:
            started = conn.execute(
                "SELECT 1 FROM pairings WHERE tournament_id = ? LIMIT 1", (tournament_id,)
            ).fetchone()
            if started is not None:
                return False
            # what the director set before the start goes with it (foreign keys)
            for table in (
                "entrants",
                "requested_byes",
                "forbidden_pairs",
                "manual_pairings",
                "checkins",
            ):
                conn.execute(f"DELETE FROM {table} WHERE tournament_id = ?", (tournament_id,))
            cur = conn.execute(
                "DELETE FROM tournaments WHERE tournament_id = ? AND status = 'open'",
                (tournament_id,),
            )
            return cur.rowcount > 0

    def add_entrant(
        self,
        tournament_id: str,
        player_id: str,
        joined_round: int,
        fields: EntrantFields | None = None,
    ) -> bool:
        """Enter a player (again, if withdrawn); False if already in."""
        with self._tx() as conn:
            return self._enter(conn, tournament_id, player_id, joined_round, fields)

    @staticmethod
    def _enter(
        conn: sqlite3.Connection,
        tournament_id: str,
        player_id: str,
        joined_round: int,
        fields: EntrantFields | None,
    ) -> bool:
        row = conn.execute(
            "SELECT withdrawn FROM entrants WHERE tournament_id = ? AND player_id = ?",
            (tournament_id, player_id),
        ).fetchone()
        if row is not None:
            if not row[0]:
                return False
            conn.execute(
                "UPDATE entrants SET withdrawn = 0 WHERE tournament_id = ? AND player_id = ?",
                (tournament_id, player_id),
            )
        else:
            seed = conn.execute(
                "SELECT COUNT(*) FROM entrants WHERE tournament_id = ?", (tournament_id,)
            ).fetchone()[0]
            conn.execute(
                "INSERT INTO entrants (tournament_id, player_id, seed, joined_round, withdrawn) "
                "VALUES (?, ?, ?, ?, 0)",
                (tournament_id, player_id, seed + 1, joined_round),
            )
        if fields is not None:
            MatchmakerStore._write_fields(conn, tournament_id, player_id, fields)
        return True

    @staticmethod
    def _write_fields(
        conn: sqlite3.Connection, tournament_id: str, player_id: str, fields: EntrantFields
    ) -> None:
        conn.execute(
            "UPDATE entrants SET fed_rating = ?, club = ?, title = ?, birth_year = ?, "
            "sex = ?, federation = ?, fide_id = ?, fixed_table = ? "
            "WHERE tournament_id = ? AND player_id = ?",
            (
                fields.rating,
                fields.club,
                fields.title,
                fields.birth_year,
                fields.sex,
                fields.federation,
                fields.fide_id,
                fields.table,
                tournament_id,
                player_id,
            ),
        )

    def set_entrant_fields(self, tournament_id: str, player_id: str, fields: EntrantFields) -> None:
        """Replace an entrant's fields (federation rating, club, title, birth year)."""
        with self._tx() as conn:
            self._write_fields(conn, tournament_id, player_id, fields)

    def import_entrants(
        self,
        tournament_id: str,
        new_players: list[tuple[PlayerRecord, str]],
        entries: list[tuple[str, EntrantFields]],
        joined_round: int,
        created_ms: int,
    ) -> None:
        """In one transaction: add the new players (roster entries: record and claim
        hash) and enter every player of ``entries`` with its fields."""
        d = self.default_rating
        with self._tx() as conn:
            for player, claim in new_players:
                conn.execute(
                    "INSERT INTO players VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        player.player_id,
                        player.name,
                        player.kind,
                        player.session,
                        created_ms,
                        claim,
                        None,
                    ),
                )
                conn.executemany(
                    "INSERT INTO ratings VALUES (?, ?, ?, ?, ?, 0)",
                    [(player.player_id, v, d.rating, d.rd, d.volatility) for v in rated_variants()],
                )
            for player_id, fields in entries:
                if not self._enter(conn, tournament_id, player_id, joined_round, fields):
                    raise sqlite3.IntegrityError(f"{player_id} is entered already")

    def set_seeds(self, tournament_id: str, player_ids: list[str]) -> None:
        """Seed the entrants in this order (1 = top seed); the rest follow."""
        with self._tx() as conn:
            rows = conn.execute(
                "SELECT player_id FROM entrants WHERE tournament_id = ? ORDER BY seed",
                (tournament_id,),
            ).fetchall()
            order = list(player_ids) + [r[0] for r in rows if r[0] not in player_ids]
            conn.executemany(
                "UPDATE entrants SET seed = ? WHERE tournament_id = ? AND player_id = ?",
                [(seed, tournament_id, pid) for seed, pid in enumerate(order, 1)],
            )

    def withdraw(self, tournament_id: str, player_id: str) -> bool:
        with self._tx() as conn:
            cur = conn.execute(
                "UPDATE entrants SET withdrawn = 1 WHERE tournament_id = ? AND player_id = ? "
                "AND withdrawn = 0",
                (tournament_id, player_id),
            )
            return cur.rowcount > 0

    def entrant_names(self, tournament_id: str) -> list[str]:
        """The names of the tournament's entrants (withdrawn ones included) in seed
        order, in one query (a lobby that lists tournaments asks for them often)."""
        rows = self._conn.execute(
            "SELECT coalesce(p.name, e.player_id) FROM entrants e "
            "LEFT JOIN players p ON p.player_id = e.player_id "
            "WHERE e.tournament_id = ? ORDER BY e.seed",
            (tournament_id,),
        ).fetchall()
        return [str(r[0]) for r in rows]

    def entrants(self, tournament_id: str) -> list[EntrantRecord]:
        """The tournament's entrants (withdrawn ones included) in seed order."""
        rows = self._conn.execute(
            "SELECT player_id, seed, joined_round, withdrawn, fed_rating, club, title, "
            "birth_year, sex, federation, fide_id, fixed_table FROM entrants "
            "WHERE tournament_id = ? ORDER BY seed",
            (tournament_id,),
        ).fetchall()
        return [
            EntrantRecord(
                r[0],
                r[1],
                r[2],
                bool(r[3]),
                EntrantFields(
                    rating=r[4],
                    club=r[5],
                    title=r[6],
                    birth_year=r[7],
                    sex=r[8],
                    federation=r[9],
                    fide_id=r[10],
                    table=r[11],
                ),
            )
            for r in rows
        ]

    def start_round(
        self,
        tournament_id: str,
        round_no: int,
        pairings: list[PairingRecord],
        status: TournamentStatus,
    ) -> bool:
        """Store a new round's pairings and make it current, once: False if this
        round already exists (a restart never pairs a round twice)."""
        with self._tx() as conn:
            current = conn.execute(
                "SELECT round FROM tournaments WHERE tournament_id = ?", (tournament_id,)
            ).fetchone()[0]
            if round_no <= current:
                return False
            conn.executemany(
                f"INSERT INTO pairings ({_PAIRING_COLUMNS}) VALUES ({', '.join('?' * 16)})",
                [
                    _pairing_row(dataclasses.replace(p, tournament_id=tournament_id))
                    for p in pairings
                ],
            )
            conn.execute(
                "UPDATE tournaments SET round = ?, status = ? WHERE tournament_id = ?",
                (round_no, status, tournament_id),
            )
            return True

    def add_pairings(self, pairings: list[PairingRecord]) -> None:
        """Extra games in the current round (knockout tie-breaks)."""
        with self._tx() as conn:
            conn.executemany(
                f"INSERT OR IGNORE INTO pairings ({_PAIRING_COLUMNS}) "
                f"VALUES ({', '.join('?' * 16)})",
                [_pairing_row(p) for p in pairings],
            )

    def pairings(self, tournament_id: str, round_no: int | None = None) -> list[PairingRecord]:
        sql = "SELECT * FROM pairings WHERE tournament_id = ?"
        args: list[Any] = [tournament_id]
        if round_no is not None:
            sql += " AND round = ?"
            args.append(round_no)
        sql += " ORDER BY round, board, game_no"
        return [_pairing(row) for row in self._conn.execute(sql, args).fetchall()]

    def set_spec(self, tournament_id: str, spec: TournamentSpec) -> None:
        with self._tx() as conn:
            conn.execute(
                "UPDATE tournaments SET spec = ? WHERE tournament_id = ?",
                (json.dumps(struct_to_wire(spec)), tournament_id),
            )

    # ------------------------------------------------------------ the arbiter's tools

    def forbid(self, tournament_id: str, a: str, b: str) -> None:
        """Keep two players apart (a Swiss never pairs them unless it must)."""
        first, second = sorted((a, b))
        with self._tx() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO forbidden_pairs VALUES (?, ?, ?)",
                (tournament_id, first, second),
            )

    def forbidden(self, tournament_id: str) -> set[frozenset[str]]:
        rows = self._conn.execute(
            "SELECT a, b FROM forbidden_pairs WHERE tournament_id = ?", (tournament_id,)
        ).fetchall()
        return {frozenset((r[0], r[1])) for r in rows}

    def set_manual(self, tournament_id: str, round_no: int, pairs: list[tuple[str, str]]) -> None:
        """The director's pairings of a round that has not started (replacing any)."""
        with self._tx() as conn:
            conn.execute(
                "DELETE FROM manual_pairings WHERE tournament_id = ? AND round = ?",
                (tournament_id, round_no),
            )
            conn.executemany(
                "INSERT INTO manual_pairings VALUES (?, ?, ?, ?, ?)",
                [(tournament_id, round_no, i, a, b) for i, (a, b) in enumerate(pairs, 1)],
            )

    def manual(self, tournament_id: str, round_no: int) -> list[tuple[str, str]]:
        rows = self._conn.execute(
            "SELECT first, second FROM manual_pairings WHERE tournament_id = ? AND round = ? "
            "ORDER BY board",
            (tournament_id, round_no),
        ).fetchall()
        return [(r[0], r[1]) for r in rows]

    def check_in(self, tournament_id: str, round_no: int, player_ids: list[str]) -> None:
        with self._tx() as conn:
            conn.executemany(
                "INSERT OR IGNORE INTO checkins VALUES (?, ?, ?)",
                [(tournament_id, round_no, pid) for pid in player_ids],
            )

    def request_bye(
        self, tournament_id: str, round_no: int, player_id: str, score: float | None
    ) -> None:
        """A player's bye of a round that has not been paired (``None``: taken back)."""
        with self._tx() as conn:
            conn.execute(
                "DELETE FROM requested_byes WHERE tournament_id = ? AND round = ? "
                "AND player_id = ?",
                (tournament_id, round_no, player_id),
            )
            if score is not None:
                conn.execute(
                    "INSERT INTO requested_byes VALUES (?, ?, ?, ?)",
                    (tournament_id, round_no, player_id, score),
                )

    def requested_byes(self, tournament_id: str, round_no: int) -> dict[str, float]:
        """The byes asked for a round: player id -> points as a result (0.5 or 0)."""
        rows = self._conn.execute(
            "SELECT player_id, score FROM requested_byes WHERE tournament_id = ? AND round = ?",
            (tournament_id, round_no),
        ).fetchall()
        return {r[0]: float(r[1]) for r in rows}

    def checked_in(self, tournament_id: str, round_no: int) -> set[str]:
        """Who is checked in for a round (empty: nobody, so check-in is not used)."""
        rows = self._conn.execute(
            "SELECT player_id FROM checkins WHERE tournament_id = ? AND round = ?",
            (tournament_id, round_no),
        ).fetchall()
        return {r[0] for r in rows}
