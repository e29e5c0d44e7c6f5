"""The referee's SQLite event store, on real database files."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lanqi.games.base import ResultText
from lanqi.referee import store as store_module
from lanqi.referee.store import EventStore, Finish, GameRow, SchemaError, StoredEvent


def make_game(game_id: str, created_ms: int = 1_000, **changes: Any) -> GameRow:
    fields: dict[str, Any] = {
        "game_id": game_id,
        "variant": "xiangqi",
        "options": {"rated": True, "size": 15, "komi": 0.5, "note": None},
        "start_fen": None,
        "players": ["ann", "bob"],
        "tokens": [f"{game_id}-red", f"{game_id}-black"],
        "time_control": {"base_ms": 300_000, "increment_ms": 2_000},
        "casual": False,
        "tag": "round-1",
        "status": "waiting",
        "created_ms": created_ms,
    }
    fields.update(changes)
    return GameRow(**fields)


def ev(seq: int, kind: str = "moved", at_ms: int | None = None) -> StoredEvent:
    return StoredEvent(seq, kind, f"payload {seq}".encode() + b"\x00\xff", at_ms or 1_000 + seq)


def finish(result: ResultText = "1-0", winner: int | None = 0) -> Finish:
    return Finish(result, "checkmate", winner, ["h2e2", "h9g7"])


def snapshot(path: Path) -> tuple[list[Any], list[Any]]:
    """Every row of both tables, read through a separate connection."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        games = conn.execute("SELECT * FROM games ORDER BY game_id").fetchall()
        events = conn.execute("SELECT * FROM events ORDER BY game_id, seq").fetchall()
    finally:
        conn.close()
    return games, events


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "data" / "referee.sqlite3"


@pytest.fixture
def store(db: Path) -> Iterator[EventStore]:
    with EventStore(db) as opened:
        yield opened


@pytest.mark.parametrize("durable", [False, True], ids=["normal", "full"])
def test_create_append_and_read_back(db: Path, durable: bool) -> None:
    with EventStore(db, durable=durable) as store:
        game = make_game("g1", start_fen="9/9/9 w")
        store.create_game(game, [ev(1, "created"), ev(2, "joined")])
        assert store.game("g1") == game
        assert store.last_seq("g1") == 2

        assert store.append("g1", [ev(3, "joined")], status="active") is None
        assert store.append("g1", [ev(4), ev(5), ev(6, "draw_offered")]) is None
        assert store.game("g1") == make_game("g1", start_fen="9/9/9 w", status="active")
        assert store.events("g1") == [
            ev(1, "created"),
            ev(2, "joined"),
            ev(3, "joined"),
            ev(4),
            ev(5),
            ev(6, "draw_offered"),
        ]
        assert [e.seq for e in store.events("g1", after_seq=4)] == [5, 6]
        assert store.events("g1", after_seq=6) == []
        assert store.last_seq("g1") == 6
        assert isinstance(store.events("g1")[0].payload, bytes)


def test_parent_directories_are_created(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "c" / "referee.sqlite3"
    with EventStore(path):
        pass
    assert path.exists()


def test_unknown_game_reads_as_empty(store: EventStore) -> None:
    assert store.game("nope") is None
    assert store.events("nope") == []
    assert store.last_seq("nope") == 0
    with pytest.raises(ValueError, match="no game 'nope'"):
        store.append("nope", [ev(1)])


def test_game_without_events_continues_from_one(store: EventStore) -> None:
    store.create_game(make_game("g1"), [])
    assert store.last_seq("g1") == 0
    with pytest.raises(ValueError, match="expected 1"):
        store.append("g1", [ev(2)])
    store.append("g1", [ev(1)])
    assert store.events("g1") == [ev(1)]


@pytest.mark.parametrize(
    ("batch", "kwargs"),
    [
        pytest.param([ev(5)], {}, id="gap"),
        pytest.param([ev(3)], {}, id="repeat-last"),
        pytest.param([ev(1)], {}, id="restart"),
        pytest.param([ev(4), ev(6)], {}, id="gap-inside-batch"),
        pytest.param([ev(4), ev(4)], {}, id="repeat-inside-batch"),
        pytest.param([ev(4), ev(3)], {}, id="decreasing"),
        pytest.param([ev(3), ev(4)], {}, id="overlap"),
        pytest.param([ev(5)], {"status": "active"}, id="gap-with-status"),
        pytest.param([ev(3, "ended")], {"finish": finish()}, id="repeat-with-finish"),
    ],
)
def test_misnumbered_events_are_refused_and_nothing_is_written(
    db: Path, store: EventStore, batch: list[StoredEvent], kwargs: dict[str, Any]
) -> None:
    store.create_game(make_game("g1"), [ev(1, "created"), ev(2), ev(3)])
    before = snapshot(db)
    with pytest.raises(ValueError, match="out of order"):
        store.append("g1", batch, **kwargs)
    assert snapshot(db) == before
    assert store.max_result_seq() == 0
    # The store is still usable and the log continues where it was.
    store.append("g1", [ev(4)])
    assert store.last_seq("g1") == 4


def test_a_failure_midway_rolls_the_whole_transaction_back(db: Path, store: EventStore) -> None:
    store.create_game(make_game("g1"), [ev(1)])
    before = snapshot(db)
    broken = StoredEvent(3, "moved", None, 1_003)  # type: ignore[arg-type]  # NOT NULL payload
    with pytest.raises(sqlite3.IntegrityError):
        store.append("g1", [ev(2), broken], finish=finish())
    assert snapshot(db) == before
    assert store.append("g1", [ev(2)]) is None


def test_appends_in_a_batch_are_written_when_it_commits(db: Path, store: EventStore) -> None:
    for game_id in ("g1", "g2"):
        store.create_game(make_game(game_id), [ev(1, "created")])
    before = snapshot(db)
    with store.batch():
        assert store.append("g1", [ev(2)]) is None
        assert store.append("g2", [ev(2), ev(3)]) is None
        assert store.append("g1", [ev(3)]) is None
        assert snapshot(db) == before  # nothing is visible outside until the commit
        # ... but reads inside the batch see every append so far
        assert [e.seq for e in store.events("g1")] == [1, 2, 3]
        assert store.last_seq("g2") == 3
        assert store.append("g1", [ev(4)]) is None
    assert [e.seq for e in store.events("g1")] == [1, 2, 3, 4]
    _, events = snapshot(db)
    assert [(game_id, seq) for game_id, seq, *_ in events] == [
        ("g1", 1),
        ("g1", 2),
        ("g1", 3),
        ("g1", 4),
        ("g2", 1),
        ("g2", 2),
        ("g2", 3),
    ]


def test_misnumbered_appends_in_a_batch_are_refused_alone(db: Path, store: EventStore) -> None:
    store.create_game(make_game("g1"), [ev(1, "created")])
    store.create_game(make_game("g2"), [ev(1, "created")])
    with store.batch():
        store.append("g2", [ev(2)])
        for wrong in ([ev(3)], [ev(1)], [ev(2), ev(4)]):
            with pytest.raises(ValueError, match="out of order"):
                store.append("g1", wrong)
        store.append("g1", [ev(2)])  # the log continues where it was
    assert [e.seq for e in store.events("g1")] == [1, 2]
    assert [e.seq for e in store.events("g2")] == [1, 2]


def test_a_batch_that_fails_writes_nothing(db: Path, store: EventStore) -> None:
    store.create_game(make_game("g1"), [ev(1, "created")])
    before = snapshot(db)
    with pytest.raises(RuntimeError), store.batch():
        store.append("g1", [ev(2)])
        store.append("g1", [ev(3)], status="active")
        store.append("g1", [ev(4)])
        raise RuntimeError("the caller failed before the commit")
    assert snapshot(db) == before
    assert store.last_seq("g1") == 1
    # What the failed batch said about the game is forgotten: it goes on from seq 2.
    with store.batch():
        store.append("g1", [ev(2)])
    assert [e.seq for e in store.events("g1")] == [1, 2]
    row = store.game("g1")
    assert row is not None and row.status == "waiting"


class TurnCounter(threading.Event):
    """The checkpointer's stop event, counting its loop turns (each a chance to checkpoint)."""

    def __init__(self) -> None:
        super().__init__()
        self.turns = 0
        self._turned = threading.Condition()

    def wait(self, timeout: float | None = None) -> bool:
        with self._turned:
            self.turns += 1
            self._turned.notify_all()
        return super().wait(timeout)

    def after(self, turns: int, limit_s: float = 30.0) -> None:
        """Block until ``turns`` more loop turns have begun (a timeout is a failure)."""
        with self._turned:
            target = self.turns + turns
            assert self._turned.wait_for(lambda: self.turns >= target, limit_s), (
                "checkpointer stuck"
            )

    def until(self, condition: Callable[[], bool], limit_s: float = 30.0) -> None:
        """Check ``condition`` after every turn until it holds (a timeout is a failure)."""
        with self._turned:
            assert self._turned.wait_for(condition, limit_s), "condition never held"


def counted(store: EventStore) -> TurnCounter:
    counter = TurnCounter()
    store._stop_checkpoints = counter
    return counter


def folded_events(db: Path, scratch: Path) -> int:
    """Events in the database file alone, without its write-ahead log: what the
    checkpoints have folded in so far."""
    copy = scratch / "folded.sqlite3"
    copy.write_bytes(db.read_bytes())
    conn = sqlite3.connect(copy)
    try:
        return int(conn.execute("SELECT count(*) FROM events").fetchone()[0])
    except sqlite3.OperationalError:  # not even the schema folded in yet
        return 0
    finally:
        conn.close()
        copy.unlink()


def test_checkpoints_run_once_the_store_is_quiet(db: Path, tmp_path: Path) -> None:
    with EventStore(db) as store:
        turns = counted(store)
        store.start_checkpoints(quiet_s=0.05, max_wait_s=3600)
        store.create_game(make_game("g1"), [ev(1, "created")])
        for seq in range(2, 6):
            store.append("g1", [ev(seq)])
        turns.until(lambda: folded_events(db, tmp_path) == 5)
        turns.after(2)  # the turn that folded them has finished its bookkeeping
        done = store.checkpoints
        assert done >= 1
        turns.after(10)  # ten more chances, quiet, but nothing new to fold
        assert store.checkpoints == done
        store.append("g1", [ev(6)])  # something new: folded once the store is quiet
        turns.until(lambda: store.checkpoints == done + 1)


def test_steady_writes_still_get_checkpoints(db: Path) -> None:
    with EventStore(db) as store:
        store.create_game(make_game("g1"), [ev(1, "created")])
        turns = counted(store)
        store.start_checkpoints(quiet_s=3600, max_wait_s=0.1)
        seq = 1
        # A write every turn of the checkpointer: never quiet for an hour, so only
        # the longest wait can start a checkpoint.
        while store.checkpoints < 2:
            seq += 1
            store.append("g1", [ev(seq)])
            turns.after(1)
            assert turns.turns < 1000, "no checkpoint under steady writes"
    assert [e.seq for e in EventStore(db).events("g1")] == list(range(1, seq + 1))


def test_writes_that_never_pause_do_not_grow_the_log_without_end(db: Path) -> None:
    """Under commits that never pause, no checkpoint from the checkpointer's own
    connection finishes (commits made during it are left over), so SQLite never
    restarts the log: it grew by every commit (5 MiB/s in ``lanqi bench soak``).  The
    writer restarts it once a pass finds it longer than ``restart_frames``."""
    wal = Path(f"{db}-wal")
    with EventStore(db) as store:
        store.create_game(make_game("g1"), [ev(1, "created")])
        store.start_checkpoints(quiet_s=3600, max_wait_s=0.02, restart_frames=64)
        seq, longest = 1, 0
        while store.checkpoints < 40:  # back to back: never quiet
            seq += 1
            store.append("g1", [ev(seq)])
            longest = max(longest, wal.stat().st_size)
        page = store._conn.execute("PRAGMA page_size").fetchone()[0]
    frames = longest // (page + 24)  # a frame: a 24-byte header and a page
    # every commit writes at least one frame: the log held a small share of them
    assert frames < seq / 4, f"the log grew to {frames} frames over {seq} commits"
    assert [e.seq for e in EventStore(db).events("g1")] == list(range(1, seq + 1))


def test_a_burst_of_writes_leaves_no_large_log_file_behind(db: Path) -> None:
    """A burst grows the write-ahead log file; once a checkpoint has folded it in and
    the next commit restarts the log, that commit cuts the file back to
    ``JOURNAL_SIZE_LIMIT`` (without it the file stays at the burst's size for as long
    as the store is open: 49.5 MiB in an 85-minute soak)."""
    wal = Path(f"{db}-wal")
    big = b"x" * 3000  # about a page an event
    with EventStore(db) as store:
        store.create_game(make_game("g1"), [ev(1, "created")])
        for seq in range(2, 2000):  # ~8 MiB of log: no checkpoint runs yet
            store.append("g1", [StoredEvent(seq, "moved", big, 1_000 + seq)])
        burst = wal.stat().st_size
        assert burst > 2 * store_module.JOURNAL_SIZE_LIMIT
        turns = counted(store)
        store.start_checkpoints(quiet_s=0.0, max_wait_s=3600)
        turns.until(lambda: store.checkpoints >= 1)  # the whole log folded in
        store.append("g1", [ev(2000)])  # restarts the log, and cuts the file
        after = wal.stat().st_size
    assert after <= store_module.JOURNAL_SIZE_LIMIT, f"log file {burst} -> {after} bytes"
    assert [e.seq for e in EventStore(db).events("g1")] == list(range(1, 2001))


def test_misnumbered_first_events_refuse_the_game(db: Path, store: EventStore) -> None:
    store.create_game(make_game("g0"), [ev(1, "created")])
    before = snapshot(db)
    for batch in ([ev(2)], [ev(1), ev(3)], [ev(1), ev(1)]):
        with pytest.raises(ValueError, match="out of order"):
            store.create_game(make_game("g1"), batch)
    assert snapshot(db) == before
    assert store.game("g1") is None


def test_duplicate_game_id_is_refused(db: Path, store: EventStore) -> None:
    store.create_game(make_game("g1"), [ev(1, "created")])
    before = snapshot(db)
    with pytest.raises(ValueError, match="game 'g1' already exists"):
        store.create_game(make_game("g1", variant="gomoku"), [ev(1, "created")])
    with pytest.raises(ValueError, match="game 'g1' already exists"):
        store.create_game(make_game("g1"), [])
    assert snapshot(db) == before
    assert store.game("g1") == make_game("g1")


def test_new_game_must_not_be_finished(store: EventStore) -> None:
    with pytest.raises(ValueError, match="waiting or active"):
        store.create_game(make_game("g1", status="finished"), [ev(1)])
    assert store.game("g1") is None


def test_status_values_are_checked(db: Path, store: EventStore) -> None:
    store.create_game(make_game("g1"), [ev(1)])
    before = snapshot(db)
    for bad in ("finished", "paused", "all"):
        with pytest.raises(ValueError, match="status must be"):
            store.append("g1", [ev(2)], status=bad)
    assert snapshot(db) == before


def test_finish_assigns_increasing_result_seq_across_games(store: EventStore) -> None:
    for n in range(4):
        store.create_game(make_game(f"g{n}", created_ms=n), [ev(1, "created")])
    assert store.max_result_seq() == 0

    assert store.append("g2", [ev(2, "ended", at_ms=9_000)], finish=finish()) == 1
    assert (
        store.append("g0", [ev(2), ev(3, "ended", at_ms=7_000)], finish=finish("1/2-1/2", None))
        == 2
    )
    assert store.append("g3", [ev(2, "ended", at_ms=8_000)], finish=finish("0-1", 1)) == 3
    assert store.max_result_seq() == 3

    g0 = store.game("g0")
    assert g0 is not None
    assert (g0.status, g0.result, g0.termination, g0.winner, g0.result_seq, g0.ended_ms) == (
        "finished",
        "1/2-1/2",
        "checkmate",
        None,
        2,
        7_000,
    )
    assert g0.moves == ["h2e2", "h9g7"]
    unfinished = store.game("g1")
    assert unfinished is not None
    assert (unfinished.result_seq, unfinished.result, unfinished.moves) == (None, None, [])


def test_a_game_finishes_once(db: Path, store: EventStore) -> None:
    store.create_game(make_game("g1"), [ev(1)])
    assert store.append("g1", [ev(2, "ended")], finish=finish()) == 1
    before = snapshot(db)
    with pytest.raises(ValueError, match="already finished"):
        store.append("g1", [ev(3, "ended")], finish=finish("0-1", 1))
    with pytest.raises(ValueError, match="already finished"):
        store.append("g1", [ev(3)], status="active")
    assert snapshot(db) == before
    # Post-game events (chat) may still be logged; the result stays.
    assert store.append("g1", [ev(3, "chat")]) is None
    after = store.game("g1")
    assert after is not None
    assert (after.status, after.result_seq, store.last_seq("g1")) == ("finished", 1, 3)


def test_finish_without_events_uses_the_wall_clock(store: EventStore) -> None:
    store.create_game(make_game("g1"), [ev(1)])
    assert store.append("g1", [], finish=finish()) == 1
    row = store.game("g1")
    assert row is not None
    assert row.ended_ms is not None
    assert row.ended_ms > 1_600_000_000_000


def test_results_since_pages_in_result_order(store: EventStore) -> None:
    for n in range(7):
        store.create_game(make_game(f"g{n}", created_ms=n), [ev(1)])
    order = ["g3", "g0", "g6", "g1", "g5"]  # g2 and g4 stay unfinished
    for game_id in order:
        store.append(game_id, [ev(2, "ended")], finish=finish())

    pages: list[list[str]] = []
    after = 0
    while page := store.results_since(after, limit=2):
        pages.append([g.game_id for g in page])
        assert [g.result_seq for g in page] == list(range(after + 1, after + 1 + len(page)))
        last = page[-1].result_seq
        assert last is not None
        after = last
    assert pages == [["g3", "g0"], ["g6", "g1"], ["g5"]]
    assert [g.game_id for g in store.results_since(0)] == order
    assert [g.game_id for g in store.results_since(3)] == ["g1", "g5"]
    assert store.results_since(5) == []
    assert store.results_since(0, limit=0) == []


def test_unfinished_games_exclude_finished_oldest_first(store: EventStore) -> None:
    store.create_game(make_game("new", created_ms=3_000), [ev(1)])
    store.create_game(make_game("old", created_ms=1_000), [ev(1)])
    store.create_game(make_game("done", created_ms=500), [ev(1)])
    store.create_game(make_game("mid", created_ms=2_000, status="active"), [ev(1)])
    store.append("done", [ev(2, "ended")], finish=finish())
    store.append("old", [ev(2)], status="active")

    unfinished = store.unfinished_games()
    assert [g.game_id for g in unfinished] == ["old", "mid", "new"]
    assert [g.status for g in unfinished] == ["active", "active", "waiting"]


def test_list_games_filters_newest_first(store: EventStore) -> None:
    store.create_game(make_game("w1", created_ms=1), [ev(1)])
    store.create_game(make_game("a1", created_ms=2, status="active"), [ev(1)])
    store.create_game(make_game("f1", created_ms=3), [ev(1)])
    store.create_game(make_game("w2", created_ms=4), [ev(1)])
    store.append("f1", [ev(2, "ended")], finish=finish())

    def ids(status: str, limit: int = 100) -> list[str]:
        return [g.game_id for g in store.list_games(status, limit)]

    assert ids("all") == ["w2", "f1", "a1", "w1"]
    assert ids("active") == ["w2", "a1", "w1"]
    assert ids("waiting") == ["w2", "w1"]
    assert ids("finished") == ["f1"]
    assert ids("all", limit=2) == ["w2", "f1"]
    assert [g.game_id for g in store.list_games()] == ids("all")
    with pytest.raises(ValueError, match="status must be one of"):
        store.list_games("over")
    with pytest.raises(ValueError, match="limit"):
        store.list_games("all", -1)


def test_reopening_the_file_sees_everything(db: Path) -> None:
    with EventStore(db) as store:
        store.create_game(make_game("g1", created_ms=1), [ev(1, "created")])
        store.create_game(make_game("g2", created_ms=2), [ev(1, "created")])
        store.append("g1", [ev(2), ev(3)], status="active")
        store.append("g2", [ev(2, "ended")], finish=finish("0-1", 1))
        games = {g.game_id: g for g in store.list_games()}
        events = {gid: store.events(gid) for gid in games}

    with EventStore(db) as reopened:
        assert {g.game_id: g for g in reopened.list_games()} == games
        assert {gid: reopened.events(gid) for gid in games} == events
        assert [g.game_id for g in reopened.unfinished_games()] == ["g1"]
        assert reopened.max_result_seq() == 1
        assert reopened.append("g1", [ev(4, "ended")], finish=finish()) == 2


def test_append_survives_sigkill_right_after_it_returns(db: Path) -> None:
    with EventStore(db) as store:
        store.create_game(make_game("g1"), [ev(1, "created")])

    script = textwrap.dedent(
        f"""
        import os, sys
        from lanqi.referee.store import EventStore, Finish, StoredEvent
        store = EventStore(sys.argv[1])  # never closed: no checkpoint, no clean shutdown
        store.append("g1", [StoredEvent(2, "moved", b"h2e2", 2000)], status="active")
        result_seq = store.append(
            "g1", [StoredEvent(3, "ended", b"\\x00end", 3000)],
            finish=Finish("1-0", "resignation", 0, ["h2e2"]),
        )
        assert result_seq == 1, result_seq
        os.kill(os.getpid(), {int(signal.SIGKILL)})
        """
    )
    services = Path(store_module.__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(services)}
    child = subprocess.run(
        [sys.executable, "-c", script, str(db)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert child.returncode == -signal.SIGKILL, child.stderr
    # The killed process left its commits in the write-ahead log, not yet checkpointed.
    assert Path(f"{db}-wal").stat().st_size > 0

    with EventStore(db) as reopened:
        assert reopened.events("g1") == [
            ev(1, "created"),
            StoredEvent(2, "moved", b"h2e2", 2000),
            StoredEvent(3, "ended", b"\x00end", 3000),
        ]
        row = reopened.game("g1")
        assert row is not None
        assert (row.status, row.result, row.termination, row.result_seq) == (
            "finished",
            "1-0",
            "resignation",
            1,
        )
        assert reopened.results_since(0) == [row]


def test_newer_schema_version_is_refused(db: Path) -> None:
    with EventStore(db) as store:
        store.create_game(make_game("g1"), [ev(1)])
    conn = sqlite3.connect(db)
    conn.execute(f"PRAGMA user_version = {store_module.SCHEMA_VERSION + 1}")
    conn.close()
    before = snapshot(db)

    with pytest.raises(SchemaError, match=r"schema version 2, newer than the 1 .*upgrade lanqi"):
        EventStore(db)
    assert snapshot(db) == before


def test_foreign_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (body TEXT)")
    conn.close()
    with pytest.raises(SchemaError, match="not a lanqi referee database"):
        EventStore(path)
    conn = sqlite3.connect(path)
    try:  # left as it was found
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    finally:
        conn.close()


def test_schema_version_is_recorded(db: Path) -> None:
    EventStore(db).close()
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == store_module.SCHEMA_VERSION
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        conn.close()


def test_close_is_idempotent_and_final(db: Path) -> None:
    store = EventStore(db)
    store.close()
    store.close()
    with pytest.raises(sqlite3.ProgrammingError):
        store.last_seq("g1")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(1, 12), max_size=4), max_size=8))
def test_log_holds_exactly_the_accepted_contiguous_batches(batches: list[list[int]]) -> None:
    with EventStore(":memory:") as store:
        store.create_game(make_game("g1"), [])
        expected: list[StoredEvent] = []
        for seqs in batches:
            batch = [ev(s) for s in seqs]
            last = len(expected)
            if seqs == list(range(last + 1, last + 1 + len(seqs))):
                store.append("g1", batch)
                expected.extend(batch)
            else:
                with pytest.raises(ValueError, match="out of order"):
                    store.append("g1", batch)
            assert store.events("g1") == expected
            assert store.last_seq("g1") == len(expected)
