"""The GUI's sounds, synthesised here: no recorded or copied audio.

Each sound is a few damped sine partials and, for the wooden ones, a short
burst of filtered noise (a seeded generator, so the files come out the same
byte for byte on every run).  The results are small 16-bit mono WAV files in
``lanqi/gui/assets/sounds/`` shipped with the package; a test checks that this
module still makes exactly the shipped files.  To make them again after
changing a recipe::

    python -m lanqi.gui.synth            # writes frontends/lanqi/gui/assets/sounds/*.wav

Only the standard library: ``math``, ``random``, ``array`` and ``wave``.
"""

from __future__ import annotations

import array
import io
import math
import random
import sys
import wave
from collections.abc import Callable, Sequence
from pathlib import Path

__all__ = ["RATE", "SOUNDS", "render", "wav_bytes", "write_all"]

RATE = 22050

#: (frequency in Hz, amplitude, decay per second) of one partial
Partial = tuple[float, float, float]


def _tone(samples: list[float], start: float, partials: Sequence[Partial], length: float) -> None:
    """Add decaying sine partials from ``start`` seconds on (with a 2 ms attack)."""
    first = round(start * RATE)
    count = min(len(samples) - first, round(length * RATE))
    attack = 0.002 * RATE
    for i in range(count):
        t = i / RATE
        ramp = min(1.0, i / attack)
        value = 0.0
        for freq, amp, decay in partials:
            value += amp * math.exp(-decay * t) * math.sin(2 * math.pi * freq * t)
        samples[first + i] += ramp * value


def _knock(samples: list[float], start: float, amp: float, seed: int, bright: float) -> None:
    """Add a short burst of low-passed noise: the attack of wood hitting wood."""
    rng = random.Random(seed)
    first = round(start * RATE)
    count = min(len(samples) - first, round(0.012 * RATE))
    low = 0.0
    for i in range(count):
        low += bright * (rng.uniform(-1.0, 1.0) - low)
        samples[first + i] += amp * low * math.exp(-i / (0.003 * RATE))


def _move() -> list[float]:
    """A piece put down on a wooden board: a short, low 'tock'."""
    s = [0.0] * round(0.12 * RATE)
    _tone(s, 0.0, [(196.0, 0.55, 38.0), (415.0, 0.30, 55.0), (1180.0, 0.12, 120.0)], 0.12)
    _knock(s, 0.0, 0.5, seed=1, bright=0.35)
    return s


def _capture() -> list[float]:
    """A capture: the taken piece knocked aside, then a harder 'tock'."""
    s = [0.0] * round(0.2 * RATE)
    _tone(s, 0.0, [(260.0, 0.30, 60.0), (690.0, 0.15, 90.0)], 0.06)
    _knock(s, 0.0, 0.35, seed=2, bright=0.5)
    _tone(s, 0.05, [(165.0, 0.70, 30.0), (370.0, 0.35, 48.0), (1020.0, 0.15, 110.0)], 0.15)
    _knock(s, 0.05, 0.6, seed=3, bright=0.4)
    return s


def _stone() -> list[float]:
    """A gomoku stone on the board: a bright, short click."""
    s = [0.0] * round(0.1 * RATE)
    _tone(s, 0.0, [(1320.0, 0.35, 70.0), (2870.0, 0.20, 110.0), (620.0, 0.25, 60.0)], 0.1)
    _knock(s, 0.0, 0.45, seed=4, bright=0.8)
    return s


def _bell(freq: float, amp: float) -> list[Partial]:
    return [(freq, amp, 7.0), (freq * 2.0, amp * 0.35, 11.0), (freq * 3.01, amp * 0.12, 16.0)]


def _check() -> list[float]:
    """Check (将军): two rising bell notes."""
    s = [0.0] * round(0.5 * RATE)
    _tone(s, 0.0, _bell(784.0, 0.4), 0.5)
    _tone(s, 0.11, _bell(1047.0, 0.45), 0.39)
    return s


def _end() -> list[float]:
    """The end of a game (won, lost or drawn): a rising arpeggio (C E G C)."""
    s = [0.0] * round(0.95 * RATE)
    for i, freq in enumerate((523.25, 659.25, 783.99, 1046.5)):
        start = 0.13 * i
        _tone(s, start, _bell(freq, 0.32), 0.95 - start)
    return s


#: sound name -> its recipe; the file is ``<name>.wav``
SOUNDS: dict[str, Callable[[], list[float]]] = {
    "move": _move,
    "capture": _capture,
    "stone": _stone,
    "check": _check,
    "end": _end,
}


def render(name: str) -> array.array[int]:
    """The sound ``name`` as 16-bit samples, scaled to a peak of about 70 % and
    faded out over its last 10 ms."""
    samples = SOUNDS[name]()
    peak = max(abs(v) for v in samples) or 1.0
    fade = round(0.01 * RATE)
    out = array.array("h")
    n = len(samples)
    for i, value in enumerate(samples):
        gain = min(1.0, (n - i) / fade)
        out.append(round(value / peak * 0.7 * 32767 * gain))
    return out


def wav_bytes(name: str) -> bytes:
    """The WAV file of the sound ``name`` (mono, 16 bit, :data:`RATE` Hz)."""
    pcm = render(name)
    if sys.byteorder == "big":
        pcm.byteswap()
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes(pcm.tobytes())
    return buffer.getvalue()


def write_all(folder: Path) -> list[Path]:
    """Write every sound into ``folder``; the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in SOUNDS:
        path = folder / f"{name}.wav"
        path.write_bytes(wav_bytes(name))
        paths.append(path)
    return paths


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent / "assets" / "sounds"
    for written in write_all(target):
        print(f"{written} {written.stat().st_size} bytes")
