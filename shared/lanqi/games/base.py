"""What every game in lanqi shares: outcomes, move errors and the ``Game`` protocol.

The referee, the bots and the GUI talk to games only through the names defined
here, so they never special-case a variant.  Seats are numbered 0 (the side that
moves first: Red in xiangqi, Black in gomoku) and 1.

>>> Outcome(None, Termination.REPETITION).result()
'1/2-1/2'
>>> score_of("0-1"), winner_of("1-0"), result_for(1)
(0.0, 0, '0-1')

A variant is a package that provides a board satisfying :class:`Game` and one
:class:`VariantSpec`; :mod:`lanqi.games.registry` lists the specs by name.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import (
    Any,
    ClassVar,
    Generic,
    Literal,
    Protocol,
    Self,
    TypedDict,
    TypeVar,
    get_args,
    runtime_checkable,
)

__all__ = [
    "RESULTS",
    "AmbiguousMoveError",
    "Game",
    "GameRecord",
    "IllegalMoveError",
    "InvalidMoveError",
    "InvalidPositionError",
    "MoveError",
    "Notation",
    "Opening",
    "Outcome",
    "Point",
    "Position",
    "ResultText",
    "Termination",
    "TerminationText",
    "Token",
    "VariantSpec",
    "first_seat",
    "opening_lines",
    "parse_result",
    "parse_termination",
    "result_for",
    "score_of",
    "termination_text",
    "winner_of",
]


class Termination(enum.Enum):
    """Why a game ended.  Board rules first, then referee decisions."""

    CHECKMATE = "checkmate"
    STALEMATE = "stalemate"
    REPETITION = "repetition"
    PERPETUAL_CHECK = "perpetual_check"
    PERPETUAL_CHASE = "perpetual_chase"
    MOVE_LIMIT = "move_limit"
    INSUFFICIENT_MATERIAL = "insufficient_material"
    FIVE_IN_A_ROW = "five_in_a_row"
    BOARD_FULL = "board_full"
    FORBIDDEN_MOVE = "forbidden_move"
    # Decided outside the board, by the referee.
    RESIGNATION = "resignation"
    TIMEOUT = "timeout"
    AGREEMENT = "agreement"
    ABANDONED = "abandoned"
    ABORTED = "aborted"
    #: aborted by the referee: the side to move did not make its first move in time
    NO_FIRST_MOVE = "no_first_move"


#: A game's result in PGN form: seat 0 won, seat 1 won, a draw, no result.
ResultText = Literal["1-0", "0-1", "1/2-1/2", "*"]
RESULTS: tuple[ResultText, ...] = get_args(ResultText)

_SCORES: dict[str, float] = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def score_of(result: str | None) -> float | None:
    """Seat 0's score for ``result`` (1, 0.5 or 0); ``None`` for ``*`` or no result.

    >>> score_of("1/2-1/2"), score_of("*")
    (0.5, None)
    """
    return _SCORES.get(result or "")


def winner_of(result: str | None) -> int | None:
    """The winning seat of ``result`` (0 or 1), ``None`` for a draw or no result."""
    score = score_of(result)
    return None if score is None or score == 0.5 else int(score == 0.0)


def result_for(winner: int | None) -> ResultText:
    """The result when ``winner`` (a seat, or ``None`` for a draw) won."""
    if winner is None:
        return "1/2-1/2"
    return "1-0" if winner == 0 else "0-1"


#: The wire text of a :class:`Termination` (its ``value``).
TerminationText = Literal[
    "checkmate",
    "stalemate",
    "repetition",
    "perpetual_check",
    "perpetual_chase",
    "move_limit",
    "insufficient_material",
    "five_in_a_row",
    "board_full",
    "forbidden_move",
    "resignation",
    "timeout",
    "agreement",
    "abandoned",
    "aborted",
    "no_first_move",
]


def termination_text(termination: Termination) -> TerminationText:
    """The wire text of ``termination``, typed.

    >>> termination_text(Termination.PERPETUAL_CHECK)
    'perpetual_check'
    """
    text: TerminationText = termination.value
    return text


def parse_result(text: str) -> ResultText:
    """``text`` as a result; raises ``ValueError`` for anything else.

    >>> parse_result("0-1")
    '0-1'
    """
    for result in RESULTS:
        if text == result:
            return result
    raise ValueError(f"not a result: {text!r} (want one of {', '.join(RESULTS)})")


def parse_termination(text: str) -> TerminationText:
    """``text`` as a termination; raises ``ValueError`` for anything else."""
    return termination_text(Termination(text))


C = TypeVar("C", bound=enum.IntEnum)


@dataclass(frozen=True, slots=True)
class Outcome(Generic[C]):
    """The end of a game: who won (``None`` for a draw or an aborted game) and why.

    ``winner`` is the game's own colour enum, whose value is the seat (0 or 1).
    """

    winner: C | None
    termination: Termination

    def result(self) -> ResultText:
        """The result in PGN form: ``1-0`` (seat 0 won), ``0-1`` or ``1/2-1/2``.

        An aborted game has no result and gives ``*``.
        """
        if self.termination in (Termination.ABORTED, Termination.NO_FIRST_MOVE):
            return "*"
        return result_for(self.winner_seat)

    @property
    def winner_seat(self) -> int | None:
        """The winning seat, 0 or 1, or ``None``."""
        return None if self.winner is None else int(self.winner)


class MoveError(ValueError):
    """Base class of the three ways a move can fail to parse or apply."""


class InvalidMoveError(MoveError):
    """The text is not a move in any notation the game understands."""


class IllegalMoveError(MoveError):
    """The text is a well-formed move, but the rules forbid it here.

    Besides the message, ``code`` names the rule that was broken, stable for
    frontends that put it in their own words (``piece_cannot_move``,
    ``self_check``, ``occupied``, ``forbidden``...; "" when none applies), and
    ``detail`` its particulars (``{"piece": "horse"}``)::

        >>> error = IllegalMoveError("a horse cannot move like that",
        ...                          code="piece_cannot_move", detail={"piece": "horse"})
        >>> str(error), error.code, error.detail["piece"]
        ('a horse cannot move like that', 'piece_cannot_move', 'horse')
    """

    def __init__(
        self, message: str = "", *, code: str = "", detail: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.detail: dict[str, str] = dict(detail or {})


class AmbiguousMoveError(MoveError):
    """The text names more than one legal move."""


class InvalidPositionError(ValueError):
    """A position string (FEN or the like) that cannot be read."""


#: A point of the board: (file, rank), 0-based, file from seat 0's left and rank
#: from seat 0's side (xiangqi ``e0`` is (4, 0); gomoku ``h8`` is (7, 7)).
Point = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Token:
    """What stands on a point: whose it is (``seat``; ``None`` for a piece of
    nobody's) and what it is (``kind``).

    ``kind`` is the variant's own code: a xiangqi piece letter in upper case
    (``K A B N R C P``), ``stone`` in gomoku.
    """

    seat: int | None
    kind: str


@dataclass(frozen=True, slots=True)
class Position:
    """A drawable description of a position, the same shape for every variant.

    A GUI draws ``files`` x ``ranks`` points labelled by ``file_names`` and
    ``rank_names``, the tokens in ``cells``, the points of ``last_move`` and the
    named ``markers`` (``check``: the attacked general; ``line``: a winning row;
    ``forbidden``: points the side to move may not play), without knowing the variant.

    >>> from lanqi.games.registry import create_game
    >>> game = create_game("gomoku", size=15)
    >>> _ = game.push_text("h8")
    >>> position = game.position()
    >>> position.cells[(7, 7)], position.last_move, position.to_move
    (Token(seat=0, kind='stone'), ((7, 7),), 1)
    """

    variant: str
    files: int
    ranks: int
    file_names: tuple[str, ...]
    rank_names: tuple[str, ...]
    cells: Mapping[Point, Token]
    #: the seat to move, ``None`` once the game is over on the board
    to_move: int | None
    #: the points the last move touched (from and to, or the one point played)
    last_move: tuple[Point, ...] = ()
    markers: Mapping[str, tuple[Point, ...]] = field(default_factory=dict)


class GameRecord(TypedDict):
    """What :meth:`Game.snapshot` returns: enough to rebuild the game exactly."""

    variant: str
    options: dict[str, Any]
    start: str | None
    moves: list[str]


#: The type of a variant's moves: a small immutable value whose ``str()`` is its
#: wire text (``h2e2``, ``h8``).
M = TypeVar("M", bound=Hashable)


@runtime_checkable
class Game(Protocol[M]):
    """What the referee, bots and GUI may rely on for any variant.

    Both ``lanqi.games.xiangqi.Board`` (a ``Game[xiangqi.Move]``) and
    ``lanqi.games.gomoku.Board`` satisfy it; use
    :func:`lanqi.games.registry.create_game` to make one by name.  Moves go in as
    text through :meth:`parse_move` / :meth:`push_text` and come out as wire text
    (``str(move)``) or human text (:meth:`move_text`).
    """

    variant: ClassVar[str]

    @property
    def options(self) -> Mapping[str, Any]: ...

    @property
    def ply(self) -> int: ...

    @property
    def seat_to_move(self) -> int: ...

    def legal_moves(self) -> list[M]: ...

    def parse_move(self, text: str) -> M: ...

    def push(self, move: M) -> None: ...

    def push_text(self, text: str) -> M: ...

    def pop(self) -> M: ...

    def copy(self) -> Self: ...

    def outcome(self) -> Outcome[Any] | None: ...

    def fen(self) -> str: ...

    def move_text(self, move: M) -> str: ...

    def snapshot(self) -> GameRecord: ...

    def position(self) -> Position: ...


def first_seat(game: Game[Any]) -> int:
    """The seat that made (or makes) the first move of ``game`` (a position may
    start with seat 1 to move).

    >>> from lanqi.games.registry import create_game
    >>> first_seat(create_game("xiangqi", fen="4k4/9/9/9/9/9/9/9/9/3K5 b"))
    1
    """
    return (game.seat_to_move - game.ply) % 2


@dataclass(frozen=True, slots=True)
class Opening:
    """A start position (``fen``, None for the standard one) and moves played from it."""

    name: str
    fen: str | None = None
    moves: tuple[str, ...] = field(default_factory=tuple)


def opening_lines(text: str) -> list[tuple[int, str]]:
    """The numbered lines of an opening file that are neither empty nor ``#`` comments."""
    return [
        (number, line.strip())
        for number, line in enumerate(text.splitlines(), 1)
        if line.strip() and not line.lstrip().startswith("#")
    ]


B = TypeVar("B", bound=Game[Any])


@dataclass(frozen=True, slots=True)
class Notation:
    """A way people (or engines) write a variant's moves.

    The notation's key in :attr:`VariantSpec.notations` is its one name, the
    one settings, ``--notation`` flags and records use (``wxf``); ``title`` is
    how a report heads its column (``WXF``), ``label`` how a narrow button says
    it (``中文``).  A notation that is not ``for_people`` (the wire's ICCS) is
    offered where people pick one but left out of readable move lists.

    >>> wire = Notation("ICCS", lambda board, move: str(move), for_people=False)
    >>> wire(None, "h2e2"), wire.label
    ('h2e2', 'ICCS')
    """

    title: str
    #: (the board before the move, the move) -> the move's text
    write: Callable[[Any, Any], str]
    for_people: bool = True
    label: str = ""

    def __post_init__(self) -> None:
        if not self.label:
            object.__setattr__(self, "label", self.title)

    def __call__(self, board: Any, move: Any) -> str:
        return self.write(board, move)


#: a record text's games: (its tags in file order, the board after its moves, the result)
RecordGames = list[tuple[dict[str, str], Any, str]]


@dataclass(frozen=True, slots=True)
class VariantSpec(Generic[B]):
    """One variant as the registry knows it: how to make a game and how to write
    its record.  Everything a service or frontend needs that truly differs per
    variant lives here, so none of them compares variant names.
    """

    name: str
    #: the variant's board class
    board: type[B]
    #: a game at its start position (``fen`` among the options for another start)
    create: Callable[[Mapping[str, Any]], B]
    #: what the seats are called, seat 0 first (``Red``/``Black``)
    seat_names: tuple[str, str]
    #: the record file format's usual suffix (``pgn``, ``txt``)
    record_suffix: str
    #: the record of a game: (board, headers, termination or ``None``) -> text;
    #: the headers carry the players under the seat names
    write: Callable[[B, Mapping[str, str], str | None], str]
    #: how a ply is counted for people: ``move 12`` or ``stone 23``
    ply_label: Callable[[int], str]
    #: words for terminations whose meaning differs from the common one
    termination_notes: Mapping[str, str] = field(default_factory=dict)
    #: how people write a move, by the notation's one name (``{"chinese": ..., "wxf":
    #: ...}``); empty: moves are written as the game's own move text
    notations: Mapping[str, Notation] = field(default_factory=dict)
    #: the notation records are written in unless asked otherwise, and a terminal
    #: shows a move in (``wxf``); None: the game's own move text
    record_notation: str | None = None
    #: the record in a move notation with a comment after each move: (board, headers,
    #: termination, notation, comments) -> text; ``None`` when the record format has
    #: neither (``write_record`` then leaves them out)
    write_annotated: (
        Callable[[B, Mapping[str, str], str | None, str | None, Sequence[str | None]], str] | None
    ) = None
    #: the options a game of this variant takes (``size``, ``rule``), fen aside
    option_names: tuple[str, ...] = ()
    #: the notation engines read, which ``lanqi match`` records use (``iccs``);
    #: None: the format's own
    engine_notation: str | None = None
    #: opening suites: (file, its text, format or "" for the suffix, game options,
    #: plies or None) -> the openings; raises ``ValueError`` naming the file and line
    read_openings: (
        Callable[[Path, str, str, Mapping[str, Any], int | None], list[Opening]] | None
    ) = None
    #: further record formats by suffix (``psq``): (board, player names, result,
    #: think time per ply in ms) -> one file's text
    extra_records: Mapping[str, Callable[[B, tuple[str, str], str, Sequence[int]], str]] = field(
        default_factory=dict
    )
    #: every game of a record text in this variant's format: (tags, board, result)
    #: each; raises ``ValueError`` naming the game and move that cannot be read
    read: Callable[[str], RecordGames] | None = None
    #: the value of a record's ``Game`` tag that names this variant (``Gomoku``);
    #: a record without the tag is the first registered variant's
    record_game: str = ""
    #: the variant's name in Chinese characters (``象棋``); "" for none
    chinese_name: str = ""
    #: the options players choose for a new game (menus, seeks, ``--size``): each
    #: option's name -> its values, the default first
    option_choices: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    #: the built-in AI, named as ``module:function`` (an entry point: the rules core
    #: may not import the frontends' bots, so a frontend resolves the name,
    #: :func:`lanqi.bot.catalog.builtin_ai`); None: the variant has none
    ai: str | None = None
    #: the built-in AI's levels, 1 (weakest) to this
    ai_levels: int = 1

    def ai_level(self, level: int | None) -> int:
        """``level`` as the built-in AI takes it: clamped to 1..:attr:`ai_levels`,
        the strongest for ``None``.  Every frontend clamps through here.

        >>> spec = VariantSpec("v", object, dict, ("A", "B"), "txt", str, str, ai_levels=5)
        >>> spec.ai_level(8), spec.ai_level(0), spec.ai_level(None), spec.ai_level(3)
        (5, 1, 5, 3)
        """
        if level is None:
            return self.ai_levels
        return max(1, min(self.ai_levels, level))

    @property
    def title(self) -> str:
        """``象棋 Xiangqi`` (the capitalised name alone where there is no Chinese one)."""
        return f"{self.chinese_name} {self.name.capitalize()}".strip()

    def write_record(
        self,
        game: Game[Any],
        headers: Mapping[str, str],
        termination: str | None = None,
        *,
        notation: str | None = None,
        comments: Sequence[str | None] = (),
    ) -> str:
        """The record of ``game`` (a board of this variant) with ``headers``; moves in
        ``notation`` and ``comments[i]`` after move ``i`` where the format has them."""
        if not isinstance(game, self.board):
            raise TypeError(f"a {self.name} record needs a {self.name} game, not {game.variant}")
        if self.write_annotated is not None and (notation is not None or comments):
            return self.write_annotated(game, headers, termination, notation, comments)
        return self.write(game, headers, termination)
