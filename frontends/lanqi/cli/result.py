"""``lanqi result``: a player gives the result of their game on a physical board.

In an over-the-board event (``lanqi tournament create --board otb``) the two
players of a table each say how their game ended; when both say the same it
counts, when they disagree the director decides (``lanqi tournament result``).
The player speaks as themselves: the first time with the claim code the director
handed out (``--claim``), then with the session this command keeps in the data
directory (``players/NAME@SERVER.session``, the server by its key).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from lanqi.cli.common import CliError, add_server_flag, int_in, server_endpoint

EXAMPLES = """examples:
  lanqi result 43e641ff65 2 5 1-0 --name Alice --claim K7QW2M   # the first time
  lanqi result 43e641ff65 3 2 1/2-1/2 --name Alice              # then: the kept session
"""

#: what the server's answer means, for the player
STATUS_TEXT = {
    "recorded": "recorded",
    "waiting": "noted: it counts when your opponent says the same",
    "disputed": "disputed: your opponent said otherwise; the director decides",
}


def configure(parser: argparse.ArgumentParser) -> None:
    add_server_flag(parser)
    parser.add_argument("tournament_id", metavar="ID", help="the tournament")
    parser.add_argument("round", type=int_in(1, 999), metavar="ROUND")
    parser.add_argument("table", type=int_in(1, 999), metavar="TABLE")
    parser.add_argument("result", metavar="RESULT", help="1-0, 0-1 or 1/2-1/2 (Red's score first)")
    parser.add_argument("--name", default=None, help="your name in the tournament (required)")
    parser.add_argument(
        "--claim", default=None, metavar="CODE", help="your claim code (the first time)"
    )
    parser.add_argument(
        "--data-dir",
        default=None,
        help="where the session is kept (default: $LANQI_DATA_DIR or per-user)",
    )


def session_file(base: Path, name: str, server: str) -> Path:
    safe = "".join(c if c.isalnum() or c in ".-" else "_" for c in f"{name}@{server}")
    return base / "players" / f"{safe}.session"


def run(args: argparse.Namespace) -> int:
    from lanqi.client.matchmaker import MatchmakerClient, MatchmakerRefused, MatchmakerTimeout
    from lanqi.paths import data_dir
    from lanqi.protocol import ReportResult, ResultNoted
    from lanqi.security import KnownServers, NoServerKey, server_identity

    if not args.name:
        raise CliError("say who you are: --name NAME (your name in the tournament)")
    server = server_endpoint(args)
    unreachable = CliError(
        f"no answer from {server}: is the server running? (name it with --server or $LANQI_SERVER)",
        1,
    )
    known = KnownServers.of(args.data_dir)
    try:
        client = MatchmakerClient(server, known=known)
    except NoServerKey:
        raise unreachable from None
    try:
        path = session_file(
            data_dir(args.data_dir), args.name, server_identity(client.link, server)
        )
        kept = path.read_text(encoding="utf-8").strip() if path.exists() else None
        if kept is None and args.claim is None:
            raise CliError(
                f"first time on this server as {args.name}: pass --claim CODE "
                "(the code the director gave you)"
            )
        welcome = client.hello(args.name, session=None if args.claim else kept, claim=args.claim)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(welcome.session, encoding="utf-8")
        noted = client.call(
            ReportResult(
                tournament_id=args.tournament_id,
                round=args.round,
                table=args.table,
                result=args.result,
            ),
            ResultNoted,
        )
    except MatchmakerRefused as exc:
        raise CliError(f"refused: {exc}", 1) from None
    except MatchmakerTimeout:
        raise unreachable from None
    finally:
        client.close()
    status = STATUS_TEXT.get(noted.status, noted.status)
    print(f"round {args.round} table {args.table} {args.result}: {status}", flush=True)
    return 0
