"""A bot that thinks a fixed time per move, for the lag tests: run inside a
:class:`~lanqi.bench.wan.Wan` namespace, it plays one gomoku seat through the real
client connection (a :class:`~lanqi.table.remote.RemoteTable`, which says how long
each move was thought unless told not to).

``python lag_bot.py REFEREE EVENTS GAME_ID SEAT TOKEN THINK_MS REPORT MOVES``: plays
``MOVES`` moves, each ``THINK_MS`` after its turn came (``REPORT`` 0: the moves do not
carry ``think_ms``), then prints ``done`` and exits.
"""

from __future__ import annotations

import sys
import time

from lanqi.client.connection import BlockingConnection
from lanqi.games.registry import create_game
from lanqi.protocol import MoveRequest


def quiet_game(plies: int) -> list[str]:
    """``plies`` gomoku moves in which nobody wins: each the first legal move that
    does not end the game (both sides of the lag tests play them, worked out before
    the game so that a bot's thinking is only the time it is told to think)."""
    game = create_game("gomoku")
    moves: list[str] = []
    while len(moves) < plies:
        for move in game.legal_moves():
            game.push(move)
            if game.outcome() is None:
                moves.append(str(move))
                break
            game.pop()
        else:
            raise AssertionError("every move ends the game")
    return moves


def main(argv: list[str]) -> int:
    referee, events, game_id, seat_text, token, think_text, report, count = argv
    seat, think_s, moves = int(seat_text), int(think_text) / 1000, int(count)
    game = quiet_game(2 * moves + seat)
    with BlockingConnection() as conn:
        table = conn.open_table(
            game_id=game_id, referee=referee, events=events, seat=seat, token=token
        )
        table.report_think = report == "1"
        made, sent_for = 0, -1
        while made < moves:
            table.poll()
            state = table.state
            if state.status == "finished":
                print(f"finished early: {state.termination}", flush=True)
                return 1
            if state.status == "active" and state.to_move == seat and state.ply > sent_for:
                # the bot's thinking: a fixed time from the news of its turn, its search in it
                began = table.turn_began
                assert began is not None
                move = game[state.ply]
                time.sleep(max(0.0, began + think_s - time.monotonic()))
                table.send(MoveRequest(game_id=game_id, token=token, ply=state.ply, move=move))
                sent_for, made = state.ply, made + 1
                continue
            table.block(5.0)
        # stay until the last move is answered, so it is not lost with the connection
        while table.unanswered:
            table.block(5.0)
            table.poll()
    print("done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
