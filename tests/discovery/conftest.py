"""Fixtures for the discovery tests: two network namespaces joined by a veth pair.

``lan_pair`` makes namespaces A and B (each with its loopback up and one end of a
veth pair, addressed 10.213.0.1/24 in A and 10.213.0.2/24 in B), so what a server
announces in A reaches B over multicast DNS exactly as over a switch, and nothing
else on this machine is heard there.  Both are removed after the test, whatever
happened.  It needs root and ``ip`` (iproute2); without them the test skips and
says so.

``lanqi_in(ns, *args)`` is the command line of ``lanqi ARGS`` run inside a namespace
(the same interpreter and source tree as the tests).
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from lanqi.bench.process import source_path

ADDRESS_A = "10.213.0.1"
ADDRESS_B = "10.213.0.2"
_serial = itertools.count()


@dataclass(frozen=True, slots=True)
class LanPair:
    a: str  # namespace names
    b: str
    address_a: str = ADDRESS_A
    address_b: str = ADDRESS_B

    @staticmethod
    def lanqi_in(namespace: str, *args: str) -> list[str]:
        """``lanqi ARGS`` inside ``namespace``."""
        return ["ip", "netns", "exec", namespace, sys.executable, "-m", "lanqi.cli.main", *args]

    @staticmethod
    def python_in(namespace: str, *args: str) -> list[str]:
        return ["ip", "netns", "exec", namespace, sys.executable, *args]

    @staticmethod
    def env(**extra: str) -> dict[str, str]:
        """This process's environment for a child that imports the same lanqi."""
        env = dict(os.environ, PYTHONPATH=source_path(), PYTHONUNBUFFERED="1")
        env.pop("LANQI_SERVER", None)
        env.pop("LANQI_DIRECTOR_KEY", None)
        return {**env, **extra}


def _ip(*args: str) -> None:
    done = subprocess.run(["ip", *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {done.stderr.strip()}")


@pytest.fixture
def lan_pair() -> Iterator[LanPair]:
    if os.geteuid() != 0:
        pytest.skip("needs root to create network namespaces (ip netns add)")
    if shutil.which("ip") is None:
        pytest.skip("needs the ip command (iproute2) to create network namespaces")
    tag = f"{os.getpid() % 100_000}x{next(_serial)}"  # interface names: 15 bytes at most
    pair = LanPair(a=f"lqA{tag}", b=f"lqB{tag}")
    veth_a, veth_b = f"lqa{tag}", f"lqb{tag}"
    made: list[str] = []
    try:
        for namespace in (pair.a, pair.b):
            _ip("netns", "add", namespace)
            made.append(namespace)
            _ip("-n", namespace, "link", "set", "lo", "up")
        _ip("link", "add", veth_a, "type", "veth", "peer", "name", veth_b)
        for veth, namespace, address in (
            (veth_a, pair.a, pair.address_a),
            (veth_b, pair.b, pair.address_b),
        ):
            _ip("link", "set", veth, "netns", namespace)
            _ip("-n", namespace, "addr", "add", f"{address}/24", "dev", veth)
            _ip("-n", namespace, "link", "set", veth, "up")
        yield pair
    finally:
        for namespace in reversed(made):  # the veth pair goes with its namespaces
            subprocess.run(["ip", "netns", "del", namespace], check=False)
        subprocess.run(["ip", "link", "del", veth_a], capture_output=True, check=False)
