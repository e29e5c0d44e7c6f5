"""A match's autosave: the state file ``lanqi match -resume FILE`` continues from.

After every finished game the match rewrites the file atomically (a temporary file
beside it, ``fsync``, ``rename``), so a ``kill -9`` at any moment leaves either the
state before that game or the state after it, never half of one.  The file holds
the match's own arguments (and the directory they were given in), every finished
game (its number, round, seats, pair, opening, result and termination) and the
size of the PGN file after the last of them; the pentanomial counts, the LLR and
the next game are written beside them for a person to read (they are derived from
the games again on resume).  See docs/engines.md, "Resuming a match".
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lanqi.match.config import MatchConfigError

__all__ = ["FORMAT", "FinishedGame", "MatchState", "StateFileError", "load_state", "save_state"]

FORMAT = "lanqi match state"
VERSION = 1


class StateFileError(MatchConfigError):
    """The file is not a state file this lanqi can resume (corrupt or foreign)."""


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """A game that counts: it is never played again on resume."""

    number: int
    round: int
    seats: tuple[int, int]
    pair: int
    opening: str | None
    result: str
    termination: str


@dataclass(slots=True)
class MatchState:
    #: the match's arguments as given (``-resume`` replays them) and where
    argv: list[str]
    cwd: str
    games: list[FinishedGame] = field(default_factory=list)
    #: record file -> its size in bytes after the last finished game's record
    records: dict[str, int] = field(default_factory=dict)


def save_state(path: Path, state: MatchState, **derived: Any) -> None:
    """Write ``state`` (and ``derived`` figures for a person) to ``path`` atomically."""
    data = {
        "format": FORMAT,
        "version": VERSION,
        "argv": state.argv,
        "cwd": state.cwd,
        **derived,
        "records": state.records,
        "games": [
            {
                "number": g.number,
                "round": g.round,
                "seats": list(g.seats),
                "pair": g.pair,
                "opening": g.opening,
                "result": g.result,
                "termination": g.termination,
            }
            for g in state.games
        ],
    }
    path = path.resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out, indent=1, ensure_ascii=False)
            out.write("\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def load_state(path: Path) -> MatchState:
    """The state in ``path``; :class:`StateFileError` in one line when it is not one."""
    refuse = f"{path} is not a lanqi match state file"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise StateFileError(f"cannot read {path}: {exc.strerror}") from None
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise StateFileError(
            f"{refuse} (not JSON); start the match again without -resume"
        ) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise StateFileError(f"{refuse} (no 'format': {FORMAT!r}); check the file name")
    if data.get("version") != VERSION:
        raise StateFileError(
            f"{path} is a version {data.get('version')!r} state file; "
            f"this lanqi resumes version {VERSION}"
        )
    try:
        argv = [str(w) for w in data["argv"]]
        if not all(isinstance(w, str) for w in data["argv"]):
            raise TypeError("argv")
        games = [
            FinishedGame(
                number=int(g["number"]),
                round=int(g["round"]),
                seats=(int(g["seats"][0]), int(g["seats"][1])),
                pair=int(g["pair"]),
                opening=None if g["opening"] is None else str(g["opening"]),
                result=str(g["result"]),
                termination=str(g["termination"]),
            )
            for g in data["games"]
        ]
        records = {str(k): int(v) for k, v in data["records"].items()}
        cwd = str(data["cwd"])
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        raise StateFileError(f"{refuse} (damaged: a field is missing or wrong)") from None
    numbers = [g.number for g in games]
    if len(set(numbers)) != len(numbers):
        raise StateFileError(f"{refuse} (damaged: a game is listed twice)")
    return MatchState(argv=argv, cwd=cwd, games=games, records=records)
