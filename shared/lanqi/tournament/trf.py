"""FIDE's Tournament Report File (TRF16, with the TRF-2026 tournament tags).

A TRF is fixed columns: ``012`` the event's name, ``001`` one line per player (starting
rank, name, rating, points, rank, then 10 columns per round: opponent's starting rank,
colour ``w``/``b``/``-``, result code). The 2026 revision adds tournament tags that
lanqi writes too: ``142`` the number of rounds, ``152`` the initial colour and ``162``
the scoring point system (the *points declarations*: ``W`` win, ``D`` draw, ``L`` loss,
``A`` absence, ``P`` pairing-allocated bye). The JaVaFo extension lines ``XXR`` (rounds)
and ``XXC`` (``white1``) make the same file an input for pairing engines.

Result codes: ``1``/``=``/``0`` played, ``+``/``-`` forfeit (the opponent and colour
stay in the file; the game was not played), ``U`` pairing-allocated bye, ``H`` half-point
bye, ``F`` full-point bye, ``Z`` zero-point bye or absent (``0000`` as opponent).

>>> from lanqi.tournament.model import Pairing, Player, Result
>>> ps = [Player("a", "Alice", 1800.0), Player("b", "Bob", 1700.0), Player("c", "Cai", 1600.0)]
>>> rs = [Result.from_pairing(Pairing(1, 1, "a", "b"), 1.0), Result.bye(Pairing(1, 2, "c", None))]
>>> print(trf_text(ps, rs, name="Club", rounds=2).splitlines()[7])
001    1      Alice                             1800                             1.0    1     2 w 1
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from lanqi.tournament.model import Player, Result, seeded_order
from lanqi.tournament.scoring import DEFAULT_POINTS, PointsSystem, points_system

__all__ = ["result_code", "trf_text", "unplayed"]


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
        return {1.0: "U", 0.5: "H"}.get(score, "Z")
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
) -> str:
    """The TRF of an event: ``players`` (numbered in seeded order), every ``result``
    so far, the number of ``rounds``. ``ranks`` (player id -> rank) default to the
    order by points then starting rank; ``zeroed`` are players not to be paired in the
    next round and ``accelerations`` virtual points per round (``XXZ`` and ``XXA`` of
    the JaVaFo extension, read by pairing engines); totals and the ``162`` points
    declaration are in the event's ``points`` system."""
    points = points_system(points)
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
        + _points(points.win),
        f"182 {pairing_controller}",
    ]
    for p in ordered:
        line = (
            "001 "
            + _field(str(number[p.id]), 4, right=True)
            + " "
            + "    "  # sex, title
            + " "
            + _field(p.name, 33)
            + " "
            + _field(str(round(p.rating)), 4, right=True)
            + " "
            + " " * 3  # federation
            + " "
            + " " * 11  # FIDE id
            + " "
            + " " * 10  # birth date
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
    lines.append(f"XXR {rounds}")
    lines.append("XXC white1")
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
