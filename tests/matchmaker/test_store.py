"""The matchmaker's SQLite store: typed records in and out, a result recorded once,
and only from the referee its game is on."""

from __future__ import annotations

from pathlib import Path

from lanqi.matchmaker.store import (
    EntrantRecord,
    GameRecord,
    MatchmakerStore,
    PairingRecord,
    PlayerRecord,
    TournamentRecord,
)
from lanqi.protocol import TimeControl, TournamentSpec
from lanqi.tournament.scoring import score_game

TC = TimeControl(kind="fischer", base_ms=300_000, increment_ms=2_000, join_within_ms=60_000)


def _store(tmp_path: Path) -> MatchmakerStore:
    store = MatchmakerStore(tmp_path / "matchmaker.sqlite3")
    for pid, name in (("p1", "Ann"), ("p2", "Bob")):
        store.add_player(PlayerRecord(pid, name, "bot", f"s-{pid}"), 0)
    return store


def _game(game_id: str, tournament_id: str | None = None) -> GameRecord:
    return GameRecord(
        game_id=game_id,
        referee="tcp://ref:5052",
        variant="xiangqi",
        options={"repetition": "axf"},
        time_control=TC,
        player_ids=["p1", "p2"],
        names=["Ann", "Bob"],
        tokens=["a", "b"],
        rated=True,
        status="playing",
        created_ms=1,
        tournament_id=tournament_id,
        round=1 if tournament_id else 0,
        board=1 if tournament_id else 0,
    )


def test_records_come_back_typed(tmp_path: Path) -> None:
    store = _store(tmp_path)
    spec = TournamentSpec(name="Club", format="swiss", variant="xiangqi", time_control=TC)
    store.add_tournament(TournamentRecord("t1", spec, "open", 0, 5))
    assert store.tournament("t1") == TournamentRecord("t1", spec, "open", 0, 5)
    assert store.add_entrant("t1", "p2", 0) and store.add_entrant("t1", "p1", 0)
    assert store.withdraw("t1", "p2")
    assert store.entrants("t1") == [
        EntrantRecord("p2", 1, 0, True),
        EntrantRecord("p1", 2, 0, False),
    ]
    store.add_game(_game("g1"))
    assert store.game("g1") == _game("g1")
    store.close()


def test_a_result_is_recorded_once_and_only_from_its_referee(tmp_path: Path) -> None:
    store = _store(tmp_path)
    spec = TournamentSpec(name="Club", format="round_robin", variant="xiangqi")
    store.add_tournament(TournamentRecord("t1", spec, "running", 0, 5))
    store.start_round("t1", 1, [PairingRecord("t1", 1, 1, 0, "p1", "p2")], "running")
    store.add_game(_game("g1", "t1"))
    score = score_game("0-1", "abandoned", 1)

    def record(referee: str, result_seq: int) -> bool:
        return store.record_result(
            "g1",
            result="0-1",
            termination="abandoned",
            moves=["h2e2"],
            ended_ms=9,
            referee=referee,
            result_seq=result_seq,
            score=score,
        )

    # the same game id on another referee (an orphan of a create that moved on)
    assert not record("other", 1)
    game = store.game("g1")
    assert game is not None and game.status == "playing"
    assert store.referee_cursor("other") == 1
    assert record("tcp://ref:5052", 7)
    assert not record("tcp://ref:5052", 7)
    (pairing,) = store.pairings("t1")
    assert (pairing.game_id, pairing.result, pairing.score_first, pairing.kind) == (
        "g1",
        "0-1",
        0.0,
        "forfeit",
    )
    # 1-6 were never heard: the cursor waits for them, 7 is noted as heard ahead
    assert (store.referee_cursor("tcp://ref:5052"), store.results_ahead("tcp://ref:5052")) == (0, 1)
    store.close()


def test_the_cursor_moves_only_over_results_it_has_recorded(tmp_path: Path) -> None:
    store = _store(tmp_path)
    ref = "tcp://ref:5052"
    for seq in (1, 2, 4, 5):
        store.note_result(ref, seq)
    assert (store.referee_cursor(ref), store.results_ahead(ref)) == (2, 2)  # 3 is missing
    store.note_result(ref, 3)  # the gap filled: on over 4 and 5 heard ahead
    assert (store.referee_cursor(ref), store.results_ahead(ref)) == (5, 0)
    store.note_result(ref, 2)  # an old one again: never moves back
    assert store.referee_cursor(ref) == 5
    store.note_result(ref, 9)
    # a results_since(5) answer ending at 9 holds all there is up to 9 (6-8: none)
    store.cover_results(ref, 5, 9)
    assert (store.referee_cursor(ref), store.results_ahead(ref)) == (9, 0)
    store.note_result(ref, 12)
    store.cover_results(ref, 10, 12)  # an answer from beyond the cursor proves nothing
    assert store.referee_cursor(ref) == 9
    store.close()
    reopened = MatchmakerStore(tmp_path / "matchmaker.sqlite3")  # and it is kept
    assert (reopened.referee_cursor(ref), reopened.results_ahead(ref)) == (9, 1)
    reopened.close()


def test_an_open_tournament_is_deleted_with_what_the_director_set(tmp_path: Path) -> None:
    """Forbidden pairs, a round paired by hand, check-ins and requested byes entered
    before the start go with a deleted event (they used to block it: foreign keys)."""
    store = _store(tmp_path)
    spec = TournamentSpec(name="Club", format="swiss", variant="xiangqi", time_control=TC)
    store.add_tournament(TournamentRecord("t1", spec, "open", 0, 5))
    store.add_player(PlayerRecord("p3", "Cai", "bot", "s-p3"), 0)
    for pid in ("p1", "p2", "p3"):
        assert store.add_entrant("t1", pid, 0)
    store.forbid("t1", "p1", "p2")
    store.set_manual("t1", 1, [("p1", "p3")])
    store.check_in("t1", 1, ["p1", "p3"])
    store.request_bye("t1", 1, "p2", 0.5)
    assert store.delete_tournament("t1")
    assert store.tournament("t1") is None
    assert store.forbidden("t1") == set() and store.manual("t1", 1) == []
    assert store.checked_in("t1", 1) == set() and store.requested_byes("t1", 1) == {}
    store.close()
