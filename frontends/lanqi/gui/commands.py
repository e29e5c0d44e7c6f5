"""What the GUI asks its network agents to do: one small class a command.

The GUI thread puts a command on an agent's queue (:meth:`lanqi.gui.net.GameAgent.send`,
:meth:`lanqi.gui.net.LobbyAgent.send`); the agent looks the command's type up in
its handler table and makes the request.  A refusal comes back as
:class:`lanqi.gui.net.Refused` carrying the command, whose ``label`` names it for
people.  Import the module and say ``commands.Resign()``: several names match the
protocol's messages, which these are not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from lanqi.protocol import Seek

__all__ = [
    "AcceptDraw",
    "AcceptTakeback",
    "AskTakeback",
    "Command",
    "DeclineDraw",
    "DeclineTakeback",
    "DropSeek",
    "EnterTournament",
    "FollowTournament",
    "GameCommand",
    "LeaveTournament",
    "LobbyCommand",
    "OfferDraw",
    "PlayMove",
    "PostSeek",
    "Refresh",
    "RefuseChallenge",
    "ReportBoardResult",
    "Resign",
    "Say",
    "SendChallenge",
    "TakeChallenge",
]


@dataclass(frozen=True, slots=True)
class Command:
    """A request from the GUI to one of its agents."""

    #: the command for people, in "resign: not your game"
    label: ClassVar[str] = "command"


# ================================================================ to a game agent


@dataclass(frozen=True, slots=True)
class GameCommand(Command):
    """A request about the game a :class:`~lanqi.gui.net.GameAgent` follows."""

    #: only a seated player (with the seat's token) may send it
    seated: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class PlayMove(GameCommand):
    """``move`` (wire notation) as the move of ply ``ply``."""

    label: ClassVar[str] = "move"
    ply: int
    move: str


@dataclass(frozen=True, slots=True)
class Say(GameCommand):
    """A chat line (spectators may chat too, in their own room)."""

    label: ClassVar[str] = "chat"
    seated: ClassVar[bool] = False
    text: str


@dataclass(frozen=True, slots=True)
class Resign(GameCommand):
    label: ClassVar[str] = "resign"


@dataclass(frozen=True, slots=True)
class OfferDraw(GameCommand):
    label: ClassVar[str] = "offer draw"


@dataclass(frozen=True, slots=True)
class AcceptDraw(GameCommand):
    label: ClassVar[str] = "accept draw"


@dataclass(frozen=True, slots=True)
class DeclineDraw(GameCommand):
    label: ClassVar[str] = "decline draw"


@dataclass(frozen=True, slots=True)
class AskTakeback(GameCommand):
    label: ClassVar[str] = "takeback"


@dataclass(frozen=True, slots=True)
class AcceptTakeback(GameCommand):
    label: ClassVar[str] = "accept takeback"


@dataclass(frozen=True, slots=True)
class DeclineTakeback(GameCommand):
    label: ClassVar[str] = "decline takeback"


# ================================================================ to the lobby agent


@dataclass(frozen=True, slots=True)
class LobbyCommand(Command):
    """A request to the matchmaker through the :class:`~lanqi.gui.net.LobbyAgent`."""


@dataclass(frozen=True, slots=True)
class PostSeek(LobbyCommand):
    label: ClassVar[str] = "seek"
    seek: Seek


@dataclass(frozen=True, slots=True)
class DropSeek(LobbyCommand):
    """Cancel one of our seeks."""

    label: ClassVar[str] = "cancel seek"
    seek_id: str


@dataclass(frozen=True, slots=True)
class SendChallenge(LobbyCommand):
    label: ClassVar[str] = "challenge"
    to: str
    seek: Seek


@dataclass(frozen=True, slots=True)
class TakeChallenge(LobbyCommand):
    """Accept a challenge we received."""

    label: ClassVar[str] = "accept"
    challenge_id: str


@dataclass(frozen=True, slots=True)
class RefuseChallenge(LobbyCommand):
    """Decline a challenge we received."""

    label: ClassVar[str] = "decline"
    challenge_id: str


@dataclass(frozen=True, slots=True)
class EnterTournament(LobbyCommand):
    """Join a tournament (and follow it)."""

    label: ClassVar[str] = "join tournament"
    tournament_id: str


@dataclass(frozen=True, slots=True)
class LeaveTournament(LobbyCommand):
    label: ClassVar[str] = "withdraw tournament"
    tournament_id: str


@dataclass(frozen=True, slots=True)
class ReportBoardResult(LobbyCommand):
    """Say how your game on a physical board ended (an over-the-board table): it
    counts when your opponent says the same, else the director decides."""

    label: ClassVar[str] = "give a result"
    tournament_id: str
    round: int
    table: int
    result: str


@dataclass(frozen=True, slots=True)
class FollowTournament(LobbyCommand):
    """Subscribe to a tournament's events and fetch its standings."""

    label: ClassVar[str] = "watch tournament"
    tournament_id: str


@dataclass(frozen=True, slots=True)
class Refresh(LobbyCommand):
    """Fetch the lobby lists now."""

    label: ClassVar[str] = "refresh"
