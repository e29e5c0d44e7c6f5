"""The built-in gomoku AI: threat search first, then alpha-beta on line patterns.

:class:`GomokuAI` decides a move in this order:

1. win now (a five: exactly five under ``standard``, and for Black under ``renju``);
2. block the opponent's five;
3. make an open four (or a double four) that cannot be stopped;
4. a VCF: a sequence of fours that ends in a five (four-threes included);
5. see the opponent's threats: if they have an open three or a VCF, keep only
   the moves after which they have neither (counter-fours included);
6. a VCT: fours and open threes that force a win (levels 4 and 5), and, if
   the opponent has one, only the moves proven to stop it (when there is time
   to prove it);
7. alpha-beta with iterative deepening over the best-scored moves near the
   stones, evaluated by the line patterns of :mod:`lanqi.bot.gomoku_patterns`,
   until the time budget runs out (a hard stop on ``time.monotonic``).

The rule is respected throughout: under ``standard`` an overline does not win
(the shape tables see it as nothing), under ``renju`` Black never plays a
forbidden point, and White's fours that Black could only stop on a forbidden
point count as wins, as do White's overlines.

``level`` runs from 1 (random moves near the stones, but it wins and blocks
fives) to 5 (everything above, with the full time budget).

>>> from lanqi.bot.base import SeatView
>>> state = SeatView.start("gomoku", moves=["h8", "a1", "i8", "a2", "j8", "a3", "k8", "a4"])
>>> GomokuAI(level=3, seed=1).choose_move(state) in {"g8", "l8"}
True
"""

from __future__ import annotations

import logging
import random
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lanqi.bot.base import Bot, PlayResult, SeatView, think_time_ms
from lanqi.bot.base import SearchInfo as BotSearchInfo
from lanqi.bot.gomoku_patterns import (
    EMPTY,
    FOUR_CLASS,
    FOUR_THREE_CLASS,
    OPEN_FOUR_CLASS,
    WHITE,
    PatternBoard,
    warm_up,
)
from lanqi.games.gomoku import Board, Move

if TYPE_CHECKING:
    from lanqi.bot.catalog import AISettings

__all__ = ["GomokuAI", "SearchInfo", "ThreatSearch"]

log = logging.getLogger(__name__)

WIN = 1_000_000
_INF = 10 * WIN
_EXACT, _LOWER, _UPPER = 0, 1, 2


@dataclass(frozen=True, slots=True)
class _Level:
    time_share: float  # of the move's time budget
    vcf_depth: int  # attacker moves
    vct_depth: int
    vct_share: float  # of the budget, for the VCT
    max_depth: int  # alpha-beta plies
    width: int  # moves tried per alpha-beta node
    defend_vcf: bool


_LEVELS = {
    3: _Level(0.3, 8, 0, 0.0, 2, 8, False),
    4: _Level(0.6, 14, 3, 0.15, 4, 10, True),
    5: _Level(1.0, 20, 6, 0.2, 12, 12, True),
}


@dataclass(slots=True)
class SearchInfo:
    """What the last :meth:`GomokuAI.choose_move` did: why it chose, and how hard it looked."""

    reason: str = ""
    nodes: int = 0
    depth: int = 0
    score: int = 0
    seconds: float = 0.0

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


class _StopSearchError(Exception):
    """The time or node budget ran out."""


class ThreatSearch:
    """Searches on a :class:`PatternBoard`: VCF, VCT and alpha-beta.

    ``deadline`` is a ``time.monotonic()`` value and ``node_limit`` a count of
    visited positions; either stops the search by raising an internal exception
    that the public methods turn into "not found".

    >>> from lanqi.games.gomoku import Board
    >>> board = Board.from_fen(
    ...     "15/15/15/15/15/15/15/7xx6/7x7/7x7/15/15/15/15/15 b", rule="freestyle"
    ... )
    >>> pb = PatternBoard.from_board(board)
    >>> search = ThreatSearch(pb)
    >>> pb.point_name(search.vcf(0, 10))  # h6-h9: an open four
    'h9'
    >>> search.vcf(1, 10) is None
    True
    """

    def __init__(
        self,
        pb: PatternBoard,
        *,
        deadline: float | None = None,
        node_limit: int | None = None,
    ) -> None:
        self.pb = pb
        self.nodes = 0
        self.deadline = deadline
        self.node_limit = node_limit
        self._check_at = 1
        self.stopped = False  # did the last vcf() or vct() run out of budget?
        self._vcf_fail: dict[tuple[int, int], int] = {}
        self._vct_fail: dict[tuple[int, int], int] = {}
        self._table: dict[int, tuple[int, int, int, int]] = {}
        self.width = 12
        # Tenths: how much the side to move's patterns count against the other's.
        self.tempo = 12
        # A four-three wins when the opponent has no four to answer with.
        self.four_three = True

    # -- budget ----------------------------------------------------------------------

    def set_budget(self, deadline: float | None, node_limit: int | None) -> None:
        """Search until ``deadline`` (``time.monotonic()``) or ``node_limit`` nodes in all."""
        self.deadline = deadline
        self.node_limit = node_limit
        self._check_at = self.nodes + 1

    def share_budget(self, parts: int) -> tuple[float | None, int | None]:
        """Limit the search to ``1/parts`` of the budget left; returns the old
        budget, for :meth:`set_budget` to restore."""
        saved = (self.deadline, self.node_limit)
        deadline, node_limit = saved
        if deadline is not None:
            now = time.monotonic()
            deadline = now + max(0.0, deadline - now) / parts
        if node_limit is not None:
            node_limit = self.nodes + max(1, (node_limit - self.nodes) // parts)
        self.set_budget(deadline, node_limit)
        return saved

    def _tick(self) -> None:
        self.nodes += 1
        if self.nodes >= self._check_at:
            self._check_budget()

    def _check_budget(self) -> None:
        """Raise once the budget is spent; else look again in a few nodes.  Once
        spent, every later node raises at once (the check point is not moved)."""
        if self.node_limit is not None and self.nodes > self.node_limit:
            raise _StopSearchError
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise _StopSearchError
        self._check_at = self.nodes + 32
        if self.node_limit is not None:
            self._check_at = min(self._check_at, self.node_limit + 1)

    def legal(self, p: int, color: int) -> bool:
        return not self.pb.is_forbidden(p, color)

    def legal_fours(self, color: int) -> list[int]:
        """The points where ``color`` may make a four (or better), strongest first."""
        pb = self.pb
        cls, value = pb.cls[color], pb.value[color]
        fours = [p for p in pb.fours(color) if self.legal(p, color)]
        fours.sort(key=lambda p: (cls[p], value[p], -p), reverse=True)
        return fours

    # -- VCF ------------------------------------------------------------------------------

    def vcf(self, attacker: int, depth: int) -> int | None:
        """A first move of a win by continuous fours for ``attacker`` (to move), or None."""
        self.stopped = False
        try:
            return self._vcf(attacker, depth)
        except _StopSearchError:
            self.stopped = True
            return None

    def vcf_line(self, attacker: int, depth: int) -> list[int]:
        """The points of a VCF for ``attacker`` (to move), in order: each four and
        its forced block, then the five.  Empty if none is found."""
        pb = self.pb
        line: list[int] = []
        played = 0
        try:
            while True:
                p = self.vcf(attacker, depth - len(line) // 2)
                if p is None:
                    return []  # (only when the budget ran out half way)
                line.append(p)
                if p in pb.fives(attacker):
                    return line
                pb.play(p, attacker)
                played += 1
                fives = pb.fives(attacker)
                if len(fives) != 1 or pb.is_forbidden(min(fives), 1 - attacker):
                    line.extend(sorted(fives))
                    return line
                (r,) = fives
                line.append(r)
                pb.play(r, 1 - attacker)
                played += 1
        finally:
            for _ in range(played):
                pb.undo()

    def _vcf(self, a: int, depth: int) -> int | None:
        self._tick()
        pb = self.pb
        fives = pb.fives(a)
        if fives:
            return min(fives)
        if depth <= 0:
            return None
        key = (pb.hash, a)
        if self._vcf_fail.get(key, -1) >= depth:
            return None
        d = 1 - a
        blocks = pb.fives(d)
        if blocks:
            if len(blocks) > 1:
                return None
            (q,) = blocks
            if pb.cls[a][q] < FOUR_CLASS or not self.legal(q, a):
                return None
            moves = [q]
        else:
            moves = self.legal_fours(a)
        for p in moves:
            if self._four_wins(a, p, depth):
                return p
        self._vcf_fail[key] = depth
        return None

    def _four_wins(self, a: int, p: int, depth: int) -> bool:
        """Play the four ``p``, let the defender block, and look for more fours."""
        pb = self.pb
        pb.play(p, a)
        try:
            fives = pb.fives(a)
            if len(fives) >= 2:
                return True
            if not fives:
                return False
            (r,) = fives
            if pb.is_forbidden(r, 1 - a):
                return True  # renju: Black cannot block on a forbidden point
            pb.play(r, 1 - a)
            try:
                return self._vcf(a, depth - 1) is not None
            finally:
                pb.undo()
        finally:
            pb.undo()

    # -- VCT ------------------------------------------------------------------------------

    def vct(self, attacker: int, depth: int) -> int | None:
        """A first move of a win by fours and open threes for ``attacker``, or None."""
        self.stopped = False
        try:
            return self._vct_or(attacker, depth)
        except _StopSearchError:
            self.stopped = True
            return None

    def _vct_or(self, a: int, depth: int) -> int | None:
        self._tick()
        pb = self.pb
        fives = pb.fives(a)
        if fives:
            return min(fives)
        if depth <= 0:
            return None
        key = (pb.hash, a)
        if self._vct_fail.get(key, -1) >= depth:
            return None
        d = 1 - a
        blocks = pb.fives(d)
        if blocks:
            if len(blocks) > 1:
                return None
            (q,) = blocks
            if not self.legal(q, a):
                return None
            moves = [q]
        else:
            won = self._quick_win(a)
            if won is not None:
                return won
            if depth == 1 and not self._blocks_can_be_forbidden(a):
                return None  # one more four is blocked, and a three is too slow
            moves = self.legal_fours(a)
            if depth > 1:  # a three needs two more moves to win
                cls, value = pb.cls[a], pb.value[a]
                threes = [p for p in pb.threes(a) if self.legal(p, a)]
                threes.sort(key=lambda p: (cls[p], value[p], -p), reverse=True)
                moves.extend(threes[:10])
        for p in moves:
            pb.play(p, a)
            try:
                won = self._vct_and(a, depth - 1)
            finally:
                pb.undo()
            if won:
                return p
        self._vct_fail[key] = depth
        return None

    def _blocks_can_be_forbidden(self, a: int) -> bool:
        """Renju, White attacking: a four may win because Black may not block it."""
        return self.pb.rule == "renju" and a == WHITE

    def _quick_win(self, a: int) -> int | None:
        """A move that wins for ``a`` at once when the other side has no five
        to play: an open four (or double four), or a four-three when the other
        side has no four to answer with."""
        pb = self.pb
        for p in pb.threats[a][OPEN_FOUR_CLASS]:
            if self.legal(p, a):
                return p
        if self.four_three and not any(True for _ in pb.fours(1 - a)):
            for p in pb.threats[a][FOUR_THREE_CLASS]:
                if self.legal(p, a):
                    return p
        return None

    def _vct_and(self, a: int, depth: int) -> bool:
        """The defender to move: does every defence still lose?"""
        self._tick()
        pb = self.pb
        d = 1 - a
        if pb.fives(d):
            return False
        fives = pb.fives(a)
        if len(fives) >= 2:
            return True
        if fives:
            (r,) = fives
            if pb.is_forbidden(r, d):
                return True
            pb.play(r, d)
            try:
                return self._vct_or(a, depth) is not None
            finally:
                pb.undo()
        if depth <= 0:
            return False
        threats = [p for p in pb.threats[a][OPEN_FOUR_CLASS] if self.legal(p, a)]
        if not threats:
            return False
        if any(self.legal(p, d) for p in pb.threats[d][OPEN_FOUR_CLASS]):
            return False
        for q in self.defences(a, threats):
            pb.play(q, d)
            try:
                held = self._vct_or(a, depth) is None
            finally:
                pb.undo()
            if held:
                return False
        return True

    def defences(self, a: int, threats: list[int]) -> list[int]:
        """The defender's replies to ``a``'s open-four threats: the threat points,
        ``a``'s four points on the same lines, and the defender's own fours."""
        pb = self.pb
        d = 1 - a
        spots = [pb.xy(t) for t in threats]
        found = set(threats)
        for p in pb.fours(a):
            x, y = pb.xy(p)
            for tx, ty in spots:
                dx, dy = abs(x - tx), abs(y - ty)
                if max(dx, dy) <= 5 and (dx == 0 or dy in (0, dx)):
                    found.add(p)
                    break
        found.update(pb.fours(d))
        value = pb.value
        moves = [q for q in found if self.legal(q, d)]
        moves.sort(key=lambda q: (value[d][q] + value[a][q], -q), reverse=True)
        return moves

    # -- alpha-beta ----------------------------------------------------------------------

    def evaluate(self, side: int) -> int:
        """The static score for ``side`` to move."""
        total = self.pb.total
        return total[side] * self.tempo // 10 - total[1 - side]

    def ordered_moves(self, side: int, width: int) -> list[int]:
        """The moves to try for ``side``, best first: forced replies when there
        are threats, else the ``width`` best-scored points near the stones."""
        pb = self.pb
        o = 1 - side
        threats = [p for p in pb.threats[o][OPEN_FOUR_CLASS] if self.legal(p, o)]
        if threats:
            moves = self.defences(o, threats)
            own = set(moves)
            moves.extend(p for p in self.legal_fours(side) if p not in own)
            return moves
        mine, theirs = pb.value[side], pb.value[o]
        scored = sorted(
            ((mine[p] + theirs[p], -p) for p in pb.candidates()),
            reverse=True,
        )
        moves = []
        for _, neg in scored:
            if self.legal(-neg, side):
                moves.append(-neg)
                if len(moves) >= width:
                    break
        return moves

    def _negamax(self, side: int, depth: int, alpha: int, beta: int, ply: int) -> int:
        self._tick()
        pb = self.pb
        o = 1 - side
        if pb.fives(side):
            return WIN - ply
        blocks = pb.fives(o)
        if len(blocks) >= 2:
            return -(WIN - ply - 1)
        if blocks:
            (q,) = blocks
            if not self.legal(q, side):
                return -(WIN - ply - 1)
            pb.play(q, side)
            try:
                return -self._negamax(o, depth, -beta, -alpha, ply + 1)
            finally:
                pb.undo()
        won = self._quick_win(side)
        if won is not None:
            return WIN - ply - (2 if pb.cls[side][won] == OPEN_FOUR_CLASS else 4)
        if depth <= 0:
            return self.evaluate(side)
        entry = self._table.get(pb.hash ^ side)
        best_move = -1
        if entry is not None:
            t_depth, t_value, t_flag, best_move = entry
            if t_depth >= depth and (
                t_flag == _EXACT
                or (t_flag == _LOWER and t_value >= beta)
                or (t_flag == _UPPER and t_value <= alpha)
            ):
                return t_value
        moves = self.ordered_moves(side, self.width)
        if not moves:  # a full board, or (renju) every defence is forbidden
            return -(WIN - ply - 3) if pb.threats[o][OPEN_FOUR_CLASS] else 0
        if best_move in moves:
            moves.remove(best_move)
            moves.insert(0, best_move)
        original_alpha = alpha
        best = -_INF
        for p in moves:
            pb.play(p, side)
            try:
                score = -self._negamax(o, depth - 1, -beta, -alpha, ply + 1)
            finally:
                pb.undo()
            if score > best:
                best, best_move = score, p
            alpha = max(alpha, score)
            if alpha >= beta:
                break
        flag = _EXACT
        if best <= original_alpha:
            flag = _UPPER
        elif best >= beta:
            flag = _LOWER
        self._table[pb.hash ^ side] = (depth, best, flag, best_move)
        return best

    def best_move(self, side: int, moves: list[int], max_depth: int) -> tuple[int, int, int]:
        """Iterative deepening over ``moves``: (move, score, depth completed).

        Stops at ``max_depth``, on a proven result, or when the budget runs out,
        and answers with the best move of the deepest finished iteration.
        """
        pb = self.pb
        best, best_score, done = moves[0], -_INF, 0
        order = list(moves)
        for depth in range(1, max_depth + 1):
            scores: dict[int, int] = {}
            alpha = -_INF
            try:
                for p in order:
                    pb.play(p, side)
                    try:
                        score = -self._negamax(1 - side, depth - 1, -_INF, -alpha, 1)
                    finally:
                        pb.undo()
                    scores[p] = score
                    alpha = max(alpha, score)
            except _StopSearchError:
                if scores and max(scores.values()) >= WIN - 100:
                    win = max(scores, key=lambda m: scores[m])
                    return win, scores[win], depth
                break
            order.sort(key=lambda m: scores[m], reverse=True)
            best, best_score, done = order[0], scores[order[0]], depth
            if best_score >= WIN - 100 or all(s <= -(WIN - 100) for s in scores.values()):
                break  # proven: a win, or every move loses
        return best, best_score, done


class GomokuAI(Bot):
    """A threat-space and alpha-beta gomoku player (any size, any rule).

    ``level`` 1..5 sets the strength; ``seed`` makes it reproducible (it breaks
    ties and picks level 1's random moves).  ``time_ms`` overrides the budget
    from :func:`~lanqi.bot.base.think_time_ms`; ``node_limit`` caps the positions
    searched per move, which makes a move independent of the machine's speed.
    """

    name = "gomoku-ai"
    variants = ("gomoku",)

    def __init__(
        self,
        level: int = 5,
        seed: int | None = None,
        *,
        time_ms: int | None = None,
        node_limit: int | None = None,
    ) -> None:
        if not 1 <= level <= 5:
            raise ValueError(f"level must be 1..5, not {level!r}")
        self.level = level
        self.seed = seed
        self.time_ms = time_ms
        self.node_limit = node_limit
        self.rng = random.Random(seed)
        self.last_info = SearchInfo()
        # The pattern tables take a few tenths of a second of CPU (seconds on a busy
        # machine), once per process: build them with the first bot, off every clock
        # (the runner makes a game's bot before it joins the seat, and ``lanqi bot``
        # makes one for its start-up self-check before it enters the lobby).
        warm_up()

    def engine_id(self) -> str:
        return f"lanqi built-in gomoku AI level {self.level}"

    def play(self, state: SeatView) -> PlayResult:
        """The move, with the search's depth, nodes and time (its scores are not
        centipawns, so it gives none)."""
        move = self._choose(state)
        info = self.last_info
        return PlayResult(
            move,
            info=BotSearchInfo(
                depth=info.depth or None,
                nodes=info.nodes or None,
                time_ms=round(info.seconds * 1000),
            ),
        )

    def _choose(self, state: SeatView) -> str:
        board = state.board
        if not isinstance(board, Board):
            raise TypeError(f"{self.name} plays gomoku, not {state.variant}")
        if board.ply == 0 and board.start_fen is None:
            centre = board.size // 2
            self.last_info = SearchInfo(reason="opening")
            return str(Move(centre, centre))
        start = time.monotonic()
        budget_ms = float(self.time_ms if self.time_ms is not None else think_time_ms(state))
        to_deadline = state.ms_to_deadline()
        if to_deadline is not None:  # a fixed time must not lose on time either
            budget_ms = max(10.0, min(budget_ms, to_deadline))
        move, info = self._decide(board, start, budget_ms / 1000)
        if not board.is_legal(move):  # a safety net: the board has the last word
            log.error("%s chose the illegal move %s; playing a legal one", self.name, move)
            move = self.rng.choice(board.legal_moves())
        info.seconds = time.monotonic() - start
        self.last_info = info
        log.debug(
            "%s: %s (%s, %d nodes, depth %d)", self.name, move, info.reason, info.nodes, info.depth
        )
        return str(move)

    def _decide(self, board: Board, start: float, budget: float) -> tuple[Move, SearchInfo]:
        if board.is_game_over():
            raise ValueError("the game is over: there is no move to choose")
        pb = PatternBoard.from_board(board, seed=self.rng.getrandbits(32))
        side = int(board.turn)
        other = 1 - side
        level = _LEVELS.get(self.level)
        share = level.time_share if level else 0.1
        search = ThreatSearch(pb)
        info = SearchInfo()
        phases = _Budget(search, start, budget * share, self.node_limit)

        def answer(p: int, reason: str) -> tuple[Move, SearchInfo]:
            info.reason = reason
            info.nodes = search.nodes
            return pb.move(p), info

        candidates = [p for p in pb.candidates() if search.legal(p, side)]
        if not candidates:
            info.reason = "only moves"
            return self.rng.choice(board.legal_moves()), info
        own_fives = pb.fives(side)
        if own_fives:
            return answer(min(own_fives), "five")
        blocks = [q for q in sorted(pb.fives(other)) if search.legal(q, side)]
        if blocks:
            return answer(blocks[0], "block five")
        if pb.fives(other):
            return answer(self._best_scored(pb, side, candidates), "lost")
        if self.level == 1:
            return answer(self.rng.choice(candidates), "random")
        if pb.stones == 1:
            return answer(self._second_move(pb, side), "opening")
        open_fours = [p for p in pb.threats[side][OPEN_FOUR_CLASS] if search.legal(p, side)]
        if open_fours:
            return answer(self._best_scored(pb, side, open_fours), "open four")
        if level is None:  # level 2: one ply, but it blocks open threes
            threats = [p for p in pb.threats[other][OPEN_FOUR_CLASS] if search.legal(p, other)]
            if threats and not any(True for _ in pb.fours(side)):
                moves = search.defences(other, threats)
                return answer(self._best_scored(pb, side, moves), "block three")
            return answer(self._best_scored(pb, side, candidates), "greedy")

        phases.begin(0.15)
        win = search.vcf(side, level.vcf_depth)
        if win is not None:
            return answer(win, "vcf")
        phases.begin(0.3)
        roots, threatened = self._root_moves(search, side, level)
        if len(roots) == 1:
            return answer(roots[0], "forced")
        if level.vct_depth:
            if not threatened:  # (threatened, only fours could win: the VCF had them)
                phases.begin(level.vct_share)
                win = search.vct(side, level.vct_depth)
                if win is not None:
                    return answer(win, "vct")
            # Threatened, the choice is among a few parries: proving which of
            # them holds matters more than searching them deeply.
            phases.begin(0.5 if threatened else level.vct_share)
            roots = self._defend_vct(search, side, level, roots, threatened)
            if len(roots) == 1:
                return answer(roots[0], "defend")
        phases.begin(1.0, last=True)
        search.width = level.width
        best, score, depth = search.best_move(side, roots, level.max_depth)
        info.depth, info.score = depth, score
        return answer(best, "search")

    def _root_moves(self, search: ThreatSearch, side: int, level: _Level) -> tuple[list[int], bool]:
        """The moves worth searching, and whether the opponent threatens.

        Unthreatened: the best-scored moves.  When the opponent has an open
        three or a VCF: only the moves after which they have neither (fours
        included, which they must answer first); all of them if none works.
        """
        pb = search.pb
        other = 1 - side
        moves = search.ordered_moves(side, level.width + 2)
        mine, theirs = pb.value[side], pb.value[other]
        rank = {p: (mine[p] + theirs[p], self.rng.random()) for p in moves}
        threatened = any(search.legal(p, other) for p in pb.threats[other][OPEN_FOUR_CLASS])
        if not threatened and level.defend_vcf:
            line = search.vcf_line(other, level.vcf_depth)
            threatened = bool(line)
            if threatened:  # try the points of their VCF and our own fours first
                first = [*line, *search.legal_fours(side)]
                extra = [p for p in dict.fromkeys(first) if pb.cell[p] == EMPTY]
                extra = [p for p in extra if p not in rank and search.legal(p, side)]
                moves = extra + moves
                rank.update((p, (mine[p] + theirs[p], 0.0)) for p in extra)
        if not moves:  # every defence is forbidden (renju): anything near the stones
            moves = [p for p in pb.candidates() if search.legal(p, side)]
            rank = {p: (mine[p] + theirs[p], self.rng.random()) for p in moves}
        if not threatened:
            moves.sort(key=lambda p: rank[p], reverse=True)
            return moves, False
        proven: list[int] = []
        unknown: list[int] = []
        for done, p in enumerate(moves):
            saved = search.share_budget(len(moves) - done)
            pb.play(p, side)
            try:
                if self._stops(search, side):
                    (unknown if search.stopped else proven).append(p)
            finally:
                pb.undo()
                search.set_budget(*saved)
        return (proven or unknown or moves), True

    @staticmethod
    def _defend_vct(
        search: ThreatSearch, side: int, level: _Level, roots: list[int], threatened: bool
    ) -> list[int]:
        """The moves after which the opponent has no VCT, if they have one now.

        Unthreatened, the points on their threat lines and our own threats are
        tried too; threatened, ``roots`` are already the moves that parry the
        open three or VCF, and only those are checked.  Moves not proven safe in
        time come next; if nothing is safe, ``roots`` unchanged.
        """
        pb = search.pb
        other = 1 - side
        moves = list(roots)
        if not threatened:
            if search.vct(other, level.vct_depth) is None:
                return roots
            seen = set(moves)
            extra = [*pb.fours(side), *pb.fours(other), *pb.threes(other), *pb.threes(side)]
            for p in extra:
                if p not in seen and search.legal(p, side):
                    seen.add(p)
                    moves.append(p)
        proven: list[int] = []
        unknown: list[int] = []
        for done, p in enumerate(moves):
            saved = search.share_budget(len(moves) - done)
            pb.play(p, side)
            try:
                found = search.vct(other, level.vct_depth)
            finally:
                pb.undo()
                search.set_budget(*saved)
            if found is None:
                (unknown if search.stopped else proven).append(p)
        return proven or unknown or roots

    @staticmethod
    def _stops(search: ThreatSearch, side: int) -> bool:
        """After ``side``'s move: has the opponent lost every quick win?

        ``search.stopped`` tells whether a "yes" ran out of budget unproven."""
        pb = search.pb
        other = 1 - side
        search.stopped = False
        if pb.fives(side):
            return True  # a four: the opponent must answer it first
        if any(search.legal(p, other) for p in pb.threats[other][OPEN_FOUR_CLASS]):
            return False
        return search.vcf(other, 8) is None  # (search.stopped: not proven)

    def _second_move(self, pb: PatternBoard, side: int) -> int:
        """Answer a lone stone right next to it: diagonally if the board allows,
        on the side nearer the centre (a stone two points away invites an attack)."""
        (stone,) = (p for p in pb.points if pb.cell[p] != EMPTY)
        x, y = pb.xy(stone)
        centre = (pb.size - 1) / 2
        options: list[tuple[int, float, float, int]] = []
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                p = pb.index(x + dx, y + dy)
                if (dx or dy) and pb.cell[p] == EMPTY and not pb.is_forbidden(p, side):
                    straight = int(dx == 0 or dy == 0)
                    distance = abs(x + dx - centre) + abs(y + dy - centre)
                    options.append((straight, distance, self.rng.random(), p))
        return min(options)[3] if options else pb.candidates()[0]

    def _best_scored(self, pb: PatternBoard, side: int, points: list[int]) -> int:
        mine, theirs = pb.value[side], pb.value[1 - side]
        return max(points, key=lambda p: (mine[p] + theirs[p], self.rng.random()))


class _Budget:
    """Hands out the move's time and nodes to the search phases in turn.

    The threat phases share the first 85%; the last phase, the alpha-beta
    search, always has at least the remaining 15% to rank the moves left.
    """

    RESERVE = 0.15

    def __init__(
        self, search: ThreatSearch, start: float, seconds: float, nodes: int | None
    ) -> None:
        self.search = search
        self.deadline = start + seconds
        self.seconds = seconds
        self.node_limit = nodes

    def begin(self, share: float, *, last: bool = False) -> None:
        """Start a phase that may use ``share`` of the whole budget (but not more
        than is left for it)."""
        search = self.search
        reserve = 0.0 if last else self.RESERVE
        deadline = min(
            self.deadline - self.seconds * reserve, time.monotonic() + self.seconds * share
        )
        node_limit = None
        if self.node_limit is not None:
            end = self.node_limit - int(self.node_limit * reserve)
            node_limit = min(end, search.nodes + max(1, int(self.node_limit * share)))
        search.set_budget(deadline, node_limit)


def builtin_ai(ai: AISettings) -> GomokuAI:
    """The variant's built-in AI as its :class:`~lanqi.games.base.VariantSpec` names it
    (``ai``), made by :func:`lanqi.bot.catalog.builtin_ai` (the level already clamped)."""
    # the threat search has no depth limit: time and nodes bound it
    return GomokuAI(level=ai.level, seed=ai.seed, time_ms=ai.time_ms, node_limit=ai.nodes)
