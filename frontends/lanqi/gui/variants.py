"""The GUI's one table of what differs between the variants.

Everything on screen that is not the same for xiangqi and gomoku is reached
through :func:`variant_ui`: the board's drawer and geometry
(:class:`~lanqi.gui.board_view.BoardView`), the input controller
(:mod:`lanqi.gui.controllers`) and a few display facts.  The screens look the
variant up here once and never test it themselves; a new variant is a view, a
controller and one entry in :data:`VARIANTS`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from lanqi.bot.base import Bot
from lanqi.games import xiangqi
from lanqi.games.base import Game
from lanqi.gui import theme
from lanqi.gui.board_view import BoardView, GomokuBoardView, XiangqiBoardView
from lanqi.gui.controllers import BoardInput, GomokuInput, Table, XiangqiInput
from lanqi.i18n import tr

__all__ = ["VARIANTS", "Notate", "VariantUI", "variant_ui"]

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
    #: the built-in AI (levels 1 to ``ai_levels``)
    ai: MakeAI
    #: the colour of the first seat's moves in the move list (None: the text colour)
    first_seat_ink: theme.Color | None
    #: the built-in AI's levels, 1 to this
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
        return f"{self.chinese} {self.name.capitalize()}"

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


def _gomoku_describe(options: Mapping[str, object]) -> str:
    size, rule = options.get("size", 15), options.get("rule", "freestyle")
    return f"{_value_text('size', size)} {rule}"


def _gomoku_view(options: Mapping[str, object]) -> BoardView:
    size = options.get("size", 15)
    return GomokuBoardView(size if isinstance(size, int) else 15)


def _xiangqi_ai(level: int, time_ms: int | None, seed: int | None) -> Bot:
    from lanqi.bot.xiangqi_ai import XiangqiAI

    return XiangqiAI(level=max(1, min(8, level)), seed=seed, move_time_ms=time_ms)


def _gomoku_ai(level: int, time_ms: int | None, seed: int | None) -> Bot:
    from lanqi.bot.gomoku_ai import GomokuAI

    return GomokuAI(level=max(1, min(5, level)), seed=seed, time_ms=time_ms)


def _chinese(board: Game[Any], move: Any) -> str:
    from lanqi.games.xiangqi.notation import move_to

    assert isinstance(board, xiangqi.Board)
    return move_to(board, move, "chinese")


def _wire(board: Game[Any], move: Any) -> str:
    return str(move)


VARIANTS: dict[str, VariantUI] = {
    "xiangqi": VariantUI(
        name="xiangqi",
        chinese="象棋",
        view=lambda options: XiangqiBoardView(),
        controller=XiangqiInput,
        turns_for_second_seat=True,
        first_seat_ink=(240, 140, 120),
        ai=_xiangqi_ai,
        ai_levels=8,
        notations={
            "chinese": _chinese,
            "wxf": lambda board, move: board.move_text(move),
            "iccs": _wire,
        },
    ),
    "gomoku": VariantUI(
        name="gomoku",
        chinese="五子棋",
        view=_gomoku_view,
        controller=GomokuInput,
        turns_for_second_seat=False,
        first_seat_ink=None,
        ai=_gomoku_ai,
        ai_levels=5,
        choices={"size": (15, 19, 20), "rule": ("freestyle", "standard", "renju")},
        describe=_gomoku_describe,
    ),
}


def variant_ui(variant: str) -> VariantUI:
    """The GUI's entry for ``variant``; raises ValueError for one it does not know."""
    try:
        return VARIANTS[variant]
    except KeyError:
        raise ValueError(f"the GUI cannot show {variant!r} games") from None
