"""Perft of the xiangqi move generator against reference counts kept as data files.

``data/perft.txt`` holds published counts and corner cases, every number checked
with Fairy-Stockfish (see docs/perft.md).  Counts up to ``FAST_LIMIT`` nodes run
on every test run; those up to ``SLOW_LIMIT`` are marked ``slow``; larger ones
stay in the file as reference only.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from lanqi.games.xiangqi import STARTING_FEN, Board

DATA = Path(__file__).parent / "data"
FAST_LIMIT = 200_000
SLOW_LIMIT = 5_000_000


@dataclass(frozen=True)
class PerftEntry:
    name: str
    fen: str
    counts: dict[int, int]
    line: int


def read_perft_file(path: Path) -> list[PerftEntry]:
    """Parse ``FEN ; DEPTH NODES ; ...`` lines; the ``# name:`` comment before names them."""
    entries: list[PerftEntry] = []
    name = ""
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            word, colon, _ = line[1:].strip().partition(":")
            if colon and word and " " not in word:
                name = word
            continue
        fen, *fields = (part.strip() for part in line.split(";"))
        counts: dict[int, int] = {}
        for field in fields:
            depth, nodes = field.split()
            counts[int(depth)] = int(nodes)
        entries.append(PerftEntry(name, fen, counts, number))
        name = ""
    return entries


ENTRIES = read_perft_file(DATA / "perft.txt")


def _cases() -> list[object]:
    cases: list[object] = []
    for entry in ENTRIES:
        for depth, nodes in sorted(entry.counts.items()):
            case_id = f"{entry.name}-d{depth}"
            if nodes <= FAST_LIMIT:
                cases.append(pytest.param(entry.fen, depth, nodes, id=case_id))
            elif nodes <= SLOW_LIMIT:
                cases.append(
                    pytest.param(entry.fen, depth, nodes, id=case_id, marks=pytest.mark.slow)
                )
    return cases


@pytest.mark.parametrize(("fen", "depth", "nodes"), _cases())
def test_perft(fen: str, depth: int, nodes: int) -> None:
    assert Board(fen).perft(depth) == nodes


def test_data_file_is_well_formed() -> None:
    assert len(ENTRIES) >= 25
    names = [entry.name for entry in ENTRIES]
    assert all(names), f"positions without a '# name:' comment: {names}"
    assert len(set(names)) == len(names)
    assert len({entry.fen for entry in ENTRIES}) == len(ENTRIES)
    for entry in ENTRIES:
        board = Board(entry.fen)  # every FEN is a legal position for our parser
        assert board.fen() == entry.fen, f"line {entry.line}: FEN not in canonical form"
        depths = sorted(entry.counts)
        assert depths == list(range(1, len(depths) + 1)), f"line {entry.line}: depth gap"


def test_start_position_has_the_published_counts() -> None:
    start = next(entry for entry in ENTRIES if entry.fen == STARTING_FEN)
    assert start.counts == {1: 44, 2: 1920, 3: 79666, 4: 3290240, 5: 133312995}


def test_corner_cases_cover_mate_stalemate_and_black_to_move() -> None:
    by_name = {entry.name: entry for entry in ENTRIES}
    for name in ("mate_rook_flying_general", "mate_horse_cannon"):
        board = Board(by_name[name].fen)
        assert board.is_checkmate() and board.perft(1) == 0
    for name in ("stalemate_bare_general", "stalemate_pinned_pieces"):
        board = Board(by_name[name].fen)
        assert board.is_stalemate() and board.perft(1) == 0
    assert sum(" b " in entry.fen for entry in ENTRIES) >= 6


def test_perft_depth_zero_is_one() -> None:
    assert Board().perft(0) == 1


def read_divide_file(path: Path) -> tuple[str, int, dict[str, int], int]:
    """(fen, depth, {iccs: nodes}, total) from a stored ``--divide`` listing."""
    fen, depth, total = "", 0, -1
    moves: dict[str, int] = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, _, value = line.partition(":")
        if key == "fen":
            fen = value.strip()
        elif key == "depth":
            depth = int(value)
        elif key == "Nodes searched":
            total = int(value)
        else:
            moves[key] = int(value)
    return fen, depth, moves, total


def test_divide_matches_stored_divide() -> None:
    fen, depth, expected, total = read_divide_file(DATA / "perft_divide.txt")
    assert depth == 2
    assert sum(expected.values()) == total
    divide = {str(move): nodes for move, nodes in Board(fen).divide(depth).items()}
    assert divide == expected
    assert fen in {entry.fen for entry in ENTRIES}
