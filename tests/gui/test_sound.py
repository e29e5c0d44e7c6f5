"""Sounds: which one each change of a game calls for, the mute switch, the mixer failing soft,
and the shipped files being the ones lanqi.gui.synth makes."""

from __future__ import annotations

import json
import wave
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

pygame = pytest.importorskip("pygame")

from lanqi.games.registry import create_game  # noqa: E402
from lanqi.gui.model import GameModel  # noqa: E402
from lanqi.gui.sound import Cues, Sound, sound_for  # noqa: E402
from lanqi.i18n import tr  # noqa: E402

if TYPE_CHECKING:
    from tests.gui.conftest import CatalogueWatch, Driver

#: quiet, quiet, a cannon checks (no capture), an elephant blocks, the cannon takes it
XIANGQI_LINE = [
    ("b2b4", Sound.MOVE),
    ("g6g5", Sound.MOVE),
    ("b4e4", Sound.CHECK),
    ("g9e7", Sound.MOVE),
    ("e4e7", Sound.CAPTURE),
]


def sounds_of(variant: str, moves: list[str]) -> list[Sound]:
    game = create_game(variant)
    out = []
    for text in moves:
        before = game.position()
        game.push(game.parse_move(text))
        out.append(sound_for(before, game.position(), ended=game.outcome() is not None))
    return out


def test_the_sound_follows_what_the_move_did() -> None:
    assert sounds_of("xiangqi", [m for m, _ in XIANGQI_LINE]) == [s for _, s in XIANGQI_LINE]
    # a capture that gives check sounds as a check
    assert sounds_of("xiangqi", ["h2e2", "h9g7", "e2e6", "c9a7", "b2b9"])[-1] is Sound.CHECK
    # checkmate ends the game
    mate = "b0c2 b9a7 b2a2 f9e8 a2a6 g6g5 a6a9 b7b6 a0b0 c6c5 b0b6 h7h5 b6e6 a7b9 a9c9"
    assert sounds_of("xiangqi", mate.split())[-1] is Sound.END
    # gomoku: every stone, then five in a row ends the game
    five = ["h8", "a1", "i8", "a2", "j8", "a3", "k8", "a4", "l8"]
    assert sounds_of("gomoku", five) == [Sound.STONE] * 8 + [Sound.END]


def test_cues_name_one_sound_per_change_of_the_live_game() -> None:
    from tests.gui.conftest import follow

    model = GameModel("xiangqi")
    cues = Cues()
    assert cues.follow(model) is None  # a game appears: silent
    follow(model, ["h2e2"])
    assert cues.follow(model) is Sound.MOVE
    assert cues.follow(model) is None  # nothing changed
    follow(model, ["h2e2", "h9g7", "e2e6"])
    assert cues.follow(model) is None  # two moves at once (a resync): silent
    follow(model, ["h2e2", "h9g7"])
    assert cues.follow(model) is None  # a takeback: silent
    follow(model, ["h2e2", "h9g7", "e2e6"])
    assert cues.follow(model) is Sound.CAPTURE
    ended = {"status": "finished", "result": "0-1", "termination": "resignation", "winner": 1}
    follow(model, ["h2e2", "h9g7", "e2e6"], **ended)  # an end without a move
    assert cues.follow(model) is Sound.END
    assert cues.follow(model) is None
    assert cues.follow(GameModel("xiangqi")) is None  # a new game: silent


def test_a_hot_seat_game_sounds_each_move_and_m_mutes_for_good(
    gui: Callable[..., Driver], tmp_path: Path
) -> None:
    from lanqi.gui.scenes.base import ToOfflineGame

    driver = gui()
    driver.app.go(ToOfflineGame("xiangqi"))
    driver.frames(2)
    sound = driver.app.sound
    assert sound.available  # SDL's dummy audio driver: a real mixer, every file loaded
    scene = driver.scene
    for move, expected in XIANGQI_LINE:
        driver.play_xiangqi(move)
        driver.frames()
        assert scene.model.moves[-1] == move
        assert sound.played[-1] is expected, (move, list(sound.played))
    assert len(sound.played) == len(XIANGQI_LINE)
    driver.key(pygame.K_r)  # offline resign (R twice): the end of the game
    driver.key(pygame.K_r)
    assert scene.model.finished
    assert sound.played[-1] is Sound.END and len(sound.played) == len(XIANGQI_LINE) + 1
    # M mutes: kept in gui.json, and the next game is silent
    driver.key(pygame.K_m)
    assert scene.session.notices[-1].text == tr("sound_off")
    settings = json.loads((tmp_path / "data" / "gui.json").read_text(encoding="utf-8"))
    assert settings["sound"] is False
    driver.key(pygame.K_g)
    driver.frames()
    driver.play_xiangqi("h2e2")
    driver.frames()
    assert driver.scene.model.moves == ["h2e2"]
    assert len(sound.played) == len(XIANGQI_LINE) + 1
    driver.app.close()
    again = gui()
    assert again.app.sound.muted
    again.app.go(ToOfflineGame("xiangqi"))
    again.frames(2)
    again.key(pygame.K_m)
    assert not again.app.sound.muted and again.app.settings.sound
    assert again.scene.session.notices[-1].text == tr("sound_on")
    again.play_xiangqi("h2e2")
    again.frames()
    assert list(again.app.sound.played) == [Sound.MOVE]


def test_gomoku_stones_and_five_in_a_row(gui: Callable[..., Driver]) -> None:
    from lanqi.games import gomoku
    from lanqi.gui.scenes.base import ToOfflineGame

    driver = gui()
    driver.app.go(ToOfflineGame("gomoku"))
    driver.frames(2)
    n = driver.scene.view.files
    for text in ["h8", "a1", "i8", "a2", "j8", "a3", "k8", "a4", "l8"]:
        move = gomoku.Move.from_text(text, n)
        driver.click_point(move.y * n + move.x)
        driver.frames()
    assert driver.scene.model.termination == "five_in_a_row"
    assert list(driver.app.sound.played) == [Sound.STONE] * 8 + [Sound.END]


def test_no_audio_device_is_one_log_line_and_silence(
    gui: Callable[..., Driver],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    catalogue_only: CatalogueWatch,
) -> None:
    from lanqi.gui.scenes.base import ToOfflineGame

    monkeypatch.setenv("SDL_AUDIODRIVER", "none")  # no such driver: the mixer cannot open
    driver = gui()
    driver.app.go(ToOfflineGame("gomoku"))
    driver.frames(2)
    for text in ("h8", "h9", "i8"):
        driver.scene.session.play(text)
        driver.frames()
    sound = driver.app.sound
    assert not sound.available and sound.problem
    catalogue_only.shown_as_is(sound.problem)  # SDL's own words, shown as they come
    assert list(sound.played) == [Sound.STONE] * 3  # chosen as ever, heard by no one
    lines = [r for r in caplog.records if r.name == "lanqi.gui.sound"]
    assert len(lines) == 1 and lines[0].levelname == "WARNING", lines
    assert lines[0].getMessage().startswith("no sound: ")
    driver.key(pygame.K_m)
    driver.key(pygame.K_m)  # on again: says why it stays silent
    assert driver.scene.session.notices[-1].text.startswith(tr("sound_no_device"))
    assert len([r for r in caplog.records if r.name == "lanqi.gui.sound"]) == 1


def test_the_shipped_sounds_are_the_ones_synth_makes() -> None:
    from lanqi.gui import synth

    folder = resources.files("lanqi.gui").joinpath("assets", "sounds")
    assert set(synth.SOUNDS) == {s.value for s in Sound}
    total = 0
    for sound in Sound:
        data = folder.joinpath(f"{sound.value}.wav").read_bytes()
        assert data == synth.wav_bytes(sound.value), f"{sound}: run python -m lanqi.gui.synth"
        with wave.open(str(folder.joinpath(f"{sound.value}.wav"))) as wav:
            assert (wav.getnchannels(), wav.getsampwidth(), wav.getframerate()) == (1, 2, 22050)
            assert 0.05 < wav.getnframes() / 22050 <= 1.0
        total += len(data)
    assert total < 100_000
