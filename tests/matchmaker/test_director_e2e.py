"""The director's actions that succeed, and the knockout and gauntlet formats, through a
real ``lanqi serve`` with random bots (in-process :class:`BotRunner` threads).

Every wait is for a state the standings show (woken by ``tour/<id>`` events); a pause
is checked on one consistent standings reply: the round it paused in is complete and
no later round was paired.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

import pytest

from lanqi.client.matchmaker import MatchmakerClient, MatchmakerRefused
from lanqi.protocol import (
    FinishTournament,
    Ok,
    PauseTournament,
    ResumeTournament,
    Standings,
    WithdrawTournament,
)


def _decided(standings: Standings, round_no: int) -> bool:
    games = [p for p in standings.pairings if p.round == round_no]
    return bool(games) and all(p.result is not None for p in games)


def _refused(client: MatchmakerClient, request: Any) -> str:
    with pytest.raises(MatchmakerRefused) as info:
        client.call(request, Ok)
    return info.value.code


def test_director_pauses_withdraws_resumes_and_finishes(
    lanqi: Any, mm: Callable[..., Any], tour: Any, names: Callable[..., list[str]], bot_pool: Any
) -> None:
    server = lanqi.serve()
    client = mm(server)
    tid = tour.create(client, format="round_robin", variant="gomoku")
    players = names(4, "dir")
    bot_pool.start(server, players, tournament=tid, seed=80, max_games=10)
    tour.wait_players(client, tid, 4)
    tour.start(client, tid)
    client.call(PauseTournament(tournament_id=tid, director_key=tour.director_key), Ok)
    paused_in = tour.standings(client, tid).tournament.round
    assert paused_in >= 1

    # paused: the games of the round finish, and no new round is paired
    paused = tour.wait(
        client, tid, lambda s: _decided(s, paused_in), 60, f"round {paused_in} decided"
    )
    assert paused.tournament.status == "paused"
    assert paused.tournament.round == paused_in
    assert {p.round for p in paused.pairings} == set(range(1, paused_in + 1))
    assert _refused(client, PauseTournament(tournament_id=tid, director_key=tour.director_key)) == (
        "not_allowed"
    )

    # a withdrawal while paused: the withdrawn player's later games are forfeits
    gone = players[0]
    client.call(
        WithdrawTournament(tournament_id=tid, player=gone, director_key=tour.director_key), Ok
    )
    client.call(ResumeTournament(tournament_id=tid, director_key=tour.director_key), Ok)
    resumed = tour.wait(client, tid, lambda s: s.tournament.round > paused_in, 30, "the next round")
    assert resumed.tournament.status in ("running", "finished")
    later = [p for p in resumed.pairings if p.round == paused_in + 1]
    forfeits = [p for p in later if gone in (p.first, p.second)]
    assert len(forfeits) == 1
    (forfeit,) = forfeits
    assert forfeit.game_id is None
    assert forfeit.result == ("0-1" if forfeit.first == gone else "1-0")

    # finished by the director: at once, whatever is still being played
    client.call(FinishTournament(tournament_id=tid, director_key=tour.director_key), Ok)
    final = tour.standings(client, tid)
    assert final.tournament.status == "finished"
    last_round = final.tournament.round
    for action in (FinishTournament, PauseTournament, ResumeTournament):
        assert _refused(client, action(tournament_id=tid, director_key=tour.director_key)) == (
            "not_allowed"
        )
    assert tour.standings(client, tid).tournament.round == last_round


def _match_scores(standings: Standings, round_no: int) -> dict[int, dict[str, float]]:
    score = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "1/2-1/2": (0.5, 0.5)}
    matches: dict[int, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for p in standings.pairings:
        if p.round != round_no or p.second is None:
            continue
        assert p.first is not None and p.result in score, p
        first, second = score[p.result]
        matches[p.board][p.first] += first
        matches[p.board][p.second] += second
    return matches


def test_knockout_through_the_matchmaker(
    lanqi: Any, mm: Callable[..., Any], tour: Any, names: Callable[..., list[str]], bot_pool: Any
) -> None:
    server = lanqi.serve()
    client = mm(server)
    tid = tour.create(client, format="knockout", variant="gomoku", games_per_match=2)
    players = names(4, "ko")
    bot_pool.start(server, players, tournament=tid, seed=90, max_games=40)
    tour.wait_players(client, tid, 4)
    tour.start(client, tid)
    final = tour.wait_finished(client, tid, timeout_s=120)

    assert final.tournament.round == 2
    semis = _match_scores(final, 1)
    assert sorted(semis) == [1, 2]
    seated = sorted(name for match in semis.values() for name in match)
    assert seated == sorted(players)
    winners = set()
    for match in semis.values():
        (a, sa), (b, sb) = match.items()
        assert sa != sb, match  # a match is played until decided
        winners.add(a if sa > sb else b)
    # the final is between the two match winners, and decided
    (final_match,) = _match_scores(final, 2).values()
    assert set(final_match) == winners
    assert len(set(final_match.values())) == 2
    for board in (1, 2):  # colours alternate within a match
        games = [p for p in final.pairings if p.round == 1 and p.board == board]
        assert len(games) >= 2
        assert [g.first for g in games[:2]] == [games[0].first, games[0].second]


def test_gauntlet_through_the_matchmaker(
    lanqi: Any, mm: Callable[..., Any], tour: Any, names: Callable[..., list[str]], bot_pool: Any
) -> None:
    server = lanqi.serve()
    client = mm(server)
    players = names(4, "gt")
    champion, field = players[2], [p for p in players if p != players[2]]
    tid = tour.create(
        client, format="gauntlet", variant="gomoku", games_per_match=2, champion=champion
    )
    bot_pool.start(server, players, tournament=tid, seed=100, max_games=20)
    tour.wait_players(client, tid, 4)
    tour.start(client, tid)
    final = tour.wait_finished(client, tid, timeout_s=120)

    games = [p for p in final.pairings if p.second is not None]
    assert len(games) == 6 and final.tournament.round == 6
    assert all(p.result in ("1-0", "0-1", "1/2-1/2") for p in games)
    assert sorted(p.round for p in games) == list(range(1, 7))
    for p in games:  # the champion is in every game, first in odd rounds
        assert champion == (p.first if p.round % 2 else p.second), p
    opponents = [
        p.second if p.first == champion else p.first for p in sorted(games, key=lambda p: p.round)
    ]
    assert sorted(set(opponents)) == sorted(field)
    for name in field:  # two games against each, one with each colour, in a row
        rounds = [p.round for p in games if name in (p.first, p.second)]
        assert len(rounds) == 2 and rounds[1] == rounds[0] + 1
    assert sum(row.points for row in final.rows) == len(games)
