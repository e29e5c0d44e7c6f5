"""Standings and crosstables as text, CSV and a self-contained HTML page; PGN joining.

Everything returns a string; writing it anywhere is the caller's business.

>>> from lanqi.tournament import Player, Result, standings
>>> rows = standings([Player("a", "Ann"), Player("b", "Bo")], [Result(1, 1, "a", "b", 1.0)])
>>> print(standings_text(rows, tiebreaks=("wins",)))
#  Name  Pts  Games  W  D  L  wins
1  Ann   1    1      1  0  0  1
2  Bo    0    1      0  0  1  0
"""

from __future__ import annotations

import csv
import html
import io
import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Literal

from lanqi.tournament.standings import Crosstable, StandingRow, tiebreak_label

__all__ = [
    "crosstable_csv",
    "crosstable_rows",
    "crosstable_text",
    "html_page",
    "join_pgn",
    "score_text",
    "set_round_tag",
    "standings_csv",
    "standings_text",
]

Style = Literal["auto", "matrix", "rounds"]


def _num(value: float) -> str:
    """1.0 -> '1', 2.5 -> '2.5', 0.25 -> '0.25'."""
    return f"{value:g}"


def _half(value: float) -> str:
    """A score as players write it: 1, ½, 2½ (plain text and HTML)."""
    whole, frac = divmod(value, 1.0)
    if frac == 0.5:
        return f"{int(whole)}½" if whole else "½"
    return _num(value)


def _width(text: str) -> int:
    """Display width in a terminal: CJK characters take two columns."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _align(table: Sequence[Sequence[str]]) -> str:
    widths = [max(_width(row[i]) for row in table) for i in range(len(table[0]))]
    lines = []
    for row in table:
        cells = [cell + " " * (widths[i] - _width(cell)) for i, cell in enumerate(row)]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def _tiebreak_names(rows: Sequence[StandingRow], tiebreaks: Sequence[str] | None) -> list[str]:
    if tiebreaks is not None:
        return list(tiebreaks)
    return list(rows[0].tiebreaks) if rows else []


def _standings_table(
    rows: Sequence[StandingRow], tiebreaks: Sequence[str] | None, text: bool
) -> list[list[str]]:
    names = _tiebreak_names(rows, tiebreaks)
    fmt = _half if text else _num
    head = ["#", "Name", "Pts", "Games", "W", "D", "L"]
    head += [tiebreak_label(n) for n in names] if text else names
    if not text:
        head[0:2] = ["Rank", "Id", "Name", "Rating"]
    body = []
    for row in rows:
        cells = [
            str(row.rank),
            row.player.name,
            fmt(row.points),
            str(row.games),
            str(row.wins),
            str(row.draws),
            str(row.losses),
            *(fmt(row.tiebreaks.get(n, 0.0)) for n in names),
        ]
        if not text:
            cells[0:2] = [str(row.rank), row.player.id, row.player.name, _num(row.player.rating)]
        body.append(cells)
    return [head, *body]


def standings_text(rows: Sequence[StandingRow], tiebreaks: Sequence[str] | None = None) -> str:
    """An aligned plain-text table (half points as ½); ``tiebreaks`` picks the columns
    (default: every tie-break the rows carry)."""
    return _align(_standings_table(rows, tiebreaks, text=True))


def _csv(table: Iterable[Sequence[str]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerows(table)
    return out.getvalue()


def standings_csv(rows: Sequence[StandingRow], tiebreaks: Sequence[str] | None = None) -> str:
    """CSV with a header line: rank, id, name, rating, points, games, W/D/L, tie-breaks.

    Numbers are plain decimals (2.5), so a spreadsheet reads them as numbers.
    """
    return _csv(_standings_table(rows, tiebreaks, text=False))


def _pick(table: Crosstable, style: Style) -> Literal["matrix", "rounds"]:
    if style == "auto":
        return "matrix" if table.is_round_robin else "rounds"
    if style not in ("matrix", "rounds"):
        raise ValueError("style is 'auto', 'matrix' or 'rounds'")
    return style


def _crosstable_table(table: Crosstable, style: Style, text: bool) -> list[list[str]]:
    fmt = _half if text else _num
    numbers = table.numbers
    ids = [row.player.id for row in table.rows]
    if _pick(table, style) == "matrix":
        head = ["#", "Name", *(str(i) for i in range(1, len(ids) + 1)), "Pts"]
        body = []
        for row in table.rows:
            pid = row.player.id
            cells = []
            for other in ids:
                if other == pid:
                    cells.append("x" if text else "")
                else:
                    cells.append(" ".join(fmt(s) for s in table.cell(pid, other)))
            body.append([str(numbers[pid]), row.player.name, *cells, fmt(row.points)])
        return [head, *body]
    rounds = table.rounds
    head = ["#", "Name", *(f"R{r}" for r in range(1, rounds + 1)), "Pts"]
    body = []
    for row in table.rows:
        pid = row.player.id
        per_round: list[list[str]] = [[] for _ in range(rounds)]
        for e in table.entries[pid]:
            if e.opponent is None:
                cell = f"bye {e.code}"
            else:
                seat = "f" if e.seat == "first" else "s"
                cell = f"{numbers.get(e.opponent, '?')}{seat} {e.code}"
            per_round[e.round - 1].append(cell)
        cells = [" / ".join(c) for c in per_round]
        body.append([str(numbers[pid]), row.player.name, *cells, fmt(row.points)])
    return [head, *body]


def crosstable_rows(table: Crosstable, style: Style = "auto") -> list[list[str]]:
    """The crosstable as rows of text cells, the header first (the layout of
    :func:`crosstable_text`; ``x`` marks a player's own cell in the matrix)."""
    return _crosstable_table(table, style, text=True)


def score_text(value: float) -> str:
    """A score as players write it: ``1``, ``½``, ``2½``."""
    return _half(value)


def crosstable_text(table: Crosstable, style: Style = "auto") -> str:
    """An aligned crosstable. ``matrix`` (round robins): one cell per opponent with the
    scores against them. ``rounds`` (Swiss): per round the opponent's line number, the
    seat (``f`` moved first, ``s`` second) and the result code (``1 = 0`` played,
    ``+ -`` forfeit, ``F H Z`` bye). ``auto`` picks the matrix when everyone met
    everyone.
    """
    return _align(_crosstable_table(table, style, text=True))


def crosstable_csv(table: Crosstable, style: Style = "auto") -> str:
    """The crosstable as CSV, in the same layout as :func:`crosstable_text`."""
    return _csv(_crosstable_table(table, style, text=False))


_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.1em; margin-top: 2em; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #bbb; padding: 0.25em 0.6em; text-align: center; }
th { background: #eee; } td.name { text-align: left; }
tr:nth-child(even) td { background: #f7f7f7; } tr td.self { background: #ddd; }
""".strip()


def _html_table(table: Sequence[Sequence[str]], name_column: int) -> str:
    esc = html.escape
    head = "".join(f"<th>{esc(c)}</th>" for c in table[0])
    lines = [f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>"]
    for row in table[1:]:
        cells = []
        for i, c in enumerate(row):
            cls = ' class="name"' if i == name_column else (' class="self"' if c == "x" else "")
            cells.append(f"<td{cls}>{esc(c)}</td>")
        lines.append(f"<tr>{''.join(cells)}</tr>")
    lines.append("</tbody>\n</table>")
    return "\n".join(lines)


def html_page(
    title: str,
    rows: Sequence[StandingRow],
    crosstable: Crosstable | None = None,
    *,
    tiebreaks: Sequence[str] | None = None,
    style: Style = "auto",
) -> str:
    """A complete HTML page (inline CSS, no scripts, no external files) with the
    standings and, if given, the crosstable. Every name is escaped.

    >>> page = html_page("<b>Open</b>", [])
    >>> "<b>" in page, "&lt;b&gt;Open&lt;/b&gt;" in page
    (False, True)
    """
    esc = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f"<title>{esc(title)}</title>",
        f"<style>\n{_CSS}\n</style>",
        "</head>",
        "<body>",
        f"<h1>{esc(title)}</h1>",
        "<h2>Standings</h2>",
        _html_table(_standings_table(rows, tiebreaks, text=True), name_column=1),
    ]
    if crosstable is not None:
        parts += [
            "<h2>Crosstable</h2>",
            _html_table(_crosstable_table(crosstable, style, text=True), name_column=1),
        ]
    parts += ["</body>", "</html>", ""]
    return "\n".join(parts)


_ROUND_TAG = re.compile(r'^\[Round[ \t]+"([^"]*)"\][ \t]*$', re.MULTILINE)
_TAG = re.compile(r"^\[\w+\s+\"", re.MULTILINE)


def set_round_tag(pgn: str, round_no: int, board: int) -> str:
    """``pgn`` with ``[Round "round.board"]`` when its Round tag is missing or ``?``;
    a Round tag with a real value is kept.

    >>> print(set_round_tag('[Event "Open"]\\n[Round "?"]\\n\\n1. C2=5 *', 3, 2))
    [Event "Open"]
    [Round "3.2"]
    <BLANKLINE>
    1. C2=5 *
    """
    tag = f'[Round "{round_no}.{board}"]'
    found = _ROUND_TAG.search(pgn)
    if found:
        if found.group(1).strip() not in ("", "?"):
            return pgn
        return pgn[: found.start()] + tag + pgn[found.end() :]
    tags = list(_TAG.finditer(pgn))
    if not tags:
        return f"{tag}\n\n{pgn.lstrip()}"
    end = pgn.find("\n", tags[-1].start())
    end = len(pgn) if end < 0 else end
    return pgn[:end] + "\n" + tag + pgn[end:]


def join_pgn(games: Iterable[str]) -> str:
    """One PGN file from several game texts: each stripped, separated by a blank line,
    ending with a newline. Empty texts are skipped.

    >>> join_pgn(['[Round "1.1"]\\n\\n1. C2=5 *\\n\\n', "", '[Round "1.2"]\\n\\n*'])
    '[Round "1.1"]\\n\\n1. C2=5 *\\n\\n[Round "1.2"]\\n\\n*\\n'
    """
    texts = [g.strip() for g in games if g.strip()]
    return "\n\n".join(texts) + "\n" if texts else ""
