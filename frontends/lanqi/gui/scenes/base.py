"""What every scene shares: the :class:`Scene` base, the app as scenes see it, and
the places a scene can send the player to.

Scenes never import each other.  A scene that wants another screen asks the app
for it by destination, a small typed value naming the scene and carrying its
parameters: ``self.app.go(ToLobby())``, ``self.app.go(ToSeat(assignment))``.
The app keeps the table from destination type to the function that makes the
scene (:data:`lanqi.gui.app.ROUTES`); adding a scene is a destination class
here, the scene's module, and one line in that table.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import pygame

from lanqi.gui import theme
from lanqi.gui.model import GameModel
from lanqi.gui.net import LobbyLink
from lanqi.gui.settings import AppConfig, Settings
from lanqi.gui.sound import SoundPlayer
from lanqi.protocol import Assignment, GameSummary

__all__ = [
    "Destination",
    "Host",
    "Scene",
    "ToConnect",
    "ToLobby",
    "ToMenu",
    "ToOfflineGame",
    "ToOpenRecord",
    "ToResume",
    "ToReview",
    "ToSeat",
    "ToWatch",
]


# ================================================================ destinations


@dataclass(frozen=True, slots=True)
class Destination:
    """Where to go: the type names the scene, the fields are its parameters."""


@dataclass(frozen=True, slots=True)
class ToMenu(Destination):
    """The start screen."""


@dataclass(frozen=True, slots=True)
class ToConnect(Destination):
    """The server and name form; ``auto`` connects at once when a name is known."""

    auto: bool = False


@dataclass(frozen=True, slots=True)
class ToLobby(Destination):
    """The lobby of the server the app is connected to."""


@dataclass(frozen=True, slots=True)
class ToOfflineGame(Destination):
    """A game on this computer: two players, or one against the AI (``ai`` = level)."""

    variant: str
    #: the variant's options (``{"size": 19, "rule": "renju"}``); a ``fen`` sets its own size
    options: Mapping[str, object] = field(default_factory=dict)
    ai: int | None = None
    side: str = "first"
    fen: str | None = None
    time_control: str | None = None
    ai_time_ms: int | None = None
    seed: int | None = None


@dataclass(frozen=True, slots=True)
class ToResume(Destination):
    """An unfinished offline game kept in the data directory (:mod:`lanqi.gui.resume`),
    by its id; making it raises ValueError when that game cannot be read."""

    game_id: str


@dataclass(frozen=True, slots=True)
class ToSeat(Destination):
    """The game screen for a seat the matchmaker assigned to us."""

    game: Assignment


@dataclass(frozen=True, slots=True)
class ToWatch(Destination):
    """The game screen watching a live game on ``referee`` (requests, events; default:
    the first referee the app knows; making it raises ValueError without one)."""

    game: GameSummary
    referee: tuple[str, str] | None = None


@dataclass(frozen=True, slots=True)
class ToReview(Destination):
    """The game screen stepping through games read from a record; Esc goes to ``back``."""

    games: tuple[GameModel, ...]
    source: str = ""
    back: Destination = ToMenu()


@dataclass(frozen=True, slots=True)
class ToOpenRecord(Destination):
    """The screen that finds a record to review; ``error`` says why the last one failed."""

    error: str = ""


# ================================================================ the app, as scenes see it


class Host(Protocol):
    """What a scene may use of the app (:class:`lanqi.gui.app.App` is one)."""

    config: AppConfig
    settings: Settings
    screen: pygame.Surface
    lobby: LobbyLink | None
    sound: SoundPlayer

    @property
    def referee_endpoints(self) -> tuple[str, str] | None:
        """Where to watch games: (requests, events) of the referee."""

    @property
    def games_dir(self) -> Path: ...

    @property
    def data_dir(self) -> Path: ...

    def go(self, destination: Destination) -> None:
        """Show the scene for ``destination`` from the next frame on."""

    def quit(self) -> None:
        """Close the window after this frame."""

    def connect(self, server: str, name: str, *, claim: str | None = None) -> LobbyLink:
        """Start a lobby agent for ``server`` as ``name`` (``claim``: a roster entry's code)."""

    def disconnect(self) -> None:
        """Close the lobby agent, if any."""


class Scene:
    """One screen of the GUI."""

    app: Host
    #: the scene shows the lobby's notes itself (the app shows them otherwise)
    shows_lobby_notes = False

    def startup(self, app: Host) -> None:
        self.app = app
        self.layout(app.screen.get_size())

    def layout(self, size: tuple[int, int]) -> None:
        """Place everything for a window of ``size`` (also after a resize)."""

    def handle_event(self, event: pygame.event.Event) -> None:
        """One input event."""

    def close_requested(self) -> bool:
        """The window's close button was pressed: True lets the app quit now; a scene
        with something to lose asks first (and returns False)."""
        return True

    def update(self, dt: float) -> None:
        """Advance ``dt`` seconds."""

    def notice_area(self) -> pygame.Rect | None:
        """Where the app's passing notices and the lost-server line go on this screen
        (None: across the top of the window); a screen with a board keeps them off it."""
        return None

    def frame_key(self) -> Hashable:
        """What the picture depends on besides input events and the window's size.

        The app draws a frame only when an event came or this key differs from the
        one of the last drawn frame, so a scene puts here everything that changes
        its picture by itself: network state, the shown seconds of a clock, an
        animation's progress, a caret's blink.  The default (a new object every
        call) draws every frame."""
        return object()

    def draw(self, surface: pygame.Surface) -> None:
        surface.fill(theme.BACKGROUND)

    def cleanup(self) -> None:
        """The scene is left: stop what it started."""
