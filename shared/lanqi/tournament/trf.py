"""FIDE's Tournament Report File (TRF16, with the TRF-2026 tournament tags).

A TRF is fixed columns: ``012`` the event's name, ``001`` one line per player (starting
rank, name, rating, points, rank, then 10 columns per round: opponent's starting rank,
colour ``w``/``b``/``-``, result code). The 2026 revision adds tournament tags that
lanqi writes too: ``142`` the number of rounds, ``152`` the initial colour and ``162``
the scoring point system (the *points declarations*: ``W`` win, ``D`` draw, ``L`` loss,
``A`` absence, ``P`` pairing-allocated bye). The JaVaFo extension lines ``XXR`` (rounds)
and ``XXC`` (``white1``) make the same file an input for pairing engines.

Result codes (TRF-2026, player section): ``1``/``=``/``0`` played, ``+``/``-``
forfeit (the opponent and colour stay in the file; the game was not played), ``U``
the pairing-allocated bye (odd count, whatever it is worth: the ``162`` ``P`` points
and the ``XXS`` ``PAB`` say how much), and for a bye the pairing did not allocate (a
requested bye, an absence at check-in: :attr:`Result.left_out`) ``F`` full-point,
``H`` half-point (a draw's points) or ``Z`` zero-point bye; ``0000 - Z`` a round
without a result (not yet entered, withdrawn).

Player fields lanqi knows are written where the file has a column for them (sex,
FIDE title, federation, FIDE number, birth date; see :class:`TrfEntrant`); the rating
column is the rating at the start of the event. ``132`` gives each round's date.
Hand-made pairings are marked with ``###`` comment lines (TRF-2026, remark 1:
comments are lines that start with ``###``): no TRF tag or JaVaFo extension marks a
pairing as manual, and a comment is skipped by every reader, pairing engines too.
``XXS`` (JaVaFo's scoring point system, read by py4swiss and bbpPairings) repeats
the points declaration for engines when it is not FIDE's default.

>>> from lanqi.tournament.model import Pairing, Player, Result
>>> ps = [Player("a", "Alice", 1800.0), Player("b", "Bob", 1700.0), Player("c", "Cai", 1600.0)]
>>> rs = [Result.from_pairing(Pairing(1, 1, "a", "b"), 1.0), Result.bye(Pairing(1, 2, "c", None))]
>>> print(trf_text(ps, rs, name="Club", rounds=2).splitlines()[7])
001    1      Alice                             1800                             1.0    1     2 w 1
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from lanqi.tournament.model import Player, Result, seeded_order
from lanqi.tournament.scoring import DEFAULT_POINTS, PointsSystem, points_system

__all__ = ["FIDE_TITLES", "TrfEntrant", "result_code", "trf_text", "unplayed"]

#: The titles the player section's title column takes (TRF-2026); others are left out.
FIDE_TITLES = ("GM", "IM", "WGM", "FM", "WIM", "CM", "WFM", "WCM")


@dataclass(frozen=True, slots=True)
class TrfEntrant:
    """What the director entered of a player, as the TRF's player section writes it
    (each empty or ``None`` when not known). ``birth`` is ``YYYY`` or ``YYYY/MM/DD``;
    ``rating`` a federation rating, written instead of lanqi's rating."""

    rating: float | None = None
    sex: str = ""
    title: str = ""
    federation: str = ""
    fide_id: str = ""
    birth: str = ""

    def sex_code(self) -> str:
        """``m`` or ``w`` (the file's only two), else empty."""
        code = self.sex.strip().lower()[:1]
        return code if code in ("m", "w") else ""

    def title_code(self) -> str:
        """The FIDE title as the file writes it, empty for any other title."""
        code = self.title.strip().upper()
        return code if code in FIDE_TITLES else ""

    def birth_date(self) -> str:
        """``YYYY/MM/DD``; a year alone as ``YYYY/00/00`` (month and day unknown)."""
        text = self.birth.strip().replace("-", "/")
        if len(text) == 4 and text.isdigit():
            return f"{text}/00/00"
        return text[:10]


def unplayed(result: Result) -> bool:
    """True when ``result`` is not a game over the board (a forfeit or a bye)."""
    return not result.is_game


def result_code(result: Result, player: str) -> str:
    """The TRF result code of ``player`` in ``result``.

    >>> from lanqi.tournament.model import Pairing
    >>> result_code(Result.forfeit(Pairing(2, 1, "a", "b"), absent="b"), "a")
    '+'
    """
    score = result.score_of(player)
    if result.kind == "bye":
        if not result.left_out:
            return "U"  # the pairing-allocated bye, whatever it is worth
        return {1.0: "F", 0.5: "H"}.get(score, "Z")
    if result.kind in ("forfeit", "double_forfeit"):
        return "+" if score == 1.0 else "-"
    return {1.0: "1", 0.5: "="}.get(score, "0")


def _field(text: str, width: int, *, right: bool = False) -> str:
    text = text[:width]
    return text.rjust(width) if right else text.ljust(width)


def _points(value: float) -> str:
    return f"{value:4.1f}"


def trf_text(  # noqa: PLR0913, PLR0912 - keyword-only: the file's optional parts
    players: Sequence[Player],
    results: Collection[Result],
    *,
    name: str,
    rounds: int,
    points: PointsSystem | str = DEFAULT_POINTS,
    ranks: Mapping[str, int] | None = None,
    zeroed: Collection[str] = (),
    accelerations: Mapping[str, Sequence[float]] | None = None,
    pairing_controller: str = "lanqi",
    bye_points: float | None = None,
    entrants: Mapping[str, TrfEntrant] | None = None,
    round_dates: Mapping[int, dt.date] | None = None,
    manual: Collection[tuple[int, str, str]] = (),
) -> str:
    """The TRF of an event: ``players`` (numbered in seeded order, their ``rating``
    written unless ``entrants`` gives a federation rating), every ``result`` so
    far, the number of ``rounds``. ``ranks`` (player id -> rank) default to the
    order by points then starting rank; ``zeroed`` are players not to be paired in the
    next round and ``accelerations`` virtual points per round (``XXZ`` and ``XXA`` of
    the JaVaFo extension, read by pairing engines); totals and the ``162`` points
    declaration are in the event's ``points`` system, ``bye_points`` what the
    pairing-allocated bye is worth in it (default: a win). ``entrants`` adds sex,
    title, federation, FIDE number and birth date; ``round_dates`` (round -> date)
    the ``132`` line; ``manual`` (round, first, second) the hand-made pairings, one
    ``###`` comment line each."""
    points = points_system(points)
    pab = points.win if bye_points is None else bye_points
    known = entrants or {}
    ordered = seeded_order(players)
    number = {p.id: i for i, p in enumerate(ordered, start=1)}
    played_rounds = max((r.round for r in results), default=0)
    by_player: dict[str, dict[int, Result]] = {p.id: {} for p in ordered}
    totals = dict.fromkeys(number, 0.0)
    for r in results:
        for pid in r.players():
            if pid in by_player:
                by_player[pid][r.round] = r
                totals[pid] += _scaled(r, pid, points)
    if ranks is None:
        order = sorted(ordered, key=lambda p: (-totals[p.id], number[p.id]))
        ranks = {p.id: i for i, p in enumerate(order, start=1)}
    lines = [
        f"012 {name}",
        f"062 {len(ordered)}",
        "092 Swiss",
    ]
    if round_dates:
        dates = "132" + " " * 88  # round 1's date at position 92
        for rnd in range(1, max(round_dates) + 1):
            when = round_dates.get(rnd)
            dates += (when.strftime("%y/%m/%d") if when else " " * 8) + "  "
        lines.append(dates.rstrip())
    lines += [
        f"142 {rounds}",
        "152 W",
        "162  W"
        + _points(points.win)
        + "    D"
        + _points(points.draw)
        + "    L"
        + _points(points.loss)
        + "    A"
        + _points(points.loss)
        + "    P"
        + _points(pab),
        f"182 {pairing_controller}",
    ]
    for p in ordered:
        fields = known.get(p.id, TrfEntrant())
        rating = fields.rating if fields.rating is not None else p.rating
        line = (
            "001 "
            + _field(str(number[p.id]), 4, right=True)
            + " "
            + _field(fields.sex_code(), 1)
            + _field(fields.title_code(), 3, right=True)
            + " "
            + _field(p.name, 33)
            + " "
            + _field(str(round(rating)), 4, right=True)
            + " "
            + _field(fields.federation.strip().upper(), 3)
            + " "
            + _field(fields.fide_id.strip(), 11, right=True)
            + " "
            + _field(fields.birth_date(), 10)
            + " "
            + _points(totals[p.id])
            + " "
            + _field(str(ranks.get(p.id, len(ordered))), 4, right=True)
        )
        for rnd in range(1, played_rounds + 1):
            got = by_player[p.id].get(rnd)
            if got is None:
                cell = "0000 - Z"
            else:
                r = got
                other = r.opponent_of(p.id)
                if other is None:
                    cell = "0000 - " + result_code(r, p.id)
                else:
                    colour = "w" if p.id == r.first else "b"
                    cell = f"{number.get(other, 0):4d} {colour} {result_code(r, p.id)}"
            line += "  " + cell
        lines.append(line)
    for rnd, first, second in sorted(manual):
        if first in number and second in number:
            lines.append(
                f"### manual pairing, round {rnd}: {number[first]} - {number[second]} "
                "(paired by the director, not by the pairing program)"
            )
    lines.append(f"XXR {rounds}")
    lines.append("XXC white1")
    if (points.win, points.draw, points.loss, pab) != (1.0, 0.5, 0.0, 1.0):
        lines.append(f"XXS W={points.win:.1f} D={points.draw:.1f} PAB={pab:.1f}")
    if zeroed:
        lines.append(
            "XXZ " + " ".join(str(number[z]) for z in sorted(zeroed, key=number.__getitem__))
        )
    for pid, virtual in sorted((accelerations or {}).items(), key=lambda kv: number[kv[0]]):
        if any(virtual):
            lines.append(f"XXA {number[pid]:4d} " + " ".join(_points(v) for v in virtual))
    return "\n".join(lines) + "\n"


def _scaled(result: Result, player: str, points: PointsSystem) -> float:
    """What ``player`` scored in ``result`` in the event's points system."""
    score = result.score_of(player)
    if score == 1.0:
        return points.win
    if score == 0.5:
        return points.draw
    return points.loss
