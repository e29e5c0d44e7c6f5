"""The command line's promises about its arguments: the server named anywhere on the
line or by ``LANQI_SERVER``, ``-v`` anywhere, endpoints without ``tcp://``, range and
time checks that name the accepted forms, defaults and examples in every help."""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any

import pytest

from lanqi.cli.common import DEFAULT_SERVER, CliError, plain_table, server_endpoint
from lanqi.cli.main import COMMANDS, build_parser
from lanqi.protocol.endpoints import normalise_endpoint

X = "tcp://10.1.2.3:6599"

#: (argv with the server flag in some position); every one must reach the command
SERVER_POSITIONS = [
    ["--server", X, "tournament", "list"],
    ["tournament", "--server", X, "list"],
    ["tournament", "list", "--server", X],
    ["tournament", "create", "Club night", "--server", X, "--rounds", "3"],
    ["tournament", "create", "--server", X, "Club night"],
    ["tournament", "standings", "abc", "--watch", "--server", X],
    ["--server", X, "bot", "--name", "Tiger"],
    ["bot", "--server", X, "--name", "Tiger"],
    ["bot", "--name", "Tiger", "--server", X],
    ["--server", X, "gui", "--name", "Ann"],
    ["gui", "--name", "Ann", "--server", X],
]


def parse(argv: list[str]) -> argparse.Namespace:
    return build_parser().parse_args(argv)


@pytest.mark.parametrize("argv", SERVER_POSITIONS, ids=" ".join)
def test_server_anywhere_on_the_line(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANQI_SERVER", "tcp://elsewhere:1")  # the flag beats the env
    assert server_endpoint(parse(argv)) == X


def test_the_deepest_server_flag_wins() -> None:
    args = parse(["--server", "a:1", "tournament", "--server", "b:2", "list", "--server", "c:3"])
    assert server_endpoint(args) == "tcp://c:3"


def test_server_from_the_environment_then_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANQI_SERVER", "club-server:6599")
    assert server_endpoint(parse(["tournament", "list"])) == "tcp://club-server:6599"
    monkeypatch.setenv("LANQI_SERVER", "club-server")
    assert server_endpoint(parse(["bot"])) == "tcp://club-server:5050"
    monkeypatch.delenv("LANQI_SERVER")
    assert server_endpoint(parse(["tournament", "list"])) == DEFAULT_SERVER


def test_a_bad_server_is_one_line_with_the_accepted_forms(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(CliError) as flag:
        server_endpoint(parse(["tournament", "list", "--server", "udp://x:1"]))
    assert str(flag.value) == (
        "--server: bad endpoint 'udp://x:1': use tcp://HOST:PORT, HOST:PORT or HOST"
    )
    monkeypatch.setenv("LANQI_SERVER", "host:port")
    with pytest.raises(CliError) as env:
        server_endpoint(parse(["tournament", "list"]))
    assert str(env.value).startswith("$LANQI_SERVER: bad endpoint 'host:port': use tcp://")


@pytest.mark.parametrize(
    ("text", "endpoint"),
    [
        ("127.0.0.1:6599", "tcp://127.0.0.1:6599"),
        ("tcp://127.0.0.1:6599", "tcp://127.0.0.1:6599"),
        ("club", "tcp://club:5050"),
        (" club:7000 ", "tcp://club:7000"),
        ("[::1]:6599", "tcp://[::1]:6599"),
    ],
)
def test_endpoints_are_normalised(text: str, endpoint: str) -> None:
    assert normalise_endpoint(text) == endpoint


@pytest.mark.parametrize("text", ["", "tcp://", "host:", "host:0", "host:99999", "a b", "::1"])
def test_bad_endpoints_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="use tcp://HOST:PORT, HOST:PORT or HOST"):
        normalise_endpoint(text)


@pytest.mark.parametrize(
    "argv",
    [
        ["-v", "tournament", "list"],
        ["tournament", "-v", "list"],
        ["tournament", "list", "-v"],
        ["bot", "--name", "x", "-v"],
        ["perft", "2", "-v"],
    ],
    ids=" ".join,
)
def test_verbose_anywhere(argv: list[str]) -> None:
    assert parse(argv).verbose is True


def test_verbose_is_off_unless_given() -> None:
    assert getattr(parse(["tournament", "list"]), "verbose", False) is False


def test_time_controls_are_parsed_at_the_command_line() -> None:
    tc = parse(["tournament", "create", "x", "--time", "5m+3s"]).time
    assert (tc.kind, tc.base_ms, tc.increment_ms) == ("fischer", 300_000, 3_000)
    assert parse(["tournament", "create", "x", "--time", "move:10"]).time.per_move_ms == 10_000
    assert parse(["tournament", "create", "x"]).time.kind == "none"


def usage_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exit_:
        parse(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err  # one line
    return err.strip()


def test_level_out_of_range_names_the_range(capsys: pytest.CaptureFixture[str]) -> None:
    assert usage_error(["bot", "--level", "12"], capsys) == (
        "lanqi bot: argument --level: 12 is out of range (use 1 to 8) (see lanqi bot --help)"
    )
    assert "use 1 to 8" in usage_error(["gui", "--ai", "zero"], capsys)


def test_bad_time_names_the_accepted_forms(capsys: pytest.CaptureFixture[str]) -> None:
    err = usage_error(["tournament", "create", "x", "--time", "abc"], capsys)
    assert "bad time control 'abc': use MINUTES+SECONDS (10+5, 0.5, 5m+3s)" in err
    assert "move:SECONDS (move:10) or none" in err


def test_unknown_argument_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    err = usage_error(["tournament", "list", "--nonsense"], capsys)
    assert err == "lanqi: unrecognized arguments: --nonsense (see lanqi --help)"


def every_parser() -> list[tuple[str, argparse.ArgumentParser]]:
    found = []
    todo: list[tuple[str, Any]] = [("lanqi", build_parser())]
    while todo:
        name, parser = todo.pop()
        found.append((name, parser))
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                todo.extend((f"{name} {sub}", p) for sub, p in action.choices.items())
    return found


def test_every_command_shows_an_example() -> None:
    parsers = dict(every_parser())
    assert {f"lanqi {c}" for c in COMMANDS} <= set(parsers)
    assert "lanqi tournament delete" in parsers
    for name, parser in parsers.items():
        if name.startswith("lanqi bench "):
            continue  # the benchmarks share `lanqi bench`'s examples
        text = parser.format_help()
        assert "example" in text and "  lanqi " in text.split("example")[-1], name


def test_every_default_is_in_the_help() -> None:
    for name, parser in every_parser():
        for action in parser._actions:
            default = action.default
            if (
                not action.option_strings
                or action.help in (None, argparse.SUPPRESS)
                or default in (None, [], argparse.SUPPRESS)
                or default is False
                or isinstance(action, argparse._VersionAction)
            ):
                continue
            formatter = parser._get_formatter()
            shown = formatter._expand_help(action)  # what --help prints for it
            assert "default" in shown, f"{name} {action.option_strings[0]}: {shown!r}"


def test_tables_align_cjk_names_by_display_width() -> None:
    text = plain_table(("#", "player", "pts"), [(1, "象棋大师", 2.5), (2, "Bob", 1)], right=(0, 2))
    lines = text.splitlines()
    assert lines == ["#  player    pts", "1  象棋大师  2.5", "2  Bob         1"]


def test_on_a_terminal_tables_are_drawn_aligned(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from rich.cells import cell_len

    from lanqi.cli.common import print_table

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setenv("COLUMNS", "120")
    print_table(("#", "player"), [(1, "象棋大师"), (2, "Bob")], title="Club")
    out = re.sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().out)  # no styles
    lines = [line for line in out.splitlines() if line.strip()]
    assert lines[0].strip() == "Club"
    rows = [line for line in lines if "象棋大师" in line or "Bob" in line]
    assert len(rows) == 2 and cell_len(rows[0]) == cell_len(rows[1])
    assert rows[0].index("象") == rows[1].index("B")


def test_a_bot_config_entry_may_name_its_own_server() -> None:
    from lanqi.cli.bot import _entry_server

    assert _entry_server({"server": "10.0.0.9"}, "tcp://default:5050") == "tcp://10.0.0.9:5050"
    assert _entry_server({}, "tcp://default:5050") == "tcp://default:5050"


def test_points_system_and_tiebreaks_of_a_new_event(capsys: pytest.CaptureFixture[str]) -> None:
    args = parse(["tournament", "create", "x", "--points", "2-1-0", "--tiebreaks", "cxa, BH"])
    assert (args.points, args.tiebreaks) == ("2-1-0", ["cxa", "BH"])
    plain = parse(["tournament", "create", "x"])
    assert (plain.points, plain.tiebreaks) == ("1-0.5-0", [])
    err = usage_error(["tournament", "create", "x", "--points", "4-2-0"], capsys)
    assert "invalid choice: '4-2-0'" in err and "'2-1-0'" in err
