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
from dataclasses import dataclass

from lanqi.gui import theme
from lanqi.gui.board_view import BoardView, GomokuBoardView, XiangqiBoardView
from lanqi.gui.controllers import BoardInput, GomokuInput, Table, XiangqiInput

__all__ = ["VARIANTS", "VariantUI", "variant_ui"]


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
    #: the move list can switch notation (中文 / WXF / ICCS)
    notations: bool
    #: the colour of the first seat's moves in the move list (None: the text colour)
    first_seat_ink: theme.Color | None
    #: the file suffix of a saved record
    record_suffix: str
    #: the built-in AI's levels, 1 to this
    ai_levels: int

    @property
    def title(self) -> str:
        """``象棋 Xiangqi``."""
        return f"{self.chinese} {self.name.capitalize()}"


def _gomoku_view(options: Mapping[str, object]) -> BoardView:
    size = options.get("size", 15)
    return GomokuBoardView(size if isinstance(size, int) else 15)


VARIANTS: dict[str, VariantUI] = {
    "xiangqi": VariantUI(
        name="xiangqi",
        chinese="象棋",
        view=lambda options: XiangqiBoardView(),
        controller=XiangqiInput,
        turns_for_second_seat=True,
        notations=True,
        first_seat_ink=(240, 140, 120),
        record_suffix="pgn",
        ai_levels=8,
    ),
    "gomoku": VariantUI(
        name="gomoku",
        chinese="五子棋",
        view=_gomoku_view,
        controller=GomokuInput,
        turns_for_second_seat=False,
        notations=False,
        first_seat_ink=None,
        record_suffix="txt",
        ai_levels=5,
    ),
}


def variant_ui(variant: str) -> VariantUI:
    """The GUI's entry for ``variant``; raises ValueError for one it does not know."""
    try:
        return VARIANTS[variant]
    except KeyError:
        raise ValueError(f"the GUI cannot show {variant!r} games") from None
