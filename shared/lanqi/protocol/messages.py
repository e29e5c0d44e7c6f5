"""Every message of the lanqi protocol, with its fields and limits.

Requests (client -> service over DEALER/ROUTER) carry ``id``, chosen by the
client; replies carry ``re``, the id they answer.  Events are published on
``game/<game_id>`` with a per-game ``seq``; results on ``results``.
See ``docs/protocol.md`` for every message with an example.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass, field
from typing import Any, Literal

from lanqi.games.base import ResultText, TerminationText
from lanqi.games.registry import variant_names
from lanqi.protocol.schema import ErrorCode, Message, Struct, limit, register

__all__ = [
    "DEFAULT_FIRST_MOVE_MS",
    "MAX_CHAT_HISTORY",
    "MAX_CHAT_LEN",
    "MAX_LISTED_PLAYERS",
    "MAX_MOVES",
    "AbortGame",
    "AcceptChallenge",
    "AcceptDraw",
    "AcceptTakeback",
    "Adjudicate",
    "Assignment",
    "CancelChallenge",
    "CancelSeek",
    "Challenge",
    "ChallengeClosed",
    "ChallengeCreated",
    "ChallengeReceived",
    "ChatLine",
    "ChatPosted",
    "ChatRequest",
    "ChatRoom",
    "ClaimCode",
    "ClockInfo",
    "CreateGame",
    "CreateSeek",
    "CreateTournament",
    "DeclineChallenge",
    "DeclineDraw",
    "DeclineTakeback",
    "DeleteTournament",
    "DrawDeclined",
    "DrawOffered",
    "ErrorCode",
    "ErrorReply",
    "ExportTournament",
    "Exported",
    "FinishTournament",
    "GameAssigned",
    "GameCreated",
    "GameEnded",
    "GameEvent",
    "GameResult",
    "GameStarted",
    "GameStatus",
    "GameSummary",
    "GamesList",
    "GetServerInfo",
    "GetServerKey",
    "GetStandings",
    "Heartbeat",
    "Hello",
    "Join",
    "JoinTournament",
    "ListGames",
    "ListLockouts",
    "ListPlayers",
    "ListSeeks",
    "ListTournaments",
    "LobbyChallenge",
    "LobbyEvent",
    "LobbyPaired",
    "LobbyPresence",
    "LobbySeekAdded",
    "LobbySeekRemoved",
    "Lockout",
    "LockoutsList",
    "MoveAccepted",
    "MoveMade",
    "MoveRequest",
    "MutePlayer",
    "OfferDraw",
    "Ok",
    "PairingInfo",
    "PauseTournament",
    "Ping",
    "PlayerInfo",
    "PlayerJoined",
    "PlayerKind",
    "PlayersList",
    "Presence",
    "ReclaimName",
    "ReclaimTournament",
    "RefereeEndpoints",
    "RemovePlayer",
    "Reply",
    "Request",
    "RequestTakeback",
    "Resign",
    "ResultsList",
    "ResultsSince",
    "ResumeTournament",
    "Seek",
    "SeekCreated",
    "SeekInfo",
    "SeeksList",
    "ServerInfo",
    "ServerKey",
    "Snapshot",
    "StandingInfo",
    "Standings",
    "StartTournament",
    "Sync",
    "TakebackDeclined",
    "TakebackRequested",
    "TakenBack",
    "Termination",
    "TimeControl",
    "TimeControlKind",
    "TourCreated",
    "TourDeleted",
    "TourFinished",
    "TourGame",
    "TourJoined",
    "TourPairing",
    "TourPaused",
    "TourResult",
    "TourResumed",
    "TourRound",
    "TourStarted",
    "TourStuck",
    "TourWithdrawn",
    "TournamentCreated",
    "TournamentEvent",
    "TournamentInfo",
    "TournamentSpec",
    "TournamentStatus",
    "TournamentsList",
    "Unlock",
    "Welcome",
    "WithdrawTournament",
    "legacy_termination",
    "termination_label",
]

#: A game's state on the referee: not both seats joined yet, being played, over.
GameStatus = Literal["waiting", "active", "finished"]
#: Who a chat line is for: the two players, or the spectators.
ChatRoom = Literal["players", "spectators"]
#: Who a player is, as its ``hello`` said.
PlayerKind = Literal["human", "bot"]
#: A tournament's state.
TournamentStatus = Literal["open", "running", "paused", "finished"]
#: How a game's clock runs: untimed, base + increment, a fixed time for every move.
TimeControlKind = Literal["none", "fischer", "per_move"]
#: Why a game ended: the rules' words, the referee's (``resignation``, ``timeout``,
#: ``agreement``, ``abandoned``, ``aborted``, ``no_first_move``) and ``adjudication``
#: (an admin's ``adjudicate``).  What a seat or an admin said (an engine's
#: ``illegal move h2h9``, ``adjudication: score``) travels beside it as ``reason``.
Termination = Literal[TerminationText, "adjudication"]

MAX_MOVES = 4000  # plies in one game record
MAX_CHAT_LEN = 500
MAX_CHAT_HISTORY = 50  # chat lines a snapshot carries (the latest)
#: a side's first-move window when a time control does not say (lobby games); the
#: tournament director and ``lanqi match`` set 0 (off: the clock starts at the join)
DEFAULT_FIRST_MOVE_MS = 30_000
ID = limit(64)
TOKEN = limit(64)
MOVE_TEXT = limit(32)
FEN = limit(1000)  # a 20x20 gomoku position is over 400 characters
#: a termination's free-text reason (left out of the wire map when empty, so a game
#: that ends without one is sent and stored byte for byte as before the field)
REASON = limit(200, omit_empty=True)
TERMINATIONS: frozenset[str] = frozenset(typing.get_args(Termination))


def legacy_termination(text: str, result: str | None) -> tuple[Termination, str]:
    """The (termination, reason) of a termination written before ``reason`` existed,
    when a seat's or an adjudicator's own words stood in the termination itself.

    >>> legacy_termination("timeout", "1-0")
    ('timeout', '')
    >>> legacy_termination("illegal move h2h9", "0-1")
    ('resignation', 'illegal move h2h9')
    >>> legacy_termination("adjudication: draw", "1/2-1/2")
    ('adjudication', 'adjudication: draw')
    """
    for name in typing.get_args(Termination):
        if text == name:
            return name, ""
    if text.startswith("adjudication"):
        return "adjudication", text
    return ("agreement" if result == "1/2-1/2" else "resignation"), text


def termination_label(termination: str | None, reason: str = "") -> str:
    """What a record and a log say for an ending: the reason when there is one (it
    says more), else the termination (``""`` for none).

    >>> termination_label("resignation", "crash"), termination_label("timeout")
    ('crash', 'timeout')
    """
    return reason or termination or ""


def _legacy_ending(data: dict[str, Any]) -> dict[str, Any]:
    """A map from a sender (or a store) older than ``reason``: its free-text
    ``termination`` becomes the closed word plus the text as ``reason``."""
    text = data.get("termination")
    if "reason" in data or type(text) is not str or text in TERMINATIONS:
        return data
    termination, reason = legacy_termination(text, data.get("result"))
    return {**data, "termination": termination, "reason": reason}


# ---------------------------------------------------------------- nested values


@dataclass(frozen=True, slots=True, kw_only=True)
class TimeControl(Struct):
    """``kind``: ``none`` (untimed), ``fischer`` (base + increment per move) or
    ``per_move`` (a fixed time for every move, nothing carried over).
    ``join_within_ms``: a seat that has not joined by then loses (0: referee default).
    ``first_move_ms``: each side's clock starts at its first move, which it must make
    within this window after its turn came, or the game is aborted (0: off, the
    clock of the side to move starts when both seats have joined).
    Time odds: ``seat_base_ms``, ``seat_increment_ms`` and ``seat_per_move_ms`` give
    each seat its own value (empty: the common field for both); :meth:`for_seat`
    reads one seat's clock.

    >>> tc = TimeControl(kind="fischer", base_ms=10_000, increment_ms=100,
    ...                  seat_base_ms=[10_000, 5_000], seat_increment_ms=[100, 50])
    >>> (tc.for_seat(1).base_ms, tc.for_seat(1).increment_ms)
    (5000, 50)
    """

    kind: TimeControlKind = field(default="none", metadata=limit(16))
    base_ms: int = field(default=0, metadata=limit(max_value=24 * 3600 * 1000))
    increment_ms: int = field(default=0, metadata=limit(max_value=3600 * 1000))
    per_move_ms: int = field(default=0, metadata=limit(max_value=24 * 3600 * 1000))
    #: a seat that has not joined within this time loses by abandonment (0: the
    #: referee's own abandon time); tournaments use it for no-shows
    join_within_ms: int = field(default=0, metadata=limit(max_value=24 * 3600 * 1000))
    #: a side's clock does not run before its first move; it must make that move
    #: within this window, else the game is aborted (0: off, the clock of the side
    #: to move starts when both seats have joined: tournaments and engine matches)
    first_move_ms: int = field(
        default=DEFAULT_FIRST_MOVE_MS, metadata=limit(max_value=24 * 3600 * 1000)
    )
    #: time odds: each seat's own base time (``fischer``), instead of ``base_ms`` for both
    seat_base_ms: list[int] = field(default_factory=list, metadata=limit(2))
    #: time odds: each seat's own increment (``fischer``), instead of ``increment_ms``
    seat_increment_ms: list[int] = field(default_factory=list, metadata=limit(2))
    #: time odds: each seat's own time per move (``per_move``), instead of ``per_move_ms``
    seat_per_move_ms: list[int] = field(default_factory=list, metadata=limit(2))

    @property
    def has_odds(self) -> bool:
        """Whether the seats' clocks differ in any way."""
        return self.for_seat(0) != self.for_seat(1)

    def for_seat(self, seat: int) -> TimeControl:
        """``seat``'s own clock, without odds: its base, increment and time per move."""

        def own(values: list[int], common: int) -> int:
            return values[seat] if len(values) == 2 else common

        return TimeControl(
            kind=self.kind,
            base_ms=own(self.seat_base_ms, self.base_ms),
            increment_ms=own(self.seat_increment_ms, self.increment_ms),
            per_move_ms=own(self.seat_per_move_ms, self.per_move_ms),
            join_within_ms=self.join_within_ms,
            first_move_ms=self.first_move_ms,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class ClockInfo(Struct):
    """Time left per seat in ms, as the referee's clock reads at ``seq``; the
    seat to move is ``running`` (None when no clock runs).  While the seat to move
    has yet to make its first move (a time control with ``first_move_ms``), its
    clock does not run and ``first_move_left_ms`` is the time left to make it."""

    remaining_ms: list[int] = field(default_factory=list, metadata=limit(2))
    running: int | None = field(default=None, metadata=limit(max_value=1))
    first_move_left_ms: int | None = field(default=None, metadata=limit(max_value=24 * 3600 * 1000))


@dataclass(frozen=True, slots=True, kw_only=True)
class ChatLine(Struct):
    """One chat message as a snapshot carries it: the ``chat_posted`` event's
    ``seq``, ``room`` (``players`` or ``spectators``), ``name``, ``text`` and
    ``seat`` (None for a spectator)."""

    seq: int
    room: ChatRoom = field(metadata=limit(16))
    name: str = field(metadata=limit(40))
    text: str = field(metadata=limit(MAX_CHAT_LEN))
    seat: int | None = field(default=None, metadata=limit(max_value=1))


@dataclass(frozen=True, slots=True, kw_only=True)
class GameSummary(Struct):
    game_id: str = field(metadata=ID)
    variant: str = field(metadata=limit(32))
    players: list[str] = field(metadata=limit(2, min_value=0))
    status: GameStatus = field(metadata=limit(16))
    ply: int
    result: ResultText | None = field(default=None, metadata=limit(8))


@dataclass(frozen=True, slots=True, kw_only=True)
class GameResult(Message):
    """Published on ``results`` when a game ends; also listed by ``results_since``.
    ``result_seq`` orders results on one referee."""

    T = "result"
    game_id: str = field(metadata=ID)
    result_seq: int
    variant: str = field(metadata=limit(32))
    options: dict[str, Any] = field(default_factory=dict, metadata=limit(16))
    players: list[str] = field(metadata=limit(2))
    result: ResultText = field(metadata=limit(8))
    termination: Termination = field(metadata=limit(32))
    winner: int | None = field(default=None, metadata=limit(max_value=1))
    start_fen: str | None = field(default=None, metadata=FEN)
    moves: list[str] = field(default_factory=list, metadata=limit(MAX_MOVES, min_value=0))
    tag: str = field(default="", metadata=limit(200))
    #: the mover's time left in ms as each move arrived (the ``moved`` events'
    #: ``left_ms``; one per move, empty when the game had no clock)
    clocks: list[int] = field(default_factory=list, metadata=limit(MAX_MOVES, min_value=0))
    #: what the seat or the adjudicator said (``crash``, ``adjudication: score``)
    reason: str = field(default="", metadata=REASON)

    LEGACY = _legacy_ending


# ---------------------------------------------------------------- base classes


@dataclass(frozen=True, slots=True, kw_only=True)
class Request(Message):
    id: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class Reply(Message):
    re: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class GameEvent(Message):
    game_id: str = field(metadata=ID)
    seq: int = 0


# ---------------------------------------------------------------- requests


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class CreateGame(Request):
    """Create a game (matchmaker or admin).  Needs the referee's admin key if one is set.
    ``casual`` games allow takebacks; ``tag`` is opaque to the referee (the
    matchmaker puts its pairing id there and finds it again in the result).

    ``game_id``, chosen by the caller, makes the request idempotent: a repeat of
    the same create gets the same ``game_created`` (same tokens), a different create
    with a taken id is refused as ``game_exists``.  ``None``: the referee picks one."""

    T = "create_game"
    game_id: str | None = field(default=None, metadata=ID)
    variant: str = field(metadata=limit(32))
    options: dict[str, Any] = field(default_factory=dict, metadata=limit(16))
    time_control: TimeControl = field(default_factory=TimeControl)
    players: list[str] = field(
        default_factory=lambda: ["", ""], metadata=limit(2, min_len=2, item_len=40)
    )
    casual: bool = True
    admin_key: str | None = field(default=None, metadata=TOKEN)
    tag: str = field(default="", metadata=limit(200))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class Join(Request):
    """Take a seat (``seat`` + ``token``) or watch (both omitted).  Replies with a snapshot."""

    T = "join"
    game_id: str = field(metadata=ID)
    seat: int | None = field(default=None, metadata=limit(max_value=1))
    token: str | None = field(default=None, metadata=TOKEN)


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class MoveRequest(Request):
    """Play ``move`` in the variant's wire notation (ICCS ``h2e2``, gomoku ``h8``)
    as ply number ``ply`` (0 for the first move of the game); xiangqi WXF and Chinese
    are still taken for this release (docs/protocol.md#move).  A retry of an accepted
    move gets the same answer; a move for any other ply is refused as ``stale_move``.

    ``think_ms`` (optional): how long the player thought, as the client measured
    it - from the moment it learned the turn was its own to the moment it sent the
    move.  The referee gives back the rest of the time the move took, the network's
    lag, within the seat's lag quota (docs/protocol.md#lag-compensation); without
    it the move is charged all the time it took."""

    T = "move"
    game_id: str = field(metadata=ID)
    token: str = field(metadata=TOKEN)
    ply: int = field(metadata=limit(max_value=MAX_MOVES))
    move: str = field(metadata=MOVE_TEXT)
    think_ms: int | None = field(
        default=None, metadata=limit(max_value=24 * 3600 * 1000, omit_empty=True)
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class _SeatAction(Request):
    game_id: str = field(metadata=ID)
    token: str = field(metadata=TOKEN)


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class Resign(_SeatAction):
    """Give up.  ``reason`` (optional) becomes the game's termination instead of
    ``resignation``: an engine manager says why its engine lost (``crash``,
    ``illegal move h2h9``, ``adjudication: score``...)."""

    T = "resign"
    reason: str = field(default="", metadata=limit(32))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class OfferDraw(_SeatAction):
    T = "offer_draw"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class AcceptDraw(_SeatAction):
    """Accept the pending draw offer.  ``reason`` (optional) becomes the
    termination instead of ``agreement`` (``adjudication: draw``...)."""

    T = "accept_draw"
    reason: str = field(default="", metadata=limit(32))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class DeclineDraw(_SeatAction):
    T = "decline_draw"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class RequestTakeback(_SeatAction):
    """Ask to take back the last move of the requester (casual games only)."""

    T = "takeback"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class AcceptTakeback(_SeatAction):
    T = "accept_takeback"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class DeclineTakeback(_SeatAction):
    T = "decline_takeback"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class AbortGame(_SeatAction):
    """End the game without result: casual games only, until each side has moved."""

    T = "abort"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class Adjudicate(Request):
    """End a game now with ``result``, on the referee's admin key (as ``create_game``):
    an engine match's adjudication (``adjudication: score``, ``adjudication: max
    moves``), a tablebase, a director's decision.  The game ends as ``adjudication``
    with ``reason``; a repeat of the same request on the game it ended is answered
    ``ok`` again, any other request on a finished game ``game_over``."""

    T = "adjudicate"
    game_id: str = field(metadata=ID)
    result: ResultText = field(metadata=limit(8))
    reason: str = field(metadata=limit(200))
    admin_key: str | None = field(default=None, metadata=TOKEN)


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class Heartbeat(_SeatAction):
    """A sign of life for a seat (any accepted seat request counts as one too)."""

    T = "heartbeat"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class ChatRequest(Request):
    """Say something.  Players (with their token) speak in ``players``;
    spectators (no token) in ``spectators``, under the name they give."""

    T = "chat"
    game_id: str = field(metadata=ID)
    text: str = field(metadata=limit(MAX_CHAT_LEN))
    token: str | None = field(default=None, metadata=TOKEN)
    name: str = field(default="", metadata=limit(40))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class Sync(Request):
    """Ask for the full snapshot of a game (after a gap in ``seq`` or a late join)."""

    T = "sync"
    game_id: str = field(metadata=ID)


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class ListGames(Request):
    """List games: ``status`` is ``active``, ``finished`` or ``all``."""

    T = "list_games"
    status: str = field(default="active", metadata=limit(16))
    limit: int = field(default=100, metadata=limit(min_value=1, max_value=1000))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class ResultsSince(Request):
    """Results with ``result_seq`` greater than ``after`` (for reconciling)."""

    T = "results_since"
    after: int = 0
    limit: int = field(default=100, metadata=limit(min_value=1, max_value=1000))


# ---------------------------------------------------------------- replies


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class Ok(Reply):
    T = "ok"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorReply(Reply):
    """``code`` is stable (see docs/protocol.md); ``msg`` is for people."""

    T = "error"
    code: ErrorCode = field(metadata=limit(32))
    msg: str = field(default="", metadata=limit(500))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class GameCreated(Reply):
    T = "game_created"
    game_id: str = field(metadata=ID)
    tokens: list[str] = field(metadata=limit(2, min_value=0))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class MoveAccepted(Reply):
    T = "move_ok"
    game_id: str = field(metadata=ID)
    ply: int
    move: str = field(metadata=MOVE_TEXT)
    seq: int


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class Snapshot(Reply):
    """Everything about a game at ``seq``: continue from the events after it."""

    T = "snapshot"
    game_id: str = field(metadata=ID)
    seq: int
    variant: str = field(metadata=limit(32))
    options: dict[str, Any] = field(default_factory=dict, metadata=limit(16))
    start_fen: str | None = field(default=None, metadata=FEN)
    moves: list[str] = field(default_factory=list, metadata=limit(MAX_MOVES, min_value=0))
    fen: str = field(metadata=FEN)
    ply: int
    status: GameStatus = field(metadata=limit(16))
    result: ResultText | None = field(default=None, metadata=limit(8))
    termination: Termination | None = field(default=None, metadata=limit(32))
    players: list[str] = field(metadata=limit(2))
    connected: list[bool] = field(default_factory=list, metadata=limit(2))
    clock: ClockInfo = field(default_factory=ClockInfo)
    time_control: TimeControl = field(default_factory=TimeControl)
    casual: bool = True
    draw_offer: int | None = field(default=None, metadata=limit(max_value=1))
    takeback_offer: int | None = field(default=None, metadata=limit(max_value=1))
    your_seat: int | None = field(default=None, metadata=limit(max_value=1))
    #: the seat to move (None once the game is over)
    to_move: int | None = field(default=None, metadata=limit(max_value=1))
    winner: int | None = field(default=None, metadata=limit(max_value=1))
    #: the latest chat lines of both rooms, oldest first (at most MAX_CHAT_HISTORY)
    chat: list[ChatLine] = field(default_factory=list, metadata=limit(MAX_CHAT_HISTORY))
    #: per seat, ms from now until it loses by abandonment if it stays silent (it
    #: counts down while the seat is away; empty once the game is over)
    abandon_in_ms: list[int] = field(default_factory=list, metadata=limit(2, min_value=0))
    #: the referee's ``--abandon-after`` in ms (0: not said)
    abandon_after_ms: int = field(default=0, metadata=limit(min_value=0))
    #: the ending's reason, beside ``termination`` (see :class:`GameEnded`)
    reason: str = field(default="", metadata=REASON)

    LEGACY = _legacy_ending


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class GamesList(Reply):
    T = "games"
    games: list[GameSummary] = field(default_factory=list, metadata=limit(1000))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class ResultsList(Reply):
    T = "results"
    results: list[GameResult] = field(default_factory=list, metadata=limit(1000))


# ---------------------------------------------------------------- events on game/<id>


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class GameStarted(GameEvent):
    T = "created"
    variant: str = field(metadata=limit(32))
    players: list[str] = field(metadata=limit(2))
    fen: str = field(metadata=FEN)
    clock: ClockInfo = field(default_factory=ClockInfo)


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerJoined(GameEvent):
    T = "joined"
    seat: int = field(metadata=limit(max_value=1))
    name: str = field(default="", metadata=limit(40))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class Presence(GameEvent):
    """A seat went silent (``connected`` false) or came back."""

    T = "presence"
    seat: int = field(metadata=limit(max_value=1))
    connected: bool


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class MoveMade(GameEvent):
    """``move`` in the wire notation (ICCS / ``h8``), ``text`` in the human one (WXF).
    ``clock`` reads after the move (increment added, a per-move clock reset);
    ``left_ms`` is the mover's time left when the move arrived (None untimed), its
    lag given back; ``lag_ms`` is that lag compensation: what the move got back (0
    or more) when its request carried ``think_ms``, None when it did not."""

    T = "moved"
    ply: int
    seat: int = field(metadata=limit(max_value=1))
    move: str = field(metadata=MOVE_TEXT)
    text: str = field(metadata=MOVE_TEXT)
    fen: str = field(metadata=FEN)
    clock: ClockInfo = field(default_factory=ClockInfo)
    left_ms: int | None = field(default=None, metadata=limit(max_value=24 * 3600 * 1000))
    lag_ms: int | None = field(
        default=None, metadata=limit(max_value=24 * 3600 * 1000, omit_empty=True)
    )


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class DrawOffered(GameEvent):
    T = "draw_offered"
    seat: int = field(metadata=limit(max_value=1))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class DrawDeclined(GameEvent):
    T = "draw_declined"
    seat: int = field(metadata=limit(max_value=1))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class TakebackRequested(GameEvent):
    T = "takeback_requested"
    seat: int = field(metadata=limit(max_value=1))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class TakebackDeclined(GameEvent):
    T = "takeback_declined"
    seat: int = field(metadata=limit(max_value=1))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class TakenBack(GameEvent):
    """``plies`` moves were taken back; the game continues from ``fen`` at ``ply``."""

    T = "taken_back"
    plies: int
    ply: int
    fen: str = field(metadata=FEN)
    clock: ClockInfo = field(default_factory=ClockInfo)


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class ChatPosted(GameEvent):
    T = "chat_posted"
    room: ChatRoom = field(metadata=limit(16))
    name: str = field(metadata=limit(40))
    text: str = field(metadata=limit(MAX_CHAT_LEN))
    seat: int | None = field(default=None, metadata=limit(max_value=1))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class GameEnded(GameEvent):
    """The game is over: ``termination`` is one word of :data:`Termination`;
    ``reason`` (left out when empty) what a resigning seat or an adjudicator said
    (``crash``, ``illegal move h2h9``, ``adjudication: score``).  An ``ended`` with
    free text in ``termination`` and no ``reason`` (lanqi before 0.x, and games it
    stored) reads as the closed word plus that text (:func:`legacy_termination`)."""

    T = "ended"
    result: ResultText = field(metadata=limit(8))
    termination: Termination = field(metadata=limit(32))
    winner: int | None = field(default=None, metadata=limit(max_value=1))
    fen: str = field(metadata=FEN)
    clock: ClockInfo = field(default_factory=ClockInfo)
    reason: str = field(default="", metadata=REASON)

    LEGACY = _legacy_ending


register(GameResult)


# ================================================================ matchmaker
# Requests to the matchmaker's ROUTER; private pushes come back on the same
# DEALER as replies with ``re`` = None; public events go out on its PUB
# (topics ``lobby`` and ``tour/<id>``).

NAME = limit(40)
#: a CURVE public key in Z85 (40 characters)
CURVE_KEY = limit(40)


@dataclass(frozen=True, slots=True, kw_only=True)
class Seek(Struct):
    """What a player wants to play.  ``color``: ``any``, ``first`` (Red / Black
    in gomoku) or ``second``."""

    variant: str = field(metadata=limit(32))
    options: dict[str, Any] = field(default_factory=dict, metadata=limit(16))
    time_control: TimeControl = field(default_factory=TimeControl)
    rated: bool = False
    color: str = field(default="any", metadata=limit(8))


#: players one ``players`` reply names at most (a page; ``list_players`` pages on)
MAX_LISTED_PLAYERS = 1000


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerInfo(Struct):
    player_id: str = field(metadata=ID)
    name: str = field(metadata=NAME)
    kind: PlayerKind = field(metadata=limit(8))
    online: bool = False
    #: the player's rating in each game, by variant (``{"xiangqi": 1512.3, ...}``)
    ratings: dict[str, float] = field(default_factory=dict, metadata=limit(8))
    variants: list[str] = field(default_factory=list, metadata=limit(8))


@dataclass(frozen=True, slots=True, kw_only=True)
class SeekInfo(Struct):
    """An open seek; ``rating`` is the seeker's rating in the seek's variant."""

    seek_id: str = field(metadata=ID)
    player: str = field(metadata=NAME)
    seek: Seek
    rating: float | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Assignment(Struct):
    """A game to play: where the referee is, which seat, and the seat's token."""

    game_id: str = field(metadata=ID)
    referee: str = field(metadata=limit(200))
    referee_pub: str = field(metadata=limit(200))
    seat: int = field(metadata=limit(max_value=1))
    token: str = field(metadata=TOKEN)
    variant: str = field(metadata=limit(32))
    options: dict[str, Any] = field(default_factory=dict, metadata=limit(16))
    time_control: TimeControl = field(default_factory=TimeControl)
    players: list[str] = field(metadata=limit(2))
    rated: bool = False
    tournament_id: str | None = field(default=None, metadata=ID)
    round: int = 0
    #: the referee's CURVE public key (Z85), vouched for by the matchmaker; None: not
    #: given (the client asks the referee's key port) or a referee without CURVE
    referee_key: str | None = field(default=None, metadata=CURVE_KEY)


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class Hello(Request):
    """Enter the lobby.  ``session`` (from an earlier welcome) keeps your identity
    across reconnects; ``claim`` (the one-time code the director handed out) takes
    over a roster entry; ``kind`` is ``human`` or ``bot``; ``engine`` says which
    program plays for a bot (an engine's ``id name``), for tournament records;
    ``variants`` what it plays (every registered variant unless said)."""

    T = "hello"
    name: str = field(metadata=NAME)
    kind: PlayerKind = field(default="human", metadata=limit(8))
    variants: list[str] = field(default_factory=lambda: list(variant_names()), metadata=limit(8))
    session: str | None = field(default=None, metadata=TOKEN)
    claim: str | None = field(default=None, metadata=limit(16))
    engine: str | None = field(default=None, metadata=limit(80))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class Welcome(Reply):
    T = "welcome"
    player_id: str = field(metadata=ID)
    session: str = field(metadata=TOKEN)
    name: str = field(metadata=NAME)
    games: list[Assignment] = field(default_factory=list, metadata=limit(64))


@dataclass(frozen=True, slots=True, kw_only=True)
class RefereeEndpoints(Struct):
    """Where a referee takes requests (``endpoint``) and publishes game events
    (``events``), and its CURVE public key (``key``, Z85; None: a referee without
    CURVE, or one the matchmaker has no key for)."""

    endpoint: str = field(metadata=limit(200))
    events: str = field(metadata=limit(200))
    key: str | None = field(default=None, metadata=CURVE_KEY)


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class GetServerInfo(Request):
    """Ask the matchmaker where the rest of the server is (no session needed)."""

    T = "server_info"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class ServerInfo(Reply):
    """The matchmaker's event endpoint and its referees.  A wildcard or loopback host
    in them means the host the client reached the matchmaker at."""

    T = "server"
    events: str = field(metadata=limit(200))
    referees: list[RefereeEndpoints] = field(default_factory=list, metadata=limit(64))


# ================================================================ key port
# The one message of a service's plain key port (the request port + 4 by default):
# trust on first use needs the server's public key before CURVE can start.


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class GetServerKey(Request):
    """Ask a service's key port for its CURVE public key (the only request it takes)."""

    T = "server_key"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class ServerKey(Reply):
    """A service's CURVE public key (``key``, Z85) and what it is.  ``secure`` false:
    the service runs ``--insecure`` (plain ZeroMQ, ``key`` is None).  ``service`` is
    ``matchmaker`` or ``referee`` (``lanqi serve`` has one pair for both); ``name`` the
    event's name if it has one."""

    T = "key"
    key: str | None = field(default=None, metadata=CURVE_KEY)
    secure: bool = True
    service: str = field(default="matchmaker", metadata=limit(16))
    name: str = field(default="", metadata=limit(80))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class Ping(Request):
    """Heartbeat to the matchmaker (any request counts as one)."""

    T = "ping"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class ListPlayers(Request):
    """A page of the lobby's players: online ones first, then the others, each by
    name; ``offset`` players skipped, at most ``limit`` named.  ``name``: only that
    player (none if nobody has the name).  The defaults ask for the first page, as
    the request without fields always did."""

    T = "list_players"
    name: str | None = field(default=None, metadata=limit(40, omit_empty=True))
    offset: int = field(default=0, metadata=limit(omit_empty=True))
    limit: int = field(
        default=MAX_LISTED_PLAYERS,
        metadata=limit(min_value=1, max_value=MAX_LISTED_PLAYERS, omit_empty=True),
    )


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class PlayersList(Reply):
    """One page of players; ``total``: how many the request's ``name`` names in all
    (every player without one), ``online``: how many of those are online (both None
    from a server older than paging, which names at most the first 1000)."""

    T = "players"
    players: list[PlayerInfo] = field(default_factory=list, metadata=limit(MAX_LISTED_PLAYERS))
    total: int | None = None
    online: int | None = None


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class CreateSeek(Request):
    T = "seek"
    seek: Seek


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class SeekCreated(Reply):
    """``paired`` is true when the seek was matched at once (a game_assigned follows)."""

    T = "seek_created"
    seek_id: str = field(metadata=ID)
    paired: bool = False


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class CancelSeek(Request):
    T = "cancel_seek"
    seek_id: str = field(metadata=ID)


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class ListSeeks(Request):
    T = "list_seeks"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class SeeksList(Reply):
    T = "seeks"
    seeks: list[SeekInfo] = field(default_factory=list, metadata=limit(1000))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class Challenge(Request):
    """Challenge a player by name; it expires after ``expires_s`` seconds."""

    T = "challenge"
    to: str = field(metadata=NAME)
    seek: Seek
    expires_s: int = field(default=60, metadata=limit(min_value=1, max_value=3600))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class ChallengeCreated(Reply):
    T = "challenge_created"
    challenge_id: str = field(metadata=ID)


@dataclass(frozen=True, slots=True, kw_only=True)
class _ChallengeAction(Request):
    challenge_id: str = field(metadata=ID)


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class AcceptChallenge(_ChallengeAction):
    T = "accept_challenge"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class DeclineChallenge(_ChallengeAction):
    T = "decline_challenge"
    reason: str = field(default="", metadata=limit(200))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class CancelChallenge(_ChallengeAction):
    T = "cancel_challenge"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class ChallengeReceived(Reply):
    """Pushed to the challenged player (``re`` is None)."""

    T = "challenge_received"
    challenge_id: str = field(metadata=ID)
    challenger: str = field(metadata=NAME)
    challenger_kind: PlayerKind = field(default="human", metadata=limit(8))
    seek: Seek
    expires_s: int = 60


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class ChallengeClosed(Reply):
    """Pushed to both sides when a challenge ends without a game:
    ``how`` is ``declined``, ``cancelled`` or ``expired``."""

    T = "challenge_closed"
    challenge_id: str = field(metadata=ID)
    how: str = field(metadata=limit(16))
    reason: str = field(default="", metadata=limit(200))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class GameAssigned(Reply):
    """Pushed privately to each player of a new game (``re`` is None)."""

    T = "game_assigned"
    game: Assignment


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class LobbyEvent(Message):
    """News of the lobby, on topic ``lobby``: one class per ``kind``.

    On the wire every lobby event carries all the fields below; those its kind does
    not use are empty.
    """

    T = "lobby"
    FAMILY_WIRE = (
        ("kind", ""),
        ("player", ""),
        ("online", None),
        ("seek_id", None),
        ("seek", None),
        ("to", None),
        ("game_id", None),
        ("players", []),
    )

    @property
    def kind(self) -> str:
        """What happened: the wire field ``kind`` (the class says it)."""
        return self.KIND


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class LobbyPresence(LobbyEvent):
    """``presence``: ``player`` came online or went offline."""

    KIND = "presence"
    player: str = field(metadata=NAME)
    online: bool


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class LobbySeekAdded(LobbyEvent):
    """``seek_added``: ``player`` opened a seek that is waiting."""

    KIND = "seek_added"
    player: str = field(metadata=NAME)
    seek_id: str = field(metadata=ID)
    seek: Seek


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class LobbySeekRemoved(LobbyEvent):
    """``seek_removed``: ``player``'s seek was cancelled, paired or dropped."""

    KIND = "seek_removed"
    player: str = field(metadata=NAME)
    seek_id: str = field(metadata=ID)


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class LobbyChallenge(LobbyEvent):
    """``challenge``: ``player`` challenged ``to`` to the game ``seek``."""

    KIND = "challenge"
    player: str = field(metadata=NAME)
    to: str = field(metadata=NAME)
    seek: Seek


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class LobbyPaired(LobbyEvent):
    """``paired``: a game was created for ``players`` (names by seat)."""

    KIND = "paired"
    game_id: str = field(metadata=ID)
    players: list[str] = field(metadata=limit(2))


# ---------------------------------------------------------------- tournaments


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentSpec(Struct):
    """``format``: round_robin, double_round_robin, swiss, knockout or gauntlet."""

    name: str = field(metadata=limit(80))
    format: str = field(metadata=limit(24))
    variant: str = field(metadata=limit(32))
    options: dict[str, Any] = field(default_factory=dict, metadata=limit(16))
    time_control: TimeControl = field(default_factory=TimeControl)
    rounds: int = field(default=0, metadata=limit(max_value=99))
    games_per_match: int = field(default=2, metadata=limit(min_value=1, max_value=20))
    rated: bool = True
    forfeit_after_s: int = field(default=120, metadata=limit(min_value=5, max_value=3600))
    champion: str | None = field(default=None, metadata=NAME)
    #: what a win, a draw and a loss are worth: ``1-0.5-0``, ``2-1-0`` or ``3-1-0``
    points: str = field(default="1-0.5-0", metadata=limit(16))
    #: tie-breaks in order (keys, FIDE codes or a preset such as ``cxa``); empty: the
    #: format's default chain
    tiebreaks: list[str] = field(default_factory=list, metadata=limit(8, item_len=24))
    #: where the games are played: ``screen`` (the referee), ``otb`` (physical boards:
    #: results come from the director or the two players) or ``mixed`` (``otb_tables``)
    boards: str = field(default="screen", metadata=limit(8))
    otb_tables: list[int] = field(default_factory=list, metadata=limit(256))
    #: a Swiss keeps players of the same club apart up to this round (0: never)
    same_club_until: int = field(default=0, metadata=limit(max_value=99))
    #: swiss: ``dutch``, ``dutch-2017`` or ``lanqi``; empty in a request means
    #: ``dutch``, and in an event stored before the option existed ``lanqi``
    pairing: str = field(default="", metadata=limit(16))
    #: swiss: ``none`` or ``baku`` (Baku acceleration, Dutch systems only)
    acceleration: str = field(default="none", metadata=limit(8))
    #: swiss: unplayed rounds in tie-breaks, ``fide2009`` (a virtual opponent) or
    #: ``fide2023`` (C.07 2023: a dummy opponent); empty means ``fide2009``
    unplayed: str = field(default="", metadata=limit(8))


@dataclass(frozen=True, slots=True, kw_only=True)
class StandingInfo(Struct):
    """A row of the standings.  ``rating`` is the player's rating now in the
    tournament's variant, ``rating_before`` the one before the player's first rated
    game of the tournament (None before any)."""

    rank: int
    player: str = field(metadata=NAME)
    points: float
    games: int
    wins: int
    draws: int
    losses: int
    tiebreaks: dict[str, Any] = field(default_factory=dict, metadata=limit(8))
    rating: float | None = None
    rating_before: float | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class PairingInfo(Struct):
    round: int
    board: int
    first: str | None = field(default=None, metadata=NAME)
    second: str | None = field(default=None, metadata=NAME)
    game_id: str | None = field(default=None, metadata=ID)
    result: str | None = field(default=None, metadata=limit(8))
    table: int | None = None
    otb: bool = False
    manual: bool = False
    note: str | None = field(default=None, metadata=limit(200))


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentInfo(Struct):
    tournament_id: str = field(metadata=ID)
    spec: TournamentSpec
    status: TournamentStatus = field(metadata=limit(16))
    round: int = 0
    players: list[str] = field(default_factory=list, metadata=limit(256))


@dataclass(frozen=True, slots=True, kw_only=True)
class _DirectorAction(Request):
    tournament_id: str = field(metadata=ID)
    director_key: str = field(metadata=TOKEN)


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class CreateTournament(Request):
    T = "tour_create"
    director_key: str = field(metadata=TOKEN)
    spec: TournamentSpec


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentCreated(Reply):
    T = "tour_created"
    tournament_id: str = field(metadata=ID)


@dataclass(frozen=True, slots=True, kw_only=True)
class EntrantFields(Struct):
    """What the director knows of an entrant: a rating from a federation list, club
    or school, title, year of birth, sex (``m``/``w``, as FIDE's TRF), federation
    (3 letters), FIDE number, a fixed table (a wheelchair place: the player's games
    are played there) (each ``None`` when not given)."""

    rating: float | None = field(default=None, metadata=limit(min_value=0, max_value=4000))
    club: str | None = field(default=None, metadata=limit(60))
    title: str | None = field(default=None, metadata=limit(8))
    birth_year: int | None = field(default=None, metadata=limit(min_value=1900, max_value=2100))
    sex: str | None = field(default=None, metadata=limit(1))
    federation: str | None = field(default=None, metadata=limit(3))
    fide_id: int | None = field(default=None, metadata=limit(min_value=1, max_value=99_999_999_999))
    table: int | None = field(default=None, metadata=limit(min_value=1, max_value=999))


@dataclass(frozen=True, slots=True, kw_only=True)
class EntryRow(Struct):
    """One player of a ``tour_import``: a name and its fields."""

    player: str = field(metadata=NAME)
    fields: EntrantFields = field(default_factory=EntrantFields)


@dataclass(frozen=True, slots=True, kw_only=True)
class EntryCode(Struct):
    player: str = field(metadata=NAME)
    code: str = field(metadata=limit(16))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class JoinTournament(Request):
    """Enter yourself; the director may enter anyone by name (``player`` + key)."""

    T = "tour_join"
    tournament_id: str = field(metadata=ID)
    player: str | None = field(default=None, metadata=NAME)
    director_key: str | None = field(default=None, metadata=TOKEN)
    fields: EntrantFields | None = None


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class ImportEntrants(_DirectorAction):
    """Enter many players at once (a CSV list): all of them, or none on any error."""

    T = "tour_import"
    rows: list[EntryRow] = field(metadata=limit(256))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class Imported(Reply):
    """``tour_import`` done: how many entered, and the claim code of each new name."""

    T = "imported"
    entered: int
    codes: list[EntryCode] = field(default_factory=list, metadata=limit(256))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class ForbidPair(_DirectorAction):
    """Keep two players apart in a Swiss (family, same club: ``players``), and/or
    keep players of the same club apart up to a round (``same_club_until``)."""

    T = "tour_forbid"
    players: list[str] = field(default_factory=list, metadata=limit(2))
    same_club_until: int | None = field(default=None, metadata=limit(max_value=99))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class PairRound(_DirectorAction):
    """The director pairs (part of) a Swiss round before it starts: each of
    ``pairs`` is [first, second]; the others are paired as usual."""

    T = "tour_pair"
    round: int = field(metadata=limit(min_value=1, max_value=999))
    pairs: list[list[str]] = field(metadata=limit(128))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class CheckIn(_DirectorAction):
    """Players present for a Swiss round (``round`` 0: the next one); once anyone
    is checked in for a round, those who are not are absent: not paired, a
    zero-point bye."""

    T = "tour_checkin"
    round: int = field(default=0, metadata=limit(max_value=999))
    players: list[str] = field(metadata=limit(256))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class RequestBye(_DirectorAction):
    """A player asks not to be paired in a Swiss round (``round`` 0: the next one)
    and takes a bye worth ``bye``: ``half`` (a draw's points) or ``zero``; ``none``
    takes the request back. Asked before the round is paired."""

    T = "tour_bye"
    round: int = field(default=0, metadata=limit(max_value=999))
    player: str = field(metadata=NAME)
    bye: str = field(default="half", metadata=limit(8))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class ReportResult(Request):
    """The result of an over-the-board game: from the director (``director_key``:
    decides) or from one of its two players (their session: both must agree)."""

    T = "tour_result"
    tournament_id: str = field(metadata=ID)
    round: int = field(metadata=limit(min_value=1, max_value=999))
    table: int = field(metadata=limit(min_value=1, max_value=999))
    result: str = field(metadata=limit(8))
    director_key: str | None = field(default=None, metadata=TOKEN)
    #: the director corrects a result that already counts (over the board only)
    correct: bool = False


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class ResultNoted(Reply):
    """``tour_result`` taken: ``recorded`` (it counts), ``waiting`` (for the other
    player's word), ``disputed`` (the players disagree: the director decides) or
    ``corrected`` (a correction: it counts instead of the result before)."""

    T = "result_noted"
    status: str = field(metadata=limit(16))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class ClaimCode(Reply):
    """A one-time code that claims ``player`` (a ``hello`` with ``claim``): the answer
    to a director's ``tour_join`` of a new name, to ``tour_reclaim`` and to ``reclaim``
    (whose ``tournament_id`` is empty)."""

    T = "claim_code"
    tournament_id: str = field(metadata=ID)
    player: str = field(metadata=NAME)
    code: str = field(metadata=limit(16))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class ReclaimTournament(Request):
    """The director issues a new claim code for an entrant who lost their session:
    the session they had stops working."""

    T = "tour_reclaim"
    tournament_id: str = field(metadata=ID)
    player: str = field(metadata=NAME)
    director_key: str = field(metadata=TOKEN)


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class ReclaimName(Request):
    """The director issues a claim code for any player's name, in a tournament or
    not (a lobby name whose session was lost): the session it had stops working."""

    T = "reclaim"
    player: str = field(metadata=NAME)
    director_key: str = field(metadata=TOKEN)


@dataclass(frozen=True, slots=True, kw_only=True)
class Lockout(Struct):
    """Wrong claim codes held against a name or a client address, or a client
    address shut out for flooding."""

    #: ``name`` (a player's name), ``address`` (a client's IP address) or ``flood``
    #: (a client's IP address shut out for flooding)
    kind: str = field(metadata=limit(8))
    target: str = field(metadata=limit(64))
    #: wrong codes since the last lock-out (or since the first); ``flood``: its
    #: requests dropped over the request limit
    failures: int = field(metadata=limit(min_value=0))
    #: lock-outs so far (each one twice as long as the last)
    locks: int = field(metadata=limit(min_value=0))
    #: seconds until codes are taken again (0: not locked now)
    retry_s: int = field(metadata=limit(min_value=0))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class ListLockouts(Request):
    """The director: names and addresses with wrong claim codes held against them."""

    T = "lockouts"
    director_key: str = field(metadata=TOKEN)


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class LockoutsList(Reply):
    T = "lockouts_list"
    lockouts: list[Lockout] = field(default_factory=list, metadata=limit(1000))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class Unlock(Request):
    """The director forgets the wrong claim codes of a name or an address."""

    T = "unlock"
    target: str = field(metadata=limit(64))
    director_key: str = field(metadata=TOKEN)


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class MutePlayer(Request):
    """The director mutes a player in the lobby (no seeks, no challenges), or not."""

    T = "mute"
    player: str = field(metadata=NAME)
    muted: bool = True
    director_key: str = field(metadata=TOKEN)


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class RemovePlayer(Request):
    """The director removes a player from the lobby (signed out, seeks and challenges
    gone, ``hello`` refused), or lets them back in."""

    T = "remove"
    player: str = field(metadata=NAME)
    removed: bool = True
    director_key: str = field(metadata=TOKEN)


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class WithdrawTournament(Request):
    T = "tour_withdraw"
    tournament_id: str = field(metadata=ID)
    player: str | None = field(default=None, metadata=NAME)
    director_key: str | None = field(default=None, metadata=TOKEN)


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class StartTournament(_DirectorAction):
    T = "tour_start"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class PauseTournament(_DirectorAction):
    """No new round is paired while paused; games in progress finish."""

    T = "tour_pause"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class ResumeTournament(_DirectorAction):
    T = "tour_resume"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class FinishTournament(_DirectorAction):
    """End the event now: no further rounds; standings stand as they are."""

    T = "tour_finish"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class DeleteTournament(_DirectorAction):
    """Delete a tournament that has not started (a mistake): it and its entries go."""

    T = "tour_delete"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class ListTournaments(Request):
    T = "tour_list"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentsList(Reply):
    T = "tournaments"
    tournaments: list[TournamentInfo] = field(default_factory=list, metadata=limit(1000))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class GetStandings(Request):
    T = "tour_standings"
    tournament_id: str = field(metadata=ID)


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class Standings(Reply):
    T = "standings"
    tournament: TournamentInfo
    rows: list[StandingInfo] = field(default_factory=list, metadata=limit(256))
    pairings: list[PairingInfo] = field(default_factory=list, metadata=limit(4096))
    #: ``pairing round N...`` while the next round is being paired; why it cannot be
    note: str = field(default="", metadata=limit(300))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class ExportTournament(Request):
    """``format``: ``pgn``, ``txt``, ``csv``, ``html``, ``trf`` or ``check``.  ``notation`` (xiangqi
    moves in ``pgn``): ``wxf``, ``iccs`` or ``chinese``; ``site`` fills PGN's
    ``Site`` and the report's site (default: the server's name); ``clocks``: PGN
    moves carry ``{[%clk h:mm:ss]}`` comments."""

    T = "tour_export"
    tournament_id: str = field(metadata=ID)
    format: str = field(metadata=limit(8))
    round: int = field(default=0, metadata=limit(max_value=999))
    notation: str = field(default="wxf", metadata=limit(16))
    site: str | None = field(default=None, metadata=limit(80))
    clocks: bool = True


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class Exported(Reply):
    T = "exported"
    format: str = field(metadata=limit(8))
    text: str = field(metadata=limit(300_000))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentEvent(Message):
    """News of one tournament, on topic ``tour/<id>``: one class per ``kind``.

    On the wire every tournament event carries all the fields below; those its
    kind does not use are empty (``round`` 0).
    """

    T = "tour_event"
    FAMILY_WIRE = (
        ("tournament_id", ""),
        ("kind", ""),
        ("round", 0),
        ("player", None),
        ("pairings", []),
        ("standings", []),
        ("note", ""),
    )
    tournament_id: str = field(metadata=ID)

    @property
    def kind(self) -> str:
        """What happened: the wire field ``kind`` (the class says it)."""
        return self.KIND


@dataclass(frozen=True, slots=True, kw_only=True)
class _TourPlayer(TournamentEvent):
    player: str = field(metadata=NAME)


@dataclass(frozen=True, slots=True, kw_only=True)
class _TourPairings(TournamentEvent):
    round: int
    pairings: list[PairingInfo] = field(metadata=limit(256))


@dataclass(frozen=True, slots=True, kw_only=True)
class _TourStandings(TournamentEvent):
    round: int = 0
    standings: list[StandingInfo] = field(metadata=limit(256))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class TourCreated(TournamentEvent):
    """``created``: ``tour_create``."""

    KIND = "created"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class TourJoined(_TourPlayer):
    """``joined``: ``player`` entered."""

    KIND = "joined"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class TourWithdrawn(_TourPlayer):
    """``withdrawn``: ``player`` withdrew."""

    KIND = "withdrawn"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class TourStarted(TournamentEvent):
    """``started``: ``tour_start`` (a ``round`` follows)."""

    KIND = "started"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class TourRound(_TourPairings):
    """``round``: round ``round`` was paired; ``pairings`` is all of it."""

    KIND = "round"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class TourGame(_TourPairings):
    """``game``: the game of the one pairing in ``pairings`` was created."""

    KIND = "game"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class TourResult(_TourPairings):
    """``result``: a game's result was recorded; the round and standings as they stand."""

    KIND = "result"
    standings: list[StandingInfo] = field(metadata=limit(256))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class TourReported(_TourPairings):
    """``reported``: a player reported an over-the-board result that does not count
    yet (waiting for the other player, or disputed); ``pairings`` is the round."""

    KIND = "reported"


@dataclass(frozen=True, slots=True, kw_only=True)
class _TourNote(TournamentEvent):
    round: int
    note: str = field(metadata=limit(300))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class TourPairing(_TourNote):
    """``pairing``: round ``round`` is being paired (a large field takes a while);
    ``note`` says so. A ``round`` follows, or a ``stuck``."""

    KIND = "pairing"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class TourStuck(_TourNote):
    """``stuck``: round ``round`` cannot be paired; ``note`` is the one-line reason.
    The event waits for the director (a pairing by hand, a withdrawal, the end)."""

    KIND = "stuck"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class TourPaused(_TourStandings):
    """``paused``: ``tour_pause``."""

    KIND = "paused"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class TourResumed(_TourStandings):
    """``resumed``: ``tour_resume``."""

    KIND = "resumed"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class TourFinished(_TourStandings):
    """``finished``: ``tour_finish``, or the last round is complete."""

    KIND = "finished"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class TourDeleted(TournamentEvent):
    """``deleted``: ``tour_delete`` (the tournament had not started)."""

    KIND = "deleted"
