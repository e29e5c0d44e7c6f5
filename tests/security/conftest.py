"""A real ``lanqi referee`` subprocess (CURVE on, the default) for the security tests."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from lanqi.bench.process import LanqiService

READY = re.compile(rb"referee ready: requests (?P<requests>\S+), events (?P<events>\S+), data")


@pytest.fixture
def referee_service(tmp_path: Path) -> Iterator[LanqiService]:
    """A referee on free ports (its key port: the request port + 4); after the test it
    must stop cleanly with no ERROR in its log."""
    service = LanqiService(
        "referee",
        ["--host", "127.0.0.1", "--data-dir", str(tmp_path / "data")],
        tmp_path,
        name="referee",
        ready=READY,
        ports={"--port": "requests", "--pub-port": "events"},
    )
    service.start()
    try:
        yield service
    finally:
        code = service.stop()
        errors = service.new_errors()
    assert code == 0 and not errors, errors
