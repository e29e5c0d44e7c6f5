"""Every message of the lanqi protocol, with its fields and limits.

Requests (client -> service over DEALER/ROUTER) carry ``id``, chosen by the
client; replies carry ``re``, the id they answer.  Events are published on
``game/<game_id>`` with a per-game ``seq``; results on ``results``.
See ``docs/protocol.md`` for every message with an example.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lanqi.protocol.schema import Message, Struct, limit, register

__all__ = [
    "MAX_CHAT_LEN",
    "MAX_MOVES",
    "AbortGame",
    "AcceptDraw",
    "AcceptTakeback",
    "ChatPosted",
    "ChatRequest",
    "ClockInfo",
    "CreateGame",
    "DeclineDraw",
    "DeclineTakeback",
    "DrawDeclined",
    "DrawOffered",
    "ErrorReply",
    "GameCreated",
    "GameEnded",
    "GameEvent",
    "GameResult",
    "GameStarted",
    "GameSummary",
    "GamesList",
    "Heartbeat",
    "Join",
    "ListGames",
    "MoveAccepted",
    "MoveMade",
    "MoveRequest",
    "OfferDraw",
    "Ok",
    "PlayerJoined",
    "Presence",
    "Reply",
    "Request",
    "RequestTakeback",
    "Resign",
    "ResultsList",
    "ResultsSince",
    "Snapshot",
    "Sync",
    "TakebackDeclined",
    "TakebackRequested",
    "TakenBack",
    "TimeControl",
]

MAX_MOVES = 2000  # plies in one game record
MAX_CHAT_LEN = 500
ID = limit(64)
TOKEN = limit(64)
MOVE_TEXT = limit(32)


# ---------------------------------------------------------------- nested values


@dataclass(frozen=True, slots=True, kw_only=True)
class TimeControl(Struct):
    """``kind``: ``none`` (untimed), ``fischer`` (base + increment per move) or
    ``per_move`` (a fixed time for every move, nothing carried over)."""

    kind: str = field(default="none", metadata=limit(16))
    base_ms: int = field(default=0, metadata=limit(max_value=24 * 3600 * 1000))
    increment_ms: int = field(default=0, metadata=limit(max_value=3600 * 1000))
    per_move_ms: int = field(default=0, metadata=limit(max_value=24 * 3600 * 1000))


@dataclass(frozen=True, slots=True, kw_only=True)
class ClockInfo(Struct):
    """Time left per seat in ms, as the referee's clock reads at ``seq``; the
    seat to move is ``running`` (None when no clock runs)."""

    remaining_ms: list[int] = field(default_factory=list, metadata=limit(2))
    running: int | None = field(default=None, metadata=limit(max_value=1))


@dataclass(frozen=True, slots=True, kw_only=True)
class GameSummary(Struct):
    game_id: str = field(metadata=ID)
    variant: str = field(metadata=limit(32))
    players: list[str] = field(metadata=limit(2, min_value=0))
    status: str = field(metadata=limit(16))
    ply: int
    result: str | None = field(default=None, metadata=limit(8))


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
    result: str = field(metadata=limit(8))
    termination: str = field(metadata=limit(32))
    winner: int | None = field(default=None, metadata=limit(max_value=1))
    start_fen: str | None = field(default=None, metadata=limit(200))
    moves: list[str] = field(default_factory=list, metadata=limit(MAX_MOVES, min_value=0))
    tag: str = field(default="", metadata=limit(200))


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
    matchmaker puts its pairing id there and finds it again in the result)."""

    T = "create_game"
    variant: str = field(metadata=limit(32))
    options: dict[str, Any] = field(default_factory=dict, metadata=limit(16))
    time_control: TimeControl = field(default_factory=TimeControl)
    players: list[str] = field(default_factory=lambda: ["", ""], metadata=limit(2))
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
    """Play ``move`` (ICCS, WXF, Chinese or gomoku text) as ply number ``ply``
    (0 for the first move of the game).  A retry of an accepted move gets the same
    answer; a move for any other ply is refused as ``stale_move``."""

    T = "move"
    game_id: str = field(metadata=ID)
    token: str = field(metadata=TOKEN)
    ply: int = field(metadata=limit(max_value=MAX_MOVES))
    move: str = field(metadata=MOVE_TEXT)


@dataclass(frozen=True, slots=True, kw_only=True)
class _SeatAction(Request):
    game_id: str = field(metadata=ID)
    token: str = field(metadata=TOKEN)


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class Resign(_SeatAction):
    T = "resign"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class OfferDraw(_SeatAction):
    T = "offer_draw"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class AcceptDraw(_SeatAction):
    T = "accept_draw"


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
    """End the game without result; allowed until each side has moved."""

    T = "abort"


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
    code: str = field(metadata=limit(32))
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
    start_fen: str | None = field(default=None, metadata=limit(200))
    moves: list[str] = field(default_factory=list, metadata=limit(MAX_MOVES, min_value=0))
    fen: str = field(metadata=limit(200))
    ply: int
    status: str = field(metadata=limit(16))
    result: str | None = field(default=None, metadata=limit(8))
    termination: str | None = field(default=None, metadata=limit(32))
    players: list[str] = field(metadata=limit(2))
    connected: list[bool] = field(default_factory=list, metadata=limit(2))
    clock: ClockInfo = field(default_factory=ClockInfo)
    time_control: TimeControl = field(default_factory=TimeControl)
    casual: bool = True
    draw_offer: int | None = field(default=None, metadata=limit(max_value=1))
    takeback_offer: int | None = field(default=None, metadata=limit(max_value=1))
    your_seat: int | None = field(default=None, metadata=limit(max_value=1))


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
    fen: str = field(metadata=limit(200))
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
    """``move`` in the wire notation (ICCS / ``h8``), ``text`` in the human one (WXF)."""

    T = "moved"
    ply: int
    seat: int = field(metadata=limit(max_value=1))
    move: str = field(metadata=MOVE_TEXT)
    text: str = field(metadata=MOVE_TEXT)
    fen: str = field(metadata=limit(200))
    clock: ClockInfo = field(default_factory=ClockInfo)


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
    fen: str = field(metadata=limit(200))
    clock: ClockInfo = field(default_factory=ClockInfo)


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class ChatPosted(GameEvent):
    T = "chat_posted"
    room: str = field(metadata=limit(16))
    name: str = field(metadata=limit(40))
    text: str = field(metadata=limit(MAX_CHAT_LEN))
    seat: int | None = field(default=None, metadata=limit(max_value=1))


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class GameEnded(GameEvent):
    T = "ended"
    result: str = field(metadata=limit(8))
    termination: str = field(metadata=limit(32))
    winner: int | None = field(default=None, metadata=limit(max_value=1))
    fen: str = field(metadata=limit(200))
    clock: ClockInfo = field(default_factory=ClockInfo)


register(GameResult)
