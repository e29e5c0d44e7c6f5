"""What the tournament pages are drawn from: plain JSON made from the matchmaker's
standings and the referee's game states (no I/O here, so it is tested on its own).

The browser gets two kinds of message on the tournament's WebSocket:

- ``{"t": "tour", ...}``: the event as the matchmaker's latest ``standings`` tell it
  (facts, standings rows with the tie-breaks by name, every pairing, the
  crosstable), made by :func:`tour_json`;
- ``{"t": "game", ...}``: one live game of the round as its folded
  :class:`~lanqi.gamestate.GameState` tells it (fen, ply, clocks, result), made by
  :func:`game_json`.

>>> tiebreak_columns(["buchholz_cut1", "wins"])
[{'key': 'buchholz_cut1', 'label': 'BH-C1', 'name': 'Buchholz Cut 1 (BH-C1)'}, \
{'key': 'wins', 'label': 'wins', 'name': 'Wins'}]
>>> result_code("1-0", first=True), result_code("1/2-1/2", first=False), result_code(None, True)
('1', '½', '')
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any

from lanqi.games.registry import UnknownVariantError, variant_spec
from lanqi.gamestate import GameState
from lanqi.phrases import termination_words, time_control_text
from lanqi.protocol import PairingInfo, StandingInfo, Standings
from lanqi.tournament.scoring import DEFAULT_POINTS, points_system
from lanqi.tournament.standings import TIEBREAK_NAMES, tiebreak_label

__all__ = [
    "crosstable_json",
    "game_json",
    "pairing_line",
    "result_code",
    "seat_names",
    "tiebreak_columns",
    "tour_json",
]

JsonMap = dict[str, Any]


def seat_names(variant: str) -> tuple[str, str]:
    """What the variant calls its seats (``Red``, ``Black``); ``first``/``second``
    for a variant this gateway does not know."""
    try:
        return variant_spec(variant).seat_names
    except UnknownVariantError:
        return ("first", "second")


def points_label(system: str) -> str:
    """``1/½/0``, ``2/1/0``: the event's points system as people write it."""
    try:
        return points_system(system or DEFAULT_POINTS).label
    except ValueError:  # a newer server's system: say it as it came
        return system


def tiebreak_columns(keys: Iterable[str]) -> list[JsonMap]:
    """Each tie-break of the chain: its key, a short column heading (the FIDE code)
    and its whole name (for the heading's tooltip and the legend)."""
    return [
        {"key": key, "label": tiebreak_label(key), "name": TIEBREAK_NAMES.get(key, key)}
        for key in keys
    ]


def result_code(result: str | None, first: bool) -> str:
    """A player's cell of the crosstable from a pairing's result: ``1``, ``½``,
    ``0`` (empty while the game is on)."""
    if result == "1-0":
        return "1" if first else "0"
    if result == "0-1":
        return "0" if first else "1"
    if result == "1/2-1/2":
        return "½"
    if result in ("*", "0-0"):  # a double forfeit: nobody scores
        return "0"
    return ""


def pairing_line(p: PairingInfo, seats: tuple[str, str]) -> str:
    """``Table 4: Alice (Red) - Bob``, as the projector shows a pairing; a bye
    ``Carol: bye`` (``absent`` for a player not checked in)."""
    if p.second is None:
        return f"{p.first}: {'absent' if p.note == 'absent' else 'bye'}"
    return f"Table {p.table or p.board}: {p.first} ({seats[0]}) - {p.second}"


def crosstable_json(rows: Sequence[StandingInfo], pairings: Iterable[PairingInfo]) -> list[JsonMap]:
    """The crosstable as one line per player, in standings order: per round the
    opponent's line number (1-based), the seat (``f`` moves first, ``s`` second) and
    the result code; a bye is ``{"bye": true}``."""
    line = {row.player: n for n, row in enumerate(rows, 1)}
    games: dict[str, dict[int, JsonMap]] = {row.player: {} for row in rows}
    for p in pairings:
        if p.first is None:
            continue
        if p.second is None:
            code = "0" if p.note == "absent" else ("" if p.result is None else "bye")
            games.setdefault(p.first, {})[p.round] = {"bye": True, "code": code}
            continue
        for me, other, first in ((p.first, p.second, True), (p.second, p.first, False)):
            games.setdefault(me, {})[p.round] = {
                "opponent": line.get(other),
                "seat": "f" if first else "s",
                "code": result_code(p.result, first),
            }
    return [
        {
            "line": n,
            "player": row.player,
            "points": row.points,
            "rounds": {str(r): cell for r, cell in sorted(games.get(row.player, {}).items())},
        }
        for n, row in enumerate(rows, 1)
    ]


def _row_json(row: StandingInfo) -> JsonMap:
    return dataclasses.asdict(row)


def _pairing_json(p: PairingInfo, seats: tuple[str, str]) -> JsonMap:
    out = dataclasses.asdict(p)
    out["line"] = pairing_line(p, seats)
    return out


def tour_json(standings: Standings, *, join_url: str = "") -> JsonMap:
    """The event as the browser draws it (the ``tour`` message)."""
    t = standings.tournament
    spec = t.spec
    tc = spec.time_control
    seats = seat_names(spec.variant)
    keys = list(standings.rows[0].tiebreaks) if standings.rows else []
    rounds = max([t.round, *(p.round for p in standings.pairings)], default=0)
    return {
        "t": "tour",
        "tournament_id": t.tournament_id,
        "name": spec.name,
        "format": spec.format,
        "variant": spec.variant,
        "status": t.status,
        "round": t.round,
        "rounds": spec.rounds if spec.format == "swiss" else 0,
        "paired_rounds": rounds,
        "points": points_label(spec.points),
        "time_control": time_control_text(tc),
        "seat_names": list(seats),
        "players": list(t.players),
        "tiebreaks": tiebreak_columns(keys),
        "rows": [_row_json(row) for row in standings.rows],
        "pairings": [_pairing_json(p, seats) for p in standings.pairings],
        "crosstable": crosstable_json(standings.rows, standings.pairings),
        "note": standings.note,
        "join_url": join_url,
    }


def game_json(state: GameState) -> JsonMap:
    """One live game (the ``game`` message): what a board and its clocks show."""
    return {
        "t": "game",
        "game_id": state.game_id,
        "variant": state.variant,
        "fen": state.fen,
        "ply": state.ply,
        "players": list(state.players),
        "last": state.moves[-1] if state.moves else "",
        "to_move": state.to_move,
        "clock": {
            "remaining_ms": list(state.clock.remaining_ms),
            "running": state.clock.running if state.status == "active" else None,
        },
        "status": state.status,
        "result": state.result,
        "termination": state.termination,
        "termination_text": termination_words(state.termination, state.variant),
    }
