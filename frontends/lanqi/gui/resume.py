"""Unfinished games on this computer, kept to be resumed from the menu.

A two-player or vs-computer game that has moves and no result is written to
``<data dir>/unfinished/<id>.json`` after every move, when its screen is left and
when the window closes; a game that ends (or goes back to no moves) is dropped.
The menu offers the newest one (:func:`latest`); resuming it restores the moves
from the start position, the clocks as they stood, and the AI's level and side.
No pygame here.
"""

from __future__ import annotations

import json
import logging
import uuid
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lanqi.gui.model import seat_name
from lanqi.gui.sessions import AISession, LocalSession, Session
from lanqi.i18n import tr

__all__ = [
    "FOLDER",
    "KEEP",
    "Unfinished",
    "drop",
    "find",
    "keep",
    "latest",
    "load",
    "new_id",
    "of_session",
]

log = logging.getLogger(__name__)

FOLDER = "unfinished"
#: at most this many unfinished games are kept (the oldest go first)
KEEP = 8
_VERSION = 1


def new_id() -> str:
    """A name for a new game's file."""
    return uuid.uuid4().hex[:12]


@dataclass(frozen=True, slots=True)
class Unfinished:
    """Everything needed to set an offline game up again exactly as it was left."""

    id: str
    kind: str  # "local" (two players) or "ai"
    variant: str
    moves: list[str]
    players: list[str]
    options: dict[str, Any] = field(default_factory=dict)
    start_fen: str | None = None
    time_control: str = "none"
    #: each clock's time left when it was kept (None: untimed)
    remaining_ms: list[float] | None = None
    #: against the AI: its level, your seat and its thinking time per move
    ai_level: int | None = None
    human_seat: int = 0
    ai_time_ms: int | None = None
    saved_at: str = ""

    @property
    def side(self) -> str:
        """Your side against the AI as the offline destination names it."""
        return "first" if self.human_seat == 0 else "second"

    def describe(self) -> str:
        """One line for the menu: the game, the opponent, the moves played."""
        from lanqi.gui.variants import variant_ui  # pygame: only when it is shown

        title = variant_ui(self.variant).title
        if self.kind == "ai":
            side = seat_name(self.variant, self.human_seat).lower()
            who = f"{tr('resume.ai', level=self.ai_level)}, {tr(f'you_play.{side}')}"
        else:
            who = tr("resume.two_players")
        return f"{title} · {who} · {tr('resume.moves', n=len(self.moves))}"


def of_session(session: Session, game_id: str) -> Unfinished | None:
    """The session's game to keep, or None when there is nothing to keep (an online
    or review session, a game with no moves or with a result)."""
    if not isinstance(session, LocalSession) or not session.unfinished():
        return None
    model = session.model
    remaining = session.remaining_ms()
    ai = isinstance(session, AISession)
    return Unfinished(
        id=game_id,
        kind="ai" if ai else "local",
        variant=model.variant,
        moves=list(model.moves),
        players=list(model.players),
        options=dict(model.options),
        start_fen=model.start_fen,
        time_control=session.time_text,
        remaining_ms=list(remaining) if remaining is not None else None,
        ai_level=session.level if isinstance(session, AISession) else None,
        human_seat=session.human_seat if isinstance(session, AISession) else 0,
        ai_time_ms=session.ai_time_ms if isinstance(session, AISession) else None,
        saved_at=datetime.now(UTC).isoformat(timespec="milliseconds"),
    )


def _path(data_dir: Path, game_id: str) -> Path:
    return data_dir / FOLDER / f"{game_id}.json"


def keep(data_dir: Path, game: Unfinished) -> None:
    """Write ``game`` (replacing its earlier state); errors are logged, not raised."""
    path = _path(data_dir, game.id)
    data = {"version": _VERSION, **asdict(game)}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        log.warning("cannot keep the unfinished game in %s: %s", path, exc)
        return
    for old in _all(data_dir)[KEEP:]:
        drop(data_dir, old.id)


def drop(data_dir: Path, game_id: str) -> None:
    """Forget the kept game ``game_id`` (if there is one)."""
    try:
        _path(data_dir, game_id).unlink(missing_ok=True)
    except OSError as exc:
        log.warning("cannot remove the unfinished game %s: %s", game_id, exc)


def load(path: Path) -> Unfinished:
    """The kept game in ``path``; ValueError if it is not one (OSError if unreadable)."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(raw, dict) or raw.pop("version", None) != _VERSION:
        raise ValueError(f"{path.name}: not an unfinished game of this version")
    try:
        game = Unfinished(**raw)
    except TypeError as exc:
        raise ValueError(f"{path.name}: {exc}") from None
    if game.id != path.stem or not all(isinstance(m, str) for m in game.moves):
        raise ValueError(f"{path.name}: damaged")
    return game


def _all(data_dir: Path) -> list[Unfinished]:
    """Every readable kept game, the newest first."""
    games: list[Unfinished] = []
    try:
        paths = list((data_dir / FOLDER).glob("*.json"))
    except OSError:
        return []
    for path in paths:
        try:
            games.append(load(path))
        except (OSError, ValueError) as exc:
            log.warning("ignoring the unfinished game %s: %s", path, exc)
    games.sort(key=lambda g: g.saved_at, reverse=True)
    return games


def latest(data_dir: Path) -> Unfinished | None:
    """The newest kept game, or None."""
    games = _all(data_dir)
    return games[0] if games else None


def find(data_dir: Path, game_id: str) -> Unfinished:
    """The kept game ``game_id``; ValueError if it is gone or unreadable."""
    try:
        return load(_path(data_dir, game_id))
    except OSError as exc:
        raise ValueError(f"the unfinished game is gone: {exc.strerror or exc}") from None
