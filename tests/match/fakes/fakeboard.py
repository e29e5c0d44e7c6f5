"""Shared by the fake engines here (imported from the script's own folder)."""

from __future__ import annotations

from lanqi.games import xiangqi


def board_of(position: list[str]) -> xiangqi.Board:
    """The board a UCI/UCCI ``position`` command (split in words) describes."""
    if position[1] == "startpos":
        board, rest = xiangqi.Board(), position[2:]
    else:
        board, rest = xiangqi.Board(" ".join(position[2:8])), position[8:]
    for text in rest[1:] if rest[:1] == ["moves"] else []:
        board.push_text(text)
    return board
