"""What the ``lanqi`` commands share: the parser class, naming the server, argument
checks whose messages show the accepted forms, one-line errors, and tables.

The server is named once: ``--server`` anywhere on a client command's line (before
or after the action), or ``$LANQI_SERVER``; ``auto`` takes the one server heard on
the LAN (:func:`discovered_server`).  Flags given at several levels are kept
with ``default=SUPPRESS`` so that a subcommand's default never overwrites what the
line said before it; :func:`server_endpoint` then falls back to the environment and
the default.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from lanqi.protocol.endpoints import ENDPOINT_FORMS, MATCHMAKER_PORT, normalise_endpoint, tcp

if TYPE_CHECKING:
    from lanqi.discovery import DiscoveredServer

SERVER_ENV = "LANQI_SERVER"
DEFAULT_SERVER = tcp("127.0.0.1", MATCHMAKER_PORT)
#: the server address that means "the one server heard on the LAN"
AUTO = "auto"


class CliError(Exception):
    """A mistake the user can fix: printed as one line, ``lanqi COMMAND: message``."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions and epilogs as written; every option with a real default shows it
    (unless its help already says it)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if (
            "default" in text
            or default is None
            or default is False
            or default is argparse.SUPPRESS
            or default == []
            or not action.option_strings
        ):
            return text
        return f"{text} (default: %(default)s)"


class LanqiParser(argparse.ArgumentParser):
    """Every ``lanqi`` parser: the help formatter above, ``-v`` at any level, and
    usage errors as one line that points at ``--help``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)
        self.add_argument(
            "-v",
            "--verbose",
            action="store_true",
            default=argparse.SUPPRESS,
            help="log debug messages, and show a traceback with an error",
        )

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def add_server_flag(parser: argparse.ArgumentParser) -> None:
    """``--server`` for a client command (and each of its actions)."""
    parser.add_argument(
        "--server",
        default=argparse.SUPPRESS,
        metavar="ADDRESS",
        help=f"the matchmaker: {ENDPOINT_FORMS}, or {AUTO} for the one server heard on the"
        f" LAN (default: ${SERVER_ENV}, else {DEFAULT_SERVER})",
    )


def server_endpoint(args: argparse.Namespace) -> str:
    """The matchmaker's endpoint: ``--server``, ``$LANQI_SERVER`` or the default
    (``auto`` in either: the one server heard on the LAN)."""
    given = getattr(args, "server", None)
    source = "--server"
    if not given:
        given, source = os.environ.get(SERVER_ENV), f"${SERVER_ENV}"
    return resolve_server(given, source)


def resolve_server(given: str | None, source: str = "--server") -> str:
    """An endpoint from what a person typed (``None``: the default; ``auto``: the one
    server heard on the LAN); a :class:`CliError` saying what to type otherwise."""
    if not given:
        return DEFAULT_SERVER
    if given.strip().lower() == AUTO:
        return discovered_server().endpoint
    try:
        return normalise_endpoint(given)
    except ValueError as exc:
        raise CliError(f"{source}: {exc}") from None


def discovered_server() -> DiscoveredServer:
    """The one lanqi server heard on the LAN, or a :class:`CliError` that lists the
    servers heard or says none was."""
    from lanqi.discovery import browse
    from lanqi.protocol import PROTOCOL_VERSION

    print("looking for a lanqi server on the LAN...", file=sys.stderr, flush=True)
    try:
        heard = browse()
    except OSError as exc:
        raise CliError(f"{exc}; name the server with --server HOST") from None
    usable = [s for s in heard if s.version == PROTOCOL_VERSION]
    if len(usable) == 1:
        found = usable[0]
        print(f"found {found.name!r} at {found.address}", file=sys.stderr, flush=True)
        return found
    if usable:
        listing = "; ".join(f"{s.name!r} at {s.address}" for s in usable)
        raise CliError(
            f"{len(usable)} lanqi servers on the LAN: {listing}; pick one with --server HOST:PORT"
        )
    other = (
        f" (heard only servers of another protocol version: "
        f"{', '.join(f'{s.name!r} v{s.version} at {s.address}' for s in heard)})"
        if heard
        else ""
    )
    raise CliError(
        f"no lanqi server heard on the LAN{other}; the network may block multicast:"
        " type its address with --server HOST"
    )


def endpoint_arg(default_port: int) -> Callable[[str], str]:
    """An argparse ``type`` for an endpoint flag (``--events``, ``--referee``...)."""

    def parse(text: str) -> str:
        try:
            return normalise_endpoint(text, default_port)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


def int_in(low: int, high: int) -> Callable[[str], int]:
    """An argparse ``type``: a whole number from ``low`` to ``high``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not a whole number (use {low} to {high})"
            ) from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is out of range (use {low} to {high})")
        return value

    parse.__name__ = f"{low}-{high}"
    return parse


class RegistryChoices(Sequence[str]):
    """An argparse ``choices`` read from the variant registry when first used (a
    ``--variant``'s games, a ``--notation``'s notations), so every command offers what
    is registered and ``lanqi --help`` does not load the rules.

    >>> choices = RegistryChoices("variants", extra=("all",))
    >>> "gomoku" in choices, "chess" in choices, list(choices)[-1]
    (True, False, 'all')
    """

    def __init__(
        self, kind: str = "variants", *, extra: Sequence[str] = (), first: Sequence[str] = ()
    ) -> None:
        self.kind = kind
        self.extra = tuple(extra)
        self.first = tuple(first)

    def _names(self) -> tuple[str, ...]:
        from lanqi.games import registry

        names = registry.variant_names() if self.kind == "variants" else registry.notation_names()
        return (*self.first, *names, *self.extra)

    def __getitem__(self, index: Any) -> Any:
        return self._names()[index]

    def __len__(self) -> int:
        return len(self._names())

    def __contains__(self, value: object) -> bool:
        return value in self._names()


def ai_level(text: str) -> int:
    """An argparse ``type``: a built-in AI level, 1 to the strongest level of any
    registered variant's AI (each game's AI clamps it to its own)."""
    from lanqi.games.registry import VARIANTS

    strongest = max(spec.ai_levels for spec in VARIANTS.values() if spec.ai is not None)
    return int_in(1, strongest)(text)


def plain_table(
    headers: Sequence[str],
    rows: Sequence[Sequence[object]],
    *,
    title: str | None = None,
    right: Sequence[int] = (),
) -> str:
    """A table as plain lines, columns two spaces apart, aligned by display width
    (a CJK character takes two columns); columns in ``right`` are right-aligned.

    >>> print(plain_table(("name", "pts"), [("象棋王", 2), ("Bob", 10)], right=(1,)))
    name    pts
    象棋王    2
    Bob      10
    """
    from rich.cells import cell_len

    cells = [[str(c) for c in row] for row in rows]
    widths = [max([cell_len(h)] + [cell_len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    lines = [title] if title else []
    for row in [list(headers), *cells]:
        parts = []
        for i, (text, width) in enumerate(zip(row, widths, strict=True)):
            pad = " " * (width - cell_len(text))
            parts.append(pad + text if i in right else text + pad)
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


def print_table(
    headers: Sequence[str],
    rows: Sequence[Sequence[object]],
    *,
    title: str | None = None,
    right: Sequence[int] = (),
) -> None:
    """A table on stdout: a rich table on a terminal; piped, :func:`plain_table`'s
    lines, which a script can read."""
    if not sys.stdout.isatty():
        print(plain_table(headers, rows, title=title, right=right))
        return
    from rich import box
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left")
    for i, head in enumerate(headers):
        table.add_column(head, justify="right" if i in right else "left", no_wrap=True)
    for row in rows:
        table.add_row(*(str(c) for c in row))
    Console().print(table)
