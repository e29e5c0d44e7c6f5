"""Small widgets drawn with pygame: text, buttons, a text field, a scrolling list."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import pygame

from lanqi.gui import theme
from lanqi.gui.fonts import UI_FONT, font, render, text_width

#: the share of a second the text caret shows
CARET_ON = 0.55

__all__ = [
    "Button",
    "Same",
    "ScrollList",
    "TextInput",
    "draw_text",
    "fit_size",
    "fit_text",
    "label_parts",
    "rendered",
    "reset_cache",
    "wrap_text",
]


class Same:
    """A part of a frame key that equals another only for the very same object.

    It keeps the object alive, so a new object cannot take its ``id`` while the
    key of the last drawn frame holds it."""

    __slots__ = ("obj",)

    def __init__(self, obj: object) -> None:
        self.obj = obj

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Same) and other.obj is self.obj

    def __hash__(self) -> int:
        return id(self.obj)


def draw_text(
    surface: pygame.Surface,
    text: str,
    pos: tuple[int, int],
    size: int,
    color: theme.Color = theme.TEXT,
    *,
    anchor: str = "topleft",
    name: str = UI_FONT,
    max_width: int | None = None,
) -> pygame.Rect:
    """Draw one line of ``text``; ``anchor`` is a pygame.Rect attribute (``center``...)."""
    if max_width is not None:
        text = fit_text(text, size, max_width, name=name)
    image = rendered(text, size, color, name)
    rect = image.get_rect(**{anchor: pos})
    surface.blit(image, rect)
    return rect


_RENDERED: dict[tuple[str, int, tuple[int, ...], str], pygame.Surface] = {}
_RENDERED_MAX = 800


def rendered(text: str, size: int, color: theme.Color, name: str = UI_FONT) -> pygame.Surface:
    """``text`` drawn once and kept (most labels are the same from frame to frame)."""
    key = (text, size, tuple(color), name)
    image = _RENDERED.get(key)
    if image is None:
        if len(_RENDERED) >= _RENDERED_MAX:
            _RENDERED.clear()
        image = _RENDERED[key] = render(text, name, size, color)
    return image


def reset_cache() -> None:
    """Forget the rendered texts (they belong to one pygame session)."""
    _RENDERED.clear()


def fit_text(text: str, size: int, width: int, *, name: str = UI_FONT) -> str:
    """``text``, cut with an ellipsis to fit ``width`` pixels."""
    if text_width(text, name, size) <= width:
        return text
    while text and text_width(text + "…", name, size) > width:
        text = text[:-1]
    return text + "…"


def fit_size(text: str, sizes: Sequence[int], width: int, *, name: str = UI_FONT) -> int:
    """The first of ``sizes`` (largest first) at which ``text`` fits ``width``; the last
    if none does."""
    for size in sizes:
        if text_width(text, name, size) <= width:
            return size
    return sizes[-1]


def wrap_text(text: str, size: int, width: int, *, name: str = UI_FONT) -> list[str]:
    """Split ``text`` into lines that fit ``width`` (at spaces, or anywhere for CJK)."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split(" "):
            candidate = f"{line} {word}" if line else word
            if text_width(candidate, name, size) <= width:
                line = candidate
                continue
            if line:
                lines.append(line)
            line = ""
            for ch in word:
                if text_width(line + ch, name, size) > width and line:
                    lines.append(line)
                    line = ""
                line += ch
        lines.append(line)
    return lines


@dataclass
class Button:
    """A clickable button; ``key`` (a pygame key name) is shown as its shortcut."""

    label: str
    on_click: Callable[[], None]
    rect: pygame.Rect = field(default_factory=lambda: pygame.Rect(0, 0, 0, 0))
    enabled: bool = True
    key: str = ""
    primary: bool = False
    selected: bool = False
    id: str = ""
    focused: bool = False

    def handle_event(self, event: pygame.event.Event) -> bool:
        """Click on release inside the button; True if the event was used."""
        if not self.enabled:
            return False
        if (
            event.type == pygame.MOUSEBUTTONUP
            and event.button == 1
            and self.rect.collidepoint(event.pos)
        ):
            self.on_click()
            return True
        return event.type == pygame.MOUSEBUTTONDOWN and self.rect.collidepoint(event.pos)

    def draw(self, surface: pygame.Surface) -> None:
        hover = self.enabled and self.rect.collidepoint(pygame.mouse.get_pos())
        if not self.enabled:
            color = theme.BUTTON_DISABLED
        elif self.primary or self.selected:
            color = theme.BUTTON_PRIMARY
        else:
            color = theme.BUTTON
        if hover or self.focused:
            color = tuple(min(255, c + 28) for c in color)  # type: ignore[assignment]
        radius = max(4, self.rect.height // 5)
        pygame.draw.rect(surface, color, self.rect, border_radius=radius)
        edge = theme.ACCENT if self.focused else theme.PANEL_LINE
        pygame.draw.rect(surface, edge, self.rect, 1, border_radius=radius)
        ink = theme.TEXT if self.enabled else theme.TEXT_DIM
        label, size = self.shown_label()
        hint, hint_size = self.hint(), self._hint_size()
        if hint:
            hint_w = font(UI_FONT, hint_size).size(hint)[0] + 8
            draw_text(
                surface,
                hint,
                (self.rect.right - 6, self.rect.centery),
                hint_size,
                theme.TEXT_DIM,
                anchor="midright",
            )
            center = (self.rect.centerx - hint_w // 2, self.rect.centery)
        else:
            center = self.rect.center
        draw_text(surface, label, center, size, ink, anchor="center", max_width=self._room())

    def hint(self) -> str:
        """The shortcut shown at the right edge (one-letter keys only)."""
        return self.key.upper() if len(self.key) == 1 else ""

    def _size(self) -> int:
        return max(11, min(22, round(self.rect.height * 0.42)))

    def _hint_size(self) -> int:
        return max(9, self._size() - 4)

    def _room(self) -> int:
        """The width the label may take."""
        inner = self.rect.width - 10
        if self.hint():
            inner -= font(UI_FONT, self._hint_size()).size(self.hint())[0] + 8
        return inner

    def shown_label(self) -> tuple[str, int]:
        """The label as drawn, and its size: the whole label if it fits (a size
        smaller if need be), else its English part, else its Chinese part; only a
        label none of these fit is cut with an ellipsis."""
        size, room = self._size(), self._room()
        candidates = [(self.label, size), (self.label, max(11, size - 2))]
        candidates += [(part, size) for part in label_parts(self.label)]
        for text, at in candidates:
            if text_width(text, UI_FONT, at) <= room:
                return text, at
        return fit_text(self.label, size, room), size


def label_parts(label: str) -> list[str]:
    """Shorter forms of a two-language label ("保存 Save"): its English part, then
    (for a setting, "着法 Notation: 中文") the Chinese part with the value, then the
    Chinese part alone.

    >>> label_parts("同意悔棋 Allow takeback"), label_parts("Next game ▶")
    (['Allow takeback', '同意悔棋'], [])
    >>> label_parts("着法 Notation: 中文")
    ['Notation: 中文', '着法 中文', '着法']
    """
    cn, _, en = label.partition(" ")
    en = en.strip()
    if not en or not any(ord(ch) > 0x2E80 for ch in cn):
        return []
    _, colon, value = en.partition(": ")
    return [en, f"{cn} {value}", cn] if colon else [en, cn]


class TextInput:
    """A one-line text field: click or :meth:`focus` to type, Enter calls ``on_enter``.

    Ctrl+A selects the whole text (drawn highlighted): what is typed or pasted next
    replaces it, Backspace or Delete clears it, any other key lets the selection go."""

    def __init__(
        self,
        text: str = "",
        *,
        placeholder: str = "",
        on_enter: Callable[[str], None] | None = None,
        max_length: int = 200,
    ) -> None:
        self.text = text
        self.placeholder = placeholder
        self.on_enter = on_enter
        self.max_length = max_length
        self.rect = pygame.Rect(0, 0, 0, 0)
        self.focused = False
        #: the whole text is selected (Ctrl+A): typing replaces it
        self.selected_all = False
        self._blink = 0.0

    def focus(self, on: bool = True) -> None:
        self.focused = on
        self.selected_all = False
        if on:
            pygame.key.start_text_input()
            pygame.key.set_text_input_rect(self.rect)

    def handle_event(self, event: pygame.event.Event) -> bool:
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            inside = self.rect.collidepoint(event.pos)
            self.focus(inside)
            return inside
        if not self.focused:
            return False
        if event.type == pygame.TEXTINPUT:
            self._insert(event.text)
            return True
        if event.type == pygame.KEYDOWN:
            ctrl = event.mod & pygame.KMOD_CTRL
            if event.key == pygame.K_a and ctrl:
                self.selected_all = bool(self.text)
                return True
            if event.key in (pygame.K_BACKSPACE, pygame.K_DELETE) and self.selected_all:
                self.text = ""
            elif event.key == pygame.K_BACKSPACE:
                self.text = self.text[:-1]
            elif event.key in (pygame.K_RETURN, pygame.K_KP_ENTER):
                if self.on_enter is not None:
                    self.on_enter(self.text)
            elif event.key == pygame.K_ESCAPE:
                self.focused = False
            elif event.key == pygame.K_v and ctrl:
                self._paste()
                return True
            elif not event.unicode or ctrl:  # a key that types nothing: the selection goes
                self.selected_all = False
            return True  # every other key belongs to the field while it has focus
        return False

    def _insert(self, text: str) -> None:
        """Type ``text`` at the end, or in place of the selected text."""
        before = "" if self.selected_all else self.text
        self.selected_all = False
        self.text = (before + text)[: self.max_length]

    def _paste(self) -> None:
        try:
            if not pygame.scrap.get_init():
                pygame.scrap.init()
            raw = pygame.scrap.get(pygame.SCRAP_TEXT)
        except pygame.error:
            return
        if raw:
            data = raw.decode("utf-8", "replace").replace("\x00", "")
            self._insert(data.replace("\n", " ").strip())

    def update(self, dt: float) -> None:
        self._blink = (self._blink + dt) % 1.0

    def caret_shown(self) -> bool:
        """Is the blinking caret on in this frame (while the field has focus)?"""
        return self.focused and self._blink < CARET_ON

    def draw(self, surface: pygame.Surface) -> None:
        pygame.draw.rect(surface, theme.INPUT, self.rect, border_radius=4)
        edge = theme.ACCENT if self.focused else theme.PANEL_LINE
        pygame.draw.rect(surface, edge, self.rect, 1, border_radius=4)
        size = max(11, min(20, round(self.rect.height * 0.5)))
        inner = self.rect.inflate(-12, 0)
        if self.text:
            shown = self.text
            while shown and text_width(shown, UI_FONT, size) > inner.width - 4:
                shown = shown[1:]
            if self.selected_all:  # the selection's highlight under the text
                box = pygame.Rect(
                    inner.x - 2,
                    inner.y + 5,
                    text_width(shown, UI_FONT, size) + 4,
                    inner.height - 10,
                )
                pygame.draw.rect(surface, theme.SELECTED_ROW, box, border_radius=3)
            rect = draw_text(surface, shown, inner.midleft, size, theme.TEXT, anchor="midleft")
            caret_x = rect.right + 1
        else:
            draw_text(
                surface,
                self.placeholder,
                inner.midleft,
                size,
                theme.TEXT_DIM,
                anchor="midleft",
                max_width=inner.width,
            )
            caret_x = inner.left
        if self.caret_shown():
            top = self.rect.centery - size // 2 - 1
            pygame.draw.line(surface, theme.TEXT, (caret_x, top), (caret_x, top + size + 2), 1)


class ScrollList:
    """Rows of text in a box; the wheel scrolls, a click selects and calls ``on_pick``."""

    def __init__(
        self,
        *,
        row_height: int = 24,
        on_pick: Callable[[int], None] | None = None,
        columns: int = 1,
        weights: Sequence[float] | None = None,
    ) -> None:
        self.rect = pygame.Rect(0, 0, 0, 0)
        self.row_height = row_height
        self.rows: Sequence[Sequence[str]] = []
        self.on_pick = on_pick
        self.selected: int | None = None
        self.scroll = 0
        self.columns = columns
        self.weights = list(weights or [1.0] * columns)
        self.empty_text = ""
        self.colors: dict[int, theme.Color] = {}

    @property
    def visible_rows(self) -> int:
        return max(1, self.rect.height // self.row_height)

    def set_rows(self, rows: Sequence[Sequence[str]]) -> None:
        self.rows = rows
        self.scroll = max(0, min(self.scroll, len(rows) - self.visible_rows))

    def row_at(self, pos: tuple[int, int]) -> int | None:
        if not self.rect.collidepoint(pos):
            return None
        index = self.scroll + (pos[1] - self.rect.top) // self.row_height
        return index if 0 <= index < len(self.rows) else None

    def handle_event(self, event: pygame.event.Event) -> bool:
        if event.type == pygame.MOUSEWHEEL:
            if self.rect.collidepoint(pygame.mouse.get_pos()):
                limit = max(0, len(self.rows) - self.visible_rows)
                self.scroll = max(0, min(limit, self.scroll - event.y))
                return True
            return False
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            index = self.row_at(event.pos)
            if index is not None:
                self.selected = index
                if self.on_pick is not None:
                    self.on_pick(index)
                return True
            return self.rect.collidepoint(event.pos)
        return False

    def _columns(self, size: int) -> tuple[int, list[int]]:
        """The text size and the columns' widths for the rows in view: each column as
        wide as its widest cell, what is left shared by the weights; a size smaller
        where the cells do not fit so; only then the weights alone (cells cut)."""
        room = self.rect.width - 8
        total = sum(self.weights) or 1.0
        shown = self.rows[self.scroll : self.scroll + self.visible_rows + 1]
        for at in (size, size - 2):
            natural = [
                max(
                    (text_width(row[j], UI_FONT, at) + 12 for row in shown if j < len(row)),
                    default=0,
                )
                for j in range(self.columns)
            ]
            spare = room - sum(natural)
            if spare >= 0:
                return at, [
                    n + round(spare * w / total) for n, w in zip(natural, self.weights, strict=True)
                ]
        return size, [round(room * w / total) for w in self.weights]

    def empty_lines(self, size: int = 15) -> tuple[list[str], int]:
        """The empty list's note wrapped to the box, and its size: a long note (a hint
        in two languages) is set up to four points smaller rather than cut."""
        for small in range(size, size - 5, -1):
            lines = wrap_text(self.empty_text, small, self.rect.width - 14)
            if self.empty_height(len(lines), small) <= self.rect.height:
                break
        return lines, small

    @staticmethod
    def empty_height(lines: int, size: int) -> int:
        """The height the note's ``lines`` take at ``size``: the last line's glyphs too."""
        return 6 + (lines - 1) * (size + 4) + font(UI_FONT, size).get_height() + 2

    def draw(self, surface: pygame.Surface, *, size: int = 15) -> None:
        pygame.draw.rect(surface, theme.PANEL_DARK, self.rect, border_radius=4)
        clip = surface.get_clip()
        surface.set_clip(self.rect)
        if not self.rows and self.empty_text:
            lines, small = self.empty_lines(size)
            for i, line in enumerate(lines):
                at = (self.rect.x + 8, self.rect.y + 6 + i * (small + 4))
                draw_text(surface, line, at, small, theme.TEXT_DIM)
        size, widths = self._columns(size)
        starts = [self.rect.x + 6 + sum(widths[:j]) for j in range(len(widths))]
        for i in range(self.scroll, min(len(self.rows), self.scroll + self.visible_rows + 1)):
            y = self.rect.y + (i - self.scroll) * self.row_height
            row_rect = pygame.Rect(self.rect.x, y, self.rect.width, self.row_height)
            if i == self.selected:
                pygame.draw.rect(surface, theme.SELECTED_ROW, row_rect)
            color = self.colors.get(i, theme.TEXT)
            for j, cell in enumerate(self.rows[i][: self.columns]):
                draw_text(
                    surface,
                    cell,
                    (starts[j], y + self.row_height // 2),
                    size,
                    color,
                    anchor="midleft",
                    max_width=widths[j] - 6,
                )
        surface.set_clip(clip)
        if len(self.rows) > self.visible_rows:  # a scroll bar
            total = len(self.rows)
            bar_h = max(12, self.rect.height * self.visible_rows // total)
            top = self.rect.y + (self.rect.height - bar_h) * self.scroll // max(
                1, total - self.visible_rows
            )
            bar = pygame.Rect(self.rect.right - 4, top, 3, bar_h)
            pygame.draw.rect(surface, theme.PANEL_LINE, bar)
