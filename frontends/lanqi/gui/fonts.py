"""The GUI's fonts: two small subsets of Noto CJK, shipped in ``assets/fonts``.

The subsets hold only the characters the GUI draws: piece names (simplified and
traditional), 楚河 汉界, the numerals and action words of Chinese move notation,
the Chinese words of the interface and printable ASCII.  So no system CJK font
is needed, and the files stay small.  Both fonts are under the SIL Open Font
License 1.1 (``assets/fonts/OFL.txt``).

Free text (chat, names) may hold any character: :func:`render` draws each run of
characters with the first font that has their glyphs (the subset, then the system's
fonts, see :func:`system_fonts`), and :func:`missing` names what no font has, so the
GUI can say so.

Loading goes through :mod:`importlib.resources`, so it works from a wheel too.
Rebuilding the subsets needs fontTools and the Debian package ``fonts-noto-cjk``
(neither is needed to run the GUI)::

    python -m lanqi.gui.fonts /usr/share/fonts/opentype/noto
"""

from __future__ import annotations

import argparse
import importlib
import io
import logging
import os
import sys
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from lanqi.i18n import tr

if TYPE_CHECKING:
    import pygame

__all__ = [
    "BOARD_CHARSET",
    "BOARD_FONT",
    "CHARSET",
    "MISSING_NOTE",
    "UI_FONT",
    "font",
    "font_bytes",
    "missing",
    "missing_glyphs",
    "render",
    "reset",
    "runs",
    "set_system_fonts",
    "source_of",
    "system_fonts",
    "text_width",
]

#: Serif bold: piece characters, 楚河 汉界 and board numerals.
BOARD_FONT = "LanqiSerifCJK-Bold.otf"
#: Sans regular: everything else (panel, move list, chat, menus).
UI_FONT = "LanqiSansCJK-Regular.otf"

PIECES = "帥帅將将仕士相象傌馬马俥車车炮砲包兵卒"
BOARD_WORDS = "楚河漢汉界"
NUMERALS = "一二三四五六七八九十１２３４５６７８９０"
NOTATION = "进進退平前后後中"
#: Chinese words of the interface (the builder also scans the GUI sources).
UI_WORDS = (
    "象棋五子红黑白方先手走将军胜负和棋认输求和悔棋再来一局翻转保存返回"
    "同意拒绝接受对局观战大厅复盘电脑双人级别时间超时困毙绝杀长捉长将判"
    "子力不足限着盘满连珠禁手弃权中止放弃"
)
SYMBOLS = "·—–…←→↑↓▲▼◀▶★●○「」、。，：！？（）"
ASCII = "".join(chr(c) for c in range(0x20, 0x7F))
#: names of people: Latin-1 and the letters of pinyin (all that Noto CJK has of Latin)
LATIN = (
    "".join(chr(c) for c in range(0xA1, 0x100) if chr(c).isprintable())
    + "ĀāĂăĐđĒēĚěĨĩĪīŃńŇňŌōŎŏŒœŨũŪūŬŭǍǎǏǐǑǒǓǔǕǖǗǘǙǚǛǜ"
)
CHARSET = "".join(
    dict.fromkeys(PIECES + BOARD_WORDS + NUMERALS + NOTATION + UI_WORDS + SYMBOLS + ASCII + LATIN)
)
#: the serif font draws pieces, the board and headlines only
HEADLINES = "红黑白胜和棋将军象五子对局结束·!"
BOARD_CHARSET = "".join(
    dict.fromkeys(PIECES + BOARD_WORDS + NUMERALS + NOTATION + HEADLINES + ASCII + LATIN)
)

#: (output name, source collection, face index of the Simplified Chinese font)
_SOURCES = (
    (BOARD_FONT, "NotoSerifCJK-Bold.ttc", 2),
    (UI_FONT, "NotoSansCJK-Regular.ttc", 2),
)
_NEW_FAMILY = {BOARD_FONT: "Lanqi Serif CJK Subset", UI_FONT: "Lanqi Sans CJK Subset"}

log = logging.getLogger(__name__)


def _assets() -> resources.abc.Traversable:
    return resources.files("lanqi.gui").joinpath("assets", "fonts")


@cache
def font_bytes(name: str) -> bytes:
    """The bytes of a shipped font file (``BOARD_FONT`` or ``UI_FONT``)."""
    return _assets().joinpath(name).read_bytes()


_FONTS: dict[tuple[str, int], pygame.font.Font] = {}


def font(name: str, size: int) -> pygame.font.Font:
    """A pygame font of ``size`` pixels from a shipped file (cached until :func:`reset`).

    pygame.font must be initialised (``App`` does it).
    """
    import pygame

    key = (name, max(6, int(size)))
    face = _FONTS.get(key)
    if face is None:
        face = _FONTS[key] = pygame.font.Font(io.BytesIO(font_bytes(name)), key[1])
    return face


def _system_font(path: str, size: int) -> pygame.font.Font:
    import pygame

    key = (path, max(6, int(size)))
    face = _FONTS.get(key)
    if face is None:
        face = _FONTS[key] = pygame.font.Font(path, key[1])
    return face


def reset() -> None:
    """Forget the pygame fonts: call before ``pygame.quit()`` (they die with it)."""
    _FONTS.clear()
    _FACES.clear()


# ---------------------------------------------------------------- free text: fallback fonts
#
# Chat lines and names may hold any character.  Each character is drawn with the first
# font of a chain that has a glyph for it: the shipped subset, then the system's fonts
# (those in $LANQI_FONTS, then the fontconfig families below, in order), and the shipped
# subset again as the last resort, which draws its "notdef" box.  Which font has which
# glyph is asked of FreeType (pygame.freetype: get_metrics gives None for a missing one).

#: fontconfig family names (pygame's spelling: lower case, no spaces) tried in order
SYSTEM_FAMILIES = (
    "notosanscjksc",
    "notosanscjk",
    "notosanscjkjp",
    "sourcehansanssc",
    "sourcehanssans",
    "wenquanyimicrohei",
    "wqymicrohei",
    "wenquanyizenhei",
    "droidsansfallbackfull",
    "droidsansfallback",
    "notoserifcjksc",
    "arplumingcn",
    "arplukaicn",
    "microsoftyahei",
    "simhei",
    "simsun",
    "pingfangsc",
    "heitisc",
    "hanaminb",
    "arialunicodems",
    "dejavusans",
    "notosans",
)
#: extra font files to try first (separated by the path separator)
FONTS_ENV = "LANQI_FONTS"
#: what to say when a character has no glyph in any font
MISSING_NOTE = tr("fonts_missing")

#: the system fonts once looked up (empty: not yet)
_system: list[list[str]] = []
#: (font name or path) -> a FreeType face, to ask which glyphs it has
_FACES: dict[str, object] = {}
#: (shipped font name, character) -> the font that draws it (a shipped name or a path; "" none)
_SOURCE: dict[tuple[str, str], str] = {}


def system_fonts() -> list[str]:
    """The system fonts tried for characters the shipped subsets lack (looked up once)."""
    if not _system:
        found: list[str] = []
        for path in os.environ.get(FONTS_ENV, "").split(os.pathsep):
            if path and Path(path).is_file():
                found.append(path)
        import pygame

        for family in SYSTEM_FAMILIES:
            try:
                path = pygame.font.match_font(family)
            except (OSError, ValueError, pygame.error):  # no fontconfig, no fonts
                break
            if path and path not in found:
                found.append(path)
        log.debug("system fonts for free text: %s", found)
        _system.append(found)
    return list(_system[0])


def set_system_fonts(paths: list[str] | None) -> None:
    """Use these font files as the system fallbacks (None: look them up again)."""
    _system.clear()
    if paths is not None:
        _system.append(list(paths))
    _SOURCE.clear()


def _has_glyph(source: str, ch: str) -> bool:
    face = _FACES.get(source)
    if face is None:
        import pygame.freetype

        if not pygame.freetype.get_init():
            pygame.freetype.init()
        data: str | io.BytesIO = source
        if source in (BOARD_FONT, UI_FONT):
            data = io.BytesIO(font_bytes(source))
        try:
            face = pygame.freetype.Font(data, 16)
        except (OSError, pygame.error) as exc:
            log.info("cannot read the font %s: %s", source, exc)
            face = False
        _FACES[source] = face
    if face is False:
        return False
    import pygame.freetype

    assert isinstance(face, pygame.freetype.Font)
    return face.get_metrics(ch)[0] is not None


def source_of(ch: str, name: str = UI_FONT) -> str:
    """The font that draws ``ch`` for text set in the shipped font ``name``: ``name``,
    ``UI_FONT``, the path of a system font, or "" when no font has it."""
    key = (name, ch)
    found = _SOURCE.get(key)
    if found is None:
        found = ""
        if ord(ch) < 0x7F or ch.isspace() or _has_glyph(name, ch):
            found = name
        elif _has_glyph(UI_FONT, ch):
            found = UI_FONT
        else:  # the system's fonts are looked up only when the subsets lack a character
            found = next((path for path in system_fonts() if _has_glyph(path, ch)), "")
        _SOURCE[key] = found
    return found


def missing(text: str, name: str = UI_FONT) -> str:
    """The characters of ``text`` that no font here can draw (each once)."""
    return "".join(ch for ch in dict.fromkeys(text) if source_of(ch, name) == "")


def runs(text: str, name: str = UI_FONT) -> list[tuple[str, str]]:
    """``text`` cut into runs drawn with one font each: ``[(run, font), ...]`` where the
    font is a shipped name or a system font's path (``name`` for missing characters)."""
    out: list[tuple[str, str]] = []
    for ch in text:
        source = source_of(ch, name) or name
        if out and (out[-1][1] == source or ch == " "):
            out[-1] = (out[-1][0] + ch, out[-1][1])
        else:
            out.append((ch, source))
    return out or [("", name)]


def _face(source: str, size: int) -> pygame.font.Font:
    if source in (BOARD_FONT, UI_FONT):
        return font(source, size)
    return _system_font(source, size)


def text_width(text: str, name: str, size: int) -> int:
    """How wide ``text`` is drawn by :func:`render`, in pixels."""
    return sum(_face(source, size).size(run)[0] for run, source in runs(text, name))


def render(text: str, name: str, size: int, color: tuple[int, int, int]) -> pygame.Surface:
    """``text`` drawn (antialiased) with each run in the first font that has its glyphs,
    the runs on one baseline."""
    parts = runs(text, name)
    if len(parts) == 1:
        return _face(parts[0][1], size).render(parts[0][0], True, color)
    import pygame

    faces = [_face(source, size) for _, source in parts]
    images = [face.render(run, True, color) for face, (run, _) in zip(faces, parts, strict=True)]
    ascent = max(face.get_ascent() for face in faces)
    descent = max(-face.get_descent() for face in faces)
    height = max([ascent + descent] + [image.get_height() for image in images])
    surface = pygame.Surface((sum(image.get_width() for image in images), height), pygame.SRCALPHA)
    surface.fill((*color, 0))  # transparent, in the text's colour: clean antialiased edges
    x = 0
    for face, image in zip(faces, images, strict=True):
        surface.blit(image, (x, ascent - face.get_ascent()))
        x += image.get_width()
    return surface


def missing_glyphs(name: str, text: str) -> str:
    """The characters of ``text`` the shipped font ``name`` has no glyph for.

    A missing character is drawn as the font's "notdef" box, like a private-use
    code point that no font has.
    """
    import pygame

    probe = font(name, 16)

    def image(ch: str) -> bytes:
        return pygame.image.tobytes(probe.render(ch, False, (0, 0, 0), (255, 255, 255)), "RGB")

    notdef = image("\ue000")
    return "".join(ch for ch in dict.fromkeys(text) if not ch.isspace() and image(ch) == notdef)


def _source_chars() -> str:
    """CJK and other non-ASCII characters used in the GUI's own sources and in the
    message catalogue (:mod:`lanqi.i18n`), where its lines live."""
    from lanqi.i18n import CATALOGUE

    here = Path(__file__).resolve().parent
    texts = [path.read_text(encoding="utf-8") for path in sorted(here.rglob("*.py"))]
    texts += [part for text in CATALOGUE.values() for part in (text.zh, text.en, text.en_plural)]
    found: dict[str, None] = {}
    for text in texts:
        for ch in text:
            if ord(ch) > 0x7F and not ch.isspace():
                found[ch] = None
    return "".join(found)


def build(source_dir: Path, out_dir: Path) -> list[Path]:
    """Subset the Noto CJK collections in ``source_dir`` into ``out_dir`` (needs fontTools)."""
    # fontTools is a build-time tool only (not a dependency): imported by name
    subset = importlib.import_module("fontTools.subset")
    ttlib = importlib.import_module("fontTools.ttLib")

    ui_text = "".join(dict.fromkeys(CHARSET + _source_chars()))
    written: list[Path] = []
    for name, collection, index in _SOURCES:
        ttfont = ttlib.TTFont(str(source_dir / collection), fontNumber=index, lazy=False)
        options = subset.Options()
        options.layout_features = ["kern", "palt", "vert"]
        options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14]
        options.notdef_outline = True
        options.hinting = False
        options.desubroutinize = True
        subsetter = subset.Subsetter(options)
        subsetter.populate(text=BOARD_CHARSET if name == BOARD_FONT else ui_text)
        subsetter.subset(ttfont)
        family = _NEW_FAMILY[name]
        style = "Bold" if "Bold" in name else "Regular"
        table = ttfont["name"]
        # a Modified Version under the OFL: a name of its own
        table.setName(family, 1, 3, 1, 0x409)
        table.setName(f"{family} {style}", 4, 3, 1, 0x409)
        table.setName(f"{family.replace(' ', '')}-{style}", 6, 3, 1, 0x409)
        table.setName(f"{family} {style}; subset of Noto CJK for lanqi", 3, 3, 1, 0x409)
        table.names = [n for n in table.names if n.platformID == 3 and n.langID == 0x409]
        out = out_dir / name
        ttfont.save(str(out))
        written.append(out)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="rebuild the GUI's font subsets")
    parser.add_argument("source_dir", type=Path, help="folder with the Noto CJK .ttc files")
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).resolve().parent / "assets" / "fonts"
    )
    args = parser.parse_args(argv)
    for path in build(args.source_dir, args.out):
        print(f"wrote {path} ({path.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
