"""A service raises its open-file limit: every client connection holds a file
descriptor, and a soft limit of 1,024 is about 500 GUI players in one lobby
(``lanqi bench crowd``).  Started under ``prlimit`` with a soft limit of 256 and a
hard one of 4,096, ``lanqi matchmaker`` and ``lanqi referee`` run with 4,096."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from lanqi.bench.process import ServiceProcess
from lanqi.security import KeyPair

from .conftest import READY

pytestmark = pytest.mark.skipif(shutil.which("prlimit") is None, reason="needs prlimit")


def _soft_open_files(pid: int) -> int:
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            return int(line.split()[3])
    raise AssertionError("no open-file limit in /proc")


@pytest.mark.parametrize("command", ["referee", "matchmaker"])
def test_a_service_raises_its_soft_open_file_limit_to_the_hard_one(
    command: str, tmp_path: Path
) -> None:
    args = ["--port", "0", "--pub-port", "0", "--key-port", "0", "--data-dir", str(tmp_path)]
    if command == "matchmaker":  # a referee it need not reach to start
        key = KeyPair.ephemeral().public.decode("ascii")
        args += ["--referee", f"tcp://127.0.0.1:9,tcp://127.0.0.1:10,key={key}"]
        args += ["--director-key", "k"]
    service = ServiceProcess(
        ["prlimit", "--nofile=256:4096", sys.executable, "-m", "lanqi.cli.main", command, *args],
        READY[command],
        tmp_path / f"{command}.log",
        name=command,
    )
    try:
        assert _soft_open_files(service.pid) == 4096
    finally:
        assert service.stop() == 0
    assert service.log_errors() == []
