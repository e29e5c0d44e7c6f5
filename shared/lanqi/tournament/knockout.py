"""Knockout events: a seeded bracket of matches, each match several games.

A match is ``games_per_match`` games with alternating colours (the higher seed, who
sits on top of the bracket line, moves first in game 1). A match ends as soon as one
side cannot be caught. A tie after the regular games goes to ``tiebreak_games`` more
games (scored on their own; again ending early when decided), and a tie after those to
sudden death: single games until one is won. Every extra game is simply the next
``game_no`` of the same match, colours still alternating.

>>> players = [Player(p, p.upper(), seed=i) for i, p in enumerate("abc", 1)]
>>> bracket = knockout_bracket(players)
>>> bracket.slots
('a', None, 'b', 'c')
>>> state = knockout_next(bracket, [], games_per_match=2)
>>> [(p.round, p.board, p.game_no, p.first, p.second) for p in state.to_play]
[(1, 1, 1, 'a', None), (1, 2, 1, 'b', 'c')]
>>> done = [Result(1, 2, "b", "c", 0.5, game_no=1), Result(1, 2, "c", "b", 0.0, game_no=2)]
>>> state = knockout_next(bracket, done, games_per_match=2)
>>> [(p.round, p.first, p.second) for p in state.to_play], state.champion
([(2, 'a', 'b')], None)
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from lanqi.tournament.model import (
    Pairing,
    Player,
    Result,
    TournamentError,
    check_players,
    seeded_order,
)

__all__ = ["Bracket", "KnockoutState", "MatchState", "knockout_bracket", "knockout_next"]

Phase = Literal["waiting", "regular", "tiebreak", "sudden_death", "done"]


@dataclass(frozen=True, slots=True)
class Bracket:
    """The first-round lines of a bracket: ``slots[2i]`` meets ``slots[2i + 1]`` in
    match ``i + 1``; ``None`` is an empty line (a bye for the other side)."""

    slots: tuple[str | None, ...]

    @property
    def size(self) -> int:
        """The number of lines, a power of two."""
        return len(self.slots)

    @property
    def rounds(self) -> int:
        """How many knockout rounds lead to the final (the final is the last)."""
        return self.size.bit_length() - 1


@dataclass(frozen=True, slots=True)
class MatchState:
    """One match: who plays (``top`` moves first in odd games), the games so far, and
    what happens next."""

    round: int
    board: int
    top: str | None
    bottom: str | None
    games: tuple[Result, ...]
    phase: Phase
    winner: str | None
    next_game: Pairing | None

    @property
    def score(self) -> tuple[float, float]:
        """(top, bottom) points over all games of the match, tie-breaks included."""
        if self.top is None or self.bottom is None:
            return (0.0, 0.0)
        top, bottom = self.top, self.bottom
        return (
            sum(g.score_of(top) for g in self.games),
            sum(g.score_of(bottom) for g in self.games),
        )


@dataclass(frozen=True, slots=True)
class KnockoutState:
    """Everything the results say about the bracket.

    ``to_play`` are the games to start now: the next game of every undecided match of
    the current round (plus, in round 1, the byes until they have a result). It is
    empty when the event is over: ``champion`` is then set.
    """

    matches: tuple[MatchState, ...]
    to_play: tuple[Pairing, ...]
    current_round: int
    champion: str | None

    def advanced(self, round_no: int) -> list[str]:
        """The winners of the matches of ``round_no`` so far (bye winners included)."""
        return [m.winner for m in self.matches if m.round == round_no and m.winner is not None]

    def eliminated(self) -> list[str]:
        """Losers of decided matches, in the order of the rounds they went out in."""
        out = []
        for m in self.matches:
            if m.winner is not None and m.top is not None and m.bottom is not None:
                out.append(m.bottom if m.winner == m.top else m.top)
        return out


def seeding_order(size: int) -> list[int]:
    """The seeds down the lines of a bracket of ``size`` (a power of two), so that seed 1
    and seed 2 can only meet in the final and byes (missing seeds) face the top seeds.

    >>> seeding_order(8)
    [1, 8, 4, 5, 2, 7, 3, 6]
    """
    if size < 1 or size & (size - 1):
        raise TournamentError("a bracket size is a power of two")
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [s for seed in order for s in (seed, total - seed)]
    return order


def knockout_bracket(players: Sequence[Player]) -> Bracket:
    """The seeded bracket: seed 1 meets the last seed, and so on; when the count is not
    a power of two, the top seeds get the byes.

    >>> knockout_bracket([Player(str(i), str(i), seed=i) for i in range(1, 7)]).slots
    ('1', None, '4', '5', '2', None, '3', '6')
    """
    check_players(players, minimum=2)
    order = [p.id for p in seeded_order(players)]
    size = 1 << (len(order) - 1).bit_length()
    return Bracket(tuple(order[s - 1] if s <= len(order) else None for s in seeding_order(size)))


def knockout_next(
    bracket: Bracket,
    results: Collection[Result],
    *,
    games_per_match: int = 2,
    tiebreak_games: int = 2,
) -> KnockoutState:
    """Where the bracket stands after ``results``, and which games to play next.

    Results are matched to games by ``(round, board, game_no)``: ``round`` is the
    knockout round (1 = first, ``bracket.rounds`` = final), ``board`` the match within
    the round, ``game_no`` the game within the match (1, 2, ...). Byes need no result.
    """
    if games_per_match < 1 or tiebreak_games < 0:
        raise TournamentError("a match needs games_per_match >= 1 and tiebreak_games >= 0")
    by_key = {r.key: r for r in results}
    matches: list[MatchState] = []
    lines: list[str | None] = list(bracket.slots)
    current = 0
    for round_no in range(1, bracket.rounds + 1):
        winners: list[str | None] = []
        for board in range(1, len(lines) // 2 + 1):
            top, bottom = lines[2 * board - 2], lines[2 * board - 1]
            match = _match(
                (round_no, board),
                (top, bottom),
                by_key,
                (games_per_match, tiebreak_games),
                first_round=round_no == 1,
            )
            matches.append(match)
            winners.append(match.winner)
        if not current and any(m.winner is None for m in matches if m.round == round_no):
            current = round_no
        lines = winners
    champion = lines[0] if lines else None
    if champion is not None:
        current = bracket.rounds
    to_play: list[Pairing] = []
    for m in matches:
        if m.round == current and m.next_game is not None and m.next_game.key not in by_key:
            to_play.append(m.next_game)
    if current == 1:  # announce the byes until recorded (their results change nothing)
        for m in matches:
            if m.round == 1 and m.winner is not None and (m.top is None or m.bottom is None):
                bye = Pairing(1, m.board, m.winner, None, game_no=1)
                if bye.key not in by_key:
                    to_play.append(bye)
        to_play.sort(key=lambda p: p.board)
    return KnockoutState(tuple(matches), tuple(to_play), current or bracket.rounds, champion)


def _match(
    where: tuple[int, int],
    sides: tuple[str | None, str | None],
    by_key: Mapping[tuple[int, int, int], Result],
    lengths: tuple[int, int],
    *,
    first_round: bool,
) -> MatchState:
    """The state of match ``where = (round, board)`` between ``sides = (top, bottom)``
    with ``lengths = (regular games, tie-break games)``."""
    (round_no, board), (top, bottom), (regular, tiebreak) = where, sides, lengths
    if top is None or bottom is None:
        if not first_round:
            return MatchState(round_no, board, top, bottom, (), "waiting", None, None)
        bye_winner = top if bottom is None else bottom
        return MatchState(round_no, board, top, bottom, (), "done", bye_winner, None)
    games: list[Result] = []
    game_no = 0
    winner: str | None = None
    # (phase, number of games in the phase or 0 for unlimited)
    phases: list[tuple[Phase, int]] = [("regular", regular)]
    if tiebreak:
        phases.append(("tiebreak", tiebreak))
    phases.append(("sudden_death", 0))
    for phase, length in phases:
        lead = 0.0  # top minus bottom, in this phase
        played = 0
        while True:
            if length and (played == length or abs(lead) > length - played):
                break  # phase over: decided (handled below) or tied
            game_no += 1
            result = by_key.get((round_no, board, game_no))
            if result is None:
                first, second = (top, bottom) if game_no % 2 else (bottom, top)
                pairing = Pairing(round_no, board, first, second, game_no=game_no)
                return MatchState(round_no, board, top, bottom, tuple(games), phase, None, pairing)
            if {result.first, result.second} != {top, bottom}:
                raise TournamentError(
                    f"result of round {round_no} board {board} game {game_no} names "
                    f"{result.first} and {result.second}, not {top} and {bottom}"
                )
            games.append(result)
            played += 1
            lead += result.score_of(top) - result.score_of(bottom)
            if not length and lead:
                break  # sudden death: the first decisive game
        if lead:
            winner = top if lead > 0 else bottom
            break
    return MatchState(round_no, board, top, bottom, tuple(games), "done", winner, None)
