"""The catalogue: one entry per player-facing line, Chinese and English.

Fields are ``str.format`` names (``{name}``, ``{n}``); ``en_plural`` is the English
form for a count other than one (Chinese needs none).  Keep entries grouped by
screen and sorted within a group; a new line a player can see is added here first.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CATALOGUE", "Text"]


@dataclass(frozen=True, slots=True)
class Text:
    """One line in both languages."""

    zh: str
    en: str
    en_plural: str = ""


CATALOGUE: dict[str, Text] = {
    # --- the game screen: offers and takebacks ---
    "draw_offered": Text("{name} 提和", "{name} offers a draw"),
    "moves_taken_back": Text("悔了 {n} 步", "{n} move taken back", "{n} moves taken back"),
    # --- the lobby: a tournament game on a physical board ---
    "lobby.board_game": Text(
        "第 {round} 轮 第 {table} 台 (实体棋盘) 对 {name}: 结果?",
        "Round {round}, table {table} (on a board) against {name}: the result?",
    ),
    "lobby.result_disputed": Text(
        "有争议: 对手报的结果不同, 由裁判决定",
        "disputed: your opponent said otherwise; the director decides",
    ),
    "lobby.result_recorded": Text("结果已记录", "result recorded"),
    "lobby.result_waiting": Text(
        "已记下: 对手报同样的结果后生效", "noted: it counts when your opponent says the same"
    ),
    # --- connecting: a name held by a session this client no longer has ---
    "connect.name_taken": Text(
        "{name} 已有人用: 如果是你的名字, 请组织者给你一个报名码 (lanqi reclaim {name}),"
        " 再填到报名码里",
        "'{name}' is taken: if it is yours, ask the organiser for an entry code"
        " (lanqi reclaim {name}) and type it in Entry code",
    ),
    # --- lanqi bot (one line on the command line) ---
    "bot.name_taken": Text(
        "{name} 已有人用: 如果是这个机器人的, 请组织者给一个报名码 (lanqi reclaim {name}),"
        " 再运行 lanqi bot --name {name} --claim 报名码",
        "'{name}' is taken: if it is this bot's, ask the director for a claim code"
        " (lanqi reclaim {name}) and run lanqi bot --name {name} --claim CODE",
    ),
}
