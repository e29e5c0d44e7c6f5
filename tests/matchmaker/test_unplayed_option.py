"""A matchmaker Swiss takes FIDE's 2023 unplayed-round rule for its tie-breaks from
its spec (``TournamentSpec.unplayed``, ``tournament create --unplayed fide2023``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lanqi.matchmaker.director import Director, TournamentHost
from lanqi.matchmaker.store import (
    MatchmakerStore,
    PairingRecord,
    PlayerRecord,
    TournamentRecord,
)
from lanqi.protocol import TournamentSpec


def _buchholz_of_a(tmp_path: Path, unplayed: str) -> float:
    store = MatchmakerStore(tmp_path / f"mm-{unplayed or 'default'}.sqlite3")
    for pid in "abcde":
        store.add_player(PlayerRecord(pid, pid.upper(), "bot", f"s-{pid}"), 0)
    spec = TournamentSpec(
        name="Rule", format="swiss", variant="xiangqi", rounds=3, pairing="lanqi", unplayed=unplayed
    )
    store.add_tournament(TournamentRecord("t1", spec, "running", 0, 0))
    for seed, pid in enumerate("abcde", 1):
        store.add_entrant("t1", pid, seed)
    one = [
        PairingRecord("t1", 1, 1, 0, "a", "b", None, "1-0", 1.0, "played", table=1),
        PairingRecord("t1", 1, 2, 0, "c", "d", None, "1-0", 1.0, "played", table=2),
        PairingRecord("t1", 1, 3, 0, "e", None, None, "bye", 1.0, "bye"),
    ]
    two = [
        PairingRecord("t1", 2, 1, 0, "a", "e", None, "1-0", 1.0, "played", table=1),
        PairingRecord("t1", 2, 2, 0, "b", "c", None, "1/2-1/2", 0.5, "played", table=2),
        PairingRecord("t1", 2, 3, 0, "d", None, None, "bye", 1.0, "bye"),
    ]
    store.start_round("t1", 1, one, "running")
    store.start_round("t1", 2, two, "running")
    host = TournamentHost(
        publish=lambda topic, message: None,
        create_game=lambda order: None,
        player_of=lambda identity: None,  # type: ignore[arg-type,return-value]
        now=lambda: 0.0,
        reconciled=lambda: True,
        sign_out=lambda player_id: None,
    )
    record = store.tournament("t1")
    assert record is not None
    rows = Director(store, "key", host)._standing_rows(record)
    store.close()
    return float(next(r.tiebreaks["buchholz"] for r in rows if r.player == "A"))


@pytest.mark.parametrize(("unplayed", "want"), [("", 1.0), ("fide2009", 1.0), ("fide2023", 1.5)])
def test_the_spec_chooses_the_unplayed_rule(tmp_path: Path, unplayed: str, want: float) -> None:
    # A met B (½) and E (the pairing-allocated bye, then a loss: 1 point). The 2009
    # rule counts E's bye as a draw (E ½): 1; the 2023 rule counts it with its point
    # (E 1): 1½. An event stored before the option (empty) keeps the 2009 rule.
    assert _buchholz_of_a(tmp_path, unplayed) == want
