"""One self-contained HTML page per event: what a club posts after the evening.

The page is a jinja2 template (``report.html.j2`` beside this module) filled from
plain values: the event's facts, its rounds with their boards, the standings with
readable tie-break names and ratings before/after, the crosstable, and every game's
moves (Chinese and WXF for xiangqi, coordinates for gomoku) with how it ended.
Inline CSS only, print CSS included; no scripts, no external files.

>>> tiebreak_name("sonneborn_berger")
'Sonneborn-Berger (SB)'
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import TYPE_CHECKING, Any

from lanqi.games.registry import variant_spec
from lanqi.phrases import termination_words
from lanqi.tournament.export import crosstable_rows, score_text
from lanqi.tournament.standings import TIEBREAK_NAMES, Crosstable, StandingRow, tiebreak_name

if TYPE_CHECKING:
    import jinja2

__all__ = [
    "TIEBREAK_NAMES",
    "BoardLine",
    "EventFacts",
    "GameMoves",
    "MoveLine",
    "RoundLines",
    "SheetLine",
    "date_span",
    "html_report",
    "readable_moves",
    "round_sheet",
    "tiebreak_name",
]

FORMAT_NAMES = {
    "round_robin": "Round robin",
    "double_round_robin": "Double round robin",
    "swiss": "Swiss",
    "knockout": "Knockout",
    "gauntlet": "Gauntlet",
}


def date_span(stamps_ms: Sequence[int]) -> str:
    """``2026-12-01``, or ``2026-12-01 to 2026-12-02`` for an event over midnight
    (local dates of the wall-clock stamps; empty when there are none)."""
    if not stamps_ms:
        return ""
    days = sorted({dt.datetime.fromtimestamp(ms / 1000).date().isoformat() for ms in stamps_ms})
    return days[0] if len(days) == 1 else f"{days[0]} to {days[-1]}"


@dataclass(frozen=True, slots=True)
class EventFacts:
    name: str
    variant: str
    format: str
    time_control: str
    site: str
    dates: str
    rated: bool
    status: str
    players: int
    points: str = "1/½/0"  # win/draw/loss, as people write it


@dataclass(frozen=True, slots=True)
class BoardLine:
    """One board of a round: ``result`` is ``1-0``, ``bye``, ``+/-``..., or empty
    while the game runs; ``game`` the anchor of its moves (None: no game)."""

    board: int
    first: str
    second: str | None
    result: str
    termination: str = ""
    game: str | None = None
    #: ``manual`` (paired by the director), ``absent``, ``over the board``...
    note: str = ""
    #: the table the game is played at (None: a bye, or an event without tables)
    table: int | None = None


@dataclass(frozen=True, slots=True)
class RoundLines:
    number: int
    boards: list[BoardLine]

    @property
    def tables(self) -> bool:
        """True when the round's games have tables: the report numbers them so."""
        return any(b.table is not None for b in self.boards)


@dataclass(frozen=True, slots=True)
class MoveLine:
    """One line of a game's move list: the move number and, per side, the text in
    each notation (``("炮二平五", "C2=5")``, or ``("h8",)`` for gomoku)."""

    number: int
    first: tuple[str, ...]
    second: tuple[str, ...] | None


@dataclass(frozen=True, slots=True)
class GameMoves:
    anchor: str
    round: int
    board: int
    first: str
    second: str
    result: str
    termination: str
    notations: tuple[str, ...]
    lines: list[MoveLine] = field(default_factory=list)


def readable_moves(
    variant: str,
    start_fen: str | None,
    moves: Sequence[str],
    options: Mapping[str, object] | None = None,
) -> tuple[tuple[str, ...], list[MoveLine]]:
    """The notations people read the variant's moves in (its spec's, e.g. Chinese and
    WXF for xiangqi) and the move lines in them; ``coordinates``, the moves as they
    are, for a variant with none (gomoku). ``options`` are the game's variant options
    (its move limit, ...), so the moves replay as they were played."""
    spec = variant_spec(variant)
    notations = [n for n in spec.notations.values() if n.for_people]
    if not notations:
        return ("coordinates",), coordinate_moves(moves)
    # the game's own options: a longer move limit than the default lets it run on
    board = spec.create({**(options or {}), **({"fen": start_fen} if start_fen else {})})
    texts: list[tuple[str, ...]] = []
    for text in moves:
        move = board.parse_move(text)
        texts.append(tuple(notation(board, move) for notation in notations))
        board.push(move)
    return tuple(notation.title for notation in notations), _pair_up(texts)


def coordinate_moves(moves: Sequence[str]) -> list[MoveLine]:
    """Move lines for a game whose moves are written as they are (gomoku)."""
    return _pair_up([(m,) for m in moves])


def _pair_up(texts: Sequence[tuple[str, ...]]) -> list[MoveLine]:
    return [
        MoveLine(i // 2 + 1, texts[i], texts[i + 1] if i + 1 < len(texts) else None)
        for i in range(0, len(texts), 2)
    ]


def _rating(value: float | None) -> str:
    return "" if value is None else f"{value:.0f}"


def html_report(  # noqa: PLR0913 - the report's parts, each its own value
    event: EventFacts,
    rounds: Sequence[RoundLines],
    rows: Sequence[StandingRow],
    crosstable: Crosstable | None,
    games: Sequence[GameMoves],
    *,
    ratings: dict[str, tuple[float | None, float | None]] | None = None,
    engines: dict[str, str] | None = None,
) -> str:
    """The whole page. ``ratings`` maps a player id to their rating before the event's
    first rated game and after its last one (missing: the standings' rating both);
    ``engines`` a player id to the program that played for it (shown after the name)."""
    ratings = ratings or {}
    engines = engines or {}
    tiebreaks = list(rows[0].tiebreaks) if rows else []
    standings: list[dict[str, Any]] = []
    for row in rows:
        before, after = ratings.get(row.player.id, (row.player.rating, row.player.rating))
        change = "" if before is None or after is None else f"{after - before:+.0f}"
        standings.append(
            {
                "rank": row.rank,
                "name": row.player.name,
                "engine": engines.get(row.player.id, ""),
                "points": score_text(row.points),
                "games": row.games,
                "wins": row.wins,
                "draws": row.draws,
                "losses": row.losses,
                "tiebreaks": [f"{row.tiebreaks.get(t, 0.0):g}" for t in tiebreaks],
                "before": _rating(before),
                "after": _rating(after),
                "change": change,
            }
        )
    cross_head, cross_body = ([], [])
    if crosstable is not None and rows:
        table = crosstable_rows(crosstable)
        cross_head, cross_body = table[0], table[1:]
    template = _environment().get_template("report.html.j2")
    return template.render(
        event=event,
        rounds=rounds,
        tiebreaks=[tiebreak_name(t) for t in tiebreaks],
        standings=standings,
        cross_head=cross_head,
        cross_body=cross_body,
        cross_rounds=bool(cross_head) and cross_head[2:3] == ["R1"],
        games=games,
        termination_text=termination_words,
    )


@dataclass(frozen=True, slots=True)
class SheetLine:
    """One table of a round sheet: the players (with what the director entered of
    them, e.g. ``1850 · FM · Riverside``), the result if known, whether it is played
    over the board and was paired by the director; a bye has ``second`` None and a
    ``note`` (``bye``, ``absent``)."""

    table: int | None
    first: str
    second: str | None
    first_info: str = ""
    second_info: str = ""
    result: str = ""
    otb: bool = True
    manual: bool = False
    note: str = ""


def round_sheet(  # noqa: PLR0913 - the sheet's parts, each its own value
    name: str,
    round_no: int,
    variant: str,
    lines: Sequence[SheetLine],
    *,
    site: str = "",
    date: str = "",
) -> str:
    """A round's sheet for the wall and the arbiter's table (table, the two players,
    a result box) and a pairing card per over-the-board table, as one printable HTML
    page (the cards from a new page)."""
    seats = tuple(variant_spec(variant).seat_names)
    tables = [line for line in lines if line.second is not None]
    template = _environment().get_template("round_sheet.html.j2")
    return template.render(
        name=name,
        round=round_no,
        variant=variant,
        site=site,
        date=date,
        seats=seats,
        tables=tables,
        byes=[line for line in lines if line.second is None],
        cards=[line for line in tables if line.otb and not line.result],
    )


#: the page templates, beside this module
TEMPLATES = ("report.html.j2", "round_sheet.html.j2")


def _environment() -> jinja2.Environment:
    import jinja2  # noqa: PLC0415 - only when a report is made: the CLI starts without it

    files = resources.files("lanqi.tournament")
    texts = {n: files.joinpath(n).read_text("utf-8") for n in TEMPLATES}
    return jinja2.Environment(
        loader=jinja2.DictLoader(texts),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
