"""Finding a record to review: PGN (xiangqi) and the gomoku record format."""

from __future__ import annotations

from collections.abc import Hashable
from pathlib import Path

import pygame

from lanqi.gui import theme
from lanqi.gui.model import load_record, record_error, record_summary
from lanqi.gui.scenes.base import Host, Scene, ToMenu, ToReview
from lanqi.gui.widgets import Button, ScrollList, TextInput, draw_text, wrap_text
from lanqi.i18n import tr

__all__ = ["OpenScene"]

SUFFIXES = (".pgn", ".txt", ".gmk", ".rec")


class OpenScene(Scene):
    """A path field and the records found in the data directory and here."""

    def __init__(self, *, error: str = "") -> None:
        self.error = error
        self.files: list[Path] = []
        self.list = ScrollList(row_height=26, columns=4, weights=(5, 2, 2, 5), on_pick=self._pick)
        self.path = TextInput(placeholder=tr("review.path_hint"), on_enter=self._open)
        self.buttons: list[Button] = []

    def startup(self, app: Host) -> None:
        super().startup(app)
        self.files = self._scan(app)
        self.list.set_rows([self.row(path) for path in self.files])
        self.list.empty_text = tr("review.no_records", path=app.games_dir)
        self.path.focus(True)

    @staticmethod
    def row(path: Path) -> tuple[str, str, str, str]:
        """A record's row: its players, result, date, and event (with the file's
        name, and how many games it holds when more than one)."""
        try:
            summary = record_summary(path)
        except OSError:
            return (path.name, "", "", "")
        where = f"{summary.event} · {path.name}" if summary.event else path.name
        if summary.games > 1:
            where = f"{where} · {tr('review.games', n=summary.games)}"
        return (summary.players or "?", summary.result, summary.date, where)

    @staticmethod
    def _scan(app: Host) -> list[Path]:
        found: list[Path] = []
        for folder in (app.games_dir, Path.cwd()):
            try:
                entries = sorted(folder.iterdir(), key=lambda p: p.stat().st_mtime, reverse=True)
            except OSError:
                continue
            found.extend(p for p in entries if p.is_file() and p.suffix.lower() in SUFFIXES)
        return found[:200]

    def layout(self, size: tuple[int, int]) -> None:
        w, h = size
        width = min(800, w - 40)
        left = w // 2 - width // 2
        self.path.rect = pygame.Rect(left, 110, width - 130, 34)
        self.list.rect = pygame.Rect(left, 190, width, h - 300)  # room for an error below
        self.buttons = [
            Button(
                tr("review.open"),
                lambda: self._open(self.path.text),
                primary=True,
                rect=pygame.Rect(left + width - 120, 110, 120, 34),
            ),
            Button(tr("back"), self._back, rect=pygame.Rect(left, h - 56, 140, 38), key="escape"),
        ]

    def _pick(self, index: int) -> None:
        if 0 <= index < len(self.files):
            self._open(str(self.files[index]))

    def _open(self, text: str) -> None:
        if not text.strip():
            self.error = tr("review.pick")
            return
        path = Path(text.strip()).expanduser()
        try:
            games = load_record(path)
        except (OSError, ValueError) as exc:
            self.error = record_error(path, exc)
            return
        self.app.go(ToReview(tuple(games), source=path.name))

    def _back(self) -> None:
        self.app.go(ToMenu())

    def handle_event(self, event: pygame.event.Event) -> None:
        if self.path.handle_event(event):
            if event.type == pygame.KEYDOWN and event.key == pygame.K_ESCAPE:
                self._back()
            return
        for button in self.buttons:
            if button.handle_event(event):
                return
        if self.list.handle_event(event):
            return
        if event.type == pygame.KEYDOWN and event.key == pygame.K_ESCAPE:
            self._back()

    def update(self, dt: float) -> None:
        self.path.update(dt)

    def frame_key(self) -> Hashable:
        return (self.path.caret_shown(), self.error)

    def draw(self, surface: pygame.Surface) -> None:
        surface.fill(theme.BACKGROUND)
        w = surface.get_width()
        draw_text(surface, tr("review.title"), (w // 2, 30), 32, theme.ACCENT, anchor="midtop")
        draw_text(
            surface,
            tr("review.file"),
            (self.path.rect.x, self.path.rect.y - 22),
            15,
            theme.TEXT_DIM,
        )
        self.path.draw(surface)
        draw_text(
            surface,
            tr("review.files"),
            (self.list.rect.x, self.list.rect.y - 24),
            15,
            theme.TEXT_DIM,
        )
        self.list.draw(surface)
        for button in self.buttons:
            button.draw(surface)
        if self.error:  # between the list and the Back button, wrapped
            lines = wrap_text(self.error, 15, w - 40)[:2]
            for i, line in enumerate(lines):
                at = (w // 2, self.list.rect.bottom + 6 + i * 19)
                draw_text(surface, line, at, 15, theme.ERROR, anchor="midtop")
