"""compose.yaml and the Dockerfile name only real ``lanqi`` commands with valid arguments.

Docker cannot run here, so the check is on the files: every service's command must
parse with the real ``lanqi`` argument parser.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from lanqi.cli.main import COMMANDS, build_parser

ROOT = Path(__file__).resolve().parents[2]


def _expand(value: str) -> str:
    """``${NAME:-default}`` -> default (as compose does with NAME unset)."""
    return re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", value)


def _services() -> dict[str, dict[str, Any]]:
    """compose.yaml's services (YAML data: untyped)."""
    data = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
    services = data["services"]
    assert isinstance(services, dict) and services
    return services


def test_compose_declares_referee_matchmaker_and_bots_from_one_image() -> None:
    services = _services()
    assert {"referee", "matchmaker"} <= set(services)
    assert sum(1 for name in services if name.startswith("bot")) >= 2
    images = {str(svc.get("image")) for svc in services.values()}
    assert images == {"lanqi:latest"}
    assert "5050:5050" in services["matchmaker"]["ports"]
    assert "referee-data:/data" in services["referee"]["volumes"]


@pytest.mark.parametrize("name", sorted(_services()))
def test_every_service_command_is_a_real_lanqi_subcommand(name: str) -> None:
    command = [_expand(str(part)) for part in _services()[name]["command"]]
    assert command[0] in COMMANDS
    parser = build_parser()
    args = parser.parse_args(command)  # exits (fails the test) on an unknown flag
    assert args.command == command[0]


def test_dockerfile_runs_lanqi() -> None:
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert 'ENTRYPOINT ["lanqi"]' in text
    match = re.search(r"^CMD (\[.*\])$", text, re.MULTILINE)
    assert match is not None
    command = yaml.safe_load(match.group(1))
    assert build_parser().parse_args(command).command == command[0]
