"""Pairings for every format: round robin (Berger tables), Swiss, knockout, gauntlet.

Every function takes plain data (players, results) and returns :class:`Pairing` values;
nothing is stored here. The matchmaker persists pairings and results and asks again.

>>> players = [Player(pid, pid.upper(), 1500.0, seed=i) for i, pid in enumerate("abcd", 1)]
>>> [[(p.first, p.second) for p in rnd] for rnd in round_robin(players)]
[[('a', 'd'), ('b', 'c')], [('d', 'c'), ('a', 'b')], [('b', 'd'), ('c', 'a')]]
>>> [[(p.round, p.first, p.second) for p in rnd] for rnd in gauntlet(players[0], players[1:3])]
[[(1, 'a', 'b')], [(2, 'b', 'a')], [(3, 'a', 'c')], [(4, 'c', 'a')]]
"""

from __future__ import annotations

from collections.abc import Sequence

from lanqi.tournament.knockout import (
    Bracket,
    KnockoutState,
    MatchState,
    knockout_bracket,
    knockout_next,
)
from lanqi.tournament.model import Pairing, Player, TournamentError, check_players, seeded_order
from lanqi.tournament.swiss import swiss_pairings

__all__ = [
    "Bracket",
    "KnockoutState",
    "MatchState",
    "berger_table",
    "gauntlet",
    "knockout_bracket",
    "knockout_next",
    "round_robin",
    "swiss_pairings",
]


def berger_table(slots: int) -> list[list[tuple[int, int]]]:
    """FIDE Berger tables: for an even number of ``slots``, ``slots - 1`` rounds of
    ``(first, second)`` slot numbers (1-based), board by board.

    Round 1 is ``1-n, 2-(n-1), ...``; each later round adds ``n/2`` (mod ``n-1``) to
    every slot but ``n``, whose colour alternates.

    >>> berger_table(6)[1]
    [(6, 4), (5, 3), (1, 2)]
    """
    if slots < 2 or slots % 2:
        raise TournamentError("a Berger table needs an even number of slots >= 2")
    half, cycle = slots // 2, slots - 1

    def shift(slot: int) -> int:
        return slot if slot == slots else (slot - 1 + half) % cycle + 1

    boards = [(i, slots + 1 - i) for i in range(1, half + 1)]
    table = []
    for _ in range(cycle):
        table.append(boards)
        moved = []
        for a, b in boards:
            a2, b2 = shift(a), shift(b)
            moved.append((b2, a2) if slots in (a, b) else (a2, b2))
        boards = moved
    return table


def round_robin(players: Sequence[Player], double: bool = False) -> list[list[Pairing]]:
    """Every round of a (double) round robin, from the Berger tables.

    Players take slots in :func:`~lanqi.tournament.model.seeded_order` (seed 1 gets slot
    1). With an odd count the last slot is a dummy: whoever meets it has the bye, listed
    after the games of the round. A double round robin repeats the cycle with colours
    reversed, and (as FIDE recommends) plays the last two rounds of the first cycle in
    swapped order so that nobody gets three games with the same colour in a row at the
    turn of the cycles (the second cycle keeps the table's order).

    >>> rounds = round_robin([Player("a", "A"), Player("b", "B"), Player("c", "C")])
    >>> [[(p.first, p.second) for p in rnd] for rnd in rounds]
    [[('b', 'c'), ('a', None)], [('a', 'b'), ('c', None)], [('c', 'a'), ('b', None)]]
    """
    check_players(players, minimum=2)
    order = [p.id for p in seeded_order(players)]
    slots = len(order) + len(order) % 2
    table = berger_table(slots)
    cycles = [table]
    if double:
        first = table[:-2] + table[-1:] + table[-2:-1] if len(table) >= 2 else table
        cycles = [first, [[(b, a) for a, b in rnd] for rnd in table]]

    def who(slot: int) -> str | None:
        return order[slot - 1] if slot <= len(order) else None

    rounds: list[list[Pairing]] = []
    for cycle in cycles:
        for boards in cycle:
            number = len(rounds) + 1
            games = [(who(a), who(b)) for a, b in boards]
            played = [(a, b) for a, b in games if a is not None and b is not None]
            byes = [a or b for a, b in games if a is None or b is None]
            rnd = [Pairing(number, i, a, b) for i, (a, b) in enumerate(played, 1)]
            rnd += [Pairing(number, len(rnd) + 1, bye, None) for bye in byes if bye is not None]
            rounds.append(rnd)
    return rounds


def gauntlet(
    champion: Player, field: Sequence[Player], games_per_opponent: int = 2
) -> list[list[Pairing]]:
    """The champion meets each opponent of ``field`` in turn, one game per round.

    Opponents come in the order given. The champion moves first in odd rounds and
    second in even rounds, so colours alternate within every meeting and, when
    ``games_per_opponent`` is odd, from one opponent to the next. ``game_no`` counts
    the games of one meeting (1, 2, ...); the board is always 1.
    """
    if games_per_opponent < 1:
        raise TournamentError("a gauntlet needs games_per_opponent >= 1")
    check_players([champion, *field], minimum=2)
    pairings: list[Pairing] = []
    for opponent in field:
        for game in range(1, games_per_opponent + 1):
            number = len(pairings) + 1
            a, b = champion.id, opponent.id
            first, second = (a, b) if number % 2 else (b, a)
            pairings.append(Pairing(number, 1, first, second, game_no=game))
    return [[p] for p in pairings]
