"""lanqi match end to end: real Fairy-Stockfish (UCI and UCCI) and a scripted Gomocup
brain against the built-in AIs, through a real referee, with opening files,
colour-reversed pairs, adjudication, SPRT and records."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from lanqi.games.gomoku.record import read_records
from lanqi.games.xiangqi.pgn import read_pgns
from lanqi.match.runner import MatchSummary

Runner = Callable[[list[str]], tuple[MatchSummary, list[str]]]
DATA = Path(__file__).parent / "data"
ENGINE_FAKES = Path(__file__).parents[1] / "bot" / "engines" / "fakes"
GOMOCUP_FAKE = ENGINE_FAKES / "gomocup_fake.py"
ADJUDICATION = ["-resign", "movecount=3", "score=400", "-draw", "movenumber=25", "movecount=4",
                "score=15", "-maxmoves", "45"]  # fmt: skip


@pytest.mark.parametrize("proto", ["uci", "ucci"])
def test_fairy_stockfish_against_the_builtin_ai_with_ten_openings(
    proto: str, fsf: str, tmp_path: Path, run_match: Runner
) -> None:
    pgn = tmp_path / "match.pgn"
    summary, lines = run_match(
        [
            "-engine", "name=SF", f"cmd={fsf}", f"proto={proto}", "depth=1",
            "option.Threads=1",
            "-engine", "name=AI", "proto=builtin", "depth=1",
            "-games", "2", "-rounds", "10", "-concurrency", "2",
            "-openings", f"file={DATA / 'openings10.fen'}",
            "-pgnout", str(pgn), *ADJUDICATION,
        ]
    )  # fmt: skip
    games = read_pgns(pgn.read_text(encoding="utf-8"))  # every game replays legally
    assert len(games) == 20 == len(summary.games)
    by_opening: dict[str, list[tuple[str, str]]] = {}
    for game in games:
        tags = game.headers
        assert tags["RedEngine" if tags["Red"] == "SF" else "BlackEngine"].startswith(
            "Fairy-Stockfish"
        )
        assert tags["Termination"] and tags["Date"] != "?" and tags["TimeControl"] == "-"
        assert game.board.start_fen.split()[:2] == tags["FEN"].split()[:2]
        by_opening.setdefault(tags["Opening"], []).append((tags["Red"], tags["FEN"]))
    # ten openings, each played twice from the same position with colours reversed
    assert len(by_opening) == 10
    for pair in by_opening.values():
        assert len(pair) == 2 and pair[0][1] == pair[1][1]
        assert {pair[0][0], pair[1][0]} == {"SF", "AI"}
    assert sum(summary.pairs) == 10
    # adjudication was on, and games it ended say so
    terminations = Counter(g.headers["Termination"] for g in games)
    assert any(t.startswith("adjudication") for t in terminations), terminations
    # engine comments: {score/depth time} on Fairy-Stockfish's moves
    text = pgn.read_text(encoding="utf-8")
    assert "/1 0." in text
    final = [line for line in lines if line.startswith("Score of SF vs AI:")][-1]
    tally = summary.tallies[(0, 1)]
    assert final.endswith(" 20") and f"{tally.wins} - {tally.losses} - {tally.draws}" in final
    assert any(line.startswith("Elo difference:") and "pentanomial, 10 pairs" in line
               for line in lines)  # fmt: skip
    # the final report, fastchess's way: W-D-L, Elo and nElo, LOS, pentanomial, failures
    report = lines[lines.index("Results of SF vs AI:") - 1 :]
    assert report[0] == "-" * 50 and report[-2] == "-" * 50 and report[-1] == "Finished match"
    assert report[2].startswith(
        f"Games: 20, Wins: {tally.wins}, Losses: {tally.losses}, Draws: {tally.draws}, Points: "
    )
    est = summary.estimate()
    assert report[3].startswith(f"Elo: {est.elo:+.1f} [")
    assert "(95%, pentanomial), nElo: " in report[3]
    assert report[4].startswith(f"LOS: {100 * est.los:.2f} %, DrawRatio: ")
    assert report[5] == f"Pairs: 10, Ptnml(0-2): [{', '.join(map(str, summary.pairs))}]"
    assert report[6].startswith("Time losses: ")


def test_sprt_stops_the_match_by_itself(fsf: str, tmp_path: Path, run_match: Runner) -> None:
    """Fairy-Stockfish against the random level-1 AI: H1 (+50) is accepted long before
    the 200 scheduled games."""
    summary, lines = run_match(
        [
            "-engine", "name=SF", f"cmd={fsf}", "proto=uci", "depth=2",
            "-engine", "name=Random", "proto=builtin", "level=1",
            "-games", "2", "-rounds", "100",
            "-openings", f"file={DATA / 'openings10.fen'}",
            "-sprt", "elo0=0", "elo1=50", "alpha=0.05", "beta=0.05",
            "-resign", "movecount=2", "score=600", "-maxmoves", "100",
        ]
    )  # fmt: skip
    assert summary.stopped_by_sprt and summary.sprt is not None
    assert summary.sprt.decision == "H1" and summary.sprt.llr >= summary.sprt.upper
    # fishtest's GSPRT gains log(s1 / s0) = log(0.5715 / 0.5) = 0.134 per won pair when
    # every pair is won: 23 pairs (46 games) reach 2.944; the old normal
    # approximation, overconfident on sweeps, stopped before 40
    assert len(summary.games) < 60
    assert any("H1 accepted" in line for line in lines)
    assert "SPRT stopped the match: H1 accepted" in lines
    llr = [line for line in lines if line.startswith("LLR: ")]
    assert llr == [
        f"LLR: {summary.sprt.llr:.2f} (-2.94, 2.94) [0.00, 50.00] logistic - H1 accepted"
    ]


def test_gomocup_brain_against_the_builtin_gomoku_ai_with_openings(
    tmp_path: Path, run_match: Runner
) -> None:
    records, psq = tmp_path / "games.txt", tmp_path / "psq"
    summary, _ = run_match(
        [
            "-variant", "gomoku",
            "-engine", "name=Brain", f"cmd={sys.executable} {GOMOCUP_FAKE} ok",
            "proto=gomocup", "st=0.3",
            "-engine", "name=AI", "proto=builtin", "level=2", "st=0.1",
            "-games", "2", "-rounds", "4",
            "-openings", f"file={DATA / 'gomoku-openings.txt'}",
            "-pgnout", str(records), "-psqout", str(psq),
        ]
    )  # fmt: skip
    games = read_records(records.read_text(encoding="utf-8"))  # replayed through the rules
    assert len(games) == 8 == len(summary.games)
    openings = Counter(headers["Opening"] for headers, _ in games)
    assert sorted(openings.values()) == [2, 2, 2, 2]
    for headers, board in games:
        first_three = [str(m) for m in board.move_stack[:3]]
        assert headers["Termination"] and headers["Result"] in ("1-0", "0-1", "1/2-1/2")
        if headers["Opening"] == "gomoku-openings.txt:2":
            assert first_three == ["h8", "i7", "g7"]  # the opening's stones come first
    files = sorted(psq.glob("*.psq"))
    assert len(files) == 8
    first = files[0].read_text(encoding="utf-8").splitlines()
    assert first[0] == "Piskvorky 15x15, 11:11, 0" and first[1].startswith("8,8,")


def test_three_engines_give_a_final_table(tmp_path: Path, run_match: Runner) -> None:
    summary, lines = run_match(
        [
            "-engine", "name=甲", "proto=builtin", "depth=1",
            "-engine", "name=B", "proto=builtin", "level=1",
            "-engine", "name=C", "proto=builtin", "depth=1", "level=3",
            "-games", "2", "-maxmoves", "15",
        ]
    )  # fmt: skip
    assert len(summary.games) == 6
    table = lines[lines.index(next(line for line in lines if line.startswith("Rank"))) :]
    names = {row.split()[1] for row in table[1:4]}
    assert names == {"甲", "B", "C"}
    assert all(row.split()[-3] == "4" for row in table[1:4])  # four games each


def test_time_odds_give_each_engine_its_own_clock(tmp_path: Path, run_match: Runner) -> None:
    pgn = tmp_path / "odds.pgn"
    summary, _ = run_match(
        [
            "-engine", "name=Slow", "proto=builtin", "depth=1", "tc=30+0.1",
            "-engine", "name=Fast", "proto=builtin", "depth=1", "tc=8+0.1",
            "-games", "2", "-maxmoves", "6", "-pgnout", str(pgn),
        ]
    )  # fmt: skip
    assert [g.time_control.seat_base_ms for g in summary.games] == [
        [30_000, 8_000],
        [8_000, 30_000],
    ]
    games = read_pgns(pgn.read_text(encoding="utf-8"))
    for game in games:
        tags = game.headers
        slow_side = "Red" if tags["Red"] == "Slow" else "Black"
        fast_side = "Black" if slow_side == "Red" else "Red"
        assert tags[f"{slow_side}TimeControl"] == "30+0.1"
        assert tags[f"{fast_side}TimeControl"] == "8+0.1"
        assert "TimeControl" not in tags


def test_increment_odds_reach_the_referee_and_the_engines(
    tmp_path: Path, run_match: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """tc=10+0.1 against tc=5+0.05: each seat's clock gains its own increment on the
    referee, and the engines are told both increments (winc/binc) by seat."""
    sent = tmp_path / "sent.log"
    monkeypatch.setenv("FAKE_LOG", str(sent))
    fake = f"{sys.executable} {ENGINE_FAKES / 'uci_fake.py'} ok"
    pgn = tmp_path / "odds.pgn"
    summary, _ = run_match(
        [
            "-engine", "name=Ten", f"cmd={fake}", "tc=10+0.1",
            "-engine", "name=Five", f"cmd={fake}", "tc=5+0.05",
            "-games", "2", "-maxmoves", "4", "-pgnout", str(pgn),
        ]
    )  # fmt: skip
    assert [g.time_control.seat_increment_ms for g in summary.games] == [[100, 50], [50, 100]]
    assert [g.time_control.seat_base_ms for g in summary.games] == [
        [10_000, 5_000],
        [5_000, 10_000],
    ]
    assert all(g.termination == "adjudication: max moves" for g in summary.games), [
        g.termination for g in summary.games
    ]
    gos = [line.split() for line in sent.read_text(encoding="utf-8").splitlines()]
    incs = {(go[go.index("winc") + 1], go[go.index("binc") + 1]) for go in gos if "winc" in go}
    assert incs == {("100", "50"), ("50", "100")}
    # the referee's clocks: Five's (5 s + 0.05 s) never shows more than 5 s and its increments
    for go in (go for go in gos if "winc" in go):
        five = "btime" if go[go.index("binc") + 1] == "50" else "wtime"
        assert int(go[go.index(five) + 1]) <= 5_000 + 4 * 50, go
    for game in read_pgns(pgn.read_text(encoding="utf-8")):
        tags = game.headers
        ten = "Red" if tags["Red"] == "Ten" else "Black"
        five = "Black" if ten == "Red" else "Red"
        assert (tags[f"{ten}TimeControl"], tags[f"{five}TimeControl"]) == ("10+0.1", "5+0.05")


FLAGGING = Path(__file__).parent / "fakes" / "flagging_ucci.py"


def _flagging(name: str, flag: str, after: int) -> list[str]:
    return ["-engine", f"name={name}", f"cmd={sys.executable} {FLAGGING} {flag} {after}",
            "proto=ucci", "st=0.2"]  # fmt: skip


def test_ucci_draw_flags_end_the_game_only_when_both_agree(
    tmp_path: Path, run_match: Runner
) -> None:
    both, _ = run_match([*_flagging("A", "draw", 2), *_flagging("B", "draw", 2), "-games", "2"])
    assert [(g.result, g.termination) for g in both.games] == [("1/2-1/2", "agreement")] * 2
    assert all(len(g.moves) < 10 for g in both.games)
    alone, _ = run_match(
        [*_flagging("A", "draw", 2), "-engine", "name=AI", "proto=builtin", "depth=1",
         "-games", "2", "-maxmoves", "12"]
    )  # fmt: skip
    assert all(g.termination != "agreement" for g in alone.games)  # the AI never agrees


def test_a_ucci_resign_flag_resigns(tmp_path: Path, run_match: Runner) -> None:
    summary, _ = run_match(
        [*_flagging("Quitter", "resign", 3), "-engine", "name=AI", "proto=builtin", "depth=1",
         "-games", "2"]
    )  # fmt: skip
    for game in summary.games:
        quitter = game.names.index("Quitter")
        assert game.termination == "resignation"
        assert game.score_of(quitter) == 0.0
