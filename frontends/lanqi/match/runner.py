"""The match: schedule, engines, concurrency, live statistics, SPRT and records.

:class:`Match` runs a :class:`~lanqi.match.config.MatchConfig` to its end on a
referee (a private in-process one unless ``config.referee`` names one): a round
robin of every pair of engines, ``games`` games per encounter and round, each
opening ``repeat`` times with colours alternating.  After every game it prints a
line a person reads (cutechess-cli's) and, when asked, appends the record.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import math
import os
import secrets
import tempfile
import threading
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import zmq

from lanqi.bot.base import Bot
from lanqi.bot.engines import EngineError
from lanqi.client.connection import process_connection
from lanqi.games.base import score_of
from lanqi.games.registry import variant_spec
from lanqi.match.config import EngineConfig, MatchConfig
from lanqi.match.game import STOPPED, GameSpec, MatchSeat, Played, RefereeLink, play_game
from lanqi.match.openings import Opening, load_openings
from lanqi.match.records import extra_record, latency_text, record_text
from lanqi.match.state import FinishedGame, MatchState, StateFileError, save_state
from lanqi.phrases import termination_words
from lanqi.stats import Estimate, SprtState, format_elo, format_nelo, pentanomial, trinomial

__all__ = ["EngineStartError", "Match", "MatchSummary"]

log = logging.getLogger(__name__)

IDLE_WAIT_S = 5.0  # after a game, how long an engine may take to finish its last search
#: terminations that count as an engine's disconnect (it crashed, hung or its runner vanished)
DISCONNECTS = frozenset({"crash", "hang", "abandoned"})


class EngineStartError(RuntimeError):
    """An engine could not be started before the match (bad path, option, handshake)."""


@dataclass(slots=True)
class _Tally:
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses


@dataclass(slots=True)
class MatchSummary:
    """What the match found, from the first engine's side for a two-engine match."""

    games: list[Played] = field(default_factory=list)
    #: (engine a, engine b) -> a's wins, draws, losses against b
    tallies: dict[tuple[int, int], _Tally] = field(default_factory=dict)
    pairs: list[int] = field(default_factory=lambda: [0] * 5)
    endings: Counter[str] = field(default_factory=Counter)
    sprt: SprtState | None = None
    stopped_by_sprt: bool = False
    #: engine index -> games it lost on time / by a disconnect (:data:`DISCONNECTS`)
    time_losses: Counter[int] = field(default_factory=Counter)
    disconnects: Counter[int] = field(default_factory=Counter)
    #: games finished before a resume (counted above, not in :attr:`games`)
    resumed: int = 0

    def estimate(self, a: int = 0, b: int = 1) -> Estimate:
        """Pentanomial on the finished colour-reversed pairs when there are any (and
        this is the two-engine match), else trinomial on the games."""
        if sum(self.pairs) and (a, b) == (0, 1):
            return pentanomial(self.pairs)
        t = self.tallies.get((a, b), _Tally())
        return trinomial(t.wins, t.draws, t.losses)


class _Pool:
    """Engines by worker thread: each concurrent game has its own processes, reused
    from game to game; a busy or broken one is closed and replaced."""

    def __init__(self, config: MatchConfig) -> None:
        self.config = config
        self.local = threading.local()
        self.lock = threading.Lock()
        self.all: list[Bot] = []
        self.spare: dict[int, list[Bot]] = defaultdict(list)
        self.pinned = 0  # engines pinned so far (-use-affinity)

    def _mine(self) -> dict[int, Bot]:
        mine: dict[int, Bot] | None = getattr(self.local, "bots", None)
        if mine is None:
            mine = self.local.bots = {}
        return mine

    def get(self, index: int) -> Bot:
        mine = self._mine()
        if index not in mine:
            with self.lock:
                spare = self.spare[index].pop() if self.spare[index] else None
            mine[index] = spare or self.start(self.config.engines[index])
        return mine[index]

    def start(self, engine: EngineConfig) -> Bot:
        cpus = None
        if self.config.use_affinity:  # a core of its own, round robin
            usable = sorted(os.sched_getaffinity(0))
            with self.lock:
                cpus, self.pinned = [usable[self.pinned % len(usable)]], self.pinned + 1
        bot = engine.make_bot(self.config.variant, cpus=cpus)
        with self.lock:
            self.all.append(bot)
        return bot

    def add_spare(self, index: int, bot: Bot) -> None:
        with self.lock:
            self.spare[index].append(bot)

    def release(self, index: int, seat: MatchSeat) -> None:
        """After a game: keep the engine if it is idle, else close it (it hangs)."""
        if not seat.idle.wait(IDLE_WAIT_S):
            log.warning("%s is still busy after its game; closing it", seat.label)
            self._mine().pop(index, None)
            seat.inner.close()

    def close(self) -> None:
        with self.lock:
            bots, self.all = self.all, []
        for bot in bots:
            bot.close()


class Match:
    """Play ``config``; ``say`` gets each line of output (``print`` by default).

    ``state`` is what ``config.autosave`` is rewritten with after each game (the
    match's arguments for ``-resume``); its finished games, when it has any, count
    and are not played again."""

    def __init__(
        self,
        config: MatchConfig,
        *,
        say: Callable[[str], None] = print,
        state: MatchState | None = None,
    ) -> None:
        self.config = config
        self.say = say
        self.state = state if state is not None else MatchState(argv=[], cwd=os.getcwd())
        self.summary = MatchSummary()
        #: set: start no new game
        self.stop = threading.Event()
        #: set: end the running games too
        self.abort = threading.Event()
        #: the private referee's sockets
        self.context: zmq.Context[Any] = zmq.Context.instance()
        #: every game's creation, watching table, seats and adjudications: the
        #: process's one connection
        self.connection = process_connection()
        self._lock = threading.Lock()
        self._pair_scores: dict[int, list[float]] = defaultdict(list)
        self._finished = 0
        self.openings: list[Opening] = []
        if config.openings is not None:
            self.openings = load_openings(
                config.openings, config.variant, options=config.game_options(), seed=config.seed
            )

    # ------------------------------------------------------------ schedule

    def schedule(self) -> Iterator[GameSpec]:
        """Every game in play order: rounds, then encounters, then games."""
        count = len(self.config.engines)
        encounters = [(i, j) for i in range(count) for j in range(i + 1, count)]
        number = 0
        for round_number in range(1, self.config.rounds + 1):
            for encounter, (i, j) in enumerate(encounters):
                for game in range(self.config.games):
                    pair = ((round_number - 1) * self.config.games + game) // self.config.repeat
                    opening = self.openings[pair % len(self.openings)] if self.openings else None
                    seats = (i, j) if game % 2 == 0 else (j, i)
                    number += 1
                    yield GameSpec(
                        number=number,
                        round=round_number,
                        seats=seats,
                        opening=opening,
                        pair=encounter * 1_000_000 + pair,
                    )

    def total_games(self) -> int:
        count = len(self.config.engines)
        return self.config.rounds * self.config.games * count * (count - 1) // 2

    # ------------------------------------------------------------ running

    def run(self) -> MatchSummary:
        finished = self._restore()
        self._autosave()
        left = any(spec.number not in finished for spec in self.schedule())
        if left and not self.stop.is_set():  # a resumed match may have nothing left
            with self._referee() as link:
                pool = _Pool(self.config)
                try:
                    self._probe(pool)
                    self._play_all(pool, link, finished)
                finally:
                    pool.close()
        self._final()
        return self.summary

    def _probe(self, pool: _Pool) -> None:
        """Start each engine once before the first game, all at once (each handshake
        waits on its own engine): start-up errors end the match at once, in one line
        (the first engine's in the command line's order).  The probes play the first
        games."""
        engines = self.config.engines
        with concurrent.futures.ThreadPoolExecutor(max_workers=len(engines)) as starters:
            started = [starters.submit(pool.start, engine) for engine in engines]
            concurrent.futures.wait(started)
        for index, (engine, future) in enumerate(zip(engines, started, strict=True)):
            exc = future.exception()
            if isinstance(exc, EngineError | OSError | ValueError):
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                raise EngineStartError(f"engine {engine.name!r} did not start: {first}") from exc
            pool.add_spare(index, future.result())

    @contextlib.contextmanager
    def _referee(self) -> Iterator[RefereeLink]:
        config = self.config
        context = self.context
        if config.referee:
            pub = config.referee_pub or _pub_of(config.referee)
            yield RefereeLink(config.referee, pub, config.admin_key)
            return
        from lanqi.referee.service import RefereeConfig, RefereeService

        with tempfile.TemporaryDirectory(prefix="lanqi-match-") as data:
            key = secrets.token_urlsafe(16)
            service = RefereeService(
                RefereeConfig(port=0, pub_port=0, data_dir=Path(data), admin_key=key),
                context=context,
            )
            service.bind()
            thread = threading.Thread(target=service.serve_forever, name="referee", daemon=True)
            thread.start()
            self.say(f"referee on {service.endpoint} (events on {service.pub_endpoint})")
            try:
                yield RefereeLink(
                    service.endpoint, service.pub_endpoint, key, service.public_key, local=service
                )
            finally:
                service.stop()
                thread.join(5)
                service.close()

    def _restore(self) -> set[int]:
        """Count the state's finished games (checked against the schedule), cut the
        PGN file back to its size after the last of them; their numbers."""
        games = self.state.games
        by_number = {spec.number: spec for spec in self.schedule()}
        for game in games:
            spec = by_number.get(game.number)
            name = spec.opening.name if spec is not None and spec.opening is not None else None
            if spec is None or (spec.seats, spec.pair, name) != (
                game.seats,
                game.pair,
                game.opening,
            ):
                raise StateFileError(
                    f"game {game.number} of the state file is not this match's game "
                    f"{game.number} (openings or settings changed); start a new match"
                )
        pgnout, records = self.config.pgnout, self.state.records
        if pgnout is not None:
            if str(pgnout) in records and pgnout.exists():
                with pgnout.open("r+b") as out:  # a record written after the last autosave
                    out.truncate(records[str(pgnout)])
            elif str(pgnout) not in records:  # the match starts: the file's size before it
                records[str(pgnout)] = pgnout.stat().st_size if pgnout.exists() else 0
        if not games:
            return set()
        for game in games:
            self._count(by_number[game.number], game.result, game.termination)
        self.summary.resumed = len(games)
        self._finished = len(games)
        total = self.total_games()
        self.say(
            f"Resumed: {len(games)} of {total} games finished before"
            + (
                "; a game that was running is played again from its start"
                if len(games) < total
                else ""
            )
        )
        if len(self.config.engines) == 2:
            self._two_engine_lines(force=True)
        return {game.number for game in games}

    def _autosave(self) -> None:
        path = self.config.autosave
        if path is None:
            return
        summary = self.summary
        derived: dict[str, Any] = {
            "planned_games": self.total_games(),
            "finished_games": self._finished,
            "pentanomial": summary.pairs,
            "llr": None if summary.sprt is None else round(summary.sprt.llr, 4),
            "next_game": next(
                (s.number for s in self.schedule() if s.number not in self._numbers()), None
            ),
        }
        save_state(path, self.state, **derived)

    def _numbers(self) -> set[int]:
        return {game.number for game in self.state.games}

    def _play_all(self, pool: _Pool, link: RefereeLink, finished: set[int]) -> None:
        specs = (spec for spec in self.schedule() if spec.number not in finished)
        running: set[concurrent.futures.Future[Played]] = set()
        with concurrent.futures.ThreadPoolExecutor(
            max_workers=self.config.concurrency, thread_name_prefix="match"
        ) as executor:
            try:
                while True:
                    while not self.stop.is_set() and len(running) < self.config.concurrency:
                        spec = next(specs, None)
                        if spec is None:
                            break
                        running.add(executor.submit(self._play_one, spec, pool, link))
                    if not running:
                        break
                    done, running = concurrent.futures.wait(
                        running, return_when=concurrent.futures.FIRST_COMPLETED
                    )
                    for future in done:
                        self._record(future.result())
            except KeyboardInterrupt:
                self.interrupt()  # the running games end now, so the pool can shut down
                raise

    def _play_one(self, spec: GameSpec, pool: _Pool, link: RefereeLink) -> Played:
        config = self.config
        engines = [config.engines[i] for i in spec.seats]
        bots = (pool.get(spec.seats[0]), pool.get(spec.seats[1]))
        options = config.game_options()
        played, seats = play_game(
            spec,
            variant=config.variant,
            options=options,
            names=(engines[0].name, engines[1].name),
            bots=bots,
            time_control=config.time_control(engines),
            rules=config.adjudication,
            link=link,
            stop=self.abort,
            connection=self.connection,
        )
        for index, seat in zip(spec.seats, seats, strict=True):
            pool.release(index, seat)
        return played

    # ------------------------------------------------------------ results

    def _record(self, played: Played) -> None:
        config = self.config
        self.summary.games.append(played)
        self._count(played.spec, played.result, played.termination)
        self._finished += 1
        names = played.names
        self.say(
            f"Finished game {played.spec.number} ({names[0]} vs {names[1]}): "
            f"{played.result} {{{termination_words(played.termination, style='record')}}}"
        )
        if len(config.engines) == 2:
            self._two_engine_lines()
        self._write(played)
        if played.termination != STOPPED:  # a stopped game is played again on resume
            spec = played.spec
            self.state.games.append(
                FinishedGame(
                    number=spec.number,
                    round=spec.round,
                    seats=spec.seats,
                    pair=spec.pair,
                    opening=spec.opening.name if spec.opening is not None else None,
                    result=played.result,
                    termination=played.termination,
                )
            )
            if config.pgnout is not None and config.pgnout.exists():
                self.state.records[str(config.pgnout)] = config.pgnout.stat().st_size
            self._autosave()

    def _count(self, spec: GameSpec, result: str, termination: str) -> None:
        """Count a finished game in the summary: tallies, endings, pairs, failures."""
        config = self.config
        summary = self.summary
        summary.endings[termination_words(termination, style="record")] += 1
        a, b = spec.seats
        points = score_of(result)
        score = points if termination != STOPPED else None
        if score is not None:
            loser = a if score == 0.0 else b if score == 1.0 else None
            if loser is not None and termination == "timeout":
                summary.time_losses[loser] += 1
            if loser is not None and termination in DISCONNECTS:
                summary.disconnects[loser] += 1
            for me, other, points in ((a, b, score), (b, a, 1.0 - score)):
                tally = summary.tallies.setdefault((me, other), _Tally())
                tally.wins += points == 1.0
                tally.draws += points == 0.5
                tally.losses += points == 0.0
            if config.repeat == 2 and len(config.engines) == 2:
                first = score if a == 0 else 1.0 - score
                key = spec.pair
                self._pair_scores[key].append(first)
                if len(self._pair_scores[key]) == 2:
                    summary.pairs[round(2 * sum(self._pair_scores.pop(key)))] += 1

    def _two_engine_lines(self, *, force: bool = False) -> None:
        config, summary = self.config, self.summary
        tally = summary.tallies.get((0, 1), _Tally())
        n = tally.games
        ratio = (tally.wins + tally.draws / 2) / n if n else 0.0
        a, b = config.engines[0].name, config.engines[1].name
        self.say(
            f"Score of {a} vs {b}: {tally.wins} - {tally.losses} - {tally.draws}  [{ratio:.3f}] {n}"
        )
        every = config.ratinginterval
        last = self._finished == self.total_games()
        if not (every and self._finished % every == 0) and not last and not force:
            return
        est = summary.estimate()
        model = f"pentanomial, {est.units} pairs" if sum(summary.pairs) else "trinomial"
        self.say(
            f"Elo difference: {format_elo(est)} (95%, {model}), LOS: {100 * est.los:.1f} %, "
            f"DrawRatio: {100 * tally.draws / n if n else 0:.1f} %, nElo: {format_nelo(est)}"
        )
        self.say(f"{self._pairs_text()}, {self._failures_text()}")
        if config.sprt is not None:
            state = config.sprt.state(est)
            summary.sprt = state
            self.say(
                f"SPRT: llr {state.llr:.2f} ({100 * state.llr / state.upper:.1f}%), "
                f"lbound {state.lower:.2f}, ubound {state.upper:.2f} {self._hypotheses()}"
                + (f" - {state.decision} accepted" if state.decision else "")
            )
            if state.decision and not self.stop.is_set():
                summary.stopped_by_sprt = True
                self.stop_scheduling()

    def _pairs_text(self) -> str:
        """``Pairs: 10, Ptnml(0-2): [0, 1, 4, 3, 2]`` (LL, LD, DD+WL, WD, WW), or
        ``Pairs: 0`` when the games are not played in colour-reversed pairs."""
        pairs = self.summary.pairs
        if not sum(pairs):
            return "Pairs: 0"
        return f"Pairs: {sum(pairs)}, Ptnml(0-2): [{', '.join(map(str, pairs))}]"

    def _failures_text(self) -> str:
        """``time losses: 1 (AI), disconnects: 0``: games lost on time or by a crash,
        hang or vanished runner, with the engines that lost them."""

        def one(counts: Counter[int]) -> str:
            total = sum(counts.values())
            if not total:
                return "0"
            names = self.config.engines
            who = ", ".join(f"{names[i].name} {c}" for i, c in sorted(counts.items()))
            return f"{total} ({who})"

        summary = self.summary
        return f"time losses: {one(summary.time_losses)}, disconnects: {one(summary.disconnects)}"

    def _hypotheses(self) -> str:
        """``[0.00, 5.00] logistic``: the SPRT's elo0, elo1 and Elo model."""
        sprt = self.config.sprt
        if sprt is None:
            return ""
        return f"[{sprt.elo0:.2f}, {sprt.elo1:.2f}] {sprt.model}"

    def report(self) -> list[str]:
        """The final report of a two-engine match, as fastchess prints it: games and
        W-D-L, Elo and nElo with 95% intervals, LOS, draw ratio, the pentanomial,
        the SPRT's LLR with its bounds and decision, time losses and disconnects."""
        config, summary = self.config, self.summary
        tally = summary.tallies.get((0, 1), _Tally())
        n = tally.games
        points = tally.wins + tally.draws / 2
        est = summary.estimate()
        model = "pentanomial" if sum(summary.pairs) else "trinomial"
        a, b = config.engines[0].name, config.engines[1].name
        rule = "-" * 50
        lines = [
            rule,
            f"Results of {a} vs {b}:",
            f"Games: {n}, Wins: {tally.wins}, Losses: {tally.losses}, Draws: {tally.draws}, "
            f"Points: {points:g} ({100 * points / n if n else 0:.2f} %)",
            f"Elo: {_elo1(est.elo)} [{_elo1(est.low)}, {_elo1(est.high)}] (95%, {model}), "
            f"nElo: {format_nelo(est)}",
            f"LOS: {100 * est.los:.2f} %, DrawRatio: {100 * tally.draws / n if n else 0:.2f} %",
            self._pairs_text(),
        ]
        if config.sprt is not None and summary.sprt is not None:
            state = summary.sprt
            verdict = f" - {state.decision} accepted" if state.decision else ""
            lines.append(
                f"LLR: {state.llr:.2f} ({state.lower:.2f}, {state.upper:.2f}) "
                f"{self._hypotheses()}{verdict}"
            )
        failures = self._failures_text()
        lines += [failures[0].upper() + failures[1:], rule]
        return lines

    def stop_scheduling(self) -> None:
        """No new games; the running ones finish and count."""
        self.stop.set()

    def interrupt(self) -> None:
        """No new games, and the running ones end now (the side to move resigns)."""
        self.stop.set()
        self.abort.set()

    def _write(self, played: Played) -> None:
        config = self.config
        with self._lock:
            if config.pgnout is not None:
                config.pgnout.parent.mkdir(parents=True, exist_ok=True)
                with config.pgnout.open("a", encoding="utf-8") as out:
                    out.write(record_text(played, config.event) + "\n")
            if config.psqout is not None and "psq" in variant_spec(config.variant).extra_records:
                config.psqout.mkdir(parents=True, exist_ok=True)
                path = config.psqout / f"game-{played.spec.number:04d}.psq"
                path.write_text(extra_record(played, "psq"), encoding="utf-8")

    def _final(self) -> None:
        summary = self.summary
        endings = ", ".join(f"{k} {v}" for k, v in summary.endings.most_common())
        self.say(f"Endings: {endings or 'none'}")
        latency = latency_text(summary.games)
        if latency is not None:
            self.say(latency)
        if summary.stopped_by_sprt and summary.sprt is not None:
            self.say(f"SPRT stopped the match: {summary.sprt.decision} accepted")
        if len(self.config.engines) > 2:
            for line in self.table():
                self.say(line)
        else:
            for line in self.report():
                self.say(line)
        self.say("Finished match")

    def table(self) -> list[str]:
        """Rank, name, Elo against the field with its interval, games, score, draws."""
        rows = []
        for index, engine in enumerate(self.config.engines):
            t = _Tally()
            for (me, _), tally in self.summary.tallies.items():
                if me == index:
                    t.wins += tally.wins
                    t.draws += tally.draws
                    t.losses += tally.losses
            est = trinomial(t.wins, t.draws, t.losses)
            rows.append((est, engine.name, t))
        rows.sort(key=lambda row: (-row[0].score, row[1]))
        width = max(_width(name) for _, name, _ in rows)
        head = f"{'Elo [95%]':>22} {'games':>6} {'score':>7} {'draws':>6}"
        lines = [f"{'Rank':>4} {_pad('Name', width)} {head}"]
        for rank, (est, name, t) in enumerate(rows, 1):
            lines.append(
                f"{rank:>4} {_pad(name, width)} {format_elo(est):>22} {t.games:>6} "
                f"{100 * est.score:>6.1f}% {100 * t.draws / max(1, t.games):>5.1f}%"
            )
        return lines


def _elo1(elo: float) -> str:
    """``+124.0``, ``-3.5``, ``+inf``."""
    if math.isinf(elo):
        return "+inf" if elo > 0 else "-inf"
    return f"{elo + 0.0:+.1f}"


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _pad(text: str, width: int) -> str:
    return text + " " * (width - _width(text))


def _pub_of(endpoint: str) -> str:
    """The referee's PUB endpoint by the default layout: its port plus one."""
    host, _, port = endpoint.rpartition(":")
    return f"{host}:{int(port) + 1}"
