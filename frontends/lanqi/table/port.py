"""The table port: one interface through which anything plays or follows one game.

A frontend sends the protocol's own request dataclasses (``MoveRequest``,
``Resign``, ``OfferDraw``, ``ChatRequest``...) and receives, in order, the
protocol's own game events and the answers to its requests; it reads the game as
the folded :class:`~lanqi.gamestate.GameState` (``lanqi.gamestate.apply``, the
referee's own reducer).  A table keeps no game logic of its own: what is legal,
what a clock reads when it falls, what a draw or a takeback does, is the
referee's (in process for a local table, over the wire for a remote one).

Nothing here blocks: :meth:`Table.send` queues a request and returns its id at
once; :meth:`Table.poll` returns what happened since the last poll.  A frame loop
polls once per frame; an asyncio task awaits :meth:`Table.wait`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from lanqi.gamestate import GameState
from lanqi.protocol import ErrorReply, GameEvent, Reply, Request

__all__ = ["Answered", "LinkChanged", "Table", "TableNews", "ThreadTable"]


@dataclass(frozen=True, slots=True)
class Answered:
    """The referee's answer to one request sent through a table (matched by id)."""

    request: Request
    reply: Reply

    @property
    def refusal(self) -> ErrorReply | None:
        """The error reply if the request was refused, else None."""
        return self.reply if isinstance(self.reply, ErrorReply) else None


@dataclass(frozen=True, slots=True)
class LinkChanged:
    """The table's link to its referee went down (``up`` False) or came back.

    ``since`` is when it changed and ``retry_at`` when the next attempt is due
    (monotonic seconds; ``retry_at`` None when up).  A local table never sends it.
    """

    up: bool
    since: float
    retry_at: float | None = None


#: what :meth:`Table.poll` returns, in the order it happened
TableNews = GameEvent | Answered | LinkChanged


@runtime_checkable
class Table(Protocol):
    """One game, played from one seat or watched."""

    @property
    def game_id(self) -> str: ...

    @property
    def seat(self) -> int | None:
        """The seat this table acts for, None when watching."""
        ...

    @property
    def token(self) -> str | None:
        """The seat's token (seat requests carry it), None when watching."""
        ...

    @property
    def state(self) -> GameState:
        """The game folded from every event received so far."""
        ...

    def send(self, request: Request) -> int:
        """Queue ``request`` (its ``id`` is filled in) and return the id.

        The answer arrives later as an :class:`Answered` from :meth:`poll`; a
        refusal is an answer too, never an exception.
        """
        ...

    def poll(self, now: float) -> list[TableNews]:
        """Everything that happened since the last poll, oldest first.

        ``now`` is monotonic seconds: a local table runs the referee's timers at
        that moment (a flag falls here); a remote one has its own loop and
        ignores it.
        """
        ...

    async def wait(self, timeout: float | None = None) -> None:
        """Return when :meth:`poll` has news (or after ``timeout`` seconds)."""
        ...

    def close(self) -> None:
        """Stop following the game (a seat stays the player's: the referee keeps it)."""
        ...


class ThreadTable(Table, Protocol):
    """A table played from a thread without a loop (a bot runner's game thread): it
    blocks until there is news and can be woken by another thread.  A
    :class:`~lanqi.table.remote.RemoteTable`, or an
    :class:`~lanqi.table.inproc.InProcessTable` on a referee in this process."""

    #: seconds a quiet game is trusted before a snapshot (None: the default)
    quiet: float | None

    @property
    def link_up(self) -> bool:
        """Is the referee reachable now?"""
        ...

    def block(self, timeout: float | None = None) -> bool:
        """Wait until :meth:`poll` has news; False after ``timeout`` seconds without."""
        ...

    def wake(self) -> None:
        """Make :meth:`block` return now (from any thread)."""
        ...
