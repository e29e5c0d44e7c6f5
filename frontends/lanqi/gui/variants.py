"""The GUI's view of the variant registry: what differs between the variants on screen.

Everything on screen that is not the same for xiangqi and gomoku is reached
through :func:`variant_ui`: the board's drawer and geometry
(:class:`~lanqi.gui.board_view.BoardView`), the input controller
(:mod:`lanqi.gui.controllers`) and a few display facts.  The screens look the
variant up here once and never test it themselves.

What the rules know (the name in Chinese, the options players choose, the
notations, the built-in AI and its levels) comes from the variant's
:class:`~lanqi.games.base.VariantSpec`, so :data:`VARIANTS` lists every
registered variant.  Only the looks are the GUI's own (:data:`LOOKS`): a variant
with none is drawn from its :class:`~lanqi.games.base.Position` by
:class:`~lanqi.gui.board_view.PointsBoardView` and played by clicks
(:class:`~lanqi.gui.controllers.PointInput`); a drawer of its own is one entry there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from lanqi.bot.base import Bot
from lanqi.bot.catalog import builtin_ai
from lanqi.games import registry
from lanqi.games.base import Game, VariantSpec
from lanqi.gui import theme
from lanqi.gui.board_view import BoardView, GomokuBoardView, PointsBoardView, XiangqiBoardView
from lanqi.gui.controllers import BoardInput, GomokuInput, PointInput, Table, XiangqiInput
from lanqi.i18n import tr

__all__ = ["LOOKS", "VARIANTS", "Looks", "Notate", "VariantUI", "variant_ui"]

#: a notation: the text of a move on the board it is played from
Notate = Callable[[Game[Any], Any], str]
#: the built-in AI: (level, thinking time in ms or None, seed or None) -> a bot
MakeAI = Callable[[int, "int | None", "int | None"], Bot]


@dataclass(frozen=True, slots=True)
class VariantUI:
    """How the GUI shows and plays one variant."""

    name: str
    #: the name in Chinese characters: 象棋
    chinese: str
    #: the board's drawer, for a game with these options
    view: Callable[[Mapping[str, object]], BoardView]
    #: the input controller: how clicks, drags and keys become moves
    controller: Callable[[Table], BoardInput]
    #: the board is turned for the player of the second seat (gomoku reads the same
    #: for both, so it is not)
    turns_for_second_seat: bool
    #: the built-in AI (levels 1 to ``ai_levels``, clamped by the variant's spec)
    ai: MakeAI
    #: the colour of the first seat's moves in the move list (None: the text colour)
    first_seat_ink: theme.Color | None
    #: the built-in AI's levels, 1 to this (0: the variant has no built-in AI)
    ai_levels: int
    #: the notations the move list can switch between, by the settings' name
    #: (none: the game's own move text, and no switch)
    notations: Mapping[str, Notate] = field(default_factory=dict)
    #: the options a player picks for a new game (menu, seeks, challenges): each option's
    #: name -> its values, the default first
    choices: Mapping[str, tuple[object, ...]] = field(default_factory=dict)
    #: the chosen options for people (``19x19 renju``); empty for none
    describe: Callable[[Mapping[str, object]], str] = lambda options: ""

    @property
    def title(self) -> str:
        """``象棋 Xiangqi``."""
        return f"{self.chinese} {self.name.capitalize()}".strip()

    def choice_label(self, option: str, value: object) -> str:
        """A button's label for ``option`` set to ``value``: ``棋盘 Board 19x19``."""
        return CHOICE_LABELS.get(option, option) + " " + _value_text(option, value)

    def step(self, saved: dict[str, str], option: str) -> None:
        """Pick the next value of ``option`` (wrapping round) in the settings' ``saved``."""
        values = self.choices[option]
        value = self.chosen(saved)[option]
        saved[f"{self.name}.{option}"] = str(values[(values.index(value) + 1) % len(values)])

    def chosen(self, saved: Mapping[str, str]) -> dict[str, object]:
        """The options picked, from the settings' text (``{"gomoku.size": "19"}``):
        every choice, the default where nothing (or nothing known) was saved."""
        options: dict[str, object] = {}
        for option, values in self.choices.items():
            text = saved.get(f"{self.name}.{option}")
            options[option] = next((v for v in values if str(v) == text), values[0])
        return options


#: the names of the options players choose, on buttons
CHOICE_LABELS = {"size": tr("option.size"), "rule": tr("option.rule")}
#: option values with a word in Chinese beside them
_VALUE_WORDS = {("rule", "renju"): "renju 禁手"}


def _value_text(option: str, value: object) -> str:
    if option == "size":
        return f"{value}×{value}"
    return _VALUE_WORDS.get((option, str(value)), str(value))


def _describe(choices: Mapping[str, tuple[object, ...]]) -> Callable[[Mapping[str, object]], str]:
    def describe(options: Mapping[str, object]) -> str:
        values = (options.get(option, values[0]) for option, values in choices.items())
        return " ".join(
            _value_text(option, value) if option == "size" else str(value)
            for option, value in zip(choices, values, strict=True)
        )

    return describe


def _gomoku_view(options: Mapping[str, object]) -> BoardView:
    size = options.get("size", 15)
    return GomokuBoardView(size if isinstance(size, int) else 15)


@dataclass(frozen=True, slots=True)
class Looks:
    """What only the GUI knows of a variant: how its board is drawn and played."""

    #: the board's drawer, for a game with these options
    view: Callable[[Mapping[str, object]], BoardView]
    #: the input controller: how clicks, drags and keys become moves
    controller: Callable[[Table], BoardInput]
    turns_for_second_seat: bool = False
    first_seat_ink: theme.Color | None = None


#: the variants with a drawer of their own, by name; any other is drawn from its position
LOOKS: dict[str, Looks] = {
    "xiangqi": Looks(
        view=lambda options: XiangqiBoardView(),
        controller=XiangqiInput,
        turns_for_second_seat=True,
        first_seat_ink=(240, 140, 120),
    ),
    "gomoku": Looks(view=_gomoku_view, controller=GomokuInput),
}


def _plain(spec: VariantSpec[Any]) -> Looks:
    """A variant without looks of its own: its position's points, played by clicks."""

    def view(options: Mapping[str, object]) -> BoardView:
        return PointsBoardView(spec.create(options).position())

    return Looks(view=view, controller=PointInput)


def _ai(variant: str) -> MakeAI:
    def make(level: int, time_ms: int | None, seed: int | None) -> Bot:
        return builtin_ai(variant, level=level, time_ms=time_ms, seed=seed)

    return make


def _entry(spec: VariantSpec[Any]) -> VariantUI:
    looks = LOOKS.get(spec.name) or _plain(spec)
    return VariantUI(
        name=spec.name,
        chinese=spec.chinese_name,
        view=looks.view,
        controller=looks.controller,
        turns_for_second_seat=looks.turns_for_second_seat,
        first_seat_ink=looks.first_seat_ink,
        ai=_ai(spec.name),
        ai_levels=spec.ai_levels if spec.ai is not None else 0,
        notations=dict(spec.notations),
        choices=dict(spec.option_choices),
        describe=_describe(spec.option_choices),
    )


class _Registered(Mapping[str, VariantUI]):
    """Every registered variant's entry, made from its spec when first asked for
    (and again when the registry holds another spec under the name)."""

    def __init__(self) -> None:
        self._made: dict[str, tuple[VariantSpec[Any], VariantUI]] = {}

    def __getitem__(self, variant: str) -> VariantUI:
        spec = registry.VARIANTS[variant]
        made = self._made.get(variant)
        if made is None or made[0] is not spec:
            made = self._made[variant] = (spec, _entry(spec))
        return made[1]

    def __iter__(self) -> Iterator[str]:
        return iter(registry.VARIANTS)

    def __len__(self) -> int:
        return len(registry.VARIANTS)


#: the GUI's entry of every registered variant
VARIANTS: Mapping[str, VariantUI] = _Registered()


def variant_ui(variant: str) -> VariantUI:
    """The GUI's entry for ``variant``; raises ValueError for one it does not know."""
    try:
        return VARIANTS[variant]
    except KeyError:
        raise ValueError(f"the GUI cannot show {variant!r} games") from None
