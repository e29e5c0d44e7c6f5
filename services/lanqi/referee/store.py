"""The referee's event store: an append-only log of game events in SQLite.

The referee is event-sourced.  Every accepted event of a game (created, joined,
moved, draw offered, chat, ended, ...) is appended here and committed *before* it is
published; on start the referee rebuilds each unfinished game by replaying its events
in ``seq`` order.  The store knows nothing about rules or message classes: an event is
a ``kind`` string and opaque ``payload`` bytes (an encoded protocol message).

Besides the log, one row per game keeps what the matchmaker and the lobby ask about
without replaying anything: players, seat tokens, status and, once finished, the
result.  Finishing a game assigns it the next ``result_seq``, a store-wide counter the
matchmaker uses to fetch the results it missed (:meth:`EventStore.results_since`).

Durability.  The database runs in WAL mode.  With the default ``synchronous=NORMAL`` a
transaction is in the WAL file (in the operating system's cache) when :meth:`append`
returns, so it survives the referee process crashing or being killed with SIGKILL,
which is what the referee promises; a power cut or kernel crash may lose the last few
transactions, never corrupt the file.  ``EventStore(path, durable=True)`` selects
``synchronous=FULL``: every commit is fsynced and survives power loss too, at the
cost of one disk flush per append.

An :class:`EventStore` wraps one :mod:`sqlite3` connection and is not thread-safe:
use it from one thread at a time (it may be opened in another).

>>> store = EventStore(":memory:")
>>> store.create_game(
...     GameRow("g1", "xiangqi", {}, None, ["ann", "bob"], ["t1", "t2"], {},
...             casual=True, tag="", status="waiting", created_ms=1000),
...     [StoredEvent(1, "created", b"...", 1000)])
>>> store.append("g1", [StoredEvent(2, "moved", b"...", 1500)], status="active")
>>> store.append("g1", [StoredEvent(3, "ended", b"...", 2000)],
...              finish=Finish("1-0", "checkmate", 0, ["h2e2"]))
1
>>> [e.kind for e in store.events("g1")]
['created', 'moved', 'ended']
>>> store.game("g1").status, store.game("g1").ended_ms
('finished', 2000)
>>> store.close()
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Self, get_args

from lanqi.games.base import ResultText, parse_result
from lanqi.protocol import GameStatus
from lanqi.server.database import StoreOpenError, connect, explain

__all__ = [
    "SCHEMA_VERSION",
    "ClockMark",
    "EventStore",
    "Finish",
    "GameRow",
    "SchemaError",
    "StoredEvent",
]

log = logging.getLogger(__name__)

#: Version of the schema this module writes, kept in SQLite's ``user_version``.
SCHEMA_VERSION = 1

#: How long a write of the referee's loop waits for another connection's lock before
#: failing: short, so that a store locked by another process costs the loop a moment
#: per turn (the requests are answered ``internal``), never seconds.
BUSY_TIMEOUT_MS = 50
#: How long opening the store (and creating its schema) waits for a lock.
OPEN_BUSY_TIMEOUT_MS = 5000

#: Checkpoints (see EventStore.start_checkpoints): run once the store has had no
#: commit for this long, or this long after the previous one under steady load.
CHECKPOINT_QUIET_S = 0.2
CHECKPOINT_MAX_WAIT_S = 1.0
CHECKPOINT_POLL_S = 0.05
#: A write-ahead log longer than this many frames (32 MiB of 4 KiB pages) is
#: restarted by the writer: see EventStore.start_checkpoints.
CHECKPOINT_RESTART_FRAMES = 8192
#: After a checkpoint has restarted the write-ahead log, the next commit cuts the
#: file back to this size: the file is the log's high-water mark otherwise (a burst
#: of commits left a 50 MiB log file for the rest of an 85-minute ``lanqi bench soak``).
JOURNAL_SIZE_LIMIT = 4 * 1024 * 1024
#: A failed checkpoint (disk full, I/O error) is retried after this long, doubling
#: up to CHECKPOINT_RETRY_MAX_S while it keeps failing.
CHECKPOINT_RETRY_S = 0.1
CHECKPOINT_RETRY_MAX_S = 5.0

STATUSES: tuple[GameStatus, ...] = get_args(GameStatus)
_LIST_FILTERS = {
    "all": STATUSES,
    "active": ("waiting", "active"),
    "waiting": ("waiting",),
    "finished": ("finished",),
}

_SCHEMA = (
    """
    CREATE TABLE games (
        game_id      TEXT PRIMARY KEY NOT NULL,
        variant      TEXT NOT NULL,
        options      TEXT NOT NULL,            -- JSON object
        start_fen    TEXT,
        players      TEXT NOT NULL,            -- JSON list of names
        tokens       TEXT NOT NULL,            -- JSON list of seat tokens
        time_control TEXT NOT NULL,            -- JSON object
        casual       INTEGER NOT NULL,
        tag          TEXT NOT NULL,
        status       TEXT NOT NULL CHECK (status IN ('waiting', 'active', 'finished')),
        created_ms   INTEGER NOT NULL,
        result       TEXT,
        termination  TEXT,
        winner       INTEGER,
        result_seq   INTEGER UNIQUE,           -- assigned when the game finishes
        moves        TEXT NOT NULL DEFAULT '[]',  -- JSON list, filled when finished
        ended_ms     INTEGER
    )
    """,
    "CREATE INDEX games_by_status ON games (status, created_ms)",
    """
    CREATE TABLE events (
        game_id TEXT NOT NULL REFERENCES games (game_id),
        seq     INTEGER NOT NULL CHECK (seq > 0),
        kind    TEXT NOT NULL,
        payload BLOB NOT NULL,
        at_ms   INTEGER NOT NULL,
        PRIMARY KEY (game_id, seq)
    ) WITHOUT ROWID
    """,
)

#: Tables added after schema 1, created when missing (an older lanqi ignores them, so
#: the schema version stays 1).  ``clocks``: each running game clock as the referee
#: last recorded it (see :meth:`EventStore.mark_clocks`); ``alive``: one row, the
#: wall time of the referee's latest write of it (the store's probe while it fails).
_ADDED_TABLES = (
    """
    CREATE TABLE IF NOT EXISTS clocks (
        game_id   TEXT PRIMARY KEY NOT NULL REFERENCES games (game_id),
        seq       INTEGER NOT NULL,            -- the game's last event when recorded
        remaining TEXT NOT NULL,               -- JSON list: ms left per seat
        running   INTEGER,                     -- the seat whose clock runs
        window_ms INTEGER,                     -- first-move window left (ms), if one runs
        at_ms     INTEGER NOT NULL
    ) WITHOUT ROWID
    """,
    """
    CREATE TABLE IF NOT EXISTS alive (
        id    INTEGER PRIMARY KEY CHECK (id = 1),
        at_ms INTEGER NOT NULL
    )
    """,
)

_GAME_COLUMNS = (
    "game_id, variant, options, start_fen, players, tokens, time_control, casual, tag,"
    " status, created_ms, result, termination, winner, result_seq, moves, ended_ms"
)
_SELECT_GAMES = f"SELECT {_GAME_COLUMNS} FROM games"
_INSERT_GAME = (
    f"INSERT INTO games ({_GAME_COLUMNS})"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_INSERT_EVENT = "INSERT INTO events (game_id, seq, kind, payload, at_ms) VALUES (?, ?, ?, ?, ?)"
_LAST_SEQ = "SELECT coalesce(max(seq), 0) FROM events WHERE game_id = ?"
_GAME_STATE = (
    "SELECT status, result_seq, (SELECT coalesce(max(seq), 0) FROM events WHERE game_id = ?1)"
    " FROM games WHERE game_id = ?1"
)


class SchemaError(StoreOpenError):
    """The database file is not one this version of lanqi can use."""


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """One accepted event of a game, as stored and replayed.

    ``seq`` numbers a game's events 1, 2, 3, ...; ``kind`` is the message tag (e.g.
    ``"moved"``); ``payload`` the encoded message; ``at_ms`` the wall-clock time in
    milliseconds since the epoch at which the referee accepted it.
    """

    seq: int
    kind: str
    payload: bytes
    at_ms: int


@dataclass(frozen=True, slots=True)
class GameRow:
    """What the store keeps about one game besides its events.

    ``options`` and ``time_control`` hold JSON-able values; ``players`` and ``tokens``
    are indexed by seat.  The result fields stay ``None`` (and ``moves`` empty) until
    :meth:`EventStore.append` finishes the game; ``result_seq`` is assigned there.
    """

    game_id: str
    variant: str
    options: dict[str, Any]
    start_fen: str | None
    players: list[str]
    tokens: list[str]
    time_control: dict[str, Any]
    casual: bool
    tag: str
    status: GameStatus
    created_ms: int
    result: ResultText | None = None
    termination: str | None = None
    winner: int | None = None
    result_seq: int | None = None
    moves: list[str] = field(default_factory=list)
    ended_ms: int | None = None


@dataclass(frozen=True, slots=True)
class ClockMark:
    """A running game clock as the referee recorded it at wall time ``at_ms``.

    ``seq`` is the game's last event then: a later event that sets the clock (a
    move, a takeback) supersedes the mark.  ``remaining_ms`` is the time left per
    seat, ``running`` the seat whose clock runs, ``window_ms`` the first-move
    window's time left while one runs.
    """

    seq: int
    remaining_ms: tuple[int, int]
    running: int | None
    window_ms: int | None
    at_ms: int


@dataclass(frozen=True, slots=True)
class Finish:
    """How a game ended, stored with the transaction that ends it.

    ``winner`` is the winning seat or ``None`` for a draw; ``moves`` the final move list.
    """

    result: ResultText
    termination: str
    winner: int | None
    moves: list[str]


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _status(text: str) -> GameStatus:
    for status in STATUSES:
        if text == status:
            return status
    raise ValueError(f"not a game status: {text!r}")


def _game_from_row(row: Sequence[Any]) -> GameRow:
    return GameRow(
        game_id=row[0],
        variant=row[1],
        options=json.loads(row[2]),
        start_fen=row[3],
        players=json.loads(row[4]),
        tokens=json.loads(row[5]),
        time_control=json.loads(row[6]),
        casual=bool(row[7]),
        tag=row[8],
        status=_status(row[9]),
        created_ms=row[10],
        result=None if row[11] is None else parse_result(row[11]),
        termination=row[12],
        winner=row[13],
        result_seq=row[14],
        moves=json.loads(row[15]),
        ended_ms=row[16],
    )


def _check_batch(events: Sequence[StoredEvent], after: int) -> None:
    """Raise ValueError unless ``events`` are numbered ``after + 1``, ``after + 2``, ..."""
    for expected, event in enumerate(events, start=after + 1):
        if event.seq != expected:
            got = [e.seq for e in events]
            raise ValueError(
                f"event seq {event.seq} out of order: expected {expected}"
                f" (last stored seq {after}, batch {got})"
            )


class EventStore:
    """The referee's SQLite event log and game table.

    Opening creates the file (and its parent directories) and the schema if missing;
    it raises :class:`~lanqi.server.database.StoreOpenError` (one line saying what to
    do) if the directory cannot be written or the file is not a lanqi referee store.
    Every write method is one transaction, committed when it returns; on error it is
    rolled back and nothing is written.  Use as a context manager or call
    :meth:`close`.
    """

    def __init__(self, path: str | Path, *, durable: bool = False) -> None:
        """Open (or create) the store at ``path``; ``":memory:"`` gives a private one.

        ``durable=True`` fsyncs every commit (``synchronous=FULL``); the default
        ``synchronous=NORMAL`` survives a process crash but not a power cut.
        Raises :class:`SchemaError` if the file was written by a newer lanqi or is
        some other application's database, and its base class ``StoreOpenError``
        if the directory cannot be created or written or the file is not SQLite.
        """
        self.path = path if str(path) == ":memory:" else Path(path)
        # isolation_level=None: no implicit transactions; writes use BEGIN IMMEDIATE.
        # check_same_thread=False: a service may open its store in one thread and run
        # its loop in another; it still uses the store from one thread at a time.
        self._batching = False
        #: event rows appended inside the open batch, written at its end (or before
        #: any other statement): the common append costs no statement of its own
        self._pending: list[tuple[str, int, str, bytes, int]] = []
        #: game_id -> (status, last seq) of unfinished games this connection wrote
        self._tails: dict[str, tuple[str, int]] = {}
        self._checkpointer: threading.Thread | None = None
        self._stop_checkpoints = threading.Event()
        #: commits so far and the monotonic time of the last (read by the checkpointer)
        self._commits = 0
        self._last_commit = time.monotonic()
        #: checkpoints the background thread has run, and those that failed
        self.checkpoints = 0
        self.checkpoint_failures = 0
        #: set by the checkpointer when the log has grown too long: the writer's next
        #: commit checkpoints and restarts it (:meth:`_restart_log`); restarts so far
        self._restart_due = False
        self.log_restarts = 0
        if isinstance(self.path, Path):
            self._conn = connect(self.path, timeout_s=OPEN_BUSY_TIMEOUT_MS / 1000)
        else:
            self._conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            self._open(durable=durable)
        except sqlite3.Error as exc:
            self._conn.close()
            raise explain(Path(self.path), exc) from exc
        except BaseException:
            self._conn.close()
            raise

    def _open(self, *, durable: bool) -> None:
        conn = self._conn
        conn.execute(f"PRAGMA busy_timeout = {OPEN_BUSY_TIMEOUT_MS}")
        self._check_version()  # before changing anything in a file we may not own
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA wal_autocheckpoint = 0")  # see checkpoint()
        conn.execute(f"PRAGMA journal_size_limit = {JOURNAL_SIZE_LIMIT}")
        conn.execute(f"PRAGMA synchronous = {'FULL' if durable else 'NORMAL'}")
        conn.execute("PRAGMA foreign_keys = ON")
        with self._transaction():
            if self._check_version() == 0:  # again: another process may have got here first
                for statement in _SCHEMA:
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                log.info("created referee store %s (schema %d)", self.path, SCHEMA_VERSION)
            for statement in _ADDED_TABLES:
                conn.execute(statement)
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")

    def _check_version(self) -> int:
        """The file's schema version (0: empty file); SchemaError if we cannot use it."""
        version: int = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise SchemaError(
                f"{self.path}: referee store has schema version {version}, newer than the"
                f" {SCHEMA_VERSION} this lanqi understands; upgrade lanqi or use another"
                " data directory"
            )
        if version == 0 and self._conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
            raise SchemaError(
                f"{self.path}: not a lanqi referee database (it has tables but no lanqi"
                " schema version); use another data directory"
            )
        return version

    @property
    def _db(self) -> sqlite3.Connection:
        """The connection, with the open batch's queued event rows written first."""
        if self._pending:
            self._conn.executemany(_INSERT_EVENT, self._pending)
            self._pending.clear()
        return self._conn

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: committed on normal exit, rolled back on error.

        Inside :meth:`batch` it is a savepoint of the batch's transaction instead:
        a failed write is undone alone, and everything commits with the batch.
        """
        conn = self._db
        if self._batching:
            conn.execute("SAVEPOINT write")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK TO write")
                conn.execute("RELEASE write")
                raise
            conn.execute("RELEASE write")
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
            conn.execute("COMMIT")
            self._committed()
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Group the writes made inside into one committed transaction (group commit).

        Nothing written inside is durable until the block ends without an error;
        the caller must not announce any of it before then.
        """
        if self._batching:
            yield
            return
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        self._batching = True
        try:
            yield
            self._db.execute("COMMIT")
            self._committed()
        except BaseException:
            self._pending.clear()
            self._tails.clear()  # rolled back: what they said may be gone
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        finally:
            self._batching = False

    def _committed(self) -> None:
        self._commits += 1
        self._last_commit = time.monotonic()
        if self._restart_due:
            self._restart_log()

    def _restart_log(self) -> None:
        """Checkpoint from the writer's own connection, between two of its commits, so
        that the next commit writes the log from its start again.

        A checkpoint from another connection never finishes while commits keep coming
        (those made during it are left for the next one), and SQLite restarts the log
        only after one that finished: under a load that never pauses the log file grows
        without end (measured in ``lanqi bench soak``: 5 MiB/s at 16 random games at
        once, 600 MiB in two minutes).  Here no commit can come in between, so the
        checkpoint copies the whole log and the next commit starts it over; what is
        left to copy is what came since the checkpointer's last pass (at most
        ``max_wait_s`` of commits).  It is ``PASSIVE``: it never waits for another
        connection; while the checkpointer's own pass runs it does nothing, and the
        next pass that finds the log long asks again.  It costs the loop one copy and
        sync (measured: p50 50 ms, at most 0.3 s, on two cores at a load average of
        42, the log growing 60 MiB/s), once per ``restart_frames`` of log, and only
        under a load that never pauses.  A failure (disk full) leaves the log as it
        is: the commit has been made.
        """
        self._restart_due = False
        try:
            checkpoint = self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            busy, frames, copied = checkpoint[0]
        except sqlite3.Error as exc:
            log.debug("restarting the log of %s failed: %s", self.path, exc)
            return
        if not busy and frames == copied:
            self.log_restarts += 1

    def start_checkpoints(
        self,
        *,
        quiet_s: float = CHECKPOINT_QUIET_S,
        max_wait_s: float = CHECKPOINT_MAX_WAIT_S,
        restart_frames: int = CHECKPOINT_RESTART_FRAMES,
    ) -> None:
        """Fold the write-ahead log into the database file from a thread of its own.

        The store turns SQLite's automatic checkpoint off, so that no commit of the
        referee's loop pays for one (it took ~4 ms every few hundred commits); a
        second connection checkpoints (``PASSIVE``: it never takes the writer's lock).
        A checkpoint syncs the log to disk first, and the loop's commits that come
        during that sync can wait for the disk (measured: stalls of 2-14 ms, about
        one a second, at 3,000 commits/s).  So a checkpoint runs as soon as the store
        has had no commit for ``quiet_s``, which a LAN tournament gives all the
        time, and under load that never pauses ``max_wait_s`` after the previous one
        (a longer wait lets the log grow, and every commit gets slower with it).
        A checkpoint that fails (disk full) is retried with back-off, up to every
        ``CHECKPOINT_RETRY_MAX_S``, and logged once until one succeeds again.
        When a checkpoint finds the log longer than ``restart_frames`` frames (the
        load has not paused long enough for one to finish and restart it), the
        writer's next commit checkpoints and restarts it (:meth:`_restart_log`).
        """
        if not isinstance(self.path, Path) or self._checkpointer is not None:
            return
        path = self.path

        def run() -> None:
            conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
            folded = -1  # commits folded into the database file (-1: fold what is there)
            last = time.monotonic()
            retry_s = 0.0  # while failing: the wait before the next attempt
            failing: str | None = None  # the error of the current run of failures
            try:
                while not self._stop_checkpoints.wait(retry_s or CHECKPOINT_POLL_S):
                    now = time.monotonic()
                    if self._commits == folded or not (
                        retry_s or now - self._last_commit >= quiet_s or now - last >= max_wait_s
                    ):
                        continue
                    commits = self._commits
                    try:
                        rows = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                    except sqlite3.Error as exc:  # disk full, I/O error: try again later
                        self.checkpoint_failures += 1
                        retry_s = min(CHECKPOINT_RETRY_MAX_S, max(CHECKPOINT_RETRY_S, 2 * retry_s))
                        if failing is None:  # logged once per run of failures
                            failing = str(exc)
                            log.warning(
                                "checkpoints of %s failing (%s); the write-ahead log grows"
                                " until they succeed; retrying every %.0f s at most",
                                path,
                                failing,
                                CHECKPOINT_RETRY_MAX_S,
                            )
                        continue
                    folded = commits
                    last = time.monotonic()
                    self.checkpoints += 1
                    if rows[0][1] > restart_frames:  # (busy, frames in the log, copied)
                        self._restart_due = True
                    if failing is not None:
                        log.warning("checkpoints of %s work again (after: %s)", path, failing)
                        failing = None
                    retry_s = 0.0
            finally:
                conn.close()

        self._checkpointer = threading.Thread(target=run, name="store-checkpoint", daemon=True)
        self._checkpointer.start()

    # -- writes ---------------------------------------------------------------------

    def create_game(self, game: GameRow, events: Sequence[StoredEvent]) -> None:
        """Store a new game and its first events (numbered from 1) in one transaction.

        Raises ValueError if ``game_id`` already exists, the status is not
        ``"waiting"`` or ``"active"``, or the events are misnumbered.
        """
        if game.status not in ("waiting", "active"):
            raise ValueError(f"a new game must be waiting or active, not {game.status!r}")
        _check_batch(events, 0)
        row = (
            game.game_id,
            game.variant,
            _json(game.options),
            game.start_fen,
            _json(game.players),
            _json(game.tokens),
            _json(game.time_control),
            int(game.casual),
            game.tag,
            game.status,
            game.created_ms,
            game.result,
            game.termination,
            game.winner,
            None,  # result_seq: assigned when the game finishes
            _json(game.moves),
            game.ended_ms,
        )
        try:
            with self._transaction() as conn:
                conn.execute(_INSERT_GAME, row)
                conn.executemany(
                    _INSERT_EVENT,
                    [(game.game_id, e.seq, e.kind, e.payload, e.at_ms) for e in events],
                )
            self._tails[game.game_id] = (game.status, events[-1].seq if events else 0)
        except sqlite3.IntegrityError as exc:
            if self.game(game.game_id) is not None:
                raise ValueError(f"game {game.game_id!r} already exists") from exc
            raise

    def append(
        self,
        game_id: str,
        events: Sequence[StoredEvent],
        *,
        status: str | None = None,
        finish: Finish | None = None,
    ) -> int | None:
        """Append ``events`` to a game and update it, as one committed transaction.

        The events must continue the game's log: numbered ``last_seq + 1``,
        ``last_seq + 2``, ... (a gap or a repeat means the caller applied something
        twice or lost something, and raises ValueError with nothing written).
        ``status`` sets ``"waiting"`` or ``"active"``.  ``finish`` ends the game: it
        stores the result, marks it finished, sets ``ended_ms`` to the last event's
        ``at_ms`` (the wall clock if there is none) and assigns the next store-wide
        ``result_seq``, which is returned; otherwise returns None.  Events may still
        be appended to a finished game (post-game chat), but it cannot be finished
        twice or have its status changed.
        """
        if status is not None and status not in ("waiting", "active"):
            raise ValueError(
                f"status must be 'waiting' or 'active', not {status!r} (pass finish= to end a game)"
            )
        if events:
            _check_batch(events, events[0].seq - 1)  # contiguous; start checked below
        tail = self._tails.get(game_id)
        if self._batching and finish is None and tail is not None and events:
            current, last = tail
            if status is None or status == current:
                if events[0].seq != last + 1:
                    _check_batch(events, last)
                # fast path: queued, written with the batch (see _db)
                self._pending.extend((game_id, e.seq, e.kind, e.payload, e.at_ms) for e in events)
                self._tails[game_id] = (current, events[-1].seq)
                return None
        with self._transaction() as conn:
            state = conn.execute(_GAME_STATE, (game_id,)).fetchone()
            if state is None:
                raise ValueError(f"no game {game_id!r}")
            current, result_seq, last = state
            if events and events[0].seq != last + 1:
                _check_batch(events, last)
            if current == "finished" and (status is not None or finish is not None):
                raise ValueError(f"game {game_id!r} is already finished (result_seq {result_seq})")
            if events:
                conn.executemany(
                    _INSERT_EVENT,
                    [(game_id, e.seq, e.kind, e.payload, e.at_ms) for e in events],
                )
            if finish is not None:
                ended_ms = events[-1].at_ms if events else int(time.time() * 1000)
                (result_seq,) = conn.execute(
                    "SELECT coalesce(max(result_seq), 0) + 1 FROM games"
                ).fetchone()
                conn.execute(
                    "UPDATE games SET status = 'finished', result = ?, termination = ?,"
                    " winner = ?, moves = ?, ended_ms = ?, result_seq = ? WHERE game_id = ?",
                    (
                        finish.result,
                        finish.termination,
                        finish.winner,
                        _json(finish.moves),
                        ended_ms,
                        result_seq,
                        game_id,
                    ),
                )
                conn.execute("DELETE FROM clocks WHERE game_id = ?", (game_id,))
                self._tails.pop(game_id, None)
                return int(result_seq)
            if status is not None and status != current:
                conn.execute("UPDATE games SET status = ? WHERE game_id = ?", (status, game_id))
                current = status
        if current != "finished":
            self._tails[game_id] = (current, events[-1].seq if events else last)
        return None

    def mark_clocks(self, marks: dict[str, ClockMark], at_ms: int) -> None:
        """Record the running clocks of unfinished games, and ``at_ms`` as the
        referee's latest sign of life, in one transaction (or the open batch).

        The referee calls this a few times a second while clocks run, so that a
        restart charges the side to move for the time it used before a crash.  With
        no ``marks`` it is the one-row write the referee probes a failing store with.
        """
        with self._transaction() as conn:
            conn.execute(
                "INSERT INTO alive (id, at_ms) VALUES (1, ?)"
                " ON CONFLICT (id) DO UPDATE SET at_ms = excluded.at_ms",
                (at_ms,),
            )
            conn.executemany(
                "INSERT INTO clocks (game_id, seq, remaining, running, window_ms, at_ms)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (game_id) DO UPDATE SET"
                " seq = excluded.seq, remaining = excluded.remaining,"
                " running = excluded.running, window_ms = excluded.window_ms,"
                " at_ms = excluded.at_ms",
                [
                    (
                        game_id,
                        mark.seq,
                        _json(list(mark.remaining_ms)),
                        mark.running,
                        mark.window_ms,
                        mark.at_ms,
                    )
                    for game_id, mark in marks.items()
                ],
            )

    # -- reads ----------------------------------------------------------------------

    def clock_mark(self, game_id: str) -> ClockMark | None:
        """The game's clock as last recorded by :meth:`mark_clocks`, or None."""
        row = self._db.execute(
            "SELECT seq, remaining, running, window_ms, at_ms FROM clocks WHERE game_id = ?",
            (game_id,),
        ).fetchone()
        if row is None:
            return None
        seq, remaining, running, window_ms, at_ms = row
        left = json.loads(remaining)
        return ClockMark(seq, (int(left[0]), int(left[1])), running, window_ms, at_ms)

    def game(self, game_id: str) -> GameRow | None:
        """The stored row of ``game_id``, or None if there is no such game."""
        row = self._db.execute(f"{_SELECT_GAMES} WHERE game_id = ?", (game_id,)).fetchone()
        return None if row is None else _game_from_row(row)

    def events(self, game_id: str, after_seq: int = 0) -> list[StoredEvent]:
        """The game's events with ``seq > after_seq``, in seq order ([] if unknown)."""
        rows = self._db.execute(
            "SELECT seq, kind, payload, at_ms FROM events WHERE game_id = ? AND seq > ?"
            " ORDER BY seq",
            (game_id, after_seq),
        )
        return [StoredEvent(seq, kind, bytes(payload), at_ms) for seq, kind, payload, at_ms in rows]

    def last_seq(self, game_id: str) -> int:
        """The seq of the game's last stored event; 0 if it has none or is unknown."""
        last: int = self._db.execute(_LAST_SEQ, (game_id,)).fetchone()[0]
        return last

    def unfinished_games(self) -> list[GameRow]:
        """Every game not finished (waiting or active), oldest first: what to replay."""
        rows = self._db.execute(
            f"{_SELECT_GAMES} WHERE status != 'finished' ORDER BY created_ms, rowid"
        )
        return [_game_from_row(row) for row in rows]

    def list_games(self, status: str = "all", limit: int = 100) -> list[GameRow]:
        """Up to ``limit`` games, newest first.

        ``status`` is ``"all"``, ``"waiting"``, ``"finished"`` or ``"active"`` (which
        means not finished: waiting or active).
        """
        try:
            statuses = _LIST_FILTERS[status]
        except KeyError:
            raise ValueError(
                f"status must be one of {', '.join(_LIST_FILTERS)}, not {status!r}"
            ) from None
        if limit < 0:
            raise ValueError(f"limit must not be negative, not {limit}")
        marks = ", ".join("?" * len(statuses))
        rows = self._db.execute(
            f"{_SELECT_GAMES} WHERE status IN ({marks})"
            " ORDER BY created_ms DESC, rowid DESC LIMIT ?",
            (*statuses, limit),
        )
        return [_game_from_row(row) for row in rows]

    def results_since(self, after: int, limit: int = 100) -> list[GameRow]:
        """Finished games with ``result_seq > after``, ascending by result_seq.

        Page through all results by passing the last returned ``result_seq`` back.
        """
        if limit < 0:
            raise ValueError(f"limit must not be negative, not {limit}")
        rows = self._db.execute(
            f"{_SELECT_GAMES} WHERE result_seq > ? ORDER BY result_seq LIMIT ?",
            (after, limit),
        )
        return [_game_from_row(row) for row in rows]

    def max_result_seq(self) -> int:
        """The highest result_seq assigned so far; 0 if no game has finished."""
        row = self._db.execute("SELECT coalesce(max(result_seq), 0) FROM games").fetchone()
        return int(row[0])

    # -- lifetime -------------------------------------------------------------------

    def close(self) -> None:
        """Close the database; further calls fail.  Closing twice is harmless."""
        self._stop_checkpoints.set()
        if self._checkpointer is not None:
            self._checkpointer.join(timeout=5)
            self._checkpointer = None
        if isinstance(self.path, Path):
            # closed already, or busy: then the log is folded in at the next open
            with contextlib.suppress(sqlite3.Error):
                self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
        self._conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
