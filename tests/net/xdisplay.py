"""A real X display for a GUI under test: an ``Xvfb`` server, keys and the pointer
driven through the XTEST extension (``libXtst``, by ctypes: what ``xdotool`` does,
with nothing to install), and screenshots with ImageMagick's ``import``.

A program in another network namespace reaches the display through its socket file,
``/tmp/.X11-unix/X<n>``: X11's abstract unix socket (which Xlib tries first) belongs
to the namespace the server runs in, and Xlib falls back to the file by itself, so
``DISPLAY=:<n>`` works on both sides of a :class:`~lanqi.bench.wan.Wan`.

- :func:`unavailable`: why no display can be made here, or None (tests skip).
- :class:`XDisplay`: ``with XDisplay(tmp) as x: x.keys("Left", "Return"); x.shot(path)``.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import shutil
import subprocess
import time
from pathlib import Path
from types import TracebackType
from typing import Self

__all__ = ["XDisplay", "unavailable"]

SOCKETS = Path("/tmp/.X11-unix")
#: display numbers tried, above the ones people and CI runners tend to take
NUMBERS = range(140, 240)


def unavailable() -> str | None:
    """Why an :class:`XDisplay` cannot be made on this machine, or None."""
    for program, package in (("Xvfb", "xvfb"), ("import", "imagemagick")):
        if shutil.which(program) is None:
            return f"no `{program}` (install {package})"
    if ctypes.util.find_library("Xtst") is None:
        return "no libXtst (install libxtst6)"
    return None


class XDisplay:
    """An Xvfb display of ``size`` (see the module); stopped on exit."""

    def __init__(self, logs: Path, size: tuple[int, int] = (1024, 768)) -> None:
        self.logs = logs
        self.size = size
        self.number = -1
        self._server: subprocess.Popen[bytes] | None = None
        self._x11 = ctypes.CDLL(ctypes.util.find_library("X11") or "libX11.so.6")
        self._xtst = ctypes.CDLL(ctypes.util.find_library("Xtst") or "libXtst.so.6")
        self._x11.XOpenDisplay.restype = ctypes.c_void_p
        self._x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
        self._x11.XStringToKeysym.restype = ctypes.c_ulong
        self._x11.XStringToKeysym.argtypes = [ctypes.c_char_p]
        self._x11.XKeysymToKeycode.restype = ctypes.c_ubyte
        self._x11.XKeysymToKeycode.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
        self._x11.XSync.argtypes = [ctypes.c_void_p, ctypes.c_int]
        self._x11.XCloseDisplay.argtypes = [ctypes.c_void_p]
        self._x11.XAutoRepeatOff.argtypes = [ctypes.c_void_p]
        self._xtst.XTestFakeKeyEvent.argtypes = [
            ctypes.c_void_p, ctypes.c_uint, ctypes.c_int, ctypes.c_ulong
        ]  # fmt: skip
        self._xtst.XTestFakeMotionEvent.argtypes = [
            ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_ulong
        ]  # fmt: skip
        self._display: int | None = None

    @property
    def name(self) -> str:
        """The ``DISPLAY`` value for programs on this display."""
        return f":{self.number}"

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
        """Start Xvfb on the first free display number and connect to it."""
        self.logs.mkdir(parents=True, exist_ok=True)
        width, height = self.size
        for number in NUMBERS:
            if (SOCKETS / f"X{number}").exists() or Path(f"/tmp/.X{number}-lock").exists():
                continue
            log = (self.logs / f"xvfb-{number}.log").open("wb")
            server = subprocess.Popen(
                ["Xvfb", f":{number}", "-screen", "0", f"{width}x{height}x24", "-nolisten", "tcp"],
                stdout=log,
                stderr=log,
            )
            log.close()
            deadline = time.monotonic() + 30
            while server.poll() is None and time.monotonic() < deadline:
                display = self._x11.XOpenDisplay(f":{number}".encode())
                if display:
                    self._server, self.number, self._display = server, number, display
                    # a key held past the repeat delay (a loaded machine between our
                    # press and release) must not type itself again
                    self._x11.XAutoRepeatOff(display)
                    self._x11.XSync(display, 0)
                    return
                time.sleep(0.1)
            server.kill()
            server.wait()
        raise OSError(f"no free X display in :{NUMBERS.start}-:{NUMBERS.stop - 1}")

    def pointer(self, x: int, y: int) -> None:
        """Move the pointer to ``(x, y)`` (the window under it takes the keys)."""
        self._xtst.XTestFakeMotionEvent(self._display, -1, x, y, 0)
        self._x11.XSync(self._display, 0)

    def keys(self, *names: str, gap_s: float = 0.02) -> None:
        """Press and release each key, named as X names them (``Left``, ``Return``, ``y``)."""
        assert self._display is not None
        for key in names:
            code = self._x11.XKeysymToKeycode(
                self._display, self._x11.XStringToKeysym(key.encode())
            )
            if not code:
                raise ValueError(f"no key {key!r} on this display")
            # press and release in one request: the program reads them together
            self._xtst.XTestFakeKeyEvent(self._display, code, 1, 0)
            self._xtst.XTestFakeKeyEvent(self._display, code, 0, 0)
            self._x11.XSync(self._display, 0)
            time.sleep(gap_s)

    def shot(self, path: Path) -> Path:
        """The whole screen as a PNG (``import -window root``)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["import", "-display", self.name, "-window", "root", str(path)],
            check=True,
            capture_output=True,
            timeout=60,
        )
        return path

    def close(self) -> None:
        if self._display is not None:
            self._x11.XCloseDisplay(self._display)
            self._display = None
        if self._server is not None:
            self._server.terminate()
            try:
                self._server.wait(10)
            except subprocess.TimeoutExpired:
                self._server.kill()
                self._server.wait()
            self._server = None
