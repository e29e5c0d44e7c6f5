"""CURVE key pairs: the server's, made once in its data directory, and ephemeral ones.

A server keeps its pair in ``<data-dir>/server_curve.key_secret`` (mode 0600, both
keys) and ``<data-dir>/server_curve.key`` (the public key), in ZeroMQ's certificate
format (:mod:`zmq.auth.certs`), so ``zmq.auth.load_certificate`` reads them.  Keys
travel and are written as Z85 text (40 characters).  People compare keys by their
:func:`fingerprint`.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import zmq
import zmq.auth
import zmq.utils.z85

from lanqi.security.errors import KeyFileError

__all__ = [
    "KEY_NAME",
    "KeyPair",
    "fingerprint",
    "parse_public_key",
    "public_key_file",
    "server_keys",
]

#: the server key pair's file name in a data directory (``.key`` and ``.key_secret``)
KEY_NAME = "server_curve"
Z85_KEY_LEN = 40


@dataclass(frozen=True, slots=True)
class KeyPair:
    """A CURVE key pair, both keys as Z85 bytes."""

    public: bytes
    secret: bytes

    @classmethod
    def ephemeral(cls) -> KeyPair:
        """A fresh pair for one client (never written anywhere)."""
        public, secret = zmq.curve_keypair()
        return cls(public, secret)

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public)


def fingerprint(public_key: str | bytes) -> str:
    """The short form of a public key people compare: the first 16 hex digits of the
    SHA-256 of its Z85 text, in groups of four.

    >>> fingerprint("rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7")
    '8411-2785-d109-2a7e'
    """
    text = public_key.encode("ascii") if isinstance(public_key, str) else public_key
    digest = hashlib.sha256(text).hexdigest()[:16]
    return "-".join(digest[i : i + 4] for i in range(0, 16, 4))


def public_key_file(data_dir: Path) -> Path:
    """Where a data directory keeps its server's public key (for ``--allow-key FILE``)."""
    return data_dir / f"{KEY_NAME}.key"


def server_keys(data_dir: Path) -> KeyPair:
    """The server key pair of ``data_dir``: made the first time (secret file mode
    0600), read afterwards.  Two processes starting at once end with one pair."""
    secret_file = data_dir / f"{KEY_NAME}.key_secret"
    try:
        if not secret_file.exists():
            _make(data_dir, secret_file)
        public, secret = zmq.auth.load_certificate(secret_file)
    except OSError as exc:
        raise KeyFileError(
            f"cannot keep the server key in {data_dir} ({exc.strerror}); use --data-dir"
            " (or $LANQI_DATA_DIR) with a writable directory"
        ) from exc
    except ValueError as exc:
        raise KeyFileError(
            f"{secret_file} is not a key file ({exc}); move it away and a new key is made"
            " (clients that pinned the old one must `lanqi servers forget` this server)"
        ) from exc
    if secret is None:
        raise KeyFileError(f"{secret_file} holds no secret key; move it away to make a new one")
    pair = KeyPair(public, secret)
    _write_public(data_dir, pair.public)
    return pair


def _make(data_dir: Path, secret_file: Path) -> None:
    """Make a pair in a private folder, then link the secret file into place (which
    fails if another process was first: its pair is kept)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".keys-", dir=data_dir))  # mode 0700
    try:
        _, made = zmq.auth.create_certificates(scratch, KEY_NAME)
        os.chmod(made, 0o600)
        with contextlib.suppress(FileExistsError):  # another process was first
            os.link(made, secret_file)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _write_public(data_dir: Path, public: bytes) -> None:
    """Keep ``<KEY_NAME>.key`` (the public half) in step with the secret file."""
    path = public_key_file(data_dir)
    try:
        if path.exists() and zmq.auth.load_certificate(path)[0] == public:
            return
    except ValueError:
        pass  # not a key file: written again below
    text = (
        "#   lanqi server public key (CURVE); give it to referees: --allow-key FILE\n"
        f'curve\n    public-key = "{public.decode("ascii")}"\n'
    )
    scratch = path.with_name(f".{path.name}.{os.getpid()}")
    scratch.write_text(text, encoding="utf-8")
    os.chmod(scratch, 0o644)
    os.replace(scratch, path)


def parse_public_key(text: str) -> bytes:
    """A public key from a command line: its Z85 text, or a key file (a ``.key``
    certificate such as a data directory's ``server_curve.key``).  ValueError (one
    line) otherwise."""
    raw = text.strip()
    if len(raw) == Z85_KEY_LEN and _is_z85(raw):
        return raw.encode("ascii")
    path = Path(raw).expanduser()
    if path.is_file():
        try:
            return zmq.auth.load_certificate(path)[0]
        except (OSError, ValueError) as exc:
            raise ValueError(f"{path} holds no public key ({exc})") from None
    raise ValueError(
        f"{text!r} is neither a key (40 characters of Z85, as `lanqi key` prints) nor a key file"
    )


def _is_z85(text: str) -> bool:
    try:
        zmq.utils.z85.decode(text)
    except (ValueError, KeyError, IndexError):
        return False
    return True
