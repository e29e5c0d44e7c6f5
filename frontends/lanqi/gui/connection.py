"""What the game screen says about connections: ours, when the referee is lost, and
the opponent's, when the referee says they are away.

Pure text from a session and the time (``time.monotonic()``), so the tests read the
same lines the screen draws; :func:`draw_lost` draws the band over the panel's moves and chat.

- While the referee does not answer (:attr:`Session.lost`), the screen keeps one
  steady band: the clocks are frozen, moves and offers wait, the next try counts
  down, and what the opponent sees (the referee's rules: a seat silent for a few
  seconds is shown away, and after ``--abandon-after`` it loses by abandonment; a
  referee that restarts charges nobody for its downtime).
- While the opponent is away, their card counts down to the abandonment.
"""

from __future__ import annotations

import math

import pygame

from lanqi.gui import theme
from lanqi.gui.model import seat_name
from lanqi.gui.net import Disconnected
from lanqi.gui.sessions import OnlineSession, Session
from lanqi.gui.widgets import draw_text, wrap_text
from lanqi.i18n import tr

__all__ = ["away_text", "draw_lost", "lobby_lost_text", "lost_lines", "mmss", "opponent_away_line"]


def mmss(seconds: float) -> str:
    """A countdown as ``m:ss``, rounded up (a countdown shows 0:00 only at the end).

    >>> mmss(52.2), mmss(0), mmss(125)
    ('0:53', '0:00', '2:05')
    """
    whole = max(0, math.ceil(seconds))
    return f"{whole // 60}:{whole % 60:02d}"


def lost_lines(session: Session, now: float) -> tuple[str, ...]:
    """The band shown while the referee is lost: a headline and what follows from it
    (nothing while it answers)."""
    lost = session.lost
    if lost is None:
        return ()
    lines = [f"{tr('connection_lost')} · {retry_text(lost, now)}"]
    seated = isinstance(session, OnlineSession) and session.seat is not None
    if not seated:
        lines.append(tr("lost_frozen_for", time=mmss(now - lost.since)))
        return tuple(lines)
    lines.append(tr("lost_frozen_seated"))
    if lost.abandon_at is None:
        lines.append(tr("lost_away_soon"))
    elif now < lost.abandon_at:
        lines.append(tr("lost_back_within", time=mmss(lost.abandon_at - now)))
    else:
        lines.append(tr("lost_abandoned"))
    return tuple(lines)


def lobby_lost_text(lost: Disconnected, now: float) -> str:
    """The steady line while the matchmaker does not answer."""
    return f"{tr('lost_server', time=mmss(now - lost.since))}; {retry_text(lost, now)}"


def retry_text(lost: Disconnected, now: float) -> str:
    """The countdown to the next try, or that a try runs now."""
    if now < lost.next_try_at:
        return tr("retry_in", n=math.ceil(lost.next_try_at - now))
    return tr("retry_now")


def away_text(session: Session, seat: int, now: float) -> str | None:
    """``seat`` is away in a game that goes on, with how long until it loses by
    abandonment as the referee counts (``away 0:42``; None while it is there)."""
    if not isinstance(session, OnlineSession) or session.lost is not None:
        return None
    model, view = session.model, session.view
    if view is None or model.status == "finished" or seat >= len(model.connected):
        return None
    if model.connected[seat] or model.status != "active":
        return None
    at = view.abandon_at[seat] if seat < len(view.abandon_at) else None
    if at is None:
        return tr("away")
    return tr("away_for", time=mmss(at - now))


def opponent_away_line(session: Session, now: float) -> str | None:
    """For a player: the opponent is away, and what happens if they stay away."""
    if not isinstance(session, OnlineSession) or session.seat is None:
        return None
    them = 1 - session.seat
    text = away_text(session, them, now)
    if text is None:
        return None
    who = session.model.players[them] if them < len(session.model.players) else ""
    who = who or seat_name(session.model.variant, them)
    view = session.view
    at = view.abandon_at[them] if view is not None and them < len(view.abandon_at) else None
    if at is None:
        return tr("opponent_away", name=who)
    return tr("opponent_away_for", name=who, time=mmss(at - now))


def draw_lost(
    surface: pygame.Surface, area: pygame.Rect, lines: tuple[str, ...]
) -> pygame.Rect | None:
    """The connection-lost band, filling ``area`` (the panel's moves and chat: off
    the board); lines that do not fit are left out, the headline never.  Returns
    where it was drawn (None: nothing to say)."""
    if not lines:
        return None
    width = area.width - 16
    head = wrap_text(lines[0], 18, width)
    body_size = 15 if area.width >= 330 else 13
    pitch = body_size + 4
    room = max(0, (area.height - 16 - 24 * len(head)) // pitch)
    body: list[str] = []
    for line in lines[1:]:
        body.extend(wrap_text(line, body_size, width))
    if len(body) > room:
        body = body[:room]
        if body:
            body[-1] = body[-1].rstrip(" .,;") + "…"
    band = pygame.Surface(area.size, pygame.SRCALPHA)
    band.fill((40, 14, 12, 255))
    surface.blit(band, area)
    pygame.draw.rect(surface, theme.ERROR, area, 2, border_radius=4)
    y = area.y + 8
    for line in head:
        draw_text(surface, line, (area.centerx, y), 18, theme.ERROR, anchor="midtop")
        y += 24
    for line in body:
        draw_text(surface, line, (area.x + 8, y), body_size, theme.TEXT)
        y += pitch
    return pygame.Rect(area)
