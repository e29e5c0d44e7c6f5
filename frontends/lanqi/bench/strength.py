"""``lanqi bench strength``: how well the built-in AIs play (a benchmark, not a test).

Xiangqi: the built-in AI against Fairy-Stockfish limited to a fixed depth, colours
alternating.  Gomoku: the built-in AI against the greedy one-ply player and the
random player.  Games are played on a local table (the referee's own session in
process, no server), so the figures measure the players only.  For each match it
prints the score, the Elo difference with a 95% interval and the likelihood of superiority (from
:mod:`lanqi.stats`, the statistics ``lanqi match`` prints too), how the games
ended, and the AI's search speed where it reports one.  ``gomoku_engine`` adds a
match of the gomoku AI against an outside Gomocup brain.
"""

from __future__ import annotations

import shutil
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

from lanqi.bot.base import Bot
from lanqi.bot.base import SeatView as BotState
from lanqi.games.base import score_of
from lanqi.protocol import MoveRequest, Resign, termination_label
from lanqi.stats import format_elo, trinomial
from lanqi.table.local import LocalReferee
from lanqi.table.port import Answered

__all__ = ["MatchReport", "elo_interval", "play_match", "run_strength"]

FAIRY = "/usr/games/fairy-stockfish"


@dataclass(slots=True)
class MatchReport:
    name: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    endings: Counter[str] = field(default_factory=Counter)
    ai_seconds: float = 0.0
    ai_moves: int = 0

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0


def elo_interval(wins: int, draws: int, losses: int) -> tuple[float, float, float]:
    """Elo difference and its 95% interval from a match score (:func:`lanqi.stats.trinomial`:
    a sweep keeps an interval open on its far side instead of a zero-width one).

    >>> elo, low, high = elo_interval(6, 2, 2)
    >>> round(elo), low < elo < high
    (147, True)
    """
    est = trinomial(wins, draws, losses)
    return est.elo, est.low, est.high


def play_game(
    variant: str, players: list[Bot], *, timed_seat: int = 0, max_plies: int = 300
) -> tuple[str, str, float, int]:
    """One game on a local table (the referee's session in process); returns (result,
    termination (the referee's reason where it gives one: ``illegal_move h2h9``),
    seconds used by ``timed_seat``, its moves)."""
    referee = LocalReferee.start(variant, game_id="bench")
    tables = [referee.table(0), referee.table(1)]
    spent, moves = 0.0, 0
    for ply in range(max_plies):
        state = referee.state
        if state.status == "finished":
            return (
                state.result or "*",
                termination_label(state.termination, state.reason),
                spent,
                moves,
            )
        seat = referee.session.game.seat_to_move
        table = tables[seat]
        view = BotState(
            game_id=state.game_id,
            variant=variant,
            options=dict(state.options),
            seat=seat,
            board=referee.live_board(),
            moves=list(state.moves),
            start_fen=state.start_fen,
        )
        started = time.perf_counter()
        move = players[seat].choose_move(view)
        if seat == timed_seat:
            spent += time.perf_counter() - started
            moves += 1
        token = table.token or ""
        table.send(MoveRequest(game_id=state.game_id, token=token, ply=ply, move=move))
        refused = [n.refusal for n in table.poll(time.monotonic()) if isinstance(n, Answered)]
        if refused and refused[0] is not None:  # the referee's word: that player loses
            reason = f"{refused[0].code} {move}"[:32]
            table.send(Resign(game_id=state.game_id, token=token, reason=reason))
            table.poll(time.monotonic())
    state = referee.state
    if state.status == "finished":
        return state.result or "*", termination_label(state.termination, state.reason), spent, moves
    return "1/2-1/2", "bench_ply_limit", spent, moves


def play_match(
    name: str,
    variant: str,
    make_ai: Callable[[], Bot],
    make_rival: Callable[[], Bot],
    *,
    games: int,
    progress: Callable[[str], None] | None = None,
) -> MatchReport:
    """``games`` games, colours alternating; the AI's side of the score."""
    report = MatchReport(name)
    ai, rival = make_ai(), make_rival()
    try:
        for number in range(games):
            ai_seat = number % 2
            players = [ai, rival] if ai_seat == 0 else [rival, ai]
            result, ending, spent, moves = play_game(variant, players, timed_seat=ai_seat)
            report.ai_seconds += spent
            report.ai_moves += moves
            score = score_of(result)
            score = 0.5 if score is None else score
            ai_score = score if ai_seat == 0 else 1.0 - score
            report.games += 1
            report.wins += ai_score == 1.0
            report.draws += ai_score == 0.5
            report.losses += ai_score == 0.0
            report.endings[ending] += 1
            if progress:
                progress(f"{name}: game {number + 1}/{games}: {result} ({ending})")
    finally:
        ai.close()
        rival.close()
    return report


def format_report(reports: list[MatchReport]) -> str:
    lines = [
        f"{'match':<42} {'games':>5} {'W-D-L':>9} {'score':>6} {'Elo diff (95%)':>22} "
        f"{'LOS':>6} {'s/move':>7}  endings",
    ]
    for r in reports:
        est = trinomial(r.wins, r.draws, r.losses)
        endings = ", ".join(f"{k} {v}" for k, v in r.endings.most_common())
        lines.append(
            f"{r.name:<42} {r.games:>5} {r.wins}-{r.draws}-{r.losses:<5} {r.score:>6.1%} "
            f"{format_elo(est):>22} {est.los:>6.1%} {r.ai_seconds / max(1, r.ai_moves):>7.2f}"
            f"  {endings}"
        )
    return "\n".join(lines)


def run_strength(
    *,
    games: int = 10,
    move_ms: int = 1000,
    depths: tuple[int, ...] = (3, 5, 7),
    level: int = 8,
    gomoku_games: int = 20,
    gomoku_engine: str | None = None,
    quiet: bool = False,
) -> list[MatchReport]:
    """Every match of the benchmark (Fairy-Stockfish matches only if it is installed);
    ``gomoku_engine`` (``gomocup:PATH``) adds the gomoku AI against that brain."""
    from lanqi.bot.catalog import builtin_ai
    from lanqi.bot.simple import GreedyGomokuBot, RandomBot

    def say(text: str) -> None:
        if not quiet:
            print(text, file=sys.stderr, flush=True)

    reports = []
    engine = FAIRY if shutil.which(FAIRY) or shutil.which("fairy-stockfish") else None
    if engine is None:
        say("fairy-stockfish not found (apt-get install fairy-stockfish): xiangqi matches left out")
    else:
        from lanqi.bot.engines.uci import UciEngine

        for depth in depths:
            reports.append(
                play_match(
                    f"xiangqi-ai L{level} {move_ms}ms vs Fairy-SF depth {depth}",
                    "xiangqi",
                    partial(builtin_ai, "xiangqi", level=level, time_ms=move_ms),
                    partial(UciEngine, [engine], depth=depth, options={"Threads": 1}),
                    games=games,
                    progress=say,
                )
            )
    if gomoku_engine is not None:
        from lanqi.bot.engines import create_engine

        reports.append(
            play_match(
                f"gomoku-ai L5 vs {gomoku_engine.rpartition('/')[2]}"[:42],
                "gomoku",
                partial(builtin_ai, "gomoku", level=5, time_ms=move_ms),
                partial(create_engine, gomoku_engine, movetime=move_ms),
                games=gomoku_games,
                progress=say,
            )
        )
    reports.append(
        play_match(
            "gomoku-ai L5 vs greedy one-ply",
            "gomoku",
            partial(builtin_ai, "gomoku", level=5, time_ms=move_ms),
            partial(GreedyGomokuBot, seed=7),
            games=gomoku_games,
            progress=say,
        )
    )
    reports.append(
        play_match(
            "gomoku-ai L5 vs random",
            "gomoku",
            partial(builtin_ai, "gomoku", level=5, time_ms=move_ms),
            partial(RandomBot, seed=7),
            games=max(2, gomoku_games // 2),
            progress=say,
        )
    )
    return reports
