"""``--web-tls``: a self-signed certificate made once in the data directory.

The certificate is made with the ``openssl`` command (on every Linux and macOS;
no Python package for it), kept as ``web-cert.pem`` / ``web-key.pem`` and reused;
its SHA-256 fingerprint is what people compare with the one their browser shows.
"""

from __future__ import annotations

import hashlib
import shutil
import ssl
import subprocess
from pathlib import Path

__all__ = ["TlsError", "certificate", "fingerprint", "server_context"]

CERT_FILE = "web-cert.pem"
KEY_FILE = "web-key.pem"


class TlsError(Exception):
    """No certificate could be made or loaded (one line that says what to do)."""


def certificate(folder: Path) -> tuple[Path, Path]:
    """The certificate and key files in ``folder``, made on first use."""
    cert, key = folder / CERT_FILE, folder / KEY_FILE
    if cert.exists() and key.exists():
        return cert, key
    openssl = shutil.which("openssl")
    if openssl is None:
        raise TlsError("--web-tls needs the openssl command; install it (apt install openssl)")
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [
            openssl,
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-days",
            "3650",
            "-subj",
            "/CN=lanqi web",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise TlsError(f"openssl could not make a certificate: {done.stderr.strip()[:200]}")
    key.chmod(0o600)
    return cert, key


def fingerprint(cert: Path) -> str:
    """The certificate's SHA-256 fingerprint as browsers show it (``AB:CD:...``)."""
    der = ssl.PEM_cert_to_DER_cert(cert.read_text("ascii"))
    digest = hashlib.sha256(der).hexdigest().upper()
    return ":".join(digest[i : i + 2] for i in range(0, len(digest), 2))


def server_context(folder: Path) -> tuple[ssl.SSLContext, str]:
    """A TLS server context with the data directory's certificate, and its fingerprint."""
    cert, key = certificate(folder)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return context, fingerprint(cert)
