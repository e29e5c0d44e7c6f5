"""The lobby: players, seeks, live games and tournaments, kept fresh by the lobby agent.

Click a seek to play it, a player to challenge them, a live game to watch it, a
tournament to see its standings (and join it).  A game the matchmaker assigns
to you (a paired seek, an accepted challenge, a tournament round) opens at once.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Sequence

import pygame

from lanqi.gui import commands, theme
from lanqi.gui.net import LobbyLink, LobbyState, Note, Refused
from lanqi.gui.scenes.base import Host, Scene, ToMenu, ToSeat, ToWatch
from lanqi.gui.sessions import parse_time_control
from lanqi.gui.terms import describe_seek, describe_time
from lanqi.gui.variants import VARIANTS, variant_ui
from lanqi.gui.widgets import Button, Same, ScrollList, draw_text, fit_size
from lanqi.i18n import CATALOGUE, en, tr
from lanqi.protocol import (
    ChallengeReceived,
    GameSummary,
    PlayerInfo,
    Seek,
    SeekInfo,
)

__all__ = ["LobbyScene", "describe_seek", "describe_time"]

#: a window at least this wide shows the lobby in three columns (else two)
THREE_COLUMNS_W = 1000
#: a lobby lower than this packs its buttons and rows closer
SHORT_H = 640
#: the game and rated/casual last picked in the lobby, kept with the game options
SAVED_VARIANT = "lobby.variant"
SAVED_RATED = "lobby.rated"
TIME_CHOICES = ("none", "3+2", "5+3", "10+5", "15+10", "move:30")
_FORMATS = {
    "round_robin": tr("format.round_robin"),
    "double_round_robin": tr("format.double_round_robin"),
    "swiss": tr("format.swiss"),
    "knockout": tr("format.knockout"),
    "gauntlet": tr("format.gauntlet"),
}


def _status(status: str) -> str:
    """A tournament's state in words (``open``, ``running``, ``finished``)."""
    key = f"tournament.{status}"
    return tr(key) if key in CATALOGUE else status


def player_status(player: PlayerInfo, games: Sequence[GameSummary]) -> str:
    """What the player list says a player is doing: ``对局中 vs Bob · xiangqi`` while
    they play a game, ``idle`` when online and free, nothing when offline."""
    game = next((g for g in games if player.name in g.players), None)
    bot = f"{tr('lobby.bot')} · " if player.kind == "bot" else ""
    if game is not None:
        others = [name for name in game.players if name != player.name]
        return bot + tr("lobby.playing", name=others[0] if others else "?", variant=game.variant)
    return f"{bot}{tr('lobby.idle')}" if player.online else bot.removesuffix(" · ")


class LobbyScene(Scene):
    """Three columns of lists and the buttons that act on what is selected."""

    shows_lobby_notes = True

    def __init__(self) -> None:
        self.players = ScrollList(
            row_height=26, columns=3, weights=(5, 5, 2), on_pick=self._pick_player
        )
        self.seeks = ScrollList(row_height=26, columns=2, weights=(2, 3), on_pick=self._pick_seek)
        self.games = ScrollList(row_height=26, columns=2, weights=(3, 2), on_pick=self._pick_game)
        self.tournaments = ScrollList(
            row_height=26, columns=2, weights=(1, 1), on_pick=self._pick_tournament
        )
        self.standings = ScrollList(row_height=22, columns=4, weights=(3, 2, 2, 1))
        self.buttons: list[Button] = []
        self.challenge_buttons: list[Button] = []
        #: the result buttons of your game on a physical board, while it has none
        self.result_buttons: list[Button] = []
        #: that game: (tournament, round, table, opponent)
        self.board_game: tuple[str, int, int, str] | None = None
        self._standings_rect = pygame.Rect(0, 0, 0, 0)
        self.time_choice = "5+3"
        #: seeks and challenges are rated (change ratings, no takebacks) or casual
        self.rated = False
        self.variant = next(iter(VARIANTS))
        self.selected_player: str | None = None
        self.selected_tournament: str | None = None
        self.message = ""
        self.message_error = False
        self.message_plain = False
        self._challenge_key: tuple[str, ...] = ()
        self.narrow = False
        #: what the player list's rows were made from (see _fill_players)
        self._players_key: tuple[LobbyState, str, str] | None = None

    @property
    def link(self) -> LobbyLink | None:
        return self.app.lobby

    def startup(self, app: Host) -> None:
        # the game and rated/casual last picked (remembered in gui.json, like the
        # gomoku board size and rule)
        saved = app.settings.game_options
        if saved.get(SAVED_VARIANT) in VARIANTS:
            self.variant = saved[SAVED_VARIANT]
        self.rated = saved.get(SAVED_RATED) == "rated"
        self.players.empty_text = tr("lobby.no_players")
        self.seeks.empty_text = tr("lobby.no_seeks")
        self.games.empty_text = tr("lobby.no_games")
        self.tournaments.empty_text = tr("lobby.no_tournaments")
        self.standings.empty_text = tr("lobby.pick_tournament")
        super().startup(app)

    # ------------------------------------------------------------ layout

    def layout(self, size: tuple[int, int]) -> None:
        """Three columns (players, seeks, games and tournaments) in a wide window; in a
        narrow one two, players over games and seeks over tournaments.  The buttons
        go under the column whose list they act on; the game's options (gomoku: board
        size and rule) in the last row under the seeks."""
        w, h = size
        margin, gap = 16, 14
        top = 70
        columns = 3 if w >= THREE_COLUMNS_W else 2
        self.narrow = columns == 2
        col_w = (w - 2 * margin - (columns - 1) * gap) // columns
        xs = [margin + i * (col_w + gap) for i in range(columns)]
        # rows of buttons under the lists; the last for the game's options (gomoku)
        rows = 3 if columns == 3 else 4
        # a short window: lower buttons and rows, and in two columns the players
        # and seeks get the larger share (the games and tournaments scroll)
        short = h < SHORT_H
        pitch, button_h = self._pack(short)
        bottom = h - 40 - rows * pitch
        list_h = bottom - top - 24
        half = (list_h - 30) // 2
        upper = round((list_h - 30) * 0.62) if columns == 2 and short else half
        if columns == 3:
            x1, x2, x3 = xs
            self.players.rect = pygame.Rect(x1, top + 24, col_w, list_h)
            self.seeks.rect = pygame.Rect(x2, top + 24, col_w, list_h)
            self.games.rect = pygame.Rect(x3, top + 24, col_w, half)
            x_tour, tour_top, x_games, games_top = x3, top + 24 + half + 30, x3, top
        else:
            x1, x2 = xs
            x3 = x1  # the games' buttons go under the players'
            lower = list_h - 30 - upper
            self.players.rect = pygame.Rect(x1, top + 24, col_w, upper)
            self.seeks.rect = pygame.Rect(x2, top + 24, col_w, upper)
            self.games.rect = pygame.Rect(x1, top + 24 + upper + 30, col_w, lower)
            x_tour, tour_top, x_games, games_top = x2, top + 24 + upper + 30, x1, top + upper + 30
            half = lower
        tour_h = max(half // 2, 2 * self.tournaments.row_height + 2)  # two rows at least
        self.tournaments.rect = pygame.Rect(x_tour, tour_top, col_w, tour_h)
        self.standings.rect = pygame.Rect(
            x_tour,
            self.tournaments.rect.bottom + 6,
            col_w,
            top + 24 + list_h - self.tournaments.rect.bottom - 6,
        )
        self._standings_rect = self.standings.rect.copy()
        self.board_game = None  # placed again by the next _board_result
        self.result_buttons = []
        self.headers = {
            "players": (x1, top),
            "seeks": (x2, top),
            "games": (x_games, games_top),
            "tournaments": (x_tour, tour_top - 24),
        }
        y = bottom + 12
        bw = (col_w - 8) // 2
        third = (col_w - 16) // 3
        variant = variant_ui(self.variant).title

        def place(x: int, row: int, side: int | None) -> pygame.Rect:
            """A button in ``row`` under the column at ``x``: its left or right half
            (``side`` 0 or 1) or all of it."""
            if side is None:
                return pygame.Rect(x, y + row * pitch, col_w, button_h)
            return pygame.Rect(x + side * (bw + 8), y + row * pitch, bw, button_h)

        def third_of(x: int, index: int) -> pygame.Rect:
            """A button in the first row under the column at ``x``: its third ``index``."""
            return pygame.Rect(x + index * (third + 8), y, third, button_h)

        if columns == 3:
            join, watch = place(x3, 0, None), place(x3, 1, None)
        else:  # a third row: Watch under the games, Join under the tournaments
            join, watch = place(x2, 2, None), place(x1, 2, None)
        self.buttons = [
            # the game itself (五子棋 Gomoku; Gomoku or 五子棋 where that is too
            # wide), never the bare word 游戏
            Button(variant, self._toggle_variant, rect=third_of(x2, 0), key="v", id="variant"),
            Button(
                f"{tr('lobby.time')}: {self.time_choice}",
                self._toggle_time,
                rect=third_of(x2, 1),
                key="t",
            ),
            Button(
                tr("rated_button") if self.rated else tr("casual_button"),
                self._toggle_rated,
                rect=third_of(x2, 2),
                key="k",
                id="rated",
            ),
            Button(tr("lobby.seek"), self._seek, rect=place(x2, 1, None), key="s", primary=True),
            Button(
                tr("lobby.challenge"),
                self._challenge,
                rect=place(x1, 0, None),
                key="c",
                enabled=self.selected_player is not None,
            ),
            Button(
                tr("lobby.join"),
                self._join,
                rect=join,
                key="j",
                enabled=self.selected_tournament is not None,
            ),
            Button(tr("lobby.menu"), self._back, rect=place(x1, 1, 0), key="escape"),
            Button(tr("lobby.refresh"), self._refresh, rect=place(x1, 1, 1), key="r"),
            Button(
                tr("lobby.watch"),
                self._watch,
                rect=watch,
                key="w",
                enabled=self.games.selected is not None,
            ),
        ]
        self._option_buttons(place(x2, rows - 1, None))
        self._challenge_key = ()

    def _pack(self, short: bool) -> tuple[int, int]:
        """The lists' rows lower in a ``short`` window; (button pitch, button height)."""
        for widget in (self.players, self.seeks, self.games, self.tournaments):
            widget.row_height = 24 if short else 26
        return (36, 30) if short else (42, 34)

    def _option_buttons(self, row: pygame.Rect) -> None:
        """Buttons for the options of the game picked (gomoku: board size and rule),
        which seeks and challenges carry."""
        ui = variant_ui(self.variant)
        chosen = ui.chosen(self.app.settings.game_options)
        count = len(ui.choices)
        width = (row.width - 8 * (count - 1)) // max(1, count)
        for i, option in enumerate(ui.choices):
            rect = pygame.Rect(row.x + i * (width + 8), row.y, width, row.height)
            label = ui.choice_label(option, chosen[option])
            step = functools.partial(self._step_option, option)
            self.buttons.append(Button(label, step, rect=rect, id=f"option.{option}"))

    def _step_option(self, option: str) -> None:
        settings = self.app.settings
        variant_ui(self.variant).step(settings.game_options, option)
        settings.save()
        self.layout(self.app.screen.get_size())

    # ------------------------------------------------------------ actions

    def _seek_spec(self) -> Seek:
        options = variant_ui(self.variant).chosen(self.app.settings.game_options)
        return Seek(
            variant=self.variant,
            options=options,
            time_control=parse_time_control(self.time_choice),
            rated=self.rated,
        )

    def _toggle_rated(self) -> None:
        self.rated = not self.rated
        self._remember()
        self.layout(self.app.screen.get_size())

    def _toggle_variant(self) -> None:
        names = list(VARIANTS)
        self.variant = names[(names.index(self.variant) + 1) % len(names)]
        self._remember()
        self.layout(self.app.screen.get_size())

    def _remember(self) -> None:
        """Keep the game and rated/casual picked for the next lobby (``gui.json``)."""
        settings = self.app.settings
        settings.game_options[SAVED_VARIANT] = self.variant
        settings.game_options[SAVED_RATED] = "rated" if self.rated else "casual"
        settings.save()

    def _toggle_time(self) -> None:
        index = TIME_CHOICES.index(self.time_choice) if self.time_choice in TIME_CHOICES else 0
        self.time_choice = TIME_CHOICES[(index + 1) % len(TIME_CHOICES)]
        self.layout(self.app.screen.get_size())

    def _seek(self) -> None:
        if self.link is not None:
            self.link.seek(self._seek_spec())
            self.say(tr("lobby.seek_posted"))

    def _challenge(self) -> None:
        if self.link is not None and self.selected_player:
            self.link.send(commands.SendChallenge(self.selected_player, self._seek_spec()))

    def _join(self) -> None:
        if self.link is not None and self.selected_tournament:
            self.link.send(commands.EnterTournament(self.selected_tournament))

    def _back(self) -> None:
        self.app.disconnect()
        self.app.go(ToMenu())

    def _refresh(self) -> None:
        if self.link is not None:
            self.link.send(commands.Refresh())

    def _watch(self) -> None:
        if self.games.selected is not None:
            self._pick_game(self.games.selected)

    def say(self, text: str, *, error: bool = False, plain: bool = False) -> None:
        """A line of news at the bottom: green for done, red for wrong, ``plain``
        for neither (a challenge declined)."""
        self.message, self.message_error, self.message_plain = text, error, plain

    def _pick_player(self, index: int) -> None:
        link = self.link
        if link is None or index >= len(link.state.players):
            return
        player = link.state.players[index]
        if player.name == link.name:
            self.say(tr("lobby.that_is_you"))
            self.selected_player = None
        else:
            self.selected_player = player.name
            self.say(tr("lobby.invite", name=player.name))
        games = link.state.games
        playing = next((i for i, g in enumerate(games) if player.name in g.players), None)
        if playing is not None:  # their game is picked in the live games: W watches it
            self.games.selected = playing
            game = " – ".join(games[playing].players)
            self.say(tr("lobby.is_playing", name=player.name, game=game))
        self.layout(self.app.screen.get_size())

    def _seek_rows(self) -> list[SeekInfo]:
        return list(self.link.state.seeks) if self.link is not None else []

    def _pick_seek(self, index: int) -> None:
        link = self.link
        seeks = self._seek_rows()
        if link is None or index >= len(seeks):
            return
        info = seeks[index]
        if info.seek_id in link.state.my_seeks or info.player == link.name:
            link.send(commands.DropSeek(info.seek_id))
            self.say(tr("lobby.seek_cancelled"))
            return
        wanted = {"first": "second", "second": "first"}.get(info.seek.color, "any")
        seek = Seek(
            variant=info.seek.variant,
            options=dict(info.seek.options),
            time_control=info.seek.time_control,
            rated=info.seek.rated,
            color=wanted,
        )
        link.seek(seek)
        self.say(tr("lobby.playing_seek", name=info.player))

    def _pick_game(self, index: int) -> None:
        link = self.link
        if link is None or index >= len(link.state.games):
            return
        game = link.state.games[index]
        try:
            self.app.go(ToWatch(game, link.state.referee_of(game.game_id)))
        except ValueError as exc:
            self.say(str(exc), error=True)

    def _pick_tournament(self, index: int) -> None:
        link = self.link
        if link is None or index >= len(link.state.tournaments):
            return
        tournament = link.state.tournaments[index]
        self.selected_tournament = tournament.tournament_id
        link.send(commands.FollowTournament(tournament.tournament_id))
        self.layout(self.app.screen.get_size())

    # ------------------------------------------------------------ frames

    def handle_event(self, event: pygame.event.Event) -> None:
        for button in self.result_buttons + self.challenge_buttons + self.buttons:
            if button.handle_event(event):
                return
        for widget in (self.players, self.seeks, self.games, self.tournaments, self.standings):
            if widget.handle_event(event):
                if widget is self.games:
                    self.layout(self.app.screen.get_size())
                return
        if event.type == pygame.KEYDOWN:
            name = pygame.key.name(event.key)
            for button in self.result_buttons + self.challenge_buttons + self.buttons:
                if button.key == name and button.enabled:
                    button.on_click()
                    return

    def update(self, dt: float) -> None:
        link = self.link
        if link is None:
            self._back()
            return
        if link.failed:
            self.say(link.failed, error=True)
        while link.notes:
            note = link.notes.popleft()
            if isinstance(note, Refused):
                self.say(f"{note.code}: {note.msg}", error=True)
            elif isinstance(note, Note):
                self.say(note.text, error=note.error, plain=note.plain)
        game = link.next_assignment()
        if game is not None:
            self.app.go(ToSeat(game))
            return
        self._fill(link)

    def _fill(self, link: LobbyLink) -> None:
        state = link.state
        self._fill_players(state, link.name)
        yours = en("lobby.yours") if self.narrow else tr("lobby.yours")
        seeks = self._seek_rows()
        self.seeks.set_rows(
            [
                (
                    info.player
                    + (f" {info.rating:.0f}" if info.rating is not None else "")
                    + (f" ({yours})" if info.seek_id in state.my_seeks else ""),
                    # rated or casual too: the Chinese name goes first in a narrow list
                    describe_seek(info.seek, chinese=not self.narrow),
                )
                for info in seeks
            ]
        )
        self.games.set_rows(
            [
                (" – ".join(g.players), f"{g.variant} · {tr('lobby.ply', n=g.ply)}")
                for g in state.games
            ]
        )
        self.games.empty_text = tr("lobby.no_games") if state.referee_ok else tr("lobby.no_referee")
        self.tournaments.set_rows(
            [
                (
                    t.spec.name,
                    f"{_FORMATS.get(t.spec.format, t.spec.format)} · {_status(t.status)}"
                    f" · {tr('lobby.n_players', n=len(t.players))}",
                )
                for t in state.tournaments
            ]
        )
        rows: list[tuple[str, str, str, str]] = []
        for standing in state.standings:
            if standing.tournament.tournament_id != self.selected_tournament:
                continue
            info = standing.tournament
            round_ = tr("lobby.round", round=info.round)
            rows.append((f"{info.spec.name}", round_, _status(info.status), ""))
            for row in standing.rows:
                rows.append(
                    (
                        f"{row.rank}. {row.player}",
                        tr("lobby.points", points=f"{row.points:g}"),
                        f"{row.wins}-{row.draws}-{row.losses}",
                        tr("lobby.games_played", n=row.games),
                    )
                )
        self.standings.set_rows(rows)
        self._board_result(link)
        self._challenges(link)

    def _players_shown(self) -> str:
        """`` 1000/2500`` when the list is the first page of a bigger lobby, else ""."""
        link = self.link
        if link is None:
            return ""
        shown, total = len(link.state.players), link.state.players_total
        return f" {shown}/{total}" if total > shown else ""

    def _fill_players(self, state: LobbyState, me: str) -> None:
        """The player list's rows: made again only when the lobby, the game picked
        or the name changes (a lobby of a thousand players and a few hundred games is
        too much to go through at every frame)."""
        key = (state, self.variant, me)
        if self._players_key is not None and all(
            a is b for a, b in zip(key, self._players_key, strict=True)
        ):
            return
        self._players_key = key
        at_game = {name: game for game in state.games for name in game.players}
        rows: list[tuple[str, str, str]] = []
        colors: dict[int, theme.Color] = {}
        for i, p in enumerate(state.players):
            game = at_game.get(p.name)
            rows.append(
                (
                    ("● " if p.online else "○ ")
                    + p.name
                    + (f" ({tr('you_mark')})" if p.name == me else ""),
                    player_status(p, [game] if game is not None else []),
                    f"{p.ratings.get(self.variant, 1500.0):.0f}",  # in the game picked
                )
            )
            colors[i] = (
                theme.ACCENT if game is not None else theme.TEXT if p.online else theme.TEXT_DIM
            )
        self.players.set_rows(rows)
        self.players.colors = colors

    def _own_board_game(self, link: LobbyLink) -> tuple[str, int, int, str] | None:
        """Your game of the current round on a physical board in the tournament
        picked, while it has no result: (tournament, round, table, opponent)."""
        me = link.name.casefold()
        for standing in link.state.standings:
            t = standing.tournament
            if t.tournament_id != self.selected_tournament:
                continue
            for p in standing.pairings:
                seats = [(p.first or "").casefold(), (p.second or "").casefold()]
                if p.round == t.round and p.otb and p.result is None and me in seats:
                    other = p.second if seats[0] == me else p.first
                    return t.tournament_id, p.round, p.table or p.board, other or ""
        return None

    def _board_result(self, link: LobbyLink) -> None:
        """Three buttons under the standings (1-0, ½-½, 0-1) for your game on a
        physical board, until its result counts."""
        game = self._own_board_game(link)
        if game == self.board_game:
            return
        self.board_game = game
        self.result_buttons = []
        full = self._standings_rect
        self.standings.rect = full.copy()
        if game is None:
            return
        self.standings.rect.height = max(40, full.height - 66)
        third = (full.width - 16) // 3
        y = self.standings.rect.bottom + 30
        for i, (label, result) in enumerate((("1-0", "1-0"), ("½-½", "1/2-1/2"), ("0-1", "0-1"))):
            self.result_buttons.append(
                Button(
                    label,
                    functools.partial(self._report_result, game, result),
                    rect=pygame.Rect(full.x + i * (third + 8), y, third, 32),
                )
            )

    def _report_result(self, game: tuple[str, int, int, str], result: str) -> None:
        link = self.link
        if link is not None:
            tournament_id, round_no, table, _ = game
            link.send(commands.ReportBoardResult(tournament_id, round_no, table, result))

    def _challenges(self, link: LobbyLink) -> None:
        key = tuple(sorted(link.challenges))
        if key == self._challenge_key:
            return
        self._challenge_key = key
        self.challenge_buttons = []
        w, _ = self.app.screen.get_size()
        for i, challenge in enumerate(self._shown_challenges(link)):
            y = self._challenge_y(i)
            cid = challenge.challenge_id
            self.challenge_buttons.append(
                Button(
                    tr("accept"),
                    functools.partial(link.accept, cid),
                    rect=pygame.Rect(w - 260, y, 120, 26),
                    primary=True,
                    key="y" if i == 0 else "",
                )
            )
            self.challenge_buttons.append(
                Button(
                    tr("decline"),
                    functools.partial(link.decline, cid),
                    rect=pygame.Rect(w - 132, y, 120, 26),
                    key="x" if i == 0 else "",
                )
            )

    def frame_key(self) -> Hashable:
        """What the lobby agent last said and the line of news at the bottom."""
        link = self.link
        if link is None:
            return None
        return (
            Same(link.state),
            link.connected,
            link.failed,
            tuple(link.challenges),
            self.rated,
            self.message,
            self.message_error,
        )

    def _shown_challenges(self, link: LobbyLink) -> list[ChallengeReceived]:
        """The challenges with a row at the top: two in a wide window, one in a
        narrow one (where the row goes under the title)."""
        return list(link.challenges.values())[: 1 if self.narrow else 2]

    def _challenge_y(self, index: int) -> int:
        return 44 if self.narrow else 8 + index * 30

    def draw(self, surface: pygame.Surface) -> None:
        surface.fill(theme.BACKGROUND)
        link = self.link
        if link is None:
            return
        w, h = surface.get_size()
        draw_text(surface, tr("lobby.title"), (16, 12), 28, theme.ACCENT)
        who = (
            f"{link.name} @ {link.server}"
            if link.connected
            else tr("lobby.connecting", server=link.server)
        )
        room = w - 196 if self.narrow or not link.challenges else w - 480
        size = fit_size(who, (15, 13), room)
        draw_text(surface, who, (180, 22), size, theme.TEXT_DIM, max_width=room)
        for i, challenge in enumerate(self._shown_challenges(link)):
            says = en if self.narrow else tr  # a narrow window: the English words only
            text = says("lobby.challenges_you", name=challenge.challenger)
            text = f"{text}: {describe_seek(challenge.seek, chinese=not self.narrow)}"
            room = w - 286 if self.narrow else w - 560
            size = fit_size(text, (15, 13), room)
            at = (w - 270, self._challenge_y(i) + 13)
            draw_text(surface, text, at, size, theme.ACCENT, anchor="midright", max_width=room)
        titles = {
            "players": tr("lobby.players") + self._players_shown(),
            "seeks": tr("lobby.seeks"),
            "games": tr("lobby.games"),
            "tournaments": tr("lobby.tournaments"),
        }
        for key, pos in self.headers.items():
            draw_text(surface, titles[key], pos, 17, theme.TEXT)
        for widget in (self.players, self.seeks, self.games, self.tournaments, self.standings):
            widget.draw(surface)
        if self.board_game is not None:
            _, round_no, table, other = self.board_game
            rect = self.standings.rect
            text = tr("lobby.board_game", round=round_no, table=table, name=other)
            size = fit_size(text, (15, 12), rect.width)
            at = (rect.x, rect.bottom + 8)
            draw_text(surface, text, at, size, theme.ACCENT, max_width=rect.width)
        for button in self.buttons + self.challenge_buttons + self.result_buttons:
            button.draw(surface)
        if self.message:
            color = (
                theme.ERROR
                if self.message_error
                else theme.TEXT
                if self.message_plain
                else theme.GOOD
            )
            draw_text(
                surface,
                self.message,
                (w // 2, h - 6),
                15,
                color,
                anchor="midbottom",
                max_width=w - 40,
            )
