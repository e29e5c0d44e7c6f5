"""Records of match games: xiangqi PGN, gomoku records (PGN-like) and Piskvork ``.psq``.

Every record names the players and the engines (their own ``id name``), the
date, the time control, the opening, the real termination (``checkmate``,
``time forfeit``, ``crash``, ``illegal move h2h9``, ``adjudication: score``...)
and a ``{score/depth time}`` comment after each move (``{book}`` for opening
moves).
"""

from __future__ import annotations

from lanqi.games.registry import variant_spec
from lanqi.match.game import Played
from lanqi.protocol import TimeControl

__all__ = ["psq_record", "record_text", "termination_text", "time_control_text"]


def time_control_text(tc: TimeControl) -> str:
    """The PGN ``TimeControl`` tag: ``-`` untimed, ``10+0.1`` (seconds), ``move:2``."""
    if tc.kind == "fischer":
        return f"{tc.base_ms / 1000:g}+{tc.increment_ms / 1000:g}"
    if tc.kind == "per_move":
        return f"move:{tc.per_move_ms / 1000:g}"
    return "-"


def termination_text(termination: str) -> str:
    """The referee's termination as a record says it (a flag fall is a time forfeit)."""
    return {"timeout": "time forfeit", "": "unterminated"}.get(termination, termination)


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
        "Termination": termination_text(played.termination),
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
        return {"TimeControl": time_control_text(tc)}
    return {
        f"{side}TimeControl": time_control_text(tc.for_seat(seat))
        for seat, side in enumerate((first, second))
    }


def _comments(played: Played) -> list[str | None]:
    by_ply = {note.ply: note.comment() for note in played.notes}
    return [by_ply.get(ply) for ply in range(len(played.moves))]


def record_text(played: Played, event: str) -> str:
    """The game as PGN (xiangqi, ICCS moves) or as a gomoku record."""
    headers = _headers(played, event)
    if played.variant == "xiangqi":
        from lanqi.games.xiangqi.core import Board as XBoard
        from lanqi.games.xiangqi.pgn import write_pgn

        board = XBoard(played.start_fen) if played.start_fen else XBoard()
        for move in played.moves:
            board.push_text(move)
        return write_pgn(board, headers, notation="iccs", comments=_comments(played))
    from lanqi.games.gomoku.record import write_record
    from lanqi.games.registry import create_game

    options = dict(played.options)
    if played.start_fen:
        options["fen"] = played.start_fen
    gboard = create_game("gomoku", **options)
    for move in played.moves:
        gboard.push(gboard.parse_move(move))
    from lanqi.games.gomoku import Board as GBoard

    assert isinstance(gboard, GBoard)
    return write_record(gboard, headers, comments=_comments(played))


def psq_record(played: Played) -> str:
    """The gomoku game as a Piskvork ``.psq`` file.

    ``Piskvorky SxS, 11:11, 0``, then one ``x,y,ms`` line per move (1-based, ``y``
    from the top, the think time in ms), then the two players (the first mover
    first) and a last line with the winner: ``1``, ``2``, or ``0`` for a draw or no
    result.
    """
    from lanqi.games.gomoku import Move

    size = int(played.options.get("size", 15))
    times = {note.ply: note.time_ms for note in played.notes}
    lines = [f"Piskvorky {size}x{size}, 11:11, 0"]
    for ply, text in enumerate(played.moves):
        x, y = (int(v) for v in Move.from_text(text, size).gomocup(size).split(","))
        lines.append(f"{x + 1},{y + 1},{times.get(ply, 0)}")
    lines.extend(played.names)
    lines.append({"1-0": "1", "0-1": "2"}.get(played.result, "0"))
    return "\n".join(lines) + "\n"
