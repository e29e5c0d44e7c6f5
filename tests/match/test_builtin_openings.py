"""The opening books that ship with lanqi (``-openings builtin:NAME``), and books
written by other tools (EPD with operations, PGN with ICCS or coordinate moves)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from lanqi.games import gomoku, xiangqi
from lanqi.games.xiangqi.pgn import read_pgns
from lanqi.match.config import MatchConfigError, OpeningsConfig, parse_args
from lanqi.match.openings import BOOKS_DIR, BUILTIN_BOOKS, load_openings
from lanqi.match.runner import MatchSummary

_OPS = re.compile(r'(\w+)\s+("[^"]*"|[^;]+);')
_PLAYERS = ["-engine", "name=A", "proto=builtin", "-engine", "name=B", "proto=builtin"]


def _epd_lines() -> list[str]:
    text = (BOOKS_DIR / "xiangqi.epd").read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


def test_every_xiangqi_book_position_is_its_named_moves_played_by_the_rules() -> None:
    lines = _epd_lines()
    assert len(lines) >= 20
    groups = set()
    for line in lines:
        board_field, side, _castle, _ep, rest = line.split(" ", 4)
        ops = {key: value.strip().strip('"') for key, value in _OPS.findall(rest)}
        assert ops["id"] and ops["eco"] in "ABCDE", line
        groups.add(ops["eco"])
        board = xiangqi.Board()
        for text in ops["c0"].split():
            move = xiangqi.Move.from_iccs(text)
            assert board.is_legal(move), (ops["id"], text)
            board.push(move)
        assert board.outcome() is None
        assert board.fen().split()[:2] == [board_field, side], ops["id"]
        assert abs(int(ops["ce"])) <= 130, ops["id"]  # balanced: within 1.3 pawns
    assert groups == set("ABCDE")  # every ECCO group has openings


def test_builtin_xiangqi_loads_with_the_openings_names() -> None:
    openings = load_openings(OpeningsConfig(Path("builtin:xiangqi")), "xiangqi")
    assert len(openings) == len(_epd_lines())
    names = [o.name for o in openings]
    assert "中炮对屏风马 Central cannon vs. screen horses" in names
    assert all(o.fen is not None and not o.moves for o in openings)


@pytest.mark.parametrize(("book", "rule"), [("gomoku", "freestyle"), ("gomoku", "standard"),
                                            ("renju", "renju")])  # fmt: skip
def test_gomoku_books_are_the_26_shapes_legal_under_their_rule(book: str, rule: str) -> None:
    options = {"size": 15, "rule": rule}
    openings = load_openings(OpeningsConfig(Path(f"builtin:{book}")), "gomoku", options=options)
    assert len(openings) == 26
    shapes: set[tuple[tuple[int, int], ...]] = set()
    for opening in openings:
        board = gomoku.Board(15, rule)
        for text in opening.moves:
            move = board.parse_move(text)
            assert board.is_legal(move)
            board.push(move)
        assert board.turn == gomoku.Color.WHITE and board.outcome() is None
        # no two lines are the same shape under any of the board's eight symmetries
        stones = [tuple(int(v) - 7 for v in m.gomocup(15).split(",")) for m in board.move_stack]
        variants: set[tuple[tuple[int, int], ...]] = set()
        for flip in (False, True):
            for turns in range(4):
                points = []
                for x, y in stones:
                    px, py = (y, x) if flip else (x, y)
                    for _ in range(turns):
                        px, py = -py, px
                    points.append((px, py))
                variants.add(tuple(points))
        assert not variants & shapes, opening
        shapes |= variants


def test_bare_builtin_takes_the_matchs_variant_and_rule() -> None:
    config = parse_args([*_PLAYERS, "-variant", "gomoku", "-rule", "renju", "-openings", "builtin"])
    assert config.openings is not None
    openings = load_openings(config.openings, "gomoku", options=config.game_options())
    assert openings[0].name.startswith("renju.txt:")
    xiangqi_config = parse_args([*_PLAYERS, "-openings", "builtin:xiangqi", "order=random"])
    assert xiangqi_config.openings is not None and xiangqi_config.openings.order == "random"
    assert str(xiangqi_config.openings.file) == "builtin:xiangqi"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["-openings", "builtin:renju"],
            "builtin:renju is a gomoku book; this match plays xiangqi",
        ),
        (["-openings", "file=builtin:chess"], "no built-in book 'builtin:chess'; there are"),
    ],
)
def test_a_builtin_book_of_another_game_is_refused_in_one_line(
    argv: list[str], message: str
) -> None:
    with pytest.raises(MatchConfigError, match=message):
        parse_args([*_PLAYERS, *argv])


def test_the_books_live_inside_the_package_the_wheel_ships() -> None:
    import lanqi.match.openings as module

    assert BOOKS_DIR.parent == Path(module.__file__).resolve().parent
    for _variant, filename in BUILTIN_BOOKS.values():
        assert (BOOKS_DIR / filename).is_file()


def test_books_written_by_other_tools(tmp_path: Path) -> None:
    # EPD as engine tools write it: four fields, then operations (bm, id, c0, ...)
    epd = tmp_path / "other.epd"
    epd.write_text(
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - "
        'bm h7e7; id "central cannon.001"; c0 "from a test suite";\n'
        "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - hmvc 2; fmvn 2;\n",
        encoding="utf-8",
    )
    from_epd = load_openings(OpeningsConfig(epd), "xiangqi")
    assert [o.name for o in from_epd] == ["central cannon.001", "other.epd:2"]
    assert [o.fen for o in from_epd] == [
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b",
        "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w",
    ]
    # PGN as xiangqi programs export it: ICCS with dashes, an Opening tag, a FEN start
    pgn = tmp_path / "other.pgn"
    pgn.write_text(
        '[Game "Chinese Chess"]\n[Event "club"]\n[Red "A"]\n[Black "B"]\n[Result "*"]\n'
        '[Opening "中炮对屏风马"]\n[Format "ICCS"]\n\n1. H2-E2 H9-G7\n2. H0-G2 B9-C7\n*\n\n'
        '[Game "Chinese Chess"]\n[Result "*"]\n'
        '[FEN "rnbakabnr/9/1c5c1/p1p1p1p1p/9/2P6/P3P1P1P/1C5C1/9/RNBAKABNR b - - 0 1"]\n\n'
        "1... g6g5 2. h2e2 *\n",
        encoding="utf-8",
    )
    from_pgn = load_openings(OpeningsConfig(pgn), "xiangqi")
    assert [o.name for o in from_pgn] == ["中炮对屏风马", "other.pgn#2"]
    assert from_pgn[0].moves == ("h2e2", "h9g7", "h0g2", "b9c7") and from_pgn[0].fen is None
    assert from_pgn[1].moves == ("g6g5", "h2e2") and from_pgn[1].fen is not None


def test_a_match_plays_out_of_the_box_from_the_builtin_book(
    tmp_path: Path, run_match: Callable[[list[str]], tuple[MatchSummary, list[str]]]
) -> None:
    pgn = tmp_path / "match.pgn"
    summary, _lines = run_match(
        [
            "-engine", "name=A", "proto=builtin", "depth=1",
            "-engine", "name=B", "proto=builtin", "depth=1",
            "-games", "2", "-openings", "builtin:xiangqi", "-maxmoves", "4",
            "-pgnout", str(pgn),
        ]
    )  # fmt: skip
    games = read_pgns(pgn.read_text(encoding="utf-8"))
    assert len(games) == 2 == len(summary.games)
    first = _epd_lines()[0]
    name = re.search(r'id "([^"]*)"', first)
    assert name is not None
    assert {g.headers["Opening"] for g in games} == {name.group(1)}
    assert {" ".join(g.headers["FEN"].split()[:2]) for g in games} == {" ".join(first.split()[:2])}
