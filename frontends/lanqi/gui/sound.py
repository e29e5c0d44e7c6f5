"""Sounds of the game screen: which one a new position calls for, and playing it.

- :func:`sound_for` decides from what happened, for every variant alike: the
  end of the game, a check (the position's ``check`` marker), a capture (fewer
  tokens on the board than before the move), a stone placed (more), or a quiet
  move.
- :class:`Cues` follows a :class:`~lanqi.gui.model.GameModel` frame by frame
  and names the sound for each change of the live game (one move more, or the
  game just ended); takebacks, a new game and stepping through moves are silent.
- :class:`SoundPlayer` plays them through ``pygame.mixer``.  It fails soft: no
  audio device (or an ``SDL_AUDIODRIVER`` SDL cannot open, or a pygame built
  without its mixer) leaves it silent after one log line.  The mute switch is
  the ``sound`` setting in ``gui.json`` (key ``M`` on the game screen).

The sounds are WAV files made by :mod:`lanqi.gui.synth`, shipped in
``lanqi/gui/assets/sounds/``.
"""

from __future__ import annotations

import enum
import io
import logging
from collections import deque
from importlib import resources

import pygame

from lanqi.games.base import Position
from lanqi.gui.model import GameModel
from lanqi.gui.settings import Settings

__all__ = ["Cues", "Sound", "SoundPlayer", "sound_for"]

log = logging.getLogger(__name__)


class Sound(enum.StrEnum):
    """A sound the game screen plays; the value is its file's name."""

    MOVE = "move"
    CAPTURE = "capture"
    STONE = "stone"
    CHECK = "check"
    END = "end"


def sound_for(before: Position, after: Position, *, ended: bool = False) -> Sound:
    """The sound for the move that turned ``before`` into ``after``.

    The end of the game wins over a check, a check over a capture.

    >>> from lanqi.games.registry import create_game
    >>> game = create_game("gomoku")
    >>> before = game.position()
    >>> _ = game.push_text("h8")
    >>> sound_for(before, game.position())
    <Sound.STONE: 'stone'>
    """
    if ended:
        return Sound.END
    if after.markers.get("check"):
        return Sound.CHECK
    grown = len(after.cells) - len(before.cells)
    if grown < 0:
        return Sound.CAPTURE
    if grown > 0:
        return Sound.STONE
    return Sound.MOVE


class Cues:
    """Follows one game model at a time; :meth:`follow` names the sound for what
    changed since the last call (None when nothing calls for one)."""

    def __init__(self) -> None:
        self._model: GameModel | None = None
        self._version = -1
        self._ply = 0
        self._finished = False
        self._position: Position | None = None

    def follow(self, model: GameModel) -> Sound | None:
        if model is not self._model:  # a new game, a rematch, another record: silent
            self._model = model
            self._version = model.version
            self._ply = model.ply
            self._finished = model.finished
            self._position = model.position()
            return None
        ended = model.finished and not self._finished
        self._finished = model.finished
        if model.version == self._version:
            return Sound.END if ended else None
        before = self._position
        grew = model.ply == self._ply + 1
        self._version, self._ply = model.version, model.ply
        self._position = after = model.position()
        if grew and before is not None:
            return sound_for(before, after, ended=ended)
        return Sound.END if ended else None


class SoundPlayer:
    """Plays the shipped sounds unless muted; silent where there is no audio device.

    ``played`` keeps the names of the last sounds asked for while not muted,
    whether or not a device made them heard (tests read it).
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.played: deque[Sound] = deque(maxlen=50)
        self._sounds: dict[Sound, pygame.mixer.Sound] = {}
        self._tried = False
        #: why there is no sound (after a failed :meth:`open`)
        self.problem = ""

    @property
    def muted(self) -> bool:
        return not self.settings.sound

    @property
    def available(self) -> bool:
        """Is the mixer open with every sound loaded?"""
        return bool(self._sounds)

    def open(self) -> bool:
        """Open the mixer and load the sounds (once); False, logged once, if it cannot."""
        if self._tried:
            return self.available
        self._tried = True
        folder = resources.files("lanqi.gui").joinpath("assets", "sounds")
        try:
            pygame.mixer.init(frequency=22050, size=-16, channels=1, buffer=512)
            self._sounds = {
                sound: pygame.mixer.Sound(
                    file=io.BytesIO(folder.joinpath(f"{sound.value}.wav").read_bytes())
                )
                for sound in Sound
            }
        except (pygame.error, NotImplementedError, ImportError, OSError) as exc:
            self.problem = str(exc) or type(exc).__name__
            log.warning("no sound: %s (the GUI goes on silent)", self.problem)
            self._sounds = {}
            self.close()
            return False
        return True

    def play(self, sound: Sound) -> None:
        if self.muted:
            return
        self.played.append(sound)
        if self.open():
            self._sounds[sound].play()

    def toggle_mute(self) -> bool:
        """Switch sound off or on, remember it in the settings; True if now muted."""
        self.settings.sound = not self.settings.sound
        self.settings.save()
        if not self.muted:
            self.open()
        return self.muted

    def close(self) -> None:
        self._sounds = {}
        try:
            if pygame.mixer.get_init():
                pygame.mixer.quit()
        except (pygame.error, NotImplementedError):  # a pygame without its mixer
            log.debug("no mixer to close")
