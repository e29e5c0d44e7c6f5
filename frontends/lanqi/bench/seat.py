"""How long a move takes from one seat to the other: ``lanqi bench seat``.

Against a real referee (a subprocess on loopback, CURVE on), in one process:

- **bot**: games between two bot runners (:class:`~lanqi.bot.runner.GamePlayer`)
  whose bots play a script of moves at once.  A sample is the time from a bot's
  decision (``choose_move`` returns) to the opponent's runner handing it the next
  turn (its ``choose_move`` is called): the runner's way out, the referee, the
  event's way in, the runner's look at it.  The runner's CPU time per game is read
  at 16 games.
- **gui**: games between two GUI agents (:class:`~lanqi.gui.net.GameAgent`) driven
  as a frame loop would (polled every millisecond, not every frame, to measure the
  agent): a sample is the time from a "click" (a ``PlayMove`` command) to the
  agent's view showing that move.
- **raw**: the floor, measured in the same run: a move sent on a bare DEALER and its
  event received on a bare SUB, one game, nothing else running.

p50 and p99 at 1, 16 and 64 games at once.  The same file runs on older code (its
imports exist there too): ``--before REV`` runs it from ``git archive REV`` in a
subprocess, so both are measured on the same machine in the same run.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["SeatFigure", "SeatReport", "format_report", "measure", "measure_before"]

READY = re.compile(rb"referee ready: requests (?P<requests>\S+), events (?P<events>\S+), data")
VARIANT = "gomoku"
GAMES = (1, 16, 64)
PLIES = 24
#: plies of the raw round trip (one game)
RAW_PLIES = 120
#: the GUI driver looks at its agents this often (a frame loop looks every 16 ms)
DRIVE_S = 0.001


@dataclass(frozen=True, slots=True)
class SeatFigure:
    """One measurement: ``what`` (bot, gui, raw) at ``games`` games at once."""

    what: str
    games: int
    samples: int
    p50_ms: float
    p99_ms: float
    #: the runner process's CPU seconds per game (bot runs), else None
    cpu_per_game_s: float | None = None
    seconds: float = 0.0


@dataclass(slots=True)
class SeatReport:
    code: str
    figures: list[SeatFigure] = field(default_factory=list)


def script(seed: int, plies: int) -> list[str]:
    """Moves of a gomoku game that does not end within ``plies`` plies."""
    from lanqi.games.registry import create_game

    rng = random.Random(seed)
    while True:
        board = create_game(VARIANT)
        moves: list[str] = []
        squares = [f"{chr(ord('a') + x)}{y + 1}" for x in range(15) for y in range(15)]
        rng.shuffle(squares)
        for square in squares:
            if len(moves) == plies:
                return moves
            board.push(board.parse_move(square))
            if board.outcome() is not None:
                break
            moves.append(square)


def _percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))
    return ordered[index]


def _figure(what: str, games: int, samples: list[float], **extra: Any) -> SeatFigure:
    return SeatFigure(
        what,
        games,
        len(samples),
        round(_percentile(samples, 0.5) * 1000, 3),
        round(_percentile(samples, 0.99) * 1000, 3),
        **extra,
    )


# ================================================================ the referee


def start_referee(folder: Path) -> Any:
    from lanqi.bench.process import LanqiService

    service = LanqiService(
        "referee",
        ["--host", "127.0.0.1", "--data-dir", str(folder / "data")],
        folder,
        name="referee",
        ready=READY,
        ports={"--port": "requests", "--pub-port": "events"},
    )
    return service.start()


def _create(requests: str, events: str, games: int) -> list[Any]:
    from lanqi.client.referee import RefereeClient

    with RefereeClient(requests, events) as client:
        return [client.create_game(VARIANT, players=[f"a{i}", f"b{i}"]) for i in range(games)]


# ================================================================ raw DEALER/SUB


def measure_raw(requests: str, events: str, plies: int = RAW_PLIES) -> SeatFigure:
    """A move on a bare DEALER, its event on a bare SUB: the floor."""
    import zmq

    from lanqi.protocol import Join, MoveMade, MoveRequest, decode_payload, encode
    from lanqi.protocol.endpoints import game_topic
    from lanqi.security import KnownServers, trust_server

    created = _create(requests, events, 1)[0]
    context: zmq.Context[Any] = zmq.Context.instance()
    link = trust_server(requests, known=KnownServers.of())
    dealer, sub = context.socket(zmq.DEALER), context.socket(zmq.SUB)
    try:
        for socket in (dealer, sub):
            socket.setsockopt(zmq.LINGER, 0)
            link.setup(socket)
        dealer.connect(requests)
        sub.connect(events)
        sub.setsockopt(zmq.SUBSCRIBE, game_topic(created.game_id).encode())
        for seat in (0, 1):
            dealer.send_multipart(
                encode(
                    Join(
                        id=seat + 1, game_id=created.game_id, seat=seat, token=created.tokens[seat]
                    )
                )
            )
            assert dealer.poll(5000), "the referee does not answer"
            dealer.recv_multipart()
        moves = script(7, plies)
        samples: list[float] = []
        for ply, move in enumerate(moves):
            sent = time.perf_counter()
            request = MoveRequest(
                id=100 + ply,
                game_id=created.game_id,
                token=created.tokens[ply % 2],
                ply=ply,
                move=move,
            )
            dealer.send_multipart(encode(request))
            while True:  # the event (the SUB may still be joining for the first ones)
                if not sub.poll(1000):
                    break
                message = decode_payload(sub.recv_multipart()[-1])
                if isinstance(message, MoveMade) and message.ply == ply:
                    samples.append(time.perf_counter() - sent)
                    break
            assert dealer.poll(5000), "the referee does not answer"
            dealer.recv_multipart()
        return _figure("raw", 1, samples[2:])
    finally:
        dealer.close(0)
        sub.close(0)


# ================================================================ bot runners


class _Recorder:
    """When each bot decided and when each turn reached the next bot."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.decided: dict[tuple[str, int], float] = {}
        self.seen: dict[tuple[str, int], float] = {}


def _script_bot(moves: list[str], recorder: _Recorder) -> Any:
    from lanqi.bot.base import Bot

    class ScriptBot(Bot):  # runs on older revisions too (--before): no SeatView there
        name = "script"

        def choose_move(self, state: Any) -> str:
            ply = len(state.moves)
            now = time.perf_counter()
            with recorder.lock:
                recorder.seen.setdefault((state.game_id, ply), now)
            move = moves[ply]
            with recorder.lock:
                recorder.decided[(state.game_id, ply)] = time.perf_counter()
            return move

    return ScriptBot()


def measure_bots(requests: str, events: str, games: int, plies: int = PLIES) -> SeatFigure:
    """``games`` games between bot runners, ``plies`` plies each."""
    from lanqi.bot.runner import GamePlayer
    from lanqi.protocol import Assignment, TimeControl

    created = _create(requests, events, games)
    recorder = _Recorder()
    stop = threading.Event()
    players = []
    for index, game in enumerate(created):
        moves = script(index, plies + 40)
        for seat in (0, 1):
            assignment = Assignment(
                game_id=game.game_id,
                referee=requests,
                referee_pub=events,
                seat=seat,
                token=game.tokens[seat],
                variant=VARIANT,
                time_control=TimeControl(),
                players=[f"a{index}", f"b{index}"],
            )
            players.append(GamePlayer(_script_bot(moves, recorder), assignment, stop=stop))
    cpu, began = time.process_time(), time.monotonic()
    for player in players:
        player.start()
    wanted = {(g.game_id, ply) for g in created for ply in range(plies)}
    deadline = time.monotonic() + 60 + games * plies * 0.05
    while time.monotonic() < deadline:
        with recorder.lock:
            if wanted <= recorder.decided.keys():
                break
        time.sleep(0.05)  # a look at the recorder, not a wait for an event
    used, took = time.process_time() - cpu, time.monotonic() - began
    stop.set()
    for player in players:
        player.join(5)
    with recorder.lock:
        samples = [
            recorder.seen[(g, ply)] - recorder.decided[(g, ply - 1)]
            for (g, ply) in wanted
            if ply > 0 and (g, ply) in recorder.seen and (g, ply - 1) in recorder.decided
        ]
    return _figure("bot", games, samples, cpu_per_game_s=round(used / games, 4), seconds=took)


# ================================================================ GUI agents


def measure_agents(requests: str, events: str, games: int, plies: int = PLIES) -> SeatFigure:
    """``games`` games between GUI agents, driven like a frame loop."""
    from lanqi.gui import commands
    from lanqi.gui.net import GameAgent, ViewState

    created = _create(requests, events, games)
    agents: list[list[Any]] = []
    for game in created:
        pair = [
            GameAgent(requests, events, game.game_id, seat=seat, token=game.tokens[seat])
            for seat in (0, 1)
        ]
        for agent in pair:
            agent.start()
        agents.append(pair)
    moves = [script(index, plies) for index in range(games)]
    ply = [0] * games
    views: list[list[Any]] = [[None, None] for _ in range(games)]
    clicked: list[float | None] = [None] * games
    samples: list[float] = []
    began = time.monotonic()
    deadline = began + 60 + games * plies * 0.05
    try:
        while min(ply) < plies and time.monotonic() < deadline:
            for index, pair in enumerate(agents):
                for seat, agent in enumerate(pair):
                    for item in agent.poll():
                        if isinstance(item, ViewState):
                            views[index][seat] = item.state
                        elif hasattr(item, "view") and getattr(item, "view", None) is not None:
                            views[index][seat] = item.view.state
                if ply[index] >= plies:
                    continue
                mover = ply[index] % 2
                state = views[index][mover]
                if state is None or state.status != "active":
                    continue
                if clicked[index] is None and len(state.moves) == ply[index]:
                    clicked[index] = time.perf_counter()
                    pair[mover].send(commands.PlayMove(ply[index], moves[index][ply[index]]))
                elif (click := clicked[index]) is not None and len(state.moves) > ply[index]:
                    samples.append(time.perf_counter() - click)
                    clicked[index] = None
                    ply[index] += 1
            time.sleep(DRIVE_S)
    finally:
        for pair in agents:
            for agent in pair:
                agent.stop()
        for pair in agents:
            for agent in pair:
                agent.join(5)
    return _figure("gui", games, samples, seconds=time.monotonic() - began)


# ================================================================ a whole run


def measure(
    games: Sequence[int] = GAMES,
    plies: int = PLIES,
    *,
    code: str = "this",
    progress: Callable[[SeatFigure], None] | None = None,
) -> SeatReport:
    """Every figure against one referee subprocess."""
    report = SeatReport(code)
    with tempfile.TemporaryDirectory(prefix="lanqi-bench-seat-") as folder:
        referee = start_referee(Path(folder))
        try:
            requests, events = referee.endpoints["requests"], referee.endpoints["events"]
            steps: list[tuple[Callable[..., SeatFigure], int]] = [(measure_raw, RAW_PLIES)]
            for count in games:
                steps += [(measure_bots, count), (measure_agents, count)]
            for step, count in steps:
                if step is measure_raw:
                    figure = measure_raw(requests, events)
                else:
                    figure = step(requests, events, count, plies)
                report.figures.append(figure)
                if progress is not None:
                    progress(figure)
        finally:
            referee.stop()
    return report


def measure_before(
    revision: str,
    games: Sequence[int] = GAMES,
    plies: int = PLIES,
    *,
    repo: Path | None = None,
    progress: Callable[[SeatFigure], None] | None = None,
) -> SeatReport:
    """The same figures on the code of ``revision`` (``git archive`` of this repo),
    run by this very file in a subprocess with that code on its path."""
    root = repo or Path(__file__).resolve().parents[3]
    with tempfile.TemporaryDirectory(prefix="lanqi-bench-before-") as folder:
        archive = subprocess.run(
            ["git", "-C", str(root), "archive", revision, "shared", "services", "frontends"],
            check=True,
            capture_output=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
        path = os.pathsep.join(
            str(Path(folder) / part) for part in ("shared", "services", "frontends")
        )
        env = dict(os.environ, PYTHONPATH=path)
        command = [sys.executable, __file__, "--json", "--plies", str(plies), "--code", revision]
        command += ["--games", ",".join(str(g) for g in games)]
        report = SeatReport(revision)
        with subprocess.Popen(command, stdout=subprocess.PIPE, env=env, cwd=folder) as child:
            assert child.stdout is not None
            for line in child.stdout:
                figure = SeatFigure(**json.loads(line))
                report.figures.append(figure)
                if progress is not None:
                    progress(figure)
        if child.returncode != 0:
            raise RuntimeError(f"the bench on {revision} failed (exit {child.returncode})")
        return report


def format_figure(code: str, figure: SeatFigure) -> str:
    cpu = "" if figure.cpu_per_game_s is None else f"  cpu/game {figure.cpu_per_game_s:.3f} s"
    return (
        f"{code:>10}  {figure.what:<4} {figure.games:>3} games  p50 {figure.p50_ms:7.2f} ms  "
        f"p99 {figure.p99_ms:7.2f} ms  ({figure.samples} samples){cpu}"
    )


def format_report(reports: Sequence[SeatReport]) -> str:
    return "\n".join(format_figure(r.code, f) for r in reports for f in r.figures)


def _main(argv: Sequence[str]) -> int:
    """The subprocess of :func:`measure_before`: one JSON line a figure."""
    import argparse
    import logging

    parser = argparse.ArgumentParser()
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--plies", type=int, default=PLIES)
    parser.add_argument("--games", default=",".join(str(g) for g in GAMES))
    parser.add_argument("--code", default="this")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.CRITICAL)

    def emit(figure: SeatFigure) -> None:
        print(json.dumps(asdict(figure)), flush=True)

    games = [int(g) for g in args.games.split(",")]
    measure(games, args.plies, code=args.code, progress=emit)
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
