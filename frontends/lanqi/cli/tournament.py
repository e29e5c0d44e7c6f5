"""``lanqi tournament``: the director's tool (create, enter, start, watch, export).

Talks to a running matchmaker (``lanqi serve`` or ``lanqi matchmaker``).  The
director key comes from ``--director-key``, ``$LANQI_DIRECTOR_KEY`` or the key
file the server saved in its data directory.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from lanqi.cli.common import (
    CliError,
    add_server_flag,
    endpoint_arg,
    int_in,
    plain_table,
    print_table,
    server_endpoint,
)
from lanqi.protocol.endpoints import MATCHMAKER_PUB_PORT
from lanqi.protocol.timecontrol import TIME_FORMS, parse_time_control

#: ``standings --watch`` asks for the standings when no event came for this long
WATCH_QUIET_MS = 5_000

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
    "start": ("start the tournament (director)", "lanqi tournament start ID"),
    "pause": ("pair no new round until resumed (director)", "lanqi tournament pause ID"),
    "resume": ("continue a paused tournament (director)", "lanqi tournament resume ID"),
    "finish": ("end the tournament now (director)", "lanqi tournament finish ID"),
    "delete": (
        "delete a tournament that has not started (director)",
        "lanqi tournament delete ID",
    ),
    "standings": (
        "standings and pairings",
        "lanqi tournament standings ID --watch",
    ),
    "export": (
        "write pgn, txt, csv or html",
        "lanqi tournament export ID --format html --out club-night.html",
    ),
    "list": ("list tournaments", "lanqi tournament list --server 192.168.1.20"),
}


def _common(parser: argparse.ArgumentParser) -> None:
    """The flags every action takes, before or after the action's name."""
    add_server_flag(parser)
    parser.add_argument(
        "--events",
        type=endpoint_arg(MATCHMAKER_PUB_PORT),
        default=argparse.SUPPRESS,
        metavar="ADDRESS",
        help="the matchmaker's event endpoint (default: the one the matchmaker names)",
    )
    parser.add_argument(
        "--director-key",
        default=argparse.SUPPRESS,
        help="the director's secret (default: $LANQI_DIRECTOR_KEY, else the key file "
        "in the server's data directory)",
    )
    parser.add_argument(
        "--data-dir",
        default=argparse.SUPPRESS,
        help="where `lanqi serve` keeps director.key, to read it (default: $LANQI_DATA_DIR "
        "or per-user)",
    )


def _time(text: str) -> Any:
    try:
        return parse_time_control(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def configure(parser: argparse.ArgumentParser) -> None:
    _common(parser)
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    actions: dict[str, argparse.ArgumentParser] = {}
    for name, (text, example) in ACTIONS.items():
        action = sub.add_parser(
            name, help=text, description=text, epilog=f"example:\n  {example}\n"
        )
        _common(action)
        actions[name] = action
        if name not in ("create", "list"):
            action.add_argument("tournament_id", metavar="ID")
    create = actions["create"]
    create.add_argument("name")
    create.add_argument("--format", choices=FORMATS, default="round_robin", help="pairing system")
    create.add_argument(
        "--variant", choices=("xiangqi", "gomoku"), default="xiangqi", help="the game"
    )
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
        "--option", action="append", default=[], metavar="KEY=VALUE", help="game option"
    )
    for name in ("join", "withdraw"):
        actions[name].add_argument("players", nargs="+", metavar="NAME")
    actions["reclaim"].add_argument("player", metavar="NAME")
    actions["standings"].add_argument(
        "--watch", action="store_true", help="keep printing as results come in, until it ends"
    )
    export = actions["export"]
    export.add_argument(
        "--format", choices=("pgn", "txt", "csv", "html"), default="txt", help="file format"
    )
    export.add_argument("--out", type=Path, default=None, help="file to write (default: stdout)")


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


def _key(args: argparse.Namespace) -> str:
    from lanqi.paths import data_dir

    given = getattr(args, "director_key", None)
    if given:
        return str(given)
    env = os.environ.get("LANQI_DIRECTOR_KEY")
    if env:
        return env
    path = data_dir(getattr(args, "data_dir", None)) / "director.key"
    if path.exists():
        return path.read_text(encoding="utf-8").strip()
    raise CliError(
        "no director key: pass --director-key, set LANQI_DIRECTOR_KEY, "
        f"or run on the server machine (looked in {path})"
    )


def _tiebreaks(row: Any) -> str:
    return ", ".join(f"{k} {v}" for k, v in row.tiebreaks.items())


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
        "title": f"{t.spec.name} ({t.spec.format}, {t.spec.variant}) - {t.status}, round {t.round}",
        "right": (0, 2, 3, 4, 5, 6, 7),
    }


def format_standings(reply: Any) -> str:
    """The standings as plain text (title line, header, one line per player)."""
    return plain_table(**_standings_table(reply))


def print_standings(reply: Any) -> None:
    print_table(**_standings_table(reply))


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
        ClaimCode,
        CreateTournament,
        DeleteTournament,
        ErrorReply,
        Exported,
        ExportTournament,
        FinishTournament,
        GetStandings,
        JoinTournament,
        ListTournaments,
        Ok,
        PauseTournament,
        ReclaimTournament,
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
    client = MatchmakerClient(server, getattr(args, "events", None))
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
            )
            created = client.call(
                CreateTournament(director_key=_key(args), spec=spec), TournamentCreated
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
            client.call(kind(tournament_id=args.tournament_id, director_key=_key(args)), Ok)
            print(f"{args.action}: ok")
        elif args.action == "join":
            for player in args.players:
                joined = client.request(
                    JoinTournament(
                        tournament_id=args.tournament_id, player=player, director_key=_key(args)
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
                    tournament_id=args.tournament_id, player=args.player, director_key=_key(args)
                ),
                ClaimCode,
            )
            print(f"{code.player} {code.code}")
        elif args.action == "withdraw":
            for player in args.players:
                client.call(
                    WithdrawTournament(
                        tournament_id=args.tournament_id, player=player, director_key=_key(args)
                    ),
                    Ok,
                )
                print(f"withdraw: {player}")
        elif args.action == "standings":
            if args.watch:  # subscribe before reading, so no event falls in between
                client.subscribe(f"tour/{args.tournament_id}")
            reply = client.call(GetStandings(tournament_id=args.tournament_id), Standings)
            print_standings(reply)
            sys.stdout.flush()
            while args.watch and reply.tournament.status != "finished":
                event = client.next_event(WATCH_QUIET_MS)
                latest = client.call(GetStandings(tournament_id=args.tournament_id), Standings)
                if event is None and latest.tournament == reply.tournament:
                    continue  # quiet, and nothing missed (PUB/SUB may drop an event)
                reply = latest
                print(f"\n[{getattr(event, 'kind', 'update')}]")
                print_standings(reply)
                sys.stdout.flush()
        elif args.action == "export":
            exported = client.call(
                ExportTournament(tournament_id=args.tournament_id, format=args.format), Exported
            )
            if args.out is None:
                sys.stdout.write(exported.text)
            else:
                args.out.write_text(exported.text, encoding="utf-8")
                print(f"wrote {args.out}")
        elif args.action == "list":
            print_list(client.call(ListTournaments(), TournamentsList).tournaments)
    except MatchmakerRefused as exc:
        raise CliError(f"refused: {exc}", 1) from None
    except MatchmakerTimeout:
        raise CliError(
            f"no answer from {server}: is the server running? (name it with --server "
            "or $LANQI_SERVER)",
            1,
        ) from None
    except ValueError as exc:
        raise CliError(str(exc)) from None
    finally:
        client.close()
    return 0
