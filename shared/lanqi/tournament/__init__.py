"""Tournament logic for lanqi: pairings, standings, ratings and exports, as pure functions.

No I/O, no clock, no storage: the matchmaker keeps players, pairings and results and
passes them in. The model (:mod:`.model`) is three frozen values, :class:`Player`,
:class:`Pairing` and :class:`Result`; seats are neutral (``first`` moves first: Red in
xiangqi, Black in gomoku).

>>> from lanqi.tournament import Player, Result, make_schedule
>>> players = [Player("a", "Ann", 1800.0), Player("b", "Bo", 1700.0), Player("c", "Cy", 1600.0)]
>>> schedule = make_schedule("round_robin", players)
>>> [(p.first, p.second) for p in schedule.next_round([])]
[('b', 'c'), ('a', None)]

See docs/tournaments.md for the rules as implemented.
"""

from lanqi.tournament.export import (
    crosstable_csv,
    crosstable_text,
    html_page,
    join_pgn,
    set_round_tag,
    standings_csv,
    standings_text,
)
from lanqi.tournament.knockout import (
    Bracket,
    KnockoutState,
    MatchState,
    knockout_bracket,
    knockout_next,
    seeding_order,
)
from lanqi.tournament.model import (
    RESULT_KINDS,
    Pairing,
    Player,
    Result,
    ResultKind,
    RoundInProgressError,
    TournamentError,
    seeded_order,
    unfinished,
)
from lanqi.tournament.pairing import berger_table, gauntlet, round_robin
from lanqi.tournament.ratings import (
    Glicko2,
    elo_game,
    expected,
    glicko2_game,
    glicko2_idle,
    glicko2_update,
    k_factor,
    update,
)
from lanqi.tournament.schedule import (
    FORMATS,
    Format,
    FormatInfo,
    OptionError,
    OptionSpec,
    Schedule,
    make_schedule,
)
from lanqi.tournament.scoring import GameScore, UnplayedScore, points_of, score_game, score_unplayed
from lanqi.tournament.standings import (
    DEFAULT_TIEBREAKS,
    TIEBREAKS,
    CrossEntry,
    Crosstable,
    StandingRow,
    crosstable,
    standings,
)
from lanqi.tournament.swiss import swiss_pairings

__all__ = [
    "DEFAULT_TIEBREAKS",
    "FORMATS",
    "RESULT_KINDS",
    "TIEBREAKS",
    "Bracket",
    "CrossEntry",
    "Crosstable",
    "Format",
    "FormatInfo",
    "GameScore",
    "Glicko2",
    "KnockoutState",
    "MatchState",
    "OptionError",
    "OptionSpec",
    "Pairing",
    "Player",
    "Result",
    "ResultKind",
    "RoundInProgressError",
    "Schedule",
    "StandingRow",
    "TournamentError",
    "UnplayedScore",
    "berger_table",
    "crosstable",
    "crosstable_csv",
    "crosstable_text",
    "elo_game",
    "expected",
    "gauntlet",
    "glicko2_game",
    "glicko2_idle",
    "glicko2_update",
    "html_page",
    "join_pgn",
    "k_factor",
    "knockout_bracket",
    "knockout_next",
    "make_schedule",
    "points_of",
    "round_robin",
    "score_game",
    "score_unplayed",
    "seeded_order",
    "seeding_order",
    "set_round_tag",
    "standings",
    "standings_csv",
    "standings_text",
    "swiss_pairings",
    "unfinished",
    "update",
]
