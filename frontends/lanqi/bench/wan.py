"""A bad network on one machine: a client host in a network namespace of its own,
joined to this host by a link that delays, jitters, loses packets and can be cut.

``tc netem`` does this in the kernel, but not every kernel has it (this machine's does
not: ``tc qdisc add ... netem`` answers "Specified qdisc kind is unknown").  So the link
is two TUN devices - one here, one in the namespace - and a forwarder process between
them that reads each IP packet, drops it with the loss probability, and writes it to
the other side after the delay plus a uniform jitter.  Both kernels' TCP stacks see a
real lossy, late link (retransmits, reordering, a stalled window), exactly as through
netem; the delay applies to each direction on its own, so a round trip costs about
twice the delay.

- :class:`Wan`: a context manager: ``with Wan(delay_ms=150, jitter_ms=50, loss=0.03)
  as wan``; services here bind ``wan.host_address``; ``wan.popen([...])`` starts a
  program inside the namespace (its connections to ``wan.host_address`` cross the
  link); ``wan.shape(...)`` changes the link live; ``wan.down()`` / ``wan.up()`` set
  the client's device down and up (``ip link set down``), the link cut and back.
- :func:`unavailable`: why a :class:`Wan` cannot be made here (not root, no
  ``/dev/net/tun``, no ``ip``), or None; tests skip with that reason.
- ``python -m lanqi.bench.wan``: the forwarder (started by :class:`Wan`; commands on
  its stdin, one per line: ``shape DELAY_MS JITTER_MS LOSS``, ``quit``).
"""

from __future__ import annotations

import contextlib
import fcntl
import heapq
import ipaddress
import os
import random
import secrets
import select
import shutil
import struct
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any, Self

from lanqi.bench.process import source_path

__all__ = ["Wan", "unavailable"]

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000
#: the private range the links' /30 subnets are drawn from
SUBNETS = ipaddress.ip_network("10.203.0.0/16")


def unavailable() -> str | None:
    """Why a :class:`Wan` cannot be made on this machine, or None."""
    if os.geteuid() != 0:
        return "network namespaces and TUN devices need root"
    if not os.path.exists("/dev/net/tun"):
        return "no /dev/net/tun (the kernel has no TUN driver)"
    if shutil.which("ip") is None:
        return "no `ip` command (install iproute2)"
    return None


def _ip(*args: str, namespace: str | None = None) -> None:
    command = ["ip", "netns", "exec", namespace, "ip", *args] if namespace else ["ip", *args]
    done = subprocess.run(command, check=False, capture_output=True, text=True)
    if done.returncode != 0:
        raise OSError(f"{' '.join(command)}: {done.stderr.strip()}")


def _free_subnet() -> ipaddress.IPv4Network:
    """A /30 of :data:`SUBNETS` no interface here uses yet."""
    used = subprocess.run(["ip", "-4", "addr"], check=False, capture_output=True, text=True).stdout
    for _ in range(100):
        base = SUBNETS.network_address + 4 * secrets.randbelow(SUBNETS.num_addresses // 4)
        net = ipaddress.IPv4Network(f"{base}/30")
        if f"{base + 1}" not in used and f"{base + 2}" not in used:
            return net
    raise OSError("no free /30 in 10.203.0.0/16")


class Wan:
    """A client namespace joined to this host by a shaped link (see the module)."""

    def __init__(
        self, *, delay_ms: float = 0.0, jitter_ms: float = 0.0, loss: float = 0.0, seed: int = 0
    ) -> None:
        tag = secrets.token_hex(3)
        self.namespace = f"lqwan{tag}"
        self.host_device = f"lqh{tag}"
        self.client_device = f"lqc{tag}"
        net = _free_subnet()
        #: this host's end of the link: services the client must reach bind here
        self.host_address = str(net.network_address + 1)
        #: the client's end, inside :attr:`namespace`
        self.client_address = str(net.network_address + 2)
        self._shape = (delay_ms, jitter_ms, loss)
        self._seed = seed
        self._forwarder: subprocess.Popen[str] | None = None

    def __enter__(self) -> Self:
        try:
            self.open()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def open(self) -> None:
        _ip("netns", "add", self.namespace)
        _ip("link", "set", "lo", "up", namespace=self.namespace)
        delay, jitter, loss = self._shape
        self._forwarder = subprocess.Popen(
            [
                sys.executable, "-m", "lanqi.bench.wan",
                self.host_device, self.client_device, self.namespace,
                f"{delay}", f"{jitter}", f"{loss}", f"{self._seed}",
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": source_path()},
        )  # fmt: skip
        assert self._forwarder.stdout is not None
        ready = self._forwarder.stdout.readline().strip()
        if ready != "ready":
            raise OSError(f"the link's forwarder did not start: {ready or 'no output'}")
        _ip("addr", "add", self.host_address, "peer", self.client_address, "dev", self.host_device)
        _ip("link", "set", self.host_device, "up")
        ns = self.namespace
        ends = (self.client_address, "peer", self.host_address)
        _ip("addr", "add", *ends, "dev", self.client_device, namespace=ns)
        _ip("link", "set", self.client_device, "up", namespace=ns)

    def popen(
        self, command: Sequence[str], env: Mapping[str, str] | None = None, **kwargs: Any
    ) -> subprocess.Popen[Any]:
        """Start ``command`` inside the client namespace (``ip netns exec``)."""
        environment = {**os.environ, "PYTHONPATH": source_path(), **(env or {})}
        return subprocess.Popen(
            ["ip", "netns", "exec", self.namespace, *command], env=environment, **kwargs
        )

    def shape(self, *, delay_ms: float, jitter_ms: float = 0.0, loss: float = 0.0) -> None:
        """Change the link's delay (each way), jitter and loss from now on."""
        self._send(f"shape {delay_ms} {jitter_ms} {loss}")
        self._shape = (delay_ms, jitter_ms, loss)

    def down(self) -> None:
        """Cut the link: the client's device is set down (its packets go nowhere)."""
        _ip("link", "set", self.client_device, "down", namespace=self.namespace)

    def up(self) -> None:
        """Bring the link back (the device up and its route again)."""
        _ip("link", "set", self.client_device, "up", namespace=self.namespace)

    def close(self) -> None:
        if self._forwarder is not None:
            try:
                self._send("quit")
                self._forwarder.wait(5)
            except (OSError, subprocess.TimeoutExpired):
                self._forwarder.kill()
                self._forwarder.wait()
            self._forwarder = None
        subprocess.run(["ip", "netns", "del", self.namespace], check=False, capture_output=True)
        subprocess.run(["ip", "link", "del", self.host_device], check=False, capture_output=True)

    def _send(self, line: str) -> None:
        assert self._forwarder is not None and self._forwarder.stdin is not None
        self._forwarder.stdin.write(line + "\n")
        self._forwarder.stdin.flush()


def _open_tun(name: str) -> int:
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TUN | IFF_NO_PI))
    return fd


def forward(host: str, client: str, namespace: str, shape: list[float], rng: random.Random) -> None:
    """Make both TUN devices, move ``client`` into ``namespace``, then forward packets
    between them as :class:`Wan` describes until ``quit`` (or EOF) on stdin."""
    for name in (host, client):
        _ip("tuntap", "add", "dev", name, "mode", "tun")
    ends = {_open_tun(host): 0, _open_tun(client): 1}
    peer = {fd: other for fd in ends for other in ends if other != fd}
    _ip("link", "set", client, "netns", namespace)
    print("ready", flush=True)
    stdin = sys.stdin.fileno()
    due: list[tuple[float, int, int, bytes]] = []
    count = 0
    commands = ""
    while True:
        wait = max(0.0, due[0][0] - time.monotonic()) if due else None
        readable, _, _ = select.select([*ends, stdin], [], [], wait)
        now = time.monotonic()
        for fd in readable:
            if fd == stdin:
                chunk = os.read(stdin, 4096)
                commands += chunk.decode()
                while "\n" in commands:
                    line, commands = commands.split("\n", 1)
                    words = line.split()
                    if words[:1] == ["quit"]:
                        return
                    if words[:1] == ["shape"]:
                        shape = [float(w) for w in words[1:4]]
                if not chunk:
                    return
                continue
            try:
                packet = os.read(fd, 65536)
            except BlockingIOError:
                continue
            delay, jitter, loss = shape
            if rng.random() < loss:
                continue
            late = (delay + rng.uniform(-jitter, jitter)) / 1000
            count += 1
            heapq.heappush(due, (now + max(0.0, late), count, peer[fd], packet))
        now = time.monotonic()
        while due and due[0][0] <= now:
            _, _, out, packet = heapq.heappop(due)
            with contextlib.suppress(OSError):  # a device down: the packet is lost
                os.write(out, packet)


def main(argv: list[str]) -> int:
    host, client, namespace, delay, jitter, loss, seed = argv
    forward(
        host,
        client,
        namespace,
        [float(delay), float(jitter), float(loss)],
        random.Random(int(seed)),
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
