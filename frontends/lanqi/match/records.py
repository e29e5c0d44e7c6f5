"""Records of match games, in each variant's record format and its extra ones (``.psq``).

Every record names the players and the engines (their own ``id name``), the
date, the time control, the opening, the real termination (``checkmate``,
``time forfeit``, ``crash``, ``illegal move h2h9``, ``adjudication: score``...)
and a ``{score/depth time}`` comment after each move (``{book}`` for opening
moves).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Any

from lanqi.games.base import Game
from lanqi.games.registry import create_game, variant_spec
from lanqi.match.game import Played
from lanqi.phrases import termination_words, time_control_text
from lanqi.protocol import TimeControl

__all__ = [
    "extra_record",
    "latency_text",
    "record_text",
]


def _headers(played: Played, event: str) -> dict[str, str]:
    spec = played.spec
    first, second = variant_spec(played.variant).seat_names
    headers = {
        "Event": event,
        "Site": "lanqi match",
        "Date": played.started.strftime("%Y.%m.%d"),
        "Round": str(spec.number),
        first: played.names[0],
        second: played.names[1],
        "Result": played.result,
        "Termination": termination_words(played.termination, style="record"),
        **_time_tags(played.time_control, first, second),
        f"{first}Engine": played.engine_ids[0],
        f"{second}Engine": played.engine_ids[1],
        "PlyCount": str(len(played.moves)),
        "GameId": played.game_id,
    }
    if spec.opening is not None:
        headers["Opening"] = spec.opening.name
    return headers


def _time_tags(tc: TimeControl, first: str, second: str) -> dict[str, str]:
    """``TimeControl``, or with time odds ``RedTimeControl`` and ``BlackTimeControl``."""
    if not tc.has_odds:
        return {"TimeControl": time_control_text(tc, "pgn")}
    return {
        f"{side}TimeControl": time_control_text(tc.for_seat(seat), "pgn")
        for seat, side in enumerate((first, second))
    }


def _comments(played: Played) -> list[str | None]:
    by_ply = {note.ply: note.comment() for note in played.notes}
    return [by_ply.get(ply) for ply in range(len(played.moves))]


def _board(played: Played) -> Game[Any]:
    options = dict(played.options)
    if played.start_fen:
        options["fen"] = played.start_fen
    board = create_game(played.variant, **options)
    for move in played.moves:
        board.push_text(move)
    return board


def record_text(played: Played, event: str) -> str:
    """The game in its variant's record format (xiangqi PGN with ICCS moves, a
    gomoku record), with a comment after each move."""
    spec = variant_spec(played.variant)
    board = _board(played)
    headers = _headers(played, event)
    return spec.write_record(
        board, headers, notation=spec.engine_notation, comments=_comments(played)
    )


def extra_record(played: Played, suffix: str) -> str:
    """The game in the further record format ``suffix`` (a Piskvork ``.psq``)."""
    times = {note.ply: note.time_ms for note in played.notes}
    write = variant_spec(played.variant).extra_records[suffix]
    think_ms = [times.get(ply, 0) for ply in range(len(played.moves))]
    return write(_board(played), played.names, played.result, think_ms)


def latency_text(games: Sequence[Played]) -> str | None:
    """``Referee latency per move: median 1.9 ms, p95 3.1 ms, max 7.4 ms (812 moves)``:
    the time each move spent between its players (see ``MoveNote.latency_ms``), or
    None when no move was measured."""
    values = sorted(n.latency_ms for game in games for n in game.notes if n.latency_ms is not None)
    if not values:
        return None
    p95 = values[min(len(values) - 1, math.ceil(0.95 * len(values)) - 1)]
    return (
        f"Referee latency per move: median {statistics.median(values):.1f} ms, "
        f"p95 {p95:.1f} ms, max {values[-1]:.1f} ms ({len(values)} moves)"
    )
