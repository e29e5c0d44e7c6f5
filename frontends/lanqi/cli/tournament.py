"""``lanqi tournament``: the director's tool (create, enter, start, watch, export).

Talks to a running matchmaker (``lanqi serve`` or ``lanqi matchmaker``).  The
director key comes from ``--director-key``, ``$LANQI_DIRECTOR_KEY`` or the key
file the server saved in its data directory.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lanqi.cli.common import (
    CliError,
    RegistryChoices,
    endpoint_arg,
    int_in,
    plain_table,
    print_table,
    server_endpoint,
)
from lanqi.cli.director import director_flags, director_key, unreachable
from lanqi.protocol.endpoints import REFEREE_PORT
from lanqi.protocol.timecontrol import TIME_FORMS, parse_time_control

if TYPE_CHECKING:
    from rich.console import Console

FORMATS = ("round_robin", "double_round_robin", "swiss", "knockout", "gauntlet")

EXAMPLES = """examples:
  export LANQI_SERVER=192.168.1.20:5050     # once; or --server anywhere on the line
  lanqi tournament create "Club night" --format swiss --rounds 5 --time 10+5
  lanqi tournament join ID Alice Bob Carol Dave
  lanqi tournament start ID
  lanqi tournament standings ID --watch
"""

#: action -> (help, example)
ACTIONS: dict[str, tuple[str, str]] = {
    "create": (
        "create a tournament (director); prints its id",
        'lanqi tournament create "Club night" --format swiss --rounds 5 --time 10+5',
    ),
    "join": (
        "enter players by name (director); a new name prints NAME CODE, its one-time claim code",
        "lanqi tournament join ID Alice Bob",
    ),
    "reclaim": (
        "a new claim code for an entrant who lost their session (director); "
        "the old session stops working",
        "lanqi tournament reclaim ID Alice",
    ),
    "withdraw": ("withdraw players by name (director)", "lanqi tournament withdraw ID Bob"),
    "forbid": (
        "keep two players apart in a Swiss (family, club), or players of one club up to "
        "a round (--same-club-until N) (director)",
        "lanqi tournament forbid ID Alice Bob",
    ),
    "pair": (
        "pair the next Swiss round by hand before it starts, RED-BLACK each (the others: "
        "as usual) (director)",
        "lanqi tournament pair ID 3 Alice-Bob Carol-Dave",
    ),
    "checkin": (
        "check players in for the next Swiss round: once anyone is, the others are absent "
        "(not paired, a zero-point bye) (director)",
        "lanqi tournament checkin ID Alice Bob Carol",
    ),
    "bye": (
        "a requested bye in the next Swiss round, asked before it is paired: half a point "
        "(default), --zero, or --none to take it back (director)",
        "lanqi tournament bye ID Alice --half",
    ),
    "result": (
        "the result of an over-the-board game: 1-0, 0-1, 1/2-1/2; forfeits +-, -+, -- (director)",
        "lanqi tournament result ID 2 5 1-0",
    ),
    "start": ("start the tournament (director)", "lanqi tournament start ID"),
    "pause": ("pair no new round until resumed (director)", "lanqi tournament pause ID"),
    "resume": ("continue a paused tournament (director)", "lanqi tournament resume ID"),
    "finish": ("end the tournament now (director)", "lanqi tournament finish ID"),
    "delete": (
        "delete a tournament that has not started (director)",
        "lanqi tournament delete ID",
    ),
    "standings": (
        "standings (--watch: the live view of `watch`)",
        "lanqi tournament standings ID --watch",
    ),
    "watch": (
        "live view until the event ends: boards, clocks, results, standings. A dashboard "
        "updated in place on a terminal; piped, one plain line per round paired and per "
        "result, then the final standings",
        "lanqi tournament watch ID",
    ),
    "pairings": (
        "pairings with board numbers and results",
        "lanqi tournament pairings ID --round 2",
    ),
    "export": (
        "write pgn, txt, csv, html (the whole report), sheet (a round's sheet and "
        "pairing cards, to print) or trf (FIDE's report file)",
        "lanqi tournament export ID --format pgn --notation iccs --out club.pgn",
    ),
    "check": (
        "re-pair every Swiss round from its history with the event's pairing system and "
        "print each difference from what was played (exit 1 if any)",
        "lanqi tournament check ID",
    ),
    "list": ("list tournaments", "lanqi tournament list --server 192.168.1.20"),
}


def _time(text: str) -> Any:
    try:
        return parse_time_control(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def configure(parser: argparse.ArgumentParser) -> None:
    director_flags(parser)
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    actions: dict[str, argparse.ArgumentParser] = {}
    for name, (text, example) in ACTIONS.items():
        action = sub.add_parser(
            name, help=text, description=text, epilog=f"example:\n  {example}\n"
        )
        director_flags(action)
        actions[name] = action
        if name not in ("create", "list"):
            action.add_argument("tournament_id", metavar="ID")
    create = actions["create"]
    create.add_argument("name")
    create.add_argument("--format", choices=FORMATS, default="round_robin", help="pairing system")
    create.add_argument("--variant", choices=RegistryChoices(), default="xiangqi", help="the game")
    create.add_argument(
        "--rounds", type=int_in(0, 99), default=0, help="rounds (swiss; 0 = automatic)"
    )
    create.add_argument(
        "--games-per-match",
        type=int_in(1, 20),
        default=2,
        help="knockout/gauntlet games per pairing",
    )
    create.add_argument("--time", type=_time, default="none", help=f"time control: {TIME_FORMS}")
    create.add_argument("--casual", action="store_true", help="do not update ratings")
    create.add_argument(
        "--forfeit-after",
        type=int_in(5, 3600),
        default=120,
        help="seconds before a no-show loses",
    )
    create.add_argument("--champion", default=None, help="gauntlet: the player facing the field")
    create.add_argument(
        "--points",
        choices=("1-0.5-0", "2-1-0", "3-1-0"),
        default="1-0.5-0",
        help="what a win, a draw and a loss are worth (2-1-0: Chinese Xiangqi Association; "
        "default 1-0.5-0)",
    )
    create.add_argument(
        "--tiebreaks",
        type=_names,
        default=[],
        metavar="LIST",
        help="tie-breaks in order, comma-separated: FIDE codes (BH-C1,BH,SB,DE,PS,WIN,BPG,BWG), "
        "keys, or a preset: cxa (round robin: 小分,胜局,直胜,后走局数; swiss: 对手分,胜局,后走局数,"
        "后胜局) or cxa-progressive (swiss, 累进分 first); default: the format's",
    )
    create.add_argument(
        "--pairing",
        choices=("dutch", "dutch-2017", "lanqi"),
        default="dutch",
        help="swiss: FIDE Dutch (rules from February 2026), the 2017 rules, or lanqi's "
        "own matching (not FIDE) (default dutch)",
    )
    create.add_argument(
        "--acceleration",
        choices=("none", "baku"),
        default="none",
        help="swiss with a Dutch pairing: Baku acceleration for large fields (default none)",
    )
    create.add_argument(
        "--unplayed",
        choices=("fide2009", "fide2023"),
        default="",
        help="swiss: unplayed rounds in Buchholz/SB by FIDE's 2009 rule (a virtual "
        "opponent, the default) or its 2023 rule (a dummy opponent with the player's score)",
    )
    create.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="game option"
    )
    create.add_argument(
        "--board",
        choices=("screen", "otb", "mixed"),
        default="screen",
        help="screen: games on the referee; otb: on physical boards (results from the "
        "director or the players); mixed: --otb-tables on boards, the rest on screens",
    )
    create.add_argument(
        "--otb-tables",
        type=_tables,
        default=[],
        metavar="LIST",
        help="mixed: the tables played on physical boards (1-4,7)",
    )
    create.add_argument(
        "--same-club-until",
        type=int_in(0, 99),
        default=0,
        metavar="N",
        help="swiss: players of the same club do not meet up to round N (default 0: no rule)",
    )
    actions["withdraw"].add_argument("players", nargs="+", metavar="NAME")
    join = actions["join"]
    join.add_argument("players", nargs="*", metavar="NAME")
    join.add_argument(
        "--csv",
        type=Path,
        default=None,
        metavar="FILE",
        help="enter the players of a CSV file (columns: name, rating, club, title, born, sex, "
        "federation, fide_id, table); all or, on any bad row, none",
    )
    join.add_argument(
        "--rating", type=float, default=None, help="rating from a federation list (seeds first)"
    )
    join.add_argument("--club", default=None, help="club or school")
    join.add_argument("--title", default=None, help="title (GM, IM, FM, ...)")
    join.add_argument("--born", type=int, default=None, metavar="YEAR", help="year of birth")
    join.add_argument("--sex", choices=("m", "w"), default=None, help="m or w (as FIDE's TRF)")
    join.add_argument(
        "--federation", type=federation_arg, default=None, metavar="FED", help="e.g. CHN"
    )
    join.add_argument("--fide-id", type=int, default=None, metavar="N", help="FIDE number")
    join.add_argument(
        "--table",
        type=int_in(1, 999),
        default=None,
        metavar="N",
        help="a fixed table: the player's games are played there (a wheelchair place)",
    )
    forbid = actions["forbid"]
    forbid.add_argument("players", nargs="*", metavar="NAME", help="two players to keep apart")
    forbid.add_argument(
        "--same-club-until",
        type=int_in(0, 99),
        default=None,
        metavar="N",
        help="players of the same club do not meet up to round N (0: the rule is off)",
    )
    pair = actions["pair"]
    pair.add_argument("round", type=int_in(1, 999), metavar="ROUND", help="the next round")
    pair.add_argument("pairs", nargs="*", metavar="RED-BLACK", help="a pair: two names, one dash")
    pair.add_argument(
        "--pair",
        nargs=2,
        action="append",
        default=[],
        metavar=("RED", "BLACK"),
        help="a pair whose names have dashes",
    )
    checkin = actions["checkin"]
    checkin.add_argument("players", nargs="+", metavar="NAME")
    checkin.add_argument(
        "--round", type=int_in(1, 999), default=0, help="the round (default: the next one)"
    )
    bye = actions["bye"]
    bye.add_argument("player", metavar="NAME")
    worth = bye.add_mutually_exclusive_group()
    for flag, value, text in (
        ("--half", "half", "a half-point bye (a draw's points: 1 in 2-1-0) (default)"),
        ("--zero", "zero", "a zero-point bye"),
        ("--none", "none", "take the request back"),
    ):
        worth.add_argument(flag, dest="bye", action="store_const", const=value, help=text)
    bye.set_defaults(bye="half")
    bye.add_argument(
        "--round", type=int_in(1, 999), default=0, help="the round (default: the next one)"
    )
    result = actions["result"]
    result.add_argument("round", type=int_in(1, 999), metavar="ROUND")
    result.add_argument("table", type=int_in(1, 999), metavar="TABLE")
    result.add_argument("result", metavar="RESULT", help="1-0, 0-1, 1/2-1/2, +-, -+ or --")
    result.add_argument(
        "--correct",
        action="store_true",
        help="correct a result that already counts (standings, ratings and exports follow; "
        "a round paired since stays as paired)",
    )
    actions["reclaim"].add_argument("player", metavar="NAME")
    actions["standings"].add_argument(
        "--watch", action="store_true", help="the live view of `watch`, until the event ends"
    )
    for name in ("standings", "watch"):
        actions[name].add_argument(
            "--referee",
            type=endpoint_arg(REFEREE_PORT),
            default=None,
            metavar="ADDRESS",
            help="referee endpoint for the live games (default: the one the matchmaker names)",
        )
        actions[name].add_argument(
            "--referee-events",
            type=endpoint_arg(REFEREE_PORT + 1),
            default=None,
            metavar="ADDRESS",
            help="referee event endpoint (default: the one the matchmaker names, or "
            "--referee's port + 1)",
        )
    actions["pairings"].add_argument(
        "--round", type=int_in(1, 999), default=None, help="only this round (default: every round)"
    )
    export = actions["export"]
    export.add_argument(
        "--format",
        choices=("pgn", "txt", "csv", "html", "sheet", "trf"),
        default="txt",
        help="pgn: every game; html: the whole report; sheet: a round's sheet and pairing "
        "cards; trf: FIDE's tournament report file (default txt)",
    )
    export.add_argument(
        "--round",
        type=int_in(1, 999),
        default=0,
        help="sheet: the round (default: the current one)",
    )
    export.add_argument(
        "--notation",
        choices=RegistryChoices("notations"),
        default="wxf",
        help="xiangqi moves in the PGN (default wxf; iccs is what most other tools read)",
    )
    export.add_argument(
        "--site",
        default=None,
        help="the Site of the PGN and the report (default: the server's name)",
    )
    export.add_argument(
        "--no-clocks",
        dest="clocks",
        action="store_false",
        help="PGN without {[%%clk h:mm:ss]} comments (for readers that choke on them)",
    )
    export.add_argument("--out", type=Path, default=None, help="file to write (default: stdout)")


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


def _tables(text: str) -> list[int]:
    """``1-4,7`` -> [1, 2, 3, 4, 7]."""
    out: list[int] = []
    try:
        for part in text.split(","):
            low, _, high = part.strip().partition("-")
            first, last = int(low), int(high or low)
            if not 1 <= first <= last <= 999:
                raise ValueError
            out += range(first, last + 1)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"tables are numbers and ranges from 1 to 999, like 1-4,7 (not {text!r})"
        ) from None
    return sorted(set(out))


#: the columns a CSV entry list may have (``name`` is required); other names are refused
CSV_COLUMNS = (
    "name",
    "rating",
    "club",
    "title",
    "born",
    "sex",
    "federation",
    "fide_id",
    "table",
)


def federation_arg(text: str) -> str:
    """A federation: three letters (``CHN``)."""
    code = text.strip().upper()
    if len(code) != 3 or not code.isalpha():
        raise argparse.ArgumentTypeError(f"a federation is three letters (CHN), not {text!r}")
    return code


def read_entries(path: Path) -> list[Any]:
    """The players of a CSV file as ``EntryRow``s; the first bad cell stops it with a
    one-line ``ValueError`` naming the line and column."""
    import csv

    from lanqi.protocol import EntrantFields, EntryRow

    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise ValueError(f"{path}: cannot read it ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not UTF-8 text; save the sheet as CSV UTF-8") from None
    reader = csv.DictReader(text.splitlines())
    header = [h.strip().lower() for h in reader.fieldnames or []]
    if "name" not in header:
        raise ValueError(f"{path} line 1: no 'name' column (columns: {', '.join(CSV_COLUMNS)})")
    unknown = [h for h in header if h not in CSV_COLUMNS]
    if unknown:
        raise ValueError(
            f"{path} line 1: unknown column {unknown[0]!r} (columns: {', '.join(CSV_COLUMNS)})"
        )
    reader.fieldnames = header
    rows = []
    for row in reader:
        line = reader.line_num
        if None in row:
            raise ValueError(f"{path} line {line}: more cells than columns")
        cells = {k: (v or "").strip() for k, v in row.items()}
        where = f"{path} line {line}"

        if not cells["name"]:
            raise ValueError(f"{where}, column name: empty")
        for column, limit in (("name", 40), ("club", 60), ("title", 8)):
            if len(cells.get(column, "")) > limit:
                raise ValueError(f"{where}, column {column}: longer than {limit} characters")
        rows.append(
            EntryRow(
                player=cells["name"],
                fields=EntrantFields(
                    rating=_number(cells, "rating", 4000, where),
                    club=cells.get("club") or None,
                    title=cells.get("title") or None,
                    birth_year=_number(cells, "born", 2100, where, low=1900),
                    sex=_sex(cells, where),
                    federation=_federation(cells, where),
                    fide_id=_number(cells, "fide_id", 99_999_999_999, where, low=1),
                    table=_number(cells, "table", 999, where, low=1),
                ),
            )
        )
    if not rows:
        raise ValueError(f"{path}: no players in it")
    return rows


def _sex(cells: dict[str, str], where: str) -> str | None:
    text = cells.get("sex", "").lower()
    if text and text not in ("m", "w"):
        raise ValueError(f"{where}, column sex: {text!r} is not m or w")
    return text or None


def _federation(cells: dict[str, str], where: str) -> str | None:
    text = cells.get("federation", "")
    if not text:
        return None
    try:
        return federation_arg(text)
    except argparse.ArgumentTypeError as exc:
        raise ValueError(f"{where}, column federation: {exc}") from None


def _number(cells: dict[str, str], column: str, high: int, where: str, low: int = 0) -> Any:
    """A CSV cell as a number (``rating``: any, else whole) from ``low`` to ``high``."""
    text = cells.get(column, "")
    if not text:
        return None
    try:
        value = float(text) if column == "rating" else int(text)
    except ValueError:
        raise ValueError(f"{where}, column {column}: {text!r} is not a number") from None
    if not low <= value <= high:
        raise ValueError(f"{where}, column {column}: {text} is not from {low} to {high}")
    return value


def split_pair(text: str) -> list[str]:
    """``Alice-Bob`` -> [Alice, Bob]."""
    names = text.split("-")
    if len(names) != 2 or not all(n.strip() for n in names):
        raise ValueError(
            f"a pair is RED-BLACK with one dash, not {text!r} (names with dashes: --pair RED BLACK)"
        )
    return [n.strip() for n in names]


def parse_option(text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise ValueError(f"option {text!r} must be KEY=VALUE")
    if value.lower() in ("true", "false"):
        return key, value.lower() == "true"
    try:
        return key, int(value)
    except ValueError:
        return key, value


#: the actions that need the director key
DIRECTOR_ACTIONS = frozenset(
    (
        "create",
        "start",
        "pause",
        "resume",
        "finish",
        "delete",
        "join",
        "reclaim",
        "withdraw",
        "forbid",
        "pair",
        "checkin",
        "bye",
        "result",
    )
)


def _tiebreaks(row: Any) -> str:
    """The tie-breaks as people write them: ``Sonneborn-Berger (SB) 2.5, Wins 2``."""
    from lanqi.tournament.report import tiebreak_name

    return ", ".join(f"{tiebreak_name(k)} {v:g}" for k, v in row.tiebreaks.items())


def _points_note(system: str) -> str:
    """``, points 2/1/0`` for an event not scored 1/½/0 (empty for 1/½/0)."""
    from lanqi.tournament.scoring import DEFAULT_POINTS, points_system

    if system == DEFAULT_POINTS:
        return ""
    try:
        return f", points {points_system(system).label}"
    except ValueError:  # a newer server's system: say it as it came
        return f", points {system}"


def _format_name(key: str) -> str:
    from lanqi.tournament.report import FORMAT_NAMES

    return FORMAT_NAMES.get(key, key.replace("_", " ")).lower()


def _standings_table(reply: Any) -> dict[str, Any]:
    t = reply.tournament
    return {
        "headers": ("#", "player", "pts", "games", "W", "D", "L", "rating", "tiebreaks"),
        "rows": [  # the rating is the one in the tournament's game
            (
                r.rank,
                r.player,
                f"{r.points:g}",
                r.games,
                r.wins,
                r.draws,
                r.losses,
                "" if r.rating is None else f"{r.rating:.0f}",
                _tiebreaks(r),
            )
            for r in reply.rows
        ],
        "title": f"{t.spec.name} ({_format_name(t.spec.format)}, {t.spec.variant}"
        f"{_points_note(t.spec.points)}) - {t.status}, round {t.round}",
        "right": (0, 2, 3, 4, 5, 6, 7),
    }


def format_standings(reply: Any) -> str:
    """The standings as plain text (title line, header, one line per player)."""
    return plain_table(**_standings_table(reply))


def print_standings(reply: Any) -> None:
    print_table(**_standings_table(reply))


def format_pairings(reply: Any, round_no: int | None = None) -> str:
    """Every round's boards (or one round's): board number, players, result."""
    from lanqi.cli.watch import pairings_table, plain_text

    rounds = sorted({p.round for p in reply.pairings})
    if round_no is not None:
        if round_no not in rounds:
            known = f"rounds 1 to {max(rounds)}" if rounds else "no round yet"
            raise ValueError(f"no round {round_no} in this tournament ({known} paired)")
        rounds = [round_no]
    parts: list[Any] = []
    for number in rounds:
        boards = sorted((p for p in reply.pairings if p.round == number), key=lambda p: p.board)
        parts += [f"round {number}", pairings_table(boards, plain=True)]
    return plain_text(*parts)


def _console() -> Console:
    """Standard output as rich sees it: a terminal, or plain text for a pipe.  A closed
    pipe ends the command as everywhere in the CLI (rich itself would exit with 1)."""
    from rich.console import Console

    class PipeConsole(Console):
        def on_broken_pipe(self) -> None:
            raise BrokenPipeError

    return PipeConsole(highlight=False, soft_wrap=False, width=None if sys.stdout.isatty() else 200)


def _referee(client: Any, args: argparse.Namespace) -> tuple[str, str, str | None]:
    """The referee's endpoints and key: ``--referee`` (its events: ``--referee-events``
    or its port + 1; its key from its key port), else the first referee the matchmaker
    names (``server_info``, with its key)."""
    from lanqi.gui.net import derive_endpoint

    if args.referee:
        return args.referee, args.referee_events or derive_endpoint(args.referee, 1), None
    referees = client.server_info().referees
    if not referees:
        raise CliError("the server names no referee: pass --referee ADDRESS")
    first = referees[0]
    return first.endpoint, args.referee_events or first.events, first.key


def _watch(client: Any, args: argparse.Namespace) -> None:
    from lanqi.cli.watch import no_referee, watch
    from lanqi.client.matchmaker import referee_link
    from lanqi.client.referee import RefereeClient
    from lanqi.security import NoServerKey

    endpoint, events, key = _referee(client, args)
    trouble = ""
    try:
        referee: RefereeClient | None = RefereeClient(
            endpoint, events, timeout_ms=2000, link=referee_link(key)
        )
    except NoServerKey:  # its key port is silent: no referee there
        referee = None
        trouble = no_referee(endpoint)
    try:
        watch(
            client,
            args.tournament_id,
            referee=referee,
            console=_console(),
            live=sys.stdout.isatty(),
            referee_trouble=trouble,
        )
    finally:
        if referee is not None:
            referee.close()


def print_list(tournaments: Any) -> None:
    print_table(
        ("id", "name", "format", "game", "status", "round", "players"),
        [
            (
                t.tournament_id,
                t.spec.name,
                t.spec.format,
                t.spec.variant,
                t.status,
                t.round,
                len(t.players),
            )
            for t in tournaments
        ],
        right=(5, 6),
    )


def run(args: argparse.Namespace) -> int:
    from lanqi.client.matchmaker import MatchmakerClient, MatchmakerRefused, MatchmakerTimeout
    from lanqi.protocol import (
        CheckIn,
        ClaimCode,
        CreateTournament,
        DeleteTournament,
        EntrantFields,
        ErrorReply,
        Exported,
        ExportTournament,
        FinishTournament,
        ForbidPair,
        GetStandings,
        Imported,
        ImportEntrants,
        JoinTournament,
        ListTournaments,
        Ok,
        PairRound,
        PauseTournament,
        ReclaimTournament,
        ReportResult,
        RequestBye,
        ResultNoted,
        ResumeTournament,
        Standings,
        StartTournament,
        TournamentCreated,
        TournamentsList,
        TournamentSpec,
        WithdrawTournament,
    )

    if not args.action:
        raise CliError("name an action: " + ", ".join(ACTIONS) + " (see --help)")
    server = server_endpoint(args)
    from lanqi.security import KnownServers, NoServerKey

    # the director key first: a missing one is said before any connection is tried
    director = director_key(args) if args.action in DIRECTOR_ACTIONS else ""
    # and a bad file or pair before any connection too
    try:
        entries = read_entries(args.csv) if args.action == "join" and args.csv else None
        pairs = (
            [split_pair(t) for t in args.pairs] + [list(p) for p in args.pair]
            if args.action == "pair"
            else []
        )
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if args.action == "join" and not args.players and entries is None:
        raise CliError("name the players to enter, or --csv FILE")
    no_answer = unreachable(server)
    known = KnownServers.of(getattr(args, "data_dir", None))
    try:
        client = MatchmakerClient(server, getattr(args, "events", None), known=known)
    except NoServerKey:  # its key port is silent: the server is not there
        raise no_answer from None
    try:
        if args.action == "create":
            spec = TournamentSpec(
                name=args.name,
                format=args.format,
                variant=args.variant,
                options=dict(parse_option(o) for o in args.option),
                time_control=args.time,
                rounds=args.rounds,
                games_per_match=args.games_per_match,
                rated=not args.casual,
                forfeit_after_s=args.forfeit_after,
                champion=args.champion,
                points=args.points,
                tiebreaks=args.tiebreaks,
                boards=args.board,
                otb_tables=args.otb_tables,
                same_club_until=args.same_club_until,
                pairing=args.pairing if args.format == "swiss" else "",
                acceleration=args.acceleration,
                unplayed=args.unplayed if args.format == "swiss" else "",
            )
            if args.board == "mixed" and not args.otb_tables:
                raise CliError("a mixed event names its tables on boards: --otb-tables 1-4")
            created = client.call(
                CreateTournament(director_key=director, spec=spec), TournamentCreated
            )
            print(created.tournament_id)
        elif args.action in ("start", "pause", "resume", "finish", "delete"):
            kind = {
                "start": StartTournament,
                "pause": PauseTournament,
                "resume": ResumeTournament,
                "finish": FinishTournament,
                "delete": DeleteTournament,
            }[args.action]
            client.call(kind(tournament_id=args.tournament_id, director_key=director), Ok)
            print(f"{args.action}: ok")
        elif args.action == "join":
            if entries is not None:
                imported = client.call(
                    ImportEntrants(
                        tournament_id=args.tournament_id, director_key=director, rows=entries
                    ),
                    Imported,
                )
                for entry in imported.codes:
                    print(f"{entry.player} {entry.code}", flush=True)
                print(f"join: {imported.entered} players from {args.csv}", flush=True)
            given = (
                args.rating,
                args.club,
                args.title,
                args.born,
                args.sex,
                args.federation,
                args.fide_id,
                args.table,
            )
            fields = (
                EntrantFields(
                    rating=args.rating,
                    club=args.club,
                    title=args.title,
                    birth_year=args.born,
                    sex=args.sex,
                    federation=args.federation,
                    fide_id=args.fide_id,
                    table=args.table,
                )
                if any(v is not None for v in given)
                else None
            )
            for player in args.players:
                joined = client.request(
                    JoinTournament(
                        tournament_id=args.tournament_id,
                        player=player,
                        director_key=director,
                        fields=fields,
                    )
                )
                if isinstance(joined, ErrorReply):
                    raise MatchmakerRefused(joined.code, joined.msg)
                if isinstance(joined, ClaimCode):  # a new name: its code, to hand over
                    print(f"{joined.player} {joined.code}", flush=True)
                else:
                    print(f"join: {player}", flush=True)
        elif args.action == "reclaim":
            code = client.call(
                ReclaimTournament(
                    tournament_id=args.tournament_id, player=args.player, director_key=director
                ),
                ClaimCode,
            )
            print(f"{code.player} {code.code}")
        elif args.action == "withdraw":
            for player in args.players:
                client.call(
                    WithdrawTournament(
                        tournament_id=args.tournament_id, player=player, director_key=director
                    ),
                    Ok,
                )
                print(f"withdraw: {player}")
        elif args.action == "forbid":
            if len(args.players) not in (0, 2) or (
                not args.players and args.same_club_until is None
            ):
                raise CliError("name two players, or --same-club-until N")
            client.call(
                ForbidPair(
                    tournament_id=args.tournament_id,
                    director_key=director,
                    players=args.players,
                    same_club_until=args.same_club_until,
                ),
                Ok,
            )
            print("forbid: ok")
        elif args.action == "pair":
            client.call(
                PairRound(
                    tournament_id=args.tournament_id,
                    director_key=director,
                    round=args.round,
                    pairs=pairs,
                ),
                Ok,
            )
            print(f"pair: round {args.round}, {len(pairs)} pairs by hand")
        elif args.action == "checkin":
            client.call(
                CheckIn(
                    tournament_id=args.tournament_id,
                    director_key=director,
                    round=args.round,
                    players=args.players,
                ),
                Ok,
            )
            print(f"checkin: {len(args.players)} players")
        elif args.action == "bye":
            client.call(
                RequestBye(
                    tournament_id=args.tournament_id,
                    director_key=director,
                    round=args.round,
                    player=args.player,
                    bye=args.bye,
                ),
                Ok,
            )
            which = "no bye" if args.bye == "none" else f"a {args.bye}-point bye"
            when = f"round {args.round}" if args.round else "the next round"
            print(f"bye: {args.player} has {which} in {when}")
        elif args.action == "result":
            noted = client.call(
                ReportResult(
                    tournament_id=args.tournament_id,
                    round=args.round,
                    table=args.table,
                    result=args.result,
                    director_key=director,
                    correct=args.correct,
                ),
                ResultNoted,
            )
            done = f"result: round {args.round} table {args.table} {args.result} {noted.status}"
            if noted.status == "corrected":
                done += " (standings, ratings and exports follow; rounds paired since stay paired)"
            print(done)
        elif args.action == "watch" or (args.action == "standings" and args.watch):
            _watch(client, args)
        elif args.action == "standings":
            print_standings(client.call(GetStandings(tournament_id=args.tournament_id), Standings))
        elif args.action == "pairings":
            reply = client.call(GetStandings(tournament_id=args.tournament_id), Standings)
            print(format_pairings(reply, args.round), flush=True)
            if reply.note:  # the next round: being paired, or why it cannot be
                print(reply.note, flush=True)
        elif args.action == "export":
            exported = client.call(
                ExportTournament(
                    tournament_id=args.tournament_id,
                    format=args.format,
                    notation=args.notation,
                    site=args.site,
                    clocks=args.clocks,
                    round=args.round,
                ),
                Exported,
            )
            if args.out is None:
                sys.stdout.write(exported.text)
            else:
                args.out.write_text(exported.text, encoding="utf-8")
                print(f"wrote {args.out}")
        elif args.action == "check":
            checked = client.call(
                ExportTournament(tournament_id=args.tournament_id, format="check"), Exported
            )
            sys.stdout.write(checked.text)
            if not checked.text.rstrip().endswith(": 0 differences"):
                return 1
        elif args.action == "list":
            print_list(client.call(ListTournaments(), TournamentsList).tournaments)
    except MatchmakerRefused as exc:
        raise CliError(f"refused: {exc}", 1) from None
    except MatchmakerTimeout:
        raise no_answer from None
    except ValueError as exc:
        raise CliError(str(exc)) from None
    finally:
        client.close()
    return 0
