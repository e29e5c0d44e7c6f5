"""The built-in xiangqi AI: alpha-beta search in pure Python, levels 1 to 8.

>>> from lanqi.bot.base import SeatView
>>> ai = XiangqiAI(level=4, seed=1, depth=2)
>>> move = ai.choose_move(SeatView.start("xiangqi", moves=["h2e2"]))
>>> move in SeatView.start("xiangqi", moves=["h2e2"]).legal_moves()
True

The search (:class:`Searcher`) is a negamax with principal variation search and
iterative deepening under a time budget, a quiescence search on captures with
delta pruning, a transposition table keyed by the zobrist hash, move ordering
(hash move, captures by MVV-LVA, killer moves, history heuristic), check
extension, null-move and futility pruning, late move reductions, and the
repetition rules: a repeated position is a draw unless one side gave check with
every move of the cycle, in which case that side loses (perpetual chase is not
judged inside the search: it scores as a draw there), and the move limit.  It
plays move codes on a :class:`~lanqi.games.xiangqi.core.SearchBoard`, never
Move objects, and keeps the evaluation (:mod:`lanqi.bot.xiangqi_eval`) up to date
move by move.  The search is one method with nested functions on purpose: in
CPython, closure variables are much faster to reach than attributes.

Levels: 1 plays a random move (often a capture), 2-5 search a fixed shallow
depth (1 to 4) with noise on the root scores, 6-8 search for a growing share of
the time budget (:func:`lanqi.bot.base.think_time_ms`), 8 for all of it.  Pass
``depth`` or ``nodes`` for a fixed-size, clock-free search: with a ``seed`` the
AI then plays the same moves on any machine.
"""

from __future__ import annotations

import logging
import random
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from lanqi.bot.base import Bot, PlayResult, SearchInfo, SeatView, think_time_ms
from lanqi.bot.xiangqi_eval import Tables, build_tables, evaluate
from lanqi.games.xiangqi.core import (
    ADVISOR,
    CANNON,
    ELEPHANT,
    HORSE,
    HORSE_BY_LEG,
    KING,
    LINE_DIR,
    PAWN,
    ROOK,
    Board,
    SearchBoard,
)

if TYPE_CHECKING:
    from lanqi.bot.catalog import AISettings

__all__ = ["LEVELS", "MATE", "Level", "SearchResult", "Searcher", "XiangqiAI", "builtin_ai"]

log = logging.getLogger(__name__)

MATE = 30000
#: Scores beyond this (either sign) are wins or losses in a known number of plies.
MATE_BOUND = MATE - 1000
#: A win by the repetition rules (the opponent checked perpetually): below mates.
RULE_WIN = MATE - 500
INF = 32000
MAX_PLY = 96
_EXACT, _LOWER, _UPPER = 0, 1, 2

#: Futility margins by remaining depth (frontier and pre-frontier nodes).
_FUTILITY = (0, 200, 450)
_DELTA = 200
_ASPIRATION = 40

_VICTIM = {KING: 50, ROOK: 10, CANNON: 5, HORSE: 5, ADVISOR: 2, ELEPHANT: 2, PAWN: 1}
_ATTACKER = {KING: 5, ROOK: 4, CANNON: 3, HORSE: 3, ADVISOR: 1, ELEPHANT: 1, PAWN: 0}
#: MVV-LVA order key of a capture, indexed ``victim_code << 4 | attacker_code``.
_MVV_LVA = [
    (_VICTIM.get(v & 7, 0) * 8 - _ATTACKER.get(a & 7, 0)) if v and a else 0
    for v in range(16)
    for a in range(16)
]
#: 1 for the pieces that count as attacking material (rook, horse, cannon).
_BIG = [1 if code & 7 in (ROOK, HORSE, CANNON) else 0 for code in range(16)]


class _BudgetSpentError(Exception):
    """Raised inside the search when the time or node budget is spent."""


@dataclass(frozen=True, slots=True)
class Level:
    """How a level plays: share of the time budget, depth cap, root noise."""

    time_share: float
    max_depth: int | None
    noise: int = 0
    random_moves: bool = False


LEVELS: dict[int, Level] = {
    1: Level(0.0, 0, random_moves=True),
    2: Level(0.1, 1, noise=150),
    3: Level(0.15, 2, noise=80),
    4: Level(0.2, 3, noise=40),
    5: Level(0.25, 4, noise=15),
    6: Level(0.4, 6),
    7: Level(0.65, None),
    8: Level(1.0, None),
}


@dataclass(slots=True)
class SearchResult:
    """The outcome of one search: the move, its score and what it cost."""

    move: str
    score: int
    depth: int
    nodes: int
    seconds: float
    pv: list[str] = field(default_factory=list)

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0

    @property
    def mate_in(self) -> int | None:
        """Moves (not plies) to a forced mate: positive if we mate, negative if we get mated."""
        plies = MATE - abs(self.score)
        if plies > MAX_PLY:
            return None  # not a mate (or a win by the repetition rules)
        moves = (plies + 1) // 2
        return moves if self.score > 0 else -moves


class Searcher:
    """Alpha-beta search with a transposition table and history that persist between moves."""

    def __init__(self, *, tt_size: int = 200_000) -> None:
        self.tt_size = tt_size
        self.tt: dict[int, tuple[int, int, int, int]] = {}
        self.history = [0] * (90 << 7)

    def clear(self) -> None:
        """Forget the transposition table and history (a new game)."""
        self.tt.clear()
        self.history = [0] * (90 << 7)

    def search(
        self,
        board: Board,
        *,
        depth: int | None = None,
        nodes: int | None = None,
        time_ms: float | None = None,
        noise: int = 0,
        rng: random.Random | None = None,
    ) -> SearchResult:
        """Search ``board`` (which must have a legal move) within the given limits.

        Without any limit the search stops at depth 48 or a found mate.  ``noise``
        adds up to that many centipawns at random to each root move's score.
        """
        start = time.monotonic()
        deadline = None if time_ms is None else start + time_ms / 1000
        soft = None if time_ms is None else start + time_ms / 1000 * 0.45
        max_depth = depth if depth is not None else MAX_PLY // 2
        node_limit = nodes if nodes is not None else 0
        rng = rng or random.Random(0)

        sb = SearchBoard.from_board(board)
        root_codes = sb.legal_codes()
        if not root_codes:
            raise ValueError(f"no legal move in {board.fen()}")
        sqs = sb.squares
        kings = sb.kings
        tables: Tables = build_tables(sqs)
        root_side = sb.seat_to_move
        root_ev = evaluate(tables, sqs, root_side)
        big = [0, 0]
        for code in sqs:
            if code:
                big[code >> 3] += _BIG[code]

        make = sb.make_code
        unmake = sb.unmake_code
        make_null = sb.make_null
        attacked = sb.is_attacked_code
        gen_all = sb.pseudo_codes
        gen_caps = sb.capture_codes
        zhash = sb.zobrist_hash
        tt = self.tt
        tt_get = tt.get
        tt_size = self.tt_size
        hist = self.history = [h >> 2 for h in self.history]
        hist_key = hist.__getitem__
        killers = [[0, 0] for _ in range(MAX_PLY + 2)]
        pst = tables
        line_dir = LINE_DIR
        horse_legs = HORSE_BY_LEG
        mvv = _MVV_LVA
        big_of = _BIG

        # Positions since the last capture in the game, then the search path.
        history = sb.reversible_history()
        base = len(history) - 1
        hashes = [h for h, _ in history] + [0] * (MAX_PLY + 2)
        checks = [c for _, c in history] + [False] * (MAX_PLY + 2)

        move_limit = sb.move_limit
        clock_offset = sb.halfmove_clock - base
        count = 0

        def check_stop() -> None:
            if node_limit and count >= node_limit:
                raise _BudgetSpentError
            if deadline is not None and time.monotonic() >= deadline:
                raise _BudgetSpentError

        def repetition_score(j: int, g: int, ply: int) -> int:
            # Moves into positions j+1 .. g; those into g, g-2, .. were the opponent's.
            theirs = all(checks[i] for i in range(j + 2, g + 1, 2))
            ours = all(checks[i] for i in range(j + 1, g, 2))
            if theirs and not ours:
                return RULE_WIN - ply
            if ours and not theirs:
                return ply - RULE_WIN
            return 0

        def qsearch(alpha: int, beta: int, ply: int, ev: int, side: int) -> int:
            nonlocal count
            count += 1
            if not count & 127:  # every 128 nodes: a few ms, even on a busy machine
                check_stop()
            them = side ^ 1
            if ply >= MAX_PLY:
                return ev
            if attacked(kings[side], them):
                # In check: every evasion, no standing pat.
                best = ply - MATE
                moves = gen_all()
                for code in moves:
                    f = code >> 7
                    t = code & 127
                    p = sqs[f]
                    cap = sqs[t]
                    make(code)
                    if attacked(kings[side], them):
                        unmake(code, cap)
                        continue
                    score = -qsearch(
                        -beta, -alpha, ply + 1, -(ev + pst[p][t] - pst[p][f] + pst[cap][t]), them
                    )
                    unmake(code, cap)
                    if score > best:
                        best = score
                        if score > alpha:
                            alpha = score
                            if score >= beta:
                                break
                return best
            if ev >= beta:
                return ev
            best = ev
            alpha = max(alpha, ev)
            caps = gen_caps()
            if not caps:
                return best
            k = kings[side]
            line = line_dir[k]
            legs = horse_legs[k]
            if len(caps) > 1:
                caps.sort(key=lambda c: mvv[sqs[c & 127] << 4 | sqs[c >> 7]], reverse=True)
            for code in caps:
                f = code >> 7
                t = code & 127
                cap = sqs[t]
                gain = pst[cap][t]
                if ev + gain + _DELTA <= alpha and cap & 7 != KING:
                    continue
                p = sqs[f]
                make(code)
                # Only a move off a line or a horse leg of the general can expose it.
                if (f == k or line[f] >= 0 or f in legs) and attacked(kings[side], them):
                    unmake(code, cap)
                    continue
                score = -qsearch(-beta, -alpha, ply + 1, -(ev + pst[p][t] - pst[p][f] + gain), them)
                unmake(code, cap)
                if score > best:
                    best = score
                    if score > alpha:
                        alpha = score
                        if score >= beta:
                            break
            return best

        def negamax(  # noqa: PLR0917 (hot recursion: positional arguments are fastest)
            depth: int, alpha: int, beta: int, ply: int, ev: int, side: int, irr: int, null_ok: bool
        ) -> int:
            nonlocal count
            count += 1
            if not count & 127:  # every 128 nodes: a few ms, even on a busy machine
                check_stop()
            them = side ^ 1
            h = zhash()
            g = base + ply
            in_check = attacked(kings[side], them)
            hashes[g] = h
            checks[g] = in_check
            j = g - 4
            while j >= irr:
                if hashes[j] == h:
                    return repetition_score(j, g, ply)
                j -= 2
            # The capture-free ply count: from the game's clock while no capture was
            # made on the path (irr == 0), else from the last capture.  Checked out of
            # check only, since a mate on the last ply still counts.
            if (
                move_limit
                and not in_check
                and g - irr + (clock_offset if irr == 0 else 0) >= move_limit
            ):
                return 0
            if ply >= MAX_PLY - 1:
                return ev
            # Mate distance: no score here can beat mating next move or being mated now.
            alpha = max(alpha, ply - MATE)
            beta = min(beta, MATE - ply - 1)
            if alpha >= beta:
                return alpha
            if in_check:
                depth += 1
            if depth <= 0:
                return qsearch(alpha, beta, ply, ev, side)
            pv_node = beta - alpha > 1

            tt_move = 0
            entry = tt_get(h)
            if entry is not None:
                e_depth, e_flag, e_score, tt_move = entry
                if e_depth >= depth and not pv_node:
                    if e_score > MATE_BOUND:
                        e_score -= ply
                    elif e_score < -MATE_BOUND:
                        e_score += ply
                    if (
                        e_flag == _EXACT
                        or (e_flag == _LOWER and e_score >= beta)
                        or (e_flag == _UPPER and e_score <= alpha)
                    ):
                        return e_score

            if (
                null_ok
                and not pv_node
                and not in_check
                and depth >= 2
                and ev >= beta
                and big[side] >= 2
                and -MATE_BOUND < beta < MATE_BOUND
            ):
                r = 3 if depth >= 6 else 2
                make_null()
                score = -negamax(depth - 1 - r, -beta, 1 - beta, ply + 1, -ev, them, g + 1, False)
                make_null()
                if score >= beta:
                    return beta if score >= MATE_BOUND else score

            futile = (
                depth < len(_FUTILITY)
                and not in_check
                and not pv_node
                and ev + _FUTILITY[depth] <= alpha
                and abs(alpha) < MATE_BOUND
            )
            old_alpha = alpha
            best = -INF
            best_move = 0
            legal = 0
            killer = killers[ply]
            stage = 0
            k = kings[side]
            line = line_dir[k]
            legs = horse_legs[k]
            moves: list[int] = []
            if tt_move:
                fp = sqs[tt_move >> 7]
                tp = sqs[tt_move & 127]
                if fp and fp >> 3 == side and (not tp or tp >> 3 != side):
                    moves = [tt_move]
                else:
                    tt_move = 0
            while True:
                for code in moves:
                    if stage and code == tt_move:
                        continue
                    f = code >> 7
                    t = code & 127
                    p = sqs[f]
                    cap = sqs[t]
                    make(code)
                    if (
                        in_check
                        or f == k
                        or line[f] >= 0
                        or (line[t] >= 0 and not cap)
                        or f in legs
                    ) and attacked(kings[side], them):
                        unmake(code, cap)
                        continue
                    legal += 1
                    nev = -(ev + pst[p][t] - pst[p][f] + pst[cap][t])
                    if cap:
                        big[them] -= big_of[cap]
                        child_irr = g + 1
                    else:
                        child_irr = irr
                    reduce = 0
                    if not cap and legal > 1 and stage == 2:
                        if futile:
                            if not attacked(kings[them], side):
                                unmake(code, cap)
                                continue
                        elif (
                            depth >= 3
                            and legal > 3
                            and not in_check
                            and code != killer[0]
                            and code != killer[1]
                            and not attacked(kings[them], side)
                        ):
                            reduce = 1 if legal < 12 or depth < 5 else 2
                    # Running out of budget leaves the board mid-line: it is thrown away.
                    if legal == 1:
                        score = -negamax(
                            depth - 1, -beta, -alpha, ply + 1, nev, them, child_irr, True
                        )
                    else:
                        score = -negamax(
                            depth - 1 - reduce,
                            -alpha - 1,
                            -alpha,
                            ply + 1,
                            nev,
                            them,
                            child_irr,
                            True,
                        )
                        if reduce and score > alpha:
                            score = -negamax(
                                depth - 1, -alpha - 1, -alpha, ply + 1, nev, them, child_irr, True
                            )
                        if alpha < score < beta:
                            score = -negamax(
                                depth - 1, -beta, -alpha, ply + 1, nev, them, child_irr, True
                            )
                    unmake(code, cap)
                    if cap:
                        big[them] += big_of[cap]
                    if score > best:
                        best = score
                        best_move = code
                        if score > alpha:
                            alpha = score
                            if score >= beta:
                                if not cap:
                                    hist[code] += depth * depth
                                    if killer[0] != code:
                                        killer[1] = killer[0]
                                        killer[0] = code
                                break
                else:
                    stage += 1
                    if stage == 1:
                        moves = gen_caps()
                        if len(moves) > 1:
                            moves.sort(
                                key=lambda c: mvv[sqs[c & 127] << 4 | sqs[c >> 7]], reverse=True
                            )
                        continue
                    if stage == 2:
                        moves = [c for c in gen_all() if not sqs[c & 127]]
                        moves.sort(key=hist_key, reverse=True)
                        for k in (killer[1], killer[0]):
                            if k and k in moves:
                                moves.remove(k)
                                moves.insert(0, k)
                        continue
                break  # a cutoff, or every stage done

            if not legal:
                return ply - MATE  # checkmate or stalemate: both lose in xiangqi
            if best == -INF:
                best = old_alpha  # every move was pruned as futile
            if best >= beta:
                flag = _LOWER
            elif best > old_alpha:
                flag = _EXACT
            else:
                flag = _UPPER
            stored = best
            if stored > MATE_BOUND:
                stored += ply
            elif stored < -MATE_BOUND:
                stored -= ply
            if len(tt) >= tt_size:
                tt.clear()
            tt[h] = (depth, flag, stored, best_move)
            return best

        # ------------------------------------------------------------ root

        def root_order(code: int) -> int:
            t = code & 127
            return mvv[sqs[t] << 4 | sqs[code >> 7]] * 1000 + hist[code] if sqs[t] else hist[code]

        root_moves = sorted(root_codes, key=root_order, reverse=True)
        root_nodes = dict.fromkeys(root_moves, 0)
        best_move = root_moves[0]
        best_score = 0
        done_depth = 0
        root_g = base
        hashes[root_g] = zhash()
        checks[root_g] = attacked(kings[root_side], root_side ^ 1)
        root_irr = 0  # history holds only the positions since the last capture

        def root_search(depth: int, alpha: int, beta: int, exact: bool) -> tuple[int, int]:
            nonlocal best_move
            them = root_side ^ 1
            best = -INF
            chosen = root_moves[0]
            noisy: list[tuple[int, int]] = []
            for i, code in enumerate(root_moves):
                before = count
                f = code >> 7
                t = code & 127
                p = sqs[f]
                cap = sqs[t]
                nev = -(root_ev + pst[p][t] - pst[p][f] + pst[cap][t])
                irr = root_g + 1 if cap else root_irr
                make(code)
                if cap:
                    big[them] -= big_of[cap]
                if exact:
                    score = -negamax(depth - 1, -INF, INF, 1, nev, them, irr, True)
                elif i == 0:
                    score = -negamax(depth - 1, -beta, -alpha, 1, nev, them, irr, True)
                else:
                    score = -negamax(depth - 1, -alpha - 1, -alpha, 1, nev, them, irr, True)
                    if score > alpha:
                        best_move = code  # proven better than the move we had
                        if score < beta:
                            score = -negamax(depth - 1, -beta, -alpha, 1, nev, them, irr, True)
                unmake(code, cap)
                if cap:
                    big[them] += big_of[cap]
                root_nodes[code] += count - before
                if exact:
                    noisy.append((score, code))
                if score > best:
                    best = score
                    chosen = code
                    if score > alpha:
                        if i > 0 and not exact:
                            best_move = code
                        alpha = score
                        if score >= beta:
                            break
            if exact and noise:
                scored = [
                    (s + (rng.randint(-noise, noise) if abs(s) < MATE_BOUND else 0), c)
                    for s, c in noisy
                ]
                best, chosen = max(scored, key=lambda sc: sc[0])
            return best, chosen

        stopped = False
        try:
            for target in range(1, max_depth + 1):
                exact = noise > 0 and target == max_depth
                if target >= 4 and not exact and abs(best_score) < MATE_BOUND:
                    alpha, beta = best_score - _ASPIRATION, best_score + _ASPIRATION
                    score, move = root_search(target, alpha, beta, False)
                    if score <= alpha or score >= beta:
                        score, move = root_search(target, -INF, INF, False)
                else:
                    score, move = root_search(target, -INF, INF, exact)
                best_score, best_move, done_depth = score, move, target
                rest = sorted(
                    (c for c in root_moves if c != move), key=root_nodes.__getitem__, reverse=True
                )
                root_moves[:] = [move, *rest]
                if soft is not None and time.monotonic() >= soft:
                    break
                if score > MATE_BOUND and MATE - score <= target:
                    break  # we mate: a deeper search cannot find anything better
                if len(root_moves) == 1 and time_ms is not None:
                    break
        except _BudgetSpentError:
            stopped = True
        seconds = time.monotonic() - start
        pv = self._principal_variation(board, best_move, done_depth)
        result = SearchResult(
            move=str(SearchBoard.move_of(best_move)),
            score=best_score,
            depth=done_depth,
            nodes=count,
            seconds=seconds,
            pv=pv,
        )
        log.debug(
            "depth %d%s score %d nodes %d (%.0f/s) pv %s",
            result.depth,
            " (stopped)" if stopped else "",
            result.score,
            result.nodes,
            result.nodes_per_second,
            " ".join(pv),
        )
        return result

    def _principal_variation(self, board: Board, first: int, depth: int) -> list[str]:
        """The expected line: the best move, then hash moves while they are legal."""
        sb = SearchBoard.from_board(board)
        pv: list[str] = []
        code = first
        seen: set[int] = set()
        while code and len(pv) < max(depth, 1) and code in sb.legal_codes():
            pv.append(str(SearchBoard.move_of(code)))
            sb.make_code(code)
            h = sb.zobrist_hash()
            if h in seen:
                break
            seen.add(h)
            entry = self.tt.get(h)
            code = entry[3] if entry is not None else 0
        return pv


class XiangqiAI(Bot):
    """The built-in xiangqi AI.

    ``level`` 1 (random) .. 8 (full strength for the time budget); a level's
    depth cap (:data:`LEVELS`) also caps ``depth``.  ``depth`` or ``nodes`` fix the
    size of the search and turn the clock off (unless ``move_time_ms`` is given
    too).  ``move_time_ms`` replaces the budget from
    :func:`~lanqi.bot.base.think_time_ms`; each level thinks for its share of the
    budget (all of it at level 8).  ``seed`` makes the random choices (level 1,
    the noise of levels 2-5) repeatable.  ``tt_size`` bounds the transposition
    table (about 220 bytes an entry).
    """

    name: ClassVar[str] = "xiangqi-ai"
    variants: ClassVar[tuple[str, ...]] = ("xiangqi",)

    def __init__(
        self,
        level: int = 8,
        seed: int | None = None,
        *,
        depth: int | None = None,
        nodes: int | None = None,
        move_time_ms: int | None = None,
        tt_size: int = 200_000,
    ) -> None:
        if level not in LEVELS:
            raise ValueError(f"level must be 1 to 8, not {level!r}")
        self.level = level
        self.settings = LEVELS[level]
        self.depth = depth
        self.nodes = nodes
        self.move_time_ms = move_time_ms
        self.rng = random.Random(seed)
        self.searcher = Searcher(tt_size=tt_size)
        self.last: SearchResult | None = None

    def on_game_start(self, state: SeatView) -> None:
        self.searcher.clear()

    def engine_id(self) -> str:
        return f"lanqi built-in xiangqi AI level {self.level}"

    def play(self, state: SeatView) -> PlayResult:
        """The move, with the search's score (or mate), depth, nodes, time and pv;
        level 1 picks at random and says nothing more."""
        board = state.board
        if not isinstance(board, Board):
            raise TypeError(f"{self.name} plays xiangqi, not {state.variant}")
        legal = sorted(board.legal_moves(), key=str)
        if not legal:
            raise ValueError("no legal move: the game is over")
        self.last = None
        if self.settings.random_moves:
            captures = [m for m in legal if board.is_capture(m)]
            if captures and self.rng.random() < 0.5:
                return PlayResult(str(self.rng.choice(captures)))
            return PlayResult(str(self.rng.choice(legal)))
        self.last = found = self.analyse(board, state)
        mate = found.mate_in
        info = SearchInfo(
            depth=found.depth,
            score_cp=None if mate is not None else found.score,
            mate=mate,
            nodes=found.nodes,
            time_ms=round(found.seconds * 1000),
            pv=tuple(found.pv),
        )
        ponder = found.pv[1] if len(found.pv) > 1 and found.pv[0] == found.move else None
        return PlayResult(found.move, ponder=ponder, info=info)

    def analyse(self, board: Board, state: SeatView | None = None) -> SearchResult:
        """Search ``board`` with this AI's level and limits; the result says why the move."""
        settings = self.settings
        depth = self.depth if self.depth is not None else settings.max_depth
        if settings.max_depth is not None and depth is not None:
            depth = min(depth, settings.max_depth)
        time_ms: float | None
        if self.move_time_ms is not None:
            time_ms = self.move_time_ms * max(settings.time_share, 0.05)
        elif self.depth is not None or self.nodes is not None:
            time_ms = None
        else:
            budget = think_time_ms(state) if state is not None else 1000
            time_ms = max(10.0, budget * settings.time_share)
        to_deadline = state.ms_to_deadline() if state is not None else None
        if to_deadline is not None:  # a fixed limit must not lose on time either
            time_ms = max(10.0, min(time_ms if time_ms is not None else to_deadline, to_deadline))
        return self.searcher.search(
            board,
            depth=depth,
            nodes=self.nodes,
            time_ms=time_ms,
            noise=settings.noise,
            rng=self.rng,
        )


def builtin_ai(ai: AISettings) -> XiangqiAI:
    """The variant's built-in AI as its :class:`~lanqi.games.base.VariantSpec` names it
    (``ai``), made by :func:`lanqi.bot.catalog.builtin_ai` (the level already clamped)."""
    return XiangqiAI(
        level=ai.level, seed=ai.seed, depth=ai.depth, nodes=ai.nodes, move_time_ms=ai.time_ms
    )
