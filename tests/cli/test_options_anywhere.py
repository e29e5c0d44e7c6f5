"""``-v`` and ``--server`` anywhere on the line, for every ``lanqi`` command (README:
"``-v`` (anywhere)"): at the start, between the words, at the end (issue 25).  The
commands are found by walking the real parser, so a new one is covered too."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

from lanqi.cli import main as cli
from lanqi.cli.main import RAW_COMMANDS, build_parser, raw_line

X = "tcp://10.1.2.3:6599"
#: a whole valid ``lanqi match`` line (it reads its own arguments)
MATCH_ARGS = ["-engine", "name=A", "proto=builtin", "-engine", "name=B", "proto=builtin"]


def every_command() -> list[tuple[list[str], argparse.ArgumentParser]]:
    """Each command and action as (its words, its parser), the parents included."""
    found: list[tuple[list[str], argparse.ArgumentParser]] = []
    todo: list[tuple[list[str], Any]] = [([], build_parser())]
    while todo:
        words, parser = todo.pop()
        found.append((words, parser))
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                todo.extend(([*words, name], sub) for name, sub in action.choices.items())
    return found


def smallest_line(words: list[str], parser: argparse.ArgumentParser) -> list[str]:
    """The command's words and a value for each argument it requires."""
    if words and words[0] in RAW_COMMANDS:
        return [*words, *MATCH_ARGS]
    line = list(words)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            continue
        if not action.option_strings and action.nargs not in ("?", "*"):
            line.append("1")  # a tournament id, a player, a depth, an address...
        elif action.option_strings and action.required:
            line += [action.option_strings[0], "1"]
    return line


LINES = [smallest_line(w, p) for w, p in every_command() if w]
NAMES = [" ".join(line) for line in LINES]


def test_the_walk_sees_every_command() -> None:
    commands = {line[0] for line in LINES}
    assert commands == set(cli.COMMANDS)
    assert "tournament create 1" in NAMES and "bench movegen" in NAMES and "match" in commands


def comparable(args: argparse.Namespace) -> dict[str, Any]:
    return {k: v for k, v in vars(args).items() if k not in ("verbose", "_run")}


@pytest.mark.parametrize("line", LINES, ids=NAMES)
def test_verbose_anywhere_on_every_command(line: list[str]) -> None:
    for at in range(len(line) + 1):  # before the command, between any two words, at the end
        for flag in ("-v", "--verbose"):
            with_v = [*line[:at], flag, *line[at:]]
            raw = raw_line(with_v)
            if line[0] in RAW_COMMANDS:
                assert raw == cli.RawLine(line[0], line[1:], True), with_v
                continue
            assert raw is None
            plain = build_parser().parse_args(line)
            args = build_parser().parse_args(with_v)
            assert args.verbose is True, with_v
            assert comparable(args) == comparable(plain), with_v
            assert getattr(args, "_run", None) == getattr(plain, "_run", None), with_v


def test_without_v_nothing_is_verbose() -> None:
    for line in LINES:
        if line[0] in RAW_COMMANDS:
            raw = raw_line(line)
            assert raw is not None and not raw.verbose and raw.words == line[1:]
        else:
            assert getattr(build_parser().parse_args(line), "verbose", False) is False, line


SERVER_LINES = [
    smallest_line(w, p)
    for w, p in every_command()
    if w and any("--server" in a.option_strings for a in p._actions)
]


@pytest.mark.parametrize("line", SERVER_LINES, ids=[" ".join(line) for line in SERVER_LINES])
def test_server_anywhere_on_every_client_command(line: list[str]) -> None:
    for at in range(len(line) + 1):
        with_server = [*line[:at], "--server", X, *line[at:]]
        assert build_parser().parse_args(with_server).server == X, with_server


def test_the_client_commands_take_server() -> None:
    clients = {line[0] for line in SERVER_LINES}
    assert {"tournament", "bot", "gui"} <= clients


def test_match_takes_v_before_its_arguments(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``lanqi match -v -engine ...`` was refused ("unrecognized arguments")."""
    seen: list[tuple[list[str], bool]] = []

    def run_argv(words: list[str], *, verbose: bool = False) -> int:
        seen.append((list(words), verbose))
        return 0

    import lanqi.cli.match

    monkeypatch.setattr(lanqi.cli.match, "run_argv", run_argv)
    for line in (
        ["match", "-v", *MATCH_ARGS],
        ["-v", "match", *MATCH_ARGS],
        ["match", *MATCH_ARGS[:3], "--verbose", *MATCH_ARGS[3:]],
        ["match", *MATCH_ARGS, "-v"],
    ):
        assert cli.main(line) == 0, line
    assert seen == [(MATCH_ARGS, True)] * 4
    assert cli.main(["match", *MATCH_ARGS]) == 0 and seen[-1] == (MATCH_ARGS, False)
    assert cli.main(["--server", X, "match", *MATCH_ARGS]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--server is not used" in err and "-referee" in err
