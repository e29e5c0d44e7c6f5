"""The flags of a server on the LAN: ``--lan`` and ``--name`` on the commands that
announce (``serve``, ``matchmaker``), and what ``--advertise`` does to the announcement."""

from __future__ import annotations

import pytest

from lanqi.cli.main import build_parser
from lanqi.cli.servers import announced_addresses


@pytest.mark.parametrize("command", ["serve", "matchmaker"])
def test_servers_that_announce_take_a_name(command: str) -> None:
    args = build_parser().parse_args([command, "--lan", "--name", "Club night"])
    assert (args.lan, args.name) == (True, "Club night")
    assert build_parser().parse_args([command]).name is None  # default: lanqi on HOSTNAME


def test_a_referee_announces_nothing_and_has_no_name() -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["referee", "--lan", "--name", "x"])


def test_an_advertised_address_is_the_one_announced() -> None:
    assert announced_addresses("10.1.2.3") == ["10.1.2.3"]
    assert announced_addresses("club.example") is None  # the interfaces' addresses
    assert announced_addresses(None) is None
