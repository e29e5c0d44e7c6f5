"""What a browser draws a game from: :func:`board_view` turns a folded
:class:`~lanqi.gamestate.GameState` into plain JSON-ready data.

The rules are the shared core's (``lanqi.games``), run here in the gateway: the
page gets the pieces, the legal targets, the check and forbidden-point markers
and the move list in every notation, and keeps no copy of the rules itself.

>>> from lanqi.gamestate import GameState
>>> empty = "15/" * 14 + "15 b"
>>> state = GameState.new("g1", "gomoku", {"size": 15}, None, ("ann", "bob"), fen=empty)
>>> view = board_view(state)
>>> view["files"], view["ranks"], len(view["legal"]), view["pieces"]
(15, 15, 225, [])
"""

from __future__ import annotations

import dataclasses
from typing import Any

from lanqi.games.base import Game, Point, Position
from lanqi.games.registry import create_game, variant_spec
from lanqi.gamestate import GameState

__all__ = ["board_view", "position_view", "replay"]


def replay(state: GameState) -> tuple[Game[Any], list[dict[str, str]]]:
    """The game rebuilt from its start and moves, and each move in every notation
    (``move``: wire text, then one entry per notation of the variant)."""
    options = dict(state.options)
    if state.start_fen:
        options["fen"] = state.start_fen
    game = create_game(state.variant, **options)
    notations = variant_spec(state.variant).notations
    moves: list[dict[str, str]] = []
    for text in state.moves:
        move = game.parse_move(text)
        entry = {"move": str(move)}
        for name, write in notations.items():
            entry[name.lower()] = write(game, move)
        moves.append(entry)
        game.push(move)
    return game, moves


def _square(position: Position, point: Point) -> str:
    x, y = point
    return position.file_names[x] + position.rank_names[y]


def board_view(state: GameState) -> dict[str, Any]:
    """The board and everything around it, as the page's ``state`` message carries it."""
    game, moves = replay(state)
    position = game.position()
    playing = state.status != "finished" and position.to_move is not None
    spec = variant_spec(state.variant)
    return {
        "game_id": state.game_id,
        "variant": state.variant,
        "options": dict(state.options),
        "seat_names": list(spec.seat_names),
        "files": position.files,
        "ranks": position.ranks,
        "file_names": list(position.file_names),
        "rank_names": list(position.rank_names),
        "fen": state.fen,
        "ply": state.ply,
        "seq": state.seq,
        "status": state.status,
        "result": state.result,
        "termination": state.termination,
        "winner": state.winner,
        "players": list(state.players),
        "connected": list(state.connected),
        "to_move": state.to_move,
        "rated": not state.casual,
        "time_control": dataclasses.asdict(state.time_control),
        "clock": dataclasses.asdict(state.clock),
        "draw_offer": state.draw_offer,
        "takeback_offer": state.takeback_offer,
        "pieces": [
            [_square(position, point), token.kind, token.seat]
            for point, token in sorted(position.cells.items())
        ],
        "last": [_square(position, point) for point in position.last_move],
        "markers": {
            name: [_square(position, point) for point in points]
            for name, points in position.markers.items()
        },
        "legal": [str(move) for move in game.legal_moves()] if playing else [],
        "moves": moves,
        "chat": [dataclasses.asdict(line) for line in state.chat],
    }


def position_view(state: GameState, ply: int) -> dict[str, Any]:
    """The board after the first ``ply`` moves (for the review's step-through):
    the fields of :func:`board_view` that change with the position."""
    options = dict(state.options)
    if state.start_fen:
        options["fen"] = state.start_fen
    game = create_game(state.variant, **options)
    for text in state.moves[: max(0, min(ply, state.ply))]:
        game.push_text(text)
    position = game.position()
    return {
        "fen": game.fen(),
        "ply": game.ply,
        "pieces": [
            [_square(position, point), token.kind, token.seat]
            for point, token in sorted(position.cells.items())
        ],
        "last": [_square(position, point) for point in position.last_move],
        "markers": {
            name: [_square(position, point) for point in points]
            for name, points in position.markers.items()
        },
        "legal": [],
    }
