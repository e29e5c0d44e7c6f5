"""The GUI's fonts: two small subsets of Noto CJK, shipped in ``assets/fonts``.

The subsets hold only the characters the GUI draws: piece names (simplified and
traditional), 楚河 汉界, the numerals and action words of Chinese move notation,
the Chinese words of the interface and printable ASCII.  So no system CJK font
is needed, and the files stay small.  Both fonts are under the SIL Open Font
License 1.1 (``assets/fonts/OFL.txt``).

Loading goes through :mod:`importlib.resources`, so it works from a wheel too.
Rebuilding the subsets needs fontTools and the Debian package ``fonts-noto-cjk``
(neither is needed to run the GUI)::

    python -m lanqi.gui.fonts /usr/share/fonts/opentype/noto
"""

from __future__ import annotations

import argparse
import importlib
import io
import sys
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pygame

__all__ = [
    "BOARD_CHARSET",
    "BOARD_FONT",
    "CHARSET",
    "UI_FONT",
    "fallback_path",
    "font",
    "font_bytes",
    "font_for",
    "missing_glyphs",
    "reset",
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


def reset() -> None:
    """Forget the pygame fonts: call before ``pygame.quit()`` (they die with it)."""
    _FONTS.clear()


#: system fonts tried for text the subsets cannot show (chat, names): fontconfig names
_FALLBACKS = (
    "notosanscjksc,notosanscjk,notosanscjkjp,sourcehansanssc,wenquanyimicrohei,wqymicrohei,"
    "wenquanyizenhei,droidsansfallbackfull,droidsansfallback,arplumingcn,microsoftyahei,"
    "simhei,simsun,pingfangsc,heitisc,arialunicodems"
)
_fallback: list[str | None] = []


@cache
def _known(name: str) -> frozenset[str]:
    if name == BOARD_FONT:
        return frozenset(BOARD_CHARSET)
    return frozenset(CHARSET + _source_chars())


def fallback_path() -> str | None:
    """A system font with wide CJK coverage, or None (looked up once)."""
    if not _fallback:
        import pygame

        try:
            _fallback.append(pygame.font.match_font(_FALLBACKS))
        except (OSError, ValueError, pygame.error):  # no fontconfig, no fonts
            _fallback.append(None)
    return _fallback[0]


def font_for(text: str, name: str, size: int) -> pygame.font.Font:
    """The shipped font ``name``, unless ``text`` has characters it lacks and the
    system has a CJK font: then that one (free text such as chat and names)."""
    if all(ord(ch) < 0x7F or ch in _known(name) for ch in text):
        return font(name, size)
    if name != UI_FONT and all(ord(ch) < 0x7F or ch in _known(UI_FONT) for ch in text):
        return font(UI_FONT, size)
    path = fallback_path()
    if path is None:
        return font(name, size)
    key = (path, max(6, int(size)))
    face = _FONTS.get(key)
    if face is None:
        import pygame

        face = _FONTS[key] = pygame.font.Font(path, key[1])
    return face


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
    """CJK and other non-ASCII characters used in the GUI's own sources."""
    here = Path(__file__).resolve().parent
    found: dict[str, None] = {}
    for path in sorted(here.rglob("*.py")):
        for ch in path.read_text(encoding="utf-8"):
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
