"""The shipped font subsets, and what importing the GUI must (not) do."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SOURCE_PATH = os.pathsep.join(str(REPO / part) for part in ("shared", "services", "frontends"))


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": SOURCE_PATH}
    env.pop("DISPLAY", None)
    return subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_font_files_are_small_licensed_and_packaged() -> None:
    from lanqi.gui import fonts

    folder = resources.files("lanqi.gui").joinpath("assets", "fonts")
    for name in (fonts.BOARD_FONT, fonts.UI_FONT):
        data = folder.joinpath(name).read_bytes()
        assert data[:4] == b"OTTO", name  # OpenType with CFF outlines
        assert 10_000 < len(data) < 120_000, (name, len(data))
    license_text = folder.joinpath("OFL.txt").read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE Version 1.1" in license_text
    assert "Adobe" in license_text


def test_fonts_cover_every_character_the_gui_draws() -> None:
    pytest.importorskip("pygame")
    import pygame

    from lanqi.gui import fonts

    pygame.font.init()
    try:
        wanted = fonts.CHARSET + fonts._source_chars()
        assert fonts.missing_glyphs(fonts.UI_FONT, wanted) == ""
        assert fonts.missing_glyphs(fonts.BOARD_FONT, fonts.BOARD_CHARSET) == ""
        # a headline the serif subset cannot draw falls back to the sans subset
        assert fonts.runs("认输!", fonts.BOARD_FONT) == [
            ("认输", fonts.UI_FONT),
            ("!", fonts.BOARD_FONT),
        ]
        # and the check itself works: a character outside the subset is missing
        assert fonts.missing_glyphs(fonts.UI_FONT, "龍") == "龍"
    finally:
        fonts.reset()
        pygame.font.quit()


def test_importing_the_gui_opens_no_window() -> None:
    pytest.importorskip("pygame")
    code = (
        "import pygame\n"
        "import lanqi.gui.app, lanqi.gui.board_view, lanqi.gui.scenes.game, "
        "lanqi.gui.scenes.lobby, lanqi.gui.scenes.menu, lanqi.gui.scenes.review, "
        "lanqi.gui.scenes.connect, lanqi.cli.gui\n"
        "assert not pygame.get_init() and not pygame.display.get_init()\n"
        "print('ok')\n"
    )
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("ok")


def test_server_and_bots_run_without_pygame() -> None:
    code = (
        "import sys\n"
        "sys.modules['pygame'] = None  # importing pygame now fails\n"
        "import lanqi.server.embedded, lanqi.bot.runner, lanqi.bot.xiangqi_ai, "
        "lanqi.bot.gomoku_ai, lanqi.cli.main, lanqi.cli.gui\n"
        "lanqi.cli.main.build_parser()\n"
        "assert not any(m == 'lanqi.gui' or m.startswith('lanqi.gui.') for m in sys.modules)\n"
        "print('ok')\n"
    )
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("ok")


def test_cli_without_pygame_says_how_to_install(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import argparse
    import importlib.util

    from lanqi.cli import gui

    parser = argparse.ArgumentParser()
    gui.configure(parser)
    args = parser.parse_args(["--offline", "gomoku", "--ai", "2"])
    assert (args.offline, args.ai) == ("gomoku", 2)
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "pygame" else real(name, *a)
    )
    assert gui.run(args) == 2
    assert "lanqi[gui]" in capsys.readouterr().err
