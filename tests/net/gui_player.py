"""A GUI player as a process of its own, for a client host behind a cut link: the
GUI's networking (:class:`lanqi.gui.net.GameAgent`, on the process's connection, as
the pygame GUI runs it) driven frame by frame by a script instead of a person.

``python gui_player.py SERVER NAME``: says hello as a human, prints its ready line,
accepts the first challenge, then plays random legal moves on its turns.  Its log
(stderr) has the lines the tests read from a ``lanqi bot``: ``game G: NAME sent M``
for each of its moves the referee's state shows, ``game G: NAME won|lost|drew as
seat S ... after N plies`` at the end, and each link lost and back.  It stays in
the lobby until SIGTERM.
"""

from __future__ import annotations

import logging
import random
import signal
import sys
import threading

from lanqi.bot.base import SeatView
from lanqi.client.matchmaker import MatchmakerClient
from lanqi.gui import commands
from lanqi.gui.net import Disconnected, GameAgent, Reconnected, Refused, ViewState
from lanqi.protocol import AcceptChallenge, Assignment, ChallengeReceived, GameAssigned, Ok

log = logging.getLogger("gui_player")
#: one frame of the GUI (seconds)
FRAME_S = 1 / 60


def main(server: str, name: str) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    lobby = MatchmakerClient(server)
    lobby.hello(name)
    print(f"gui player {name} on {server}: ready", flush=True)
    assignment = _accept(lobby, done)
    if assignment is not None:
        _play(assignment, name, done)
    done.wait()
    lobby.close()
    return 0


def _accept(lobby: MatchmakerClient, done: threading.Event) -> Assignment | None:
    while not done.is_set():
        push = lobby.next_push(100)
        if isinstance(push, ChallengeReceived):
            lobby.call(AcceptChallenge(challenge_id=push.challenge_id), Ok)
        elif isinstance(push, GameAssigned):
            return push.game
    return None


def _play(a: Assignment, name: str, done: threading.Event) -> None:
    agent = GameAgent(
        a.referee, a.referee_pub, a.game_id, seat=a.seat, token=a.token, key=a.referee_key
    )
    agent.start()
    rng = random.Random(11)
    sent: dict[int, str] = {}  # ply -> the move sent for it
    heard = 0  # plies of ours already logged as taken
    while not done.wait(FRAME_S):
        view: ViewState | None = None
        for item in agent.poll():
            if isinstance(item, Disconnected):
                log.warning("game %s: lost the referee", a.game_id)
            elif isinstance(item, Reconnected):
                log.info("game %s: the referee is back", a.game_id)
                view = item.view or view
            elif isinstance(item, Refused):
                log.warning("game %s: %s refused: %s", a.game_id, item.command, item.code)
            elif isinstance(item, ViewState):
                view = item
        if view is None:
            continue
        state = view.state
        for ply in range(heard, len(state.moves)):
            if ply in sent and state.moves[ply] == sent[ply]:
                log.info("game %s: %s sent %s ", a.game_id, name, sent[ply])
            heard = ply + 1
        if state.finished:
            outcome = (
                "drew" if state.winner is None else ("won" if state.winner == a.seat else "lost")
            )
            log.info(
                "game %s: %s %s as seat %d against them, %s (%s) after %d plies",
                a.game_id, name, outcome, a.seat, state.result, state.termination,
                len(state.moves),
            )  # fmt: skip
            agent.stop()
            return
        if state.status == "active" and state.to_move == a.seat and state.ply not in sent:
            board = SeatView.start(a.variant, options=dict(a.options), moves=list(state.moves))
            move = str(rng.choice(board.board.legal_moves()))
            sent[state.ply] = move
            agent.send(commands.PlayMove(ply=state.ply, move=move))


if __name__ == "__main__":
    raise SystemExit(main(*sys.argv[1:3]))
