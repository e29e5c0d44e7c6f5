"""The start screen: play online, two players, against the computer, review; settings."""

from __future__ import annotations

from collections.abc import Callable, Hashable

import pygame

from lanqi.games.registry import VARIANTS as SPECS
from lanqi.games.registry import variant_spec
from lanqi.gui import resume, theme
from lanqi.gui.fonts import BOARD_FONT
from lanqi.gui.scenes.base import (
    Host,
    Scene,
    ToConnect,
    ToLobby,
    ToOfflineGame,
    ToOpenRecord,
    ToResume,
)
from lanqi.gui.variants import VARIANTS, variant_ui
from lanqi.gui.widgets import Button, draw_text, wrap_text
from lanqi.i18n import Words, tr

__all__ = ["MenuScene"]

TIME_CHOICES = ("none", "5+3", "10+5", "15+10", "move:30")
#: the title and the line under it
HEADER_H = 140
#: the hint line under the settings
HINT_H = 30
#: the least pitch of the mode buttons (the smallest window still has them all,
#: the Resume row too)
MIN_PITCH = 32


def _max_level() -> int:
    """The level selector's top: the strongest level any variant's AI has."""
    return max(spec.ai_levels for spec in SPECS.values() if spec.ai is not None)


def _people_notations() -> dict[str, str]:
    """The notations people pick among (every variant's, for people), by their one
    name: the label the button shows (``中文``, ``WXF``)."""
    return {
        name: notation.label
        for spec in SPECS.values()
        for name, notation in spec.notations.items()
        if notation.for_people
    }


class MenuScene(Scene):
    """Big buttons for the modes, small ones for the settings."""

    def __init__(self) -> None:
        self.buttons: list[Button] = []
        self.focus = 0
        self.human_first = True
        #: the newest unfinished offline game (lanqi.gui.resume), offered first
        self.unfinished: resume.Unfinished | None = None
        self.error = ""

    def startup(self, app: Host) -> None:
        self.app = app
        self.unfinished = resume.latest(app.data_dir)
        super().startup(app)
        pygame.key.set_repeat(300, 40)

    def _resume(self) -> None:
        if self.unfinished is None:
            return
        try:
            self.app.go(ToResume(self.unfinished.id))
        except ValueError as exc:
            self.error = str(exc)
            resume.drop(self.app.data_dir, self.unfinished.id)
            self.unfinished = resume.latest(self.app.data_dir)
            self.layout(self.app.screen.get_size())

    def _offline(self, variant: str, ai: bool) -> Callable[[], None]:
        def start() -> None:
            settings = self.app.settings
            level = variant_spec(variant).ai_level(settings.ai_level)
            self.app.go(
                ToOfflineGame(
                    variant,
                    options=variant_ui(variant).chosen(settings.game_options),
                    ai=level if ai else None,
                    side="first" if self.human_first else "second",
                    ai_time_ms=self.app.config.ai_time_ms,
                )
            )

        return start

    def _online(self) -> None:
        lobby = self.app.lobby
        if lobby is not None and lobby.connected:
            self.app.go(ToLobby())
        else:
            self.app.go(ToConnect())

    def _review(self) -> None:
        self.app.go(ToOpenRecord())

    def _quit(self) -> None:
        self.app.quit()

    def _level(self, delta: int) -> None:
        settings = self.app.settings
        settings.ai_level = max(1, min(_max_level(), settings.ai_level + delta))
        settings.save()
        self.layout(self.app.screen.get_size())

    def _next_level(self) -> None:
        settings = self.app.settings
        settings.ai_level = settings.ai_level % _max_level() + 1
        settings.save()
        self.layout(self.app.screen.get_size())

    def _time(self) -> None:
        settings = self.app.settings
        current = settings.local_time if settings.local_time in TIME_CHOICES else "none"
        settings.local_time = TIME_CHOICES[(TIME_CHOICES.index(current) + 1) % len(TIME_CHOICES)]
        settings.save()
        self.layout(self.app.screen.get_size())

    def _latin(self) -> None:
        self.app.settings.latin = not self.app.settings.latin
        self.app.settings.save()
        self.layout(self.app.screen.get_size())

    def _notation(self) -> None:
        settings = self.app.settings
        names = list(_people_notations())
        current = names.index(settings.notation) if settings.notation in names else -1
        settings.notation = names[(current + 1) % len(names)]
        settings.save()
        self.layout(self.app.screen.get_size())

    def _choice(self, variant: str, option: str) -> Callable[[], None]:
        """Step the option (a gomoku board size, a rule) that the menu's games start with."""

        def step() -> None:
            settings = self.app.settings
            variant_ui(variant).step(settings.game_options, option)
            settings.save()
            self.layout(self.app.screen.get_size())

        return step

    def _side(self) -> None:
        self.human_first = not self.human_first
        self.layout(self.app.screen.get_size())

    def _offline_modes(self, first_key: int) -> list[tuple[str, Callable[[], None], str]]:
        """Each registered variant for two players, then each against its built-in
        AI (the variants with one), keyed by digits from ``first_key``."""
        two = [(v, False) for v in VARIANTS]
        ai = [(v, True) for v, ui in VARIANTS.items() if ui.ai_levels]
        modes = []
        for i, (variant, vs_ai) in enumerate(two + ai):
            ui = variant_ui(variant)
            label = tr(
                "menu.vs_ai" if vs_ai else "menu.two_players",
                variant=Words(ui.chinese, ui.name.capitalize()),
            )
            modes.append((label, self._offline(variant, vs_ai), str(first_key + i)))
        return modes

    def layout(self, size: tuple[int, int]) -> None:
        w, h = size
        settings = self.app.settings
        main: list[tuple[str, Callable[[], None], str]] = []
        if self.unfinished is not None:
            resume = f"{tr('menu.resume')}: {self.unfinished.describe()}"
            main.append((resume, self._resume, "r"))
        modes = self._offline_modes(first_key=2)
        main += [
            (tr("menu.online"), self._online, "1"),
            *modes,
            (tr("menu.review"), self._review, str(len(modes) + 2)),
            (tr("menu.quit"), self._quit, "q"),
        ]
        bw = min(440, w - 60)
        # below the title: the modes, the settings row and the hint line
        choices = any(ui.choices for ui in VARIANTS.values())  # a row of game options
        room = h - HEADER_H - (14 + 32 + (40 if choices else 0) + HINT_H)
        pitch = max(MIN_PITCH, min(58, room // len(main)))
        bh = pitch - 8
        top = HEADER_H + max(0, (room - len(main) * pitch) // 2)
        self.buttons = []
        for i, (label, action, key) in enumerate(main):
            # the resumed game's line is longer than the others
            wide = action == self._resume
            rect = pygame.Rect(0, 0, min(680, w - 60) if wide else bw, bh)
            rect.midtop = (w // 2, top + i * pitch)
            self.buttons.append(Button(label, action, rect=rect, key=key, primary=i == 0, id=key))
        y = top + len(main) * pitch + 6
        side = tr("menu.first") if self.human_first else tr("menu.second")
        time_label = tr("none") if settings.local_time == "none" else settings.local_time
        small = [
            ("−", lambda: self._level(-1), "minus"),
            (tr("menu.ai_level", level=settings.ai_level), self._next_level, ""),
            ("+", lambda: self._level(1), "equals"),
            (f"{tr('you')}: {side}", self._side, ""),
            (f"{tr('menu.clock')}: {time_label}", self._time, ""),
            (f"{tr('menu.pieces')}: " + ("ABC" if settings.latin else "汉字"), self._latin, "l"),
            (
                f"{tr('menu.notation')}: " + _people_notations().get(settings.notation, ""),
                self._notation,
                "n",
            ),
        ]
        widths = [40, 170, 40, 160, 170, 150, 170]
        total = sum(widths) + 8 * (len(widths) - 1)
        scale = min(1.0, (w - 40) / total)
        x = w // 2 - round(total * scale) // 2
        for (label, action, key), base in zip(small, widths, strict=True):
            width = round(base * scale)
            rect = pygame.Rect(x, y, width, 32)
            self.buttons.append(Button(label, action, rect=rect, key=key))
            x += width + round(8 * scale)
        self._choice_buttons(w, y + 40)
        self.focus = min(self.focus, len(self.buttons) - 1)

    def _choice_buttons(self, w: int, y: int) -> None:
        """A row of buttons for the options of each variant that has some (gomoku:
        board size and rule), used by that variant's two-player and AI games."""
        row = []
        for name, ui in VARIANTS.items():
            chosen = ui.chosen(self.app.settings.game_options)
            for option in ui.choices:
                label = f"{ui.chinese} " + ui.choice_label(option, chosen[option])
                row.append(Button(label, self._choice(name, option), id=f"{name}.{option}"))
        width = min(220, (w - 40) // max(1, len(row)) - 8)
        x = w // 2 - (len(row) * (width + 8) - 8) // 2
        for button in row:
            button.rect = pygame.Rect(x, y, width, 32)
            self.buttons.append(button)
            x += width + 8

    def frame_key(self) -> Hashable:
        """The menu changes only by input (the Resume row and its error line too,
        keyed here so a change made outside an event is drawn all the same)."""
        return (self.unfinished.id if self.unfinished is not None else None, self.error)

    def handle_event(self, event: pygame.event.Event) -> None:
        for button in self.buttons:
            if button.handle_event(event):
                return
        if event.type != pygame.KEYDOWN:
            return
        if event.key in (pygame.K_DOWN, pygame.K_TAB):
            self.focus = (self.focus + 1) % len(self.buttons)
        elif event.key == pygame.K_UP:
            self.focus = (self.focus - 1) % len(self.buttons)
        elif event.key in (pygame.K_RETURN, pygame.K_KP_ENTER, pygame.K_SPACE):
            self.buttons[self.focus].on_click()
        elif event.key == pygame.K_ESCAPE:
            self._quit()
        else:
            name = pygame.key.name(event.key)
            for button in self.buttons:
                if button.key and button.key == name:
                    button.on_click()
                    return

    def draw(self, surface: pygame.Surface) -> None:
        surface.fill(theme.BACKGROUND)
        w, _ = surface.get_size()
        draw_text(
            surface,
            "象棋 · 五子棋",
            (w // 2, 40),
            54,
            theme.ACCENT,
            anchor="midtop",
            name=BOARD_FONT,
        )
        draw_text(
            surface,
            tr("menu.subtitle"),
            (w // 2, 110),
            18,
            theme.TEXT_DIM,
            anchor="midtop",
        )
        self._draw_pieces(surface, w)
        for i, button in enumerate(self.buttons):
            button.focused = i == self.focus
            button.draw(surface)
        hint = tr("menu.hint")
        if self.unfinished is not None:
            hint = f"{tr('menu.hint_resume')} · {hint}"
        bottom = max((b.rect.bottom for b in self.buttons), default=0) + 8
        lines = wrap_text(hint, 14, w - 40)
        for i, line in enumerate(lines):
            draw_text(surface, line, (w // 2, bottom + i * 17), 14, theme.TEXT_DIM, anchor="midtop")
        if self.error:
            draw_text(
                surface,
                self.error,
                (w // 2, bottom + len(lines) * 17 + 5),
                14,
                theme.ERROR,
                anchor="midtop",
                max_width=w - 40,
            )

    def _draw_pieces(self, surface: pygame.Surface, w: int) -> None:
        for i, (char, ink) in enumerate((("帥", theme.RED), ("將", theme.BLACK))):
            x = w // 2 + (-1 if i == 0 else 1) * 230
            center = (x, 72)
            pygame.draw.circle(surface, theme.PIECE_RIM, center, 34)
            pygame.draw.circle(surface, theme.PIECE_FACE, center, 31)
            pygame.draw.circle(surface, ink, center, 27, 3)
            draw_text(surface, char, center, 36, ink, anchor="center", name=BOARD_FONT)
