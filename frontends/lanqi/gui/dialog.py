"""A small modal question over a screen: a title, a few lines, a row of choices.

While a :class:`Dialog` is open its screen hands it every input event; a choice
is picked with a click or its key (``Enter`` picks the first, ``Esc`` the last).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pygame

from lanqi.gui import theme
from lanqi.gui.widgets import Button, draw_text, wrap_text

__all__ = ["Choice", "Dialog"]


@dataclass(frozen=True, slots=True)
class Choice:
    """One answer: its button label, its key (a pygame key name) and what it does."""

    id: str
    label: str
    key: str
    run: Callable[[], None]


class Dialog:
    """A question with buttons, drawn over the whole window."""

    def __init__(self, title: str, lines: Sequence[str], choices: Sequence[Choice]) -> None:
        if not choices:
            raise ValueError("a dialog needs a choice")
        self.title = title
        self.lines = list(lines)
        self.choices = list(choices)
        self.box = pygame.Rect(0, 0, 0, 0)
        self.buttons: list[Button] = []
        self._body: list[str] = []
        self._size = (0, 0)

    def layout(self, size: tuple[int, int]) -> None:
        w, h = size
        self._size = size
        width = min(w - 40, 620)
        body = [part for line in self.lines for part in wrap_text(line, 15, width - 40)]
        self._body = body
        height = 64 + 22 * len(body) + 20 + 44 * len(self.choices)
        self.box = pygame.Rect(0, 0, width, min(h - 20, height))
        self.box.center = (w // 2, h // 2)
        self.buttons = []
        y = self.box.bottom - 16 - 44 * len(self.choices) + 8
        for i, choice in enumerate(self.choices):
            rect = pygame.Rect(self.box.x + 20, y + i * 44, width - 40, 36)
            self.buttons.append(
                Button(
                    choice.label,
                    functools.partial(self.pick, choice.id),
                    rect=rect,
                    key=choice.key,
                    primary=i == 0,
                    id=choice.id,
                )
            )

    def pick(self, choice_id: str) -> None:
        for choice in self.choices:
            if choice.id == choice_id:
                choice.run()
                return

    def handle_event(self, event: pygame.event.Event) -> None:
        """Every event while the dialog is open comes here (and goes no further)."""
        if any(button.handle_event(event) for button in self.buttons):
            return
        if event.type == pygame.KEYDOWN:
            first, last = self.choices[0], self.choices[-1]
            keys = {"return": first, "enter": first, "escape": last}
            keys.update((choice.key, choice) for choice in self.choices if choice.key)
            choice = keys.get(pygame.key.name(event.key))
            if choice is not None:
                choice.run()

    def draw(self, surface: pygame.Surface) -> None:
        if surface.get_size() != self._size:
            self.layout(surface.get_size())
        shade = pygame.Surface(surface.get_size(), pygame.SRCALPHA)
        shade.fill((0, 0, 0, 150))
        surface.blit(shade, (0, 0))
        box = self.box
        pygame.draw.rect(surface, theme.PANEL, box, border_radius=10)
        pygame.draw.rect(surface, theme.ACCENT, box, 2, border_radius=10)
        draw_text(
            surface,
            self.title,
            (box.x + 20, box.y + 16),
            20,
            theme.ACCENT,
            max_width=box.width - 40,
        )
        for i, line in enumerate(self._body):
            draw_text(surface, line, (box.x + 20, box.y + 56 + 22 * i), 15, theme.TEXT)
        for button in self.buttons:
            button.draw(surface)
