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

from lanqi.protocol.endpoints import MATCHMAKER_PORT, MATCHMAKER_PUB_PORT

FORMATS = ("round_robin", "double_round_robin", "swiss", "knockout", "gauntlet")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--server",
        default=f"tcp://127.0.0.1:{MATCHMAKER_PORT}",
        help=f"matchmaker endpoint (default tcp://127.0.0.1:{MATCHMAKER_PORT})",
    )
    parser.add_argument(
        "--events",
        default=None,
        help=f"matchmaker event endpoint (default: the server host, port {MATCHMAKER_PUB_PORT})",
    )
    parser.add_argument("--director-key", default=None, help="the director's secret")
    parser.add_argument(
        "--data-dir", default=None, help="where `lanqi serve` keeps director.key (to read it)"
    )
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    create = sub.add_parser("create", help="create a tournament (director)")
    create.add_argument("name")
    create.add_argument("--format", choices=FORMATS, default="round_robin")
    create.add_argument("--variant", choices=("xiangqi", "gomoku"), default="xiangqi")
    create.add_argument("--rounds", type=int, default=0, help="rounds (swiss; 0 = automatic)")
    create.add_argument(
        "--games-per-match", type=int, default=2, help="knockout/gauntlet games per pairing"
    )
    create.add_argument(
        "--time",
        default="none",
        help="time control: MINUTES+SECONDS (fischer, e.g. 5+3), 'move:SECONDS' or 'none'",
    )
    create.add_argument("--casual", action="store_true", help="do not update ratings")
    create.add_argument(
        "--forfeit-after", type=int, default=120, help="seconds before a no-show loses"
    )
    create.add_argument("--champion", default=None, help="gauntlet: the player facing the field")
    create.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="game option"
    )
    for name, text in (
        ("start", "start the tournament (director)"),
        ("pause", "pair no new round until resumed (director)"),
        ("resume", "continue a paused tournament (director)"),
        ("finish", "end the tournament now (director)"),
    ):
        action = sub.add_parser(name, help=text)
        action.add_argument("tournament_id")
    join = sub.add_parser(
        "join",
        help="enter players by name (director); a new name prints NAME CODE, "
        "its one-time claim code",
    )
    join.add_argument("tournament_id")
    join.add_argument("players", nargs="+")
    reclaim = sub.add_parser(
        "reclaim",
        help="a new claim code for an entrant who lost their session (director); "
        "the old session stops working",
    )
    reclaim.add_argument("tournament_id")
    reclaim.add_argument("player")
    withdraw = sub.add_parser("withdraw", help="withdraw players by name (director)")
    withdraw.add_argument("tournament_id")
    withdraw.add_argument("players", nargs="+")
    standings = sub.add_parser("standings", help="standings and pairings")
    standings.add_argument("tournament_id")
    standings.add_argument(
        "--watch", action="store_true", help="keep printing as results come in, until it ends"
    )
    export = sub.add_parser("export", help="write pgn, txt, csv or html")
    export.add_argument("tournament_id")
    export.add_argument("--format", choices=("pgn", "txt", "csv", "html"), default="txt")
    export.add_argument("--out", type=Path, default=None, help="file to write (default: stdout)")
    sub.add_parser("list", help="list tournaments")


def parse_time(text: str) -> dict[str, object]:
    """``5+3`` -> fischer 5 min + 3 s; ``move:10`` -> 10 s per move; ``none``."""
    text = text.strip().lower()
    if text in ("", "none", "-"):
        return {"kind": "none"}
    if text.startswith("move:"):
        return {"kind": "per_move", "per_move_ms": int(float(text[5:]) * 1000)}
    base, _, inc = text.partition("+")
    return {
        "kind": "fischer",
        "base_ms": int(float(base) * 60_000),
        "increment_ms": int(float(inc or 0) * 1000),
    }


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

    if args.director_key:
        return str(args.director_key)
    env = os.environ.get("LANQI_DIRECTOR_KEY")
    if env:
        return env
    path = data_dir(args.data_dir) / "director.key"
    if path.exists():
        return path.read_text(encoding="utf-8").strip()
    raise SystemExit(
        "lanqi tournament: no director key: pass --director-key, set LANQI_DIRECTOR_KEY, "
        f"or run on the server machine (looked in {path})"
    )


def _events(args: argparse.Namespace) -> str:
    if args.events:
        return str(args.events)
    host = str(args.server).rpartition(":")[0]
    return f"{host}:{MATCHMAKER_PUB_PORT}"


def format_standings(reply: Any) -> str:
    t = reply.tournament
    lines = [
        f"{t.spec.name} ({t.spec.format}, {t.spec.variant}) - {t.status}, round {t.round}",
        f"{'#':>3}  {'player':<20} {'pts':>5} {'games':>5} {'W':>3} {'D':>3} {'L':>3} "
        f"{'rating':>6}  tiebreaks",
    ]
    for row in reply.rows:  # the rating is the one in the tournament's game
        tiebreaks = ", ".join(f"{k} {v}" for k, v in row.tiebreaks.items())
        rating = "" if row.rating is None else f"{row.rating:.0f}"
        lines.append(
            f"{row.rank:>3}  {row.player:<20} {row.points:>5g} {row.games:>5} {row.wins:>3} "
            f"{row.draws:>3} {row.losses:>3} {rating:>6}  {tiebreaks}"
        )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from lanqi.client.matchmaker import MatchmakerClient, MatchmakerRefused, MatchmakerTimeout
    from lanqi.protocol import (
        ClaimCode,
        CreateTournament,
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
        TimeControl,
        TournamentCreated,
        TournamentsList,
        TournamentSpec,
        WithdrawTournament,
    )
    from lanqi.protocol.schema import struct_from_wire

    if not args.action:
        print("lanqi tournament: name an action (see --help)", file=sys.stderr)
        return 2
    client = MatchmakerClient(args.server, _events(args))
    try:
        if args.action == "create":
            spec = TournamentSpec(
                name=args.name,
                format=args.format,
                variant=args.variant,
                options=dict(parse_option(o) for o in args.option),
                time_control=struct_from_wire(TimeControl, parse_time(args.time)),
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
        elif args.action in ("start", "pause", "resume", "finish"):
            kind = {
                "start": StartTournament,
                "pause": PauseTournament,
                "resume": ResumeTournament,
                "finish": FinishTournament,
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
            reply = client.call(GetStandings(tournament_id=args.tournament_id), Standings)
            print(format_standings(reply), flush=True)
            if args.watch:
                client.subscribe(f"tour/{args.tournament_id}")
                while reply.tournament.status not in ("finished",):
                    event = client.next_event(2000)
                    if event is None:
                        continue
                    reply = client.call(GetStandings(tournament_id=args.tournament_id), Standings)
                    print(
                        f"\n[{getattr(event, 'kind', '?')}]\n" + format_standings(reply), flush=True
                    )
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
            listed = client.call(ListTournaments(), TournamentsList)
            for t in listed.tournaments:
                print(
                    f"{t.tournament_id}  {t.spec.name}  {t.spec.format}  {t.spec.variant}  "
                    f"{t.status}  round {t.round}  {len(t.players)} players"
                )
    except MatchmakerRefused as exc:
        print(f"lanqi tournament: refused: {exc}", file=sys.stderr)
        return 1
    except MatchmakerTimeout:
        print(
            f"lanqi tournament: no answer from {args.server}: is the server running?",
            file=sys.stderr,
        )
        return 1
    except ValueError as exc:
        print(f"lanqi tournament: {exc}", file=sys.stderr)
        return 2
    finally:
        client.close()
    return 0
