"""Check a Swiss event's pairings the way an arbiter checks a pairing program: every
round re-paired from the history before it by the event's own pairing system, and
compared with what was played.

>>> from lanqi.tournament.schedule import make_schedule
>>> from lanqi.tournament.model import Player
>>> ps = [Player(p, p.upper(), 2000.0 - 100 * i) for i, p in enumerate("abcd")]
>>> s = make_schedule("swiss", ps, {"rounds": 2})
>>> check_pairings(s, [], [Pairing(1, 1, "a", "b"), Pairing(1, 2, "c", "d")])
['round 1 board 1: played a - b, the engine pairs a - c', \
'round 1 board 2: played c - d, the engine pairs a - c']
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from lanqi.tournament.dutch import DUTCH_SYSTEMS, dutch_pairings
from lanqi.tournament.model import Pairing, Result, TournamentError
from lanqi.tournament.schedule import Schedule
from lanqi.tournament.swiss import swiss_pairings

__all__ = ["check_pairings", "engine_round"]


def engine_round(
    schedule: Schedule,
    results: Collection[Result],
    round_no: int,
    active: Collection[str],
    forbidden: Collection[frozenset[str]] = frozenset(),
) -> list[Pairing]:
    """Round ``round_no`` as the event's pairing system makes it from the results of
    the rounds before, for the ``active`` players (the others are left out), keeping
    the ``forbidden`` pairs of that round apart."""
    options = schedule.options
    system = str(options.get("pairing", "lanqi"))
    withdrawn = {p.id for p in schedule.players} - set(active)
    late = options.get("late_entries_score", 0.0)
    assert isinstance(late, float)
    before = [r for r in results if r.round < round_no]
    if system in DUTCH_SYSTEMS:
        return dutch_pairings(
            schedule.players,
            before,
            round_no,
            system=system,
            total_rounds=schedule.planned_rounds,
            withdrawn=withdrawn,
            late_entries_score=late,
            accelerated=options.get("acceleration") == "baku",
            points=schedule.points,
            bye_points=schedule.bye_points,
            forbidden=forbidden,
        )
    return swiss_pairings(
        schedule.players,
        before,
        round_no,
        late_entries_score=late,
        withdrawn=withdrawn,
        total_rounds=schedule.planned_rounds if options.get("look_ahead") else None,
        points=schedule.points,
        forbidden=forbidden,
    )


def _text(p: Pairing) -> str:
    return f"{p.first} - {p.second}" if p.second else f"{p.first} bye"


def check_pairings(
    schedule: Schedule,
    results: Collection[Result],
    played: Sequence[Pairing],
    forbidden: Mapping[int, Collection[frozenset[str]]] | None = None,
) -> list[str]:
    """One line per difference between the ``played`` pairings and the engine's
    (empty when every round is what the engine makes). A player absent from a round's
    pairings counts as withdrawn for that round, and so does one whose bye of the
    round left them out of the pairing (a requested bye, an absence at check-in).
    ``forbidden``: the pairs each round kept apart (round -> pairs)."""
    out: list[str] = []
    for round_no in sorted({p.round for p in played}):
        left_out = {r.first for r in results if r.round == round_no and r.left_out}
        actual = sorted(
            (p for p in played if p.round == round_no and p.first not in left_out),
            key=lambda p: p.board,
        )
        active = {pid for p in actual for pid in p.players()}
        try:
            expected = engine_round(
                schedule, results, round_no, active, (forbidden or {}).get(round_no, ())
            )
        except TournamentError as exc:
            out.append(f"round {round_no}: the engine cannot pair it: {exc}")
            continue
        mate: dict[str, Pairing] = {}
        for p in expected:
            for pid in p.players():
                mate[pid] = p
        for p in actual:
            assert p.first is not None
            want = mate.get(p.first)
            if want is not None and {p.first, p.second} == {want.first, want.second}:
                if p.first != want.first:
                    out.append(
                        f"round {round_no} board {p.board}: played {_text(p)}, "
                        f"the engine gives the first move to {want.first}"
                    )
                continue
            if want is None:
                out.append(
                    f"round {round_no} board {p.board}: {p.first} is not paired by the engine"
                )
                continue
            out.append(
                f"round {round_no} board {p.board}: played {_text(p)}, "
                f"the engine pairs {_text(want)}"
            )
    return out
