"""Finding lanqi servers on the LAN: DNS-SD over multicast DNS (python-zeroconf).

A server started with ``--lan`` announces one service of type ``_lanqi._tcp.local.``:
its SRV record names the matchmaker's request port, its A records the machine's LAN
addresses, and its TXT record carries what a client shows or checks before it connects:

========  ===========================================================================
``v``     the protocol version the server speaks (``1``)
``name``  the event's name, as the director gave it (the instance name may be cut)
``key``   the server's public key (Z85), empty when it has none
``events`` the matchmaker's event (PUB) port
``players`` how many players are online in its lobby (updated as it changes)
========  ===========================================================================

The TXT record is plain data (:func:`txt_record`, :func:`parse_txt`);
:class:`Announcer` keeps a server announced on a thread of its own, and
:class:`ServerBrowser` (or :func:`browse` for one look) lists the servers heard.

>>> fields = txt_record(name="Club night", events_port=5051, key="abc", players=3)
>>> fields["name"], fields["players"]
('Club night', '3')
>>> parse_txt({k.encode(): v.encode() for k, v in fields.items()})
TxtFields(name='Club night', version=1, key='abc', events_port=5051, players_online=3)
"""

from __future__ import annotations

import ipaddress
import logging
import queue
import socket
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import ifaddr
from zeroconf import IPVersion, ServiceBrowser, ServiceInfo, ServiceStateChange, Zeroconf

from lanqi.protocol import PROTOCOL_VERSION
from lanqi.protocol.endpoints import tcp

__all__ = [
    "SERVICE_TYPE",
    "Announcer",
    "DiscoveredServer",
    "ServerBrowser",
    "TxtFields",
    "browse",
    "choose_address",
    "instance_label",
    "lan_addresses",
    "parse_txt",
    "txt_record",
]

log = logging.getLogger(__name__)

SERVICE_TYPE = "_lanqi._tcp.local."
#: how long a one-shot look (``--server auto``) listens at most, in seconds
BROWSE_WINDOW_S = 3.0
#: ...and how long it keeps listening after the last new answer (servers answer one
#: query within about a second: RFC 6762 lets them wait to aggregate answers)
SETTLE_S = 1.5
#: how often an announcer checks whether the number of players online changed
REFRESH_S = 1.0
#: the longest event name kept in the TXT record, in bytes of UTF-8 (a TXT string
#: holds 255 bytes, ``name=`` included)
MAX_NAME_BYTES = 200
#: DNS labels (the instance name) hold at most 63 bytes
MAX_LABEL_BYTES = 63


@dataclass(frozen=True, slots=True)
class TxtFields:
    """What a server's TXT record says."""

    name: str
    version: int
    key: str | None
    events_port: int | None
    players_online: int | None


@dataclass(frozen=True, slots=True)
class DiscoveredServer:
    """A lanqi server heard on the LAN."""

    name: str
    endpoint: str  # the matchmaker, tcp://ADDRESS:PORT (the address best reached from here)
    version: int
    key: str | None  # the server's public key; None when it announced none
    players_online: int | None
    events_port: int | None = None
    addresses: tuple[str, ...] = ()  # every address it announced
    instance: str = ""  # the DNS-SD instance name (unique on the LAN)

    @property
    def address(self) -> str:
        """``HOST:PORT`` of the matchmaker, as a person would type it."""
        return self.endpoint[len("tcp://") :]


def txt_record(*, name: str, events_port: int, key: str | None, players: int) -> dict[str, str]:
    """The TXT fields a server announces (its request port is the SRV record's)."""
    return {
        "v": str(PROTOCOL_VERSION),
        "name": cut(name, MAX_NAME_BYTES),
        "key": key or "",
        "events": str(events_port),
        "players": str(players),
    }


def _text(properties: Mapping[bytes, bytes | None], field: str) -> str | None:
    value = properties.get(field.encode())
    if value is None:
        return None
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _number(properties: Mapping[bytes, bytes | None], field: str) -> int | None:
    text = _text(properties, field)
    return int(text) if text is not None and text.isascii() and text.isdigit() else None


def parse_txt(
    properties: Mapping[bytes, bytes | None], fallback_name: str = ""
) -> TxtFields | None:
    """A TXT record read back; ``None`` when it is not a lanqi server's (no version).

    Fields it does not know are ignored, so a newer server's record still reads.

    >>> parse_txt({b"v": b"1", b"name": b"\\xe8\\xb1\\xa1", b"key": b"", b"players": b"x"})
    TxtFields(name='象', version=1, key=None, events_port=None, players_online=None)
    >>> parse_txt({b"name": b"no version"}) is None
    True
    """
    version = _number(properties, "v")
    if version is None:
        return None
    return TxtFields(
        name=_text(properties, "name") or fallback_name,
        version=version,
        key=_text(properties, "key") or None,
        events_port=_number(properties, "events"),
        players_online=_number(properties, "players"),
    )


def choose_address(addresses: Sequence[str], networks: Sequence[str]) -> str | None:
    """The address to reach a server at: the first on one of our own networks
    (``networks`` as ``ADDRESS/PREFIX``), else the first one announced.

    >>> choose_address(["10.1.0.5", "192.168.1.20"], ["192.168.1.7/24"])
    '192.168.1.20'
    >>> choose_address(["10.1.0.5"], ["192.168.1.7/24"])
    '10.1.0.5'
    >>> choose_address([], []) is None
    True
    """
    nets = [ipaddress.ip_interface(n).network for n in networks]
    for address in addresses:
        ip = ipaddress.ip_address(address)
        if any(ip.version == net.version and ip in net for net in nets):
            return address
    return addresses[0] if addresses else None


def lan_addresses() -> list[str]:
    """This machine's IPv4 interface addresses as ``ADDRESS/PREFIX``, loopback left out."""
    found = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if ip.is_IPv4 and isinstance(ip.ip, str) and not ip.ip.startswith("127."):
                found.append(f"{ip.ip}/{ip.network_prefix}")
    return found


def cut(text: str, size: int) -> str:
    """``text`` cut to at most ``size`` bytes of UTF-8, on a character boundary.

    >>> cut("象棋", 4)
    '象'
    """
    return text.encode("utf-8")[:size].decode("utf-8", errors="ignore")


def instance_label(name: str) -> str:
    """An instance name from an event name: no dots, at most 63 bytes of UTF-8."""
    return cut(name.replace(".", " ").strip() or "lanqi", MAX_LABEL_BYTES)


def default_event_name() -> str:
    return f"lanqi on {socket.gethostname()}"


class Announcer:
    """Keeps one server announced while it runs: ``start()``, ``stop()`` (goodbye).

    ``addresses`` are the ones announced (default: every LAN address of the machine);
    ``public_key`` and ``players_online`` are asked again every :data:`REFRESH_S`
    seconds and a change is announced at once.
    """

    def __init__(
        self,
        *,
        name: str,
        port: int,
        events_port: int,
        public_key: Callable[[], str | None] | str | None = None,
        players_online: Callable[[], int] = lambda: 0,
        addresses: Sequence[str] | None = None,
    ) -> None:
        self.name = name
        self.port = port
        self.events_port = events_port
        self._key = public_key
        self._players = players_online
        self.addresses = (
            list(addresses)
            if addresses is not None
            else [a.partition("/")[0] for a in lan_addresses()]
        )
        self.instance = ""  # the instance name the LAN accepted (set once registered)
        self._stop = threading.Event()
        self._registered = threading.Event()
        self._settled = threading.Event()  # registered, or failed
        self._thread: threading.Thread | None = None
        self.error: str | None = None

    def key(self) -> str | None:
        return self._key() if callable(self._key) else self._key

    def ready_line(self) -> str:
        """The line a server prints after its ready line, on a line of its own (call it
        after :meth:`wait_registered`: it says whether the LAN has the name yet)."""
        if self.error:
            return f"\n{self.error}; clients can still type the address"
        where = ", ".join(f"{address}:{self.port}" for address in self.addresses)
        done = "announced" if self._registered.is_set() else "announcing (name not confirmed yet)"
        return f"\n{done} on the LAN as {self.name!r} at {where or 'no LAN address'}"

    def _info(self, instance: str, players: int, key: str | None) -> ServiceInfo:
        return ServiceInfo(
            SERVICE_TYPE,
            instance,
            port=self.port,
            properties=txt_record(
                name=self.name,
                events_port=self.events_port,
                key=key,
                players=players,
            ),
            server=f"{socket.gethostname().split('.')[0]}.local.",
            parsed_addresses=self.addresses,
        )

    def start(self) -> None:
        """Announce on a thread of its own (probing the name takes a second or two)."""
        self._thread = threading.Thread(target=self._run, name="lanqi-announce", daemon=True)
        self._thread.start()

    def wait_registered(self, timeout: float) -> bool:
        """Wait until the LAN accepted the name (True) or announcing failed or timed
        out (False)."""
        self._settled.wait(timeout)
        return self._registered.is_set()

    def _run(self) -> None:
        try:
            zc = Zeroconf(ip_version=IPVersion.V4Only)
        except OSError as exc:
            self.error = f"cannot announce on the LAN: {exc}"
            log.warning("%s", self.error)
            self._settled.set()
            return
        try:
            shown = (self._players(), self.key())  # what the record says
            info = self._info(f"{instance_label(self.name)}.{SERVICE_TYPE}", *shown)
            zc.register_service(info, allow_name_change=True)
            self.instance = info.name
            self._registered.set()
            self._settled.set()
            log.info("announced %r on the LAN at %s", self.instance, ", ".join(self.addresses))
            while not self._stop.wait(REFRESH_S):
                now = (self._players(), self.key())
                if now != shown:
                    shown = now
                    info = self._info(info.name, *shown)
                    zc.update_service(info)
            zc.unregister_service(info)  # the goodbye: browsers drop it at once
        except Exception as exc:  # never take the server down with the announcement
            self.error = f"cannot announce on the LAN: {exc}"
            log.warning("%s", self.error, exc_info=True)
        finally:
            self._settled.set()
            zc.close()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)


class ServerBrowser:
    """Listens for lanqi servers on a thread of its own until :meth:`close`.

    :meth:`servers` is what was heard so far (cheap: a copy under a lock, fit for every
    frame of a GUI); :meth:`wait` blocks until a condition on them holds.
    """

    def __init__(self) -> None:
        self._found: dict[str, DiscoveredServer] = {}
        self._changed = threading.Condition()
        self._names: queue.Queue[tuple[str, bool]] = queue.Queue()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.error: str | None = None
        self.version = 0  # goes up with every change of the list
        self._last_change = 0.0

    def start(self) -> ServerBrowser:
        self._thread = threading.Thread(target=self._run, name="lanqi-browse", daemon=True)
        self._thread.start()
        return self

    def __enter__(self) -> ServerBrowser:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close(wait=True)

    def servers(self) -> list[DiscoveredServer]:
        """The servers heard, by name."""
        with self._changed:
            return sorted(self._found.values(), key=lambda s: (s.name.casefold(), s.endpoint))

    def wait(
        self, predicate: Callable[[list[DiscoveredServer]], bool], timeout: float
    ) -> list[DiscoveredServer]:
        """The servers once ``predicate`` holds for them, or when ``timeout`` is over."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                found = self.servers()
                left = deadline - time.monotonic()
                if predicate(found) or left <= 0 or self.error is not None:
                    return found
                self._changed.wait(left)

    def settle(self, window: float, quiet: float) -> list[DiscoveredServer]:
        """The servers heard once none was new for ``quiet`` seconds after the first
        answer, or at the end of ``window`` when none answers."""
        deadline = time.monotonic() + window
        with self._changed:
            while self.error is None:
                now = time.monotonic()
                if now >= deadline or (self._found and now - self._last_change >= quiet):
                    break
                wake = min(deadline, self._last_change + quiet) if self._found else deadline
                self._changed.wait(wake - now)
            return self.servers()

    def _on_change(
        self,
        zeroconf: Zeroconf,
        service_type: str,
        name: str,
        state_change: ServiceStateChange,
    ) -> None:
        self._names.put((name, state_change is not ServiceStateChange.Removed))

    def _run(self) -> None:
        try:
            zc = Zeroconf(ip_version=IPVersion.V4Only)
        except OSError as exc:
            self.error = f"cannot listen on the LAN: {exc}"
            with self._changed:
                self._changed.notify_all()
            return
        browser = ServiceBrowser(zc, SERVICE_TYPE, handlers=[self._on_change])
        try:
            networks = lan_addresses()
            while not self._stop.is_set():
                try:
                    name, present = self._names.get(timeout=0.1)
                except queue.Empty:
                    continue
                found = self._resolve(zc, name, networks) if present else None
                with self._changed:
                    if found is None:
                        self._found.pop(name, None)
                    else:
                        self._found[name] = found
                    self.version += 1
                    self._last_change = time.monotonic()
                    self._changed.notify_all()
        finally:
            browser.cancel()
            zc.close()

    def _resolve(self, zc: Zeroconf, name: str, networks: list[str]) -> DiscoveredServer | None:
        info = zc.get_service_info(SERVICE_TYPE, name, timeout=2000)
        if info is None or info.port is None:
            log.debug("no answer about %s", name)
            return None
        fields = parse_txt(info.properties, fallback_name=name.removesuffix("." + SERVICE_TYPE))
        addresses = info.parsed_addresses()
        address = choose_address(addresses, networks)
        if fields is None or address is None:
            log.debug("%s is not a lanqi server we can reach (%s)", name, addresses)
            return None
        return DiscoveredServer(
            name=fields.name,
            endpoint=tcp(address, info.port),
            version=fields.version,
            key=fields.key,
            players_online=fields.players_online,
            events_port=fields.events_port,
            addresses=tuple(addresses),
            instance=name,
        )

    def close(self, *, wait: bool = False) -> None:
        """Stop listening; ``wait`` for the thread to let go of the network (else it
        does so within a moment, which keeps a GUI frame short)."""
        self._stop.set()
        if wait and self._thread is not None:
            self._thread.join(timeout=5)


def browse(
    window: float = BROWSE_WINDOW_S, *, quiet: float = SETTLE_S, first: bool = False
) -> list[DiscoveredServer]:
    """The lanqi servers heard: all that answer (listening until none was new for
    ``quiet`` seconds, at most ``window`` seconds), or only the first one (``first``).

    Raises ``OSError`` when this machine cannot listen for multicast DNS at all.
    """
    with ServerBrowser() as browser:
        found = browser.wait(bool, window) if first else browser.settle(window, quiet)
        if browser.error is not None:
            raise OSError(browser.error)
        return found
