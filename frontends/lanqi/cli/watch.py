"""``lanqi tournament watch ID``: the director's and the projector's live view.

On a terminal, a dashboard redrawn in place (``rich.live``): the event, its round,
every board of the round with the players and their ratings, each live game's
ply, clocks and last move, the latest results, and the standings.  Piped (or not
a terminal), plain lines a script can read, one per thing that happened (a round
paired, a result, the event's end) and the final standings once.  Both end by
themselves when the event ends.

The state is one fold: :meth:`EventState.update` takes the matchmaker's standings
(fetched after every ``tour/<id>`` event and every few seconds, so a dropped
event costs nothing) and returns what changed as plain lines.  Live games follow
the referee's ``game/<id>`` topics through :class:`~lanqi.client.referee.GameView`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rich import box
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from lanqi.phrases import clock_text, termination_words, time_control_text, time_left_ms
from lanqi.protocol import PairingInfo, StandingInfo, Standings
from lanqi.tournament.report import tiebreak_name

if TYPE_CHECKING:
    from lanqi.client.matchmaker import MatchmakerClient
    from lanqi.client.referee import GameView, RefereeClient

__all__ = ["EventState", "LiveGame", "pairings_table", "standings_table", "watch"]

log = logging.getLogger(__name__)

#: how often the standings are fetched when no event says so (ms)
REFRESH_MS = 3000
#: results the dashboard lists (the latest first)
RECENT = 6


def result_line(p: PairingInfo, termination: str = "") -> str:
    """``round 2 board 1: Tiger 1-0 Crane (checkmate)`` or a bye."""
    if p.second is None:
        how = "is absent" if p.note == "absent" else "has a bye"
        return f"round {p.round} board {p.board}: {p.first} {how} ({p.result})"
    how = termination_words(termination)
    return f"round {p.round} board {p.board}: {p.first} {p.result} {p.second}" + (
        f" ({how})" if how else ""
    )


def _keyed(pairings: Iterable[PairingInfo]) -> list[tuple[tuple[int, int, int], PairingInfo]]:
    """Each pairing with its key: round, board and the how-manieth game on that board
    (a knockout match plays several; the matchmaker lists them in order)."""
    seen: dict[tuple[int, int], int] = {}
    out = []
    for p in pairings:
        n = seen.get((p.round, p.board), 0)
        seen[(p.round, p.board)] = n + 1
        out.append(((p.round, p.board, n), p))
    return out


@dataclass
class LiveGame:
    """What the dashboard shows of a game in progress."""

    game_id: str
    ply: int = 0
    last_move: str = ""
    clock_ms: list[int] = field(default_factory=list)
    running: int | None = None
    #: time.monotonic() when the clock was read (the running side counts down from it)
    read_at: float = 0.0

    def clocks(self, now: float) -> list[str]:
        out = []
        for seat, ms in enumerate(self.clock_ms):
            left = time_left_ms(ms, read_at=self.read_at, now=now, running=seat == self.running)
            out.append(clock_text(left, "display"))
        return out


def _points_label(system: str) -> str:
    """``2/1/0`` for an event not scored 1/½/0; empty for 1/½/0."""
    from lanqi.tournament.scoring import DEFAULT_POINTS, points_system

    if system == DEFAULT_POINTS:
        return ""
    try:
        return points_system(system).label
    except ValueError:  # a newer server's system: say it as it came
        return system


@dataclass
class EventState:
    """The event as the last standings told it, plus the live games."""

    tournament_id: str
    name: str = ""
    variant: str = ""
    format: str = ""
    time_control: str = ""
    points: str = ""  # the points system as people write it (``2/1/0``)
    status: str = "open"
    round: int = 0
    players: list[str] = field(default_factory=list)
    pairings: dict[tuple[int, int, int], PairingInfo] = field(default_factory=dict)
    rows: list[StandingInfo] = field(default_factory=list)
    ratings: dict[str, float] = field(default_factory=dict)
    terminations: dict[str, str] = field(default_factory=dict)
    recent: list[str] = field(default_factory=list)
    live: dict[str, LiveGame] = field(default_factory=dict)
    #: the matchmaker's word on the next round (being paired, or why it cannot be)
    note: str = ""

    @property
    def finished(self) -> bool:
        return self.status == "finished"

    def update(
        self, standings: Standings, termination_of: Callable[[str], str] | None = None
    ) -> list[str]:
        """Take fresh standings; return one plain line per thing that happened since
        the last ones (rounds paired, results, the end)."""
        t = standings.tournament
        first = not self.name
        self.name, self.variant, self.format = t.spec.name, t.spec.variant, t.spec.format
        self.points = _points_label(t.spec.points)
        tc = t.spec.time_control
        self.time_control = time_control_text(tc)
        self.players = list(t.players)
        self.rows = list(standings.rows)
        #: ratings in the event's game, as the standings carry them
        self.ratings = {r.player: r.rating for r in self.rows if r.rating is not None}
        lines: list[str] = []
        if first:
            lines.append(
                f"{self.name}: {self.format.replace('_', ' ')} of {self.variant}, "
                f"{len(self.players)} players, {self.time_control}, "
                f"{'points ' + self.points + ', ' if self.points else ''}{t.status}"
            )
        elif t.status != self.status and t.status in ("running", "paused"):
            lines.append(f"{self.name} is {t.status}")
        known_rounds = {key[0] for key in self.pairings}
        by_round: dict[int, list[tuple[tuple[int, int, int], PairingInfo]]] = {}
        for key, p in sorted(_keyed(standings.pairings), key=lambda kp: kp[0]):
            by_round.setdefault(p.round, []).append((key, p))
        for number, boards in by_round.items():
            if number not in known_rounds:
                lines.append(
                    f"round {number} paired: "
                    + ", ".join(f"{b.board}. {b.first} - {b.second or '(bye)'}" for _, b in boards)
                )
            for key, p in boards:
                old = self.pairings.get(key)
                self.pairings[key] = p
                if p.result and (old is None or not old.result):
                    lines.append(self._result(p, termination_of))
        self.round, self.status = t.round, t.status
        if standings.note and standings.note != self.note:
            lines.append(standings.note)
        self.note = standings.note
        if self.finished and not first:
            lines.append(f"{self.name} finished after {self.round} rounds")
        return lines

    def _result(self, p: PairingInfo, termination_of: Callable[[str], str] | None) -> str:
        termination = ""
        if p.game_id and termination_of is not None:
            termination = termination_of(p.game_id)
            self.terminations[p.game_id] = termination
            self.live.pop(p.game_id, None)
        line = result_line(p, termination)
        self.recent.insert(0, line)
        del self.recent[RECENT:]
        return line

    def current(self) -> list[PairingInfo]:
        """The boards of the current round, by board number."""
        return [p for key, p in sorted(self.pairings.items()) if key[0] == self.round]

    def waiting_games(self) -> list[str]:
        """Games of the current round that are being played (no result yet)."""
        return [p.game_id for p in self.current() if p.game_id and not p.result]


# ---------------------------------------------------------------- rendering


def _name(name: str | None, ratings: dict[str, float]) -> Text:
    if name is None:
        return Text("(bye)", style="dim")
    text = Text(name)
    if name in ratings:
        text.append(f" {ratings[name]:.0f}", style="dim")
    return text


def plain_text(*renderables: RenderableType, width: int = 200) -> str:
    """Renderables as plain text: no colours or terminal codes, no trailing blanks."""
    import io

    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    for renderable in renderables:
        console.print(renderable)
    return "\n".join(line.rstrip() for line in console.export_text().splitlines())


def _table(title: str | None, *, plain: bool) -> Table:
    """A table as the CLI prints it: plain (no lines) for pipes and files."""
    return Table(
        title=title,
        box=None if plain else box.SIMPLE_HEAD,
        pad_edge=False,
        title_justify="left",
        show_edge=False,
    )


def standings_table(
    rows: Iterable[StandingInfo], *, title: str | None = None, plain: bool = False
) -> Table:
    """Standings with readable tie-break names; rich measures CJK names right."""
    rows = list(rows)
    names = list(rows[0].tiebreaks) if rows else []
    table = _table(title, plain=plain)
    table.add_column("#", justify="right")
    table.add_column("player")
    for column in ("pts", "games", "W", "D", "L"):
        table.add_column(column, justify="right")
    rated = any(row.rating is not None for row in rows)
    if rated:  # the rating in the event's game
        table.add_column("rating", justify="right")
    for name in names:
        table.add_column(tiebreak_name(name), justify="right")
    for row in rows:
        rating = [] if not rated else ["" if row.rating is None else f"{row.rating:.0f}"]
        table.add_row(
            str(row.rank),
            row.player,
            f"{row.points:g}",
            str(row.games),
            str(row.wins),
            str(row.draws),
            str(row.losses),
            *rating,
            *(f"{row.tiebreaks.get(n, 0):g}" for n in names),
        )
    return table


def pairings_table(
    pairings: Iterable[PairingInfo], *, title: str | None = None, plain: bool = False
) -> Table:
    """Board, players and result of each pairing."""
    pairings = list(pairings)
    # a server that numbers tables says so on every game (the same numbers as boards)
    tables = any(p.table is not None for p in pairings)
    notes = [pairing_note(p) for p in pairings]
    table = _table(title, plain=plain)
    number = "table" if tables else "board"
    for column, justify in ((number, "right"), ("first", "left"), ("result", "center")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    table.add_column("second")
    if any(notes):
        table.add_column("note")
    for p, note in zip(pairings, notes, strict=True):
        cells = [str(p.table or p.board), p.first or "", p.result or "-", p.second or "(bye)"]
        table.add_row(*cells, *([note] if any(notes) else []))
    return table


def pairing_note(p: PairingInfo) -> str:
    """``over the board``, ``manual``, ``absent``, the players' words on a board game."""
    parts = [
        "over the board" if p.otb and p.second is not None else "",
        "manual" if p.manual else "",
        p.note or "",
    ]
    return "; ".join(part for part in parts if part)


def dashboard(state: EventState, now: float | None = None, note: str = "") -> RenderableType:
    """The whole screen: header, boards of the round, latest results, standings."""
    now = time.monotonic() if now is None else now
    status = {"running": "playing", "open": "not started"}.get(state.status, state.status)
    head = Text(state.name or state.tournament_id, style="bold")
    head.append(
        f"   {state.variant} {state.format.replace('_', ' ')}, {state.time_control}"
        f"{', points ' + state.points if state.points else ''}"
        f"   round {state.round}   {status}",
        style="none",
    )
    first, second = _seat_names(state.variant)
    boards = Table(box=box.SIMPLE_HEAD, expand=True, pad_edge=False)
    boards.add_column("table", justify="right", width=5)
    boards.add_column(first, ratio=3)
    boards.add_column(second, ratio=3)
    boards.add_column("ply", justify="right", width=4)
    boards.add_column("clocks", justify="center", width=15)
    boards.add_column("last move", width=9)
    boards.add_column("result", ratio=2)
    for p in state.current():
        game = state.live.get(p.game_id or "")
        clocks = " - ".join(game.clocks(now)) if game and game.clock_ms else ""
        if p.result:
            how = termination_words(state.terminations.get(p.game_id or "", ""))
            result = Text(p.result, style="bold")
            if how:
                result.append(f" {how}", style="dim")
        else:
            result = Text("playing" if p.game_id else "waiting", style="dim")
            if p.otb:  # over the board: the result comes from the players or the director
                result = Text(p.note or "on the board", style="yellow" if p.note else "dim")
        boards.add_row(
            str(p.table or p.board),
            _name(p.first, state.ratings),
            _name(p.second, state.ratings),
            str(game.ply) if game else "",
            clocks,
            game.last_move if game else "",
            result,
        )
    recent = Text("\n".join(state.recent) if state.recent else "no results yet")
    below = [
        Panel(recent, title="latest results", title_align="left"),
        Panel(standings_table(state.rows), title="standings", title_align="left"),
    ]
    rounds = f"round {state.round}" if state.round else "no round paired yet"
    parts: list[RenderableType] = [head, Panel(boards, title=rounds, title_align="left"), *below]
    if state.note:
        parts.insert(1, Text(state.note, style="yellow"))
    if note:
        parts.append(Text(note, style="yellow"))
    return Group(*parts)


# ---------------------------------------------------------------- following


def no_referee(endpoint: str) -> str:
    """The note shown instead of live games when the referee at ``endpoint`` is silent."""
    return (
        f"live games not shown: no answer from the referee at {endpoint} (name it with --referee)"
    )


class _Games:
    """The live games of the round, each followed by a GameView on one referee client."""

    def __init__(self, referee: RefereeClient | None, trouble: str = "") -> None:
        self.referee = referee
        self.views: dict[str, GameView] = {}
        self.failed: set[str] = set()
        #: why live games are not shown (the referee did not answer), once known
        self.trouble = trouble

    def follow(self, states: list[EventState]) -> None:
        from lanqi.client.referee import GameView, RefereeTimeout, RequestRefused

        if self.referee is None:
            return
        wanted = {game_id for state in states for game_id in state.waiting_games()}
        for game_id in list(self.views):
            if game_id not in wanted:  # its events are ignored from now on
                del self.views[game_id]
        for game_id in sorted(wanted - set(self.views) - self.failed):
            try:
                self.views[game_id] = GameView(self.referee, game_id)
            except RequestRefused as exc:  # on another referee: the board shows no moves
                log.debug("cannot follow game %s: %s", game_id, exc)
                self.failed.add(game_id)
            except RefereeTimeout:
                self._silent()
                return
        for state in states:
            for game_id in state.waiting_games():
                view = self.views.get(game_id)
                if view is not None:
                    state.live[game_id] = self._live(view, state.live.get(game_id))

    @staticmethod
    def _live(view: GameView, old: LiveGame | None) -> LiveGame:
        if old is not None and old.ply == view.ply and old.clock_ms == view.clock.remaining_ms:
            return old
        return LiveGame(
            game_id=view.game_id,
            ply=view.ply,
            last_move=_move_text(view.variant, view.snapshot.start_fen, view.moves),
            clock_ms=list(view.clock.remaining_ms),
            running=view.clock.running,
            read_at=time.monotonic(),
        )

    def pump(self, timeout_ms: int) -> bool:
        """Apply the referee's events for a while; True if any view changed."""
        if self.referee is None or not self.views:
            return False
        event = self.referee.next_event(timeout_ms)
        changed = False
        while event is not None:
            view = self.views.get(event.game_id)
            if view is not None:
                changed = view.apply(event) or changed
            event = self.referee.next_event(0)
        return changed

    def termination(self, game_id: str) -> str:
        from lanqi.client.referee import RefereeTimeout, RequestRefused

        view = self.views.get(game_id)
        if view is not None and view.finished:
            return view.termination or ""
        if self.referee is None:
            return ""
        try:
            return self.referee.sync(game_id).termination or ""
        except RequestRefused:
            return ""
        except RefereeTimeout:
            self._silent()
            return ""

    def _silent(self) -> None:
        """The referee did not answer: say so once, and ask it nothing more."""
        if self.referee is not None:
            self.trouble = no_referee(self.referee.endpoint)
        self.referee = None  # its owner closes it
        self.views.clear()


def _seat_names(variant: str) -> tuple[str, str]:
    """What the variant calls its seats (``Red``, ``Black``); before the event is read,
    its variant is not known yet."""
    from lanqi.games.registry import UnknownVariantError, variant_spec

    try:
        return variant_spec(variant).seat_names
    except UnknownVariantError:
        return ("first", "second")


def _move_text(variant: str, start_fen: str | None, moves: list[str]) -> str:
    """The last move as people read it: in the variant's record notation (WXF for
    xiangqi), else as the game writes it (gomoku's coordinates)."""
    if not moves:
        return ""
    from lanqi.games.registry import variant_spec

    spec = variant_spec(variant)
    write = spec.notations.get(spec.record_notation or "")
    if write is None:
        return moves[-1]
    board = spec.create({"fen": start_fen} if start_fen else {})
    for text in moves[:-1]:
        board.push(board.parse_move(text))
    return write(board, board.parse_move(moves[-1]))


def watch(
    client: MatchmakerClient,
    tournament_ids: str | list[str],
    *,
    referee: RefereeClient | None,
    console: Console,
    live: bool,
    ratings: Callable[[], dict[str, float]] | None = None,
    refresh_ms: int = REFRESH_MS,
    until: float | None = None,
    referee_trouble: str = "",
) -> list[EventState]:
    """Follow one event (or several at once) until it ends; ``live``: the
    dashboard, else plain lines (prefixed with the event's name when there are
    several).  Prints the final standings once at the end; returns the last states.
    ``until``: a ``time.monotonic()`` deadline after which it stops following (the
    states then say which events are not finished).
    """
    from lanqi.protocol import GetStandings

    ids = [tournament_ids] if isinstance(tournament_ids, str) else list(tournament_ids)
    for tid in ids:
        client.subscribe(f"tour/{tid}")
    games = _Games(referee, referee_trouble)
    states = [EventState(tid) for tid in ids]

    def refresh() -> list[str]:
        lines = []
        for state in states:
            standings = client.call(GetStandings(tournament_id=state.tournament_id), Standings)
            news = state.update(standings, games.termination)
            if ratings is not None and (news or not state.ratings):
                state.ratings = ratings()
            prefix = f"[{state.name}] " if len(states) > 1 else ""
            lines += [prefix + line for line in news]
        games.follow(states)
        return lines

    def say(lines: list[str]) -> None:
        for line in lines:
            console.print(line, markup=False, highlight=False, soft_wrap=True)

    def screen() -> RenderableType:
        last = states[-1]
        return Group(*(dashboard(s, note=games.trouble if s is last else "") for s in states))

    first = refresh()
    if games.trouble and not live:
        first.append(games.trouble)
    if live:
        from rich.live import Live

        with Live(screen(), console=console, refresh_per_second=4, transient=False) as shown:
            _loop(
                client,
                games,
                states,
                refresh=refresh,
                show=lambda _: shown.update(screen()),
                refresh_ms=refresh_ms,
                until=until,
            )
    else:
        say(first)
        _loop(client, games, states, refresh=refresh, show=say, refresh_ms=refresh_ms, until=until)
    if not all(state.finished for state in states):
        return states
    for state in states:
        scored = f" (points {state.points})" if state.points else ""
        title = f"{state.name}: final standings{scored}"
        table = standings_table(state.rows, title=title, plain=not live)
        if live:
            console.print(table)
        else:
            say(plain_text(table).splitlines())
    return states


def _loop(
    client: MatchmakerClient,
    games: _Games,
    states: list[EventState],
    *,
    refresh: Callable[[], list[str]],
    show: Callable[[list[str]], Any],
    refresh_ms: int,
    until: float | None,
) -> None:
    next_refresh = time.monotonic() + refresh_ms / 1000
    while not all(state.finished for state in states):
        if until is not None and time.monotonic() > until:
            return
        event = client.next_event(50 if games.views else 250)
        due = time.monotonic() >= next_refresh
        if event is not None or due:
            while client.next_event(0) is not None:
                pass  # one refresh answers a burst of events
            show(refresh())
            next_refresh = time.monotonic() + refresh_ms / 1000
        elif games.pump(200):
            games.follow(states)
            show([])
        else:
            show([])
