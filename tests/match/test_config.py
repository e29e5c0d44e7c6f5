"""lanqi match: arguments and config files, openings, adjudication rules, records."""

from __future__ import annotations

import datetime as dt
import json
import sys
from pathlib import Path

import pytest

from lanqi.games.gomoku import Move
from lanqi.games.xiangqi.pgn import read_pgn
from lanqi.match.adjudicate import MoveNote, adjudicate
from lanqi.match.config import Adjudication, MatchConfigError, OpeningsConfig, parse_args
from lanqi.match.game import GameSpec, Played
from lanqi.match.openings import load_openings
from lanqi.match.records import extra_record, record_text
from lanqi.protocol import TimeControl

DATA = Path(__file__).parent / "data"
FSF = "/usr/games/fairy-stockfish"


def test_cutechess_arguments() -> None:
    config = parse_args(
        [
            "-engine", "name=SF", f"cmd={FSF}", "proto=uci", "option.Hash=16", "depth=3",
            "-engine", "name=AI", "proto=builtin", "st=0.5", "level=6",
            "-each", "timemargin=2", "option.Threads=1",
            "-games", "4", "-rounds", "3", "-concurrency", "2", "-repeat",
            "-openings", f"file={DATA / 'openings10.fen'}", "order=random", "start=2",
            "-draw", "movenumber=30", "movecount=6", "score=15",
            "-resign", "movecount=4", "score=700", "twosided=true",
            "-maxmoves", "150",
            "-sprt", "elo0=0", "elo1=10", "alpha=0.05", "beta=0.1",
            "-tc", "10+0.1", "-pgnout", "out.pgn", "min", "-srand", "7",
        ]
    )  # fmt: skip
    sf, ai = config.engines
    assert (sf.name, sf.proto, sf.depth, sf.timemargin) == ("SF", "uci", 3, 2.0)
    assert sf.options == {"Threads": 1, "Hash": 16}
    assert (ai.proto, ai.st, ai.level) == ("builtin", 0.5, 6)
    assert (config.games, config.rounds, config.concurrency, config.repeat) == (4, 3, 2, 2)
    assert config.openings is not None and config.openings.order == "random"
    adj = config.adjudication
    assert (adj.draw_movenumber, adj.draw_movecount, adj.draw_score) == (30, 6, 15)
    assert (adj.resign_movecount, adj.resign_score, adj.resign_twosided) == (4, 700, True)
    assert adj.maxmoves == 150
    assert config.sprt is not None and config.sprt.beta == 0.1
    # no first-move window in engine matches: the clock runs from the start (cutechess)
    assert config.time_control() == TimeControl(
        kind="fischer", base_ms=10_000, increment_ms=100, first_move_ms=0
    )
    assert config.pgnout == Path("out.pgn") and config.seed == 7


def test_config_file_toml_and_json(tmp_path: Path) -> None:
    toml = tmp_path / "match.toml"
    toml.write_text(
        f"""
variant = "xiangqi"
games = 2
rounds = 5
tc = "5+0.05"
[each]
timemargin = 1
[[engine]]
name = "SF"
cmd = "{FSF}"
proto = "ucci"
depth = 2
options = {{ Hash = 8 }}
[[engine]]
name = "AI"
proto = "builtin"
depth = 2
tc = "5+0.05"
[sprt]
elo0 = 0
elo1 = 20
[resign]
movecount = 3
score = 900
""",
        encoding="utf-8",
    )
    config = parse_args(["-config", str(toml), "-rounds", "7"])
    assert config.rounds == 7 and config.games == 2  # the command line wins
    assert config.engines[0].proto == "ucci" and config.engines[0].options == {"Hash": 8}
    assert config.engines[1].timemargin == 1
    assert config.sprt is not None and config.sprt.elo1 == 20
    assert config.adjudication.resign_score == 900
    data = {
        "variant": "gomoku",
        "size": 15,
        "engine": [{"name": "A", "proto": "builtin"}, {"name": "B", "proto": "builtin"}],
    }
    (tmp_path / "m.json").write_text(json.dumps(data), encoding="utf-8")
    config = parse_args(["-config", str(tmp_path / "m.json")])
    assert config.variant == "gomoku" and [e.name for e in config.engines] == ["A", "B"]


def test_engines_own_clocks_give_time_odds_of_every_kind() -> None:
    config = parse_args(
        ["-engine", "name=a", "cmd=sf", "tc=10+0.1", "ponder", "-engine", "name=b", "cmd=sf",
         "proto=ucci", "tc=5+0.05"]
    )  # fmt: skip
    assert [e.ponder for e in config.engines] == [True, False]
    tc = config.time_control(config.engines)
    assert (tc.seat_base_ms, tc.seat_increment_ms) == ([10_000, 5_000], [100, 50])
    assert tc.for_seat(1) == TimeControl(
        kind="fischer", base_ms=5_000, increment_ms=50, first_move_ms=0
    )
    reverse = config.time_control(config.engines[::-1])
    assert (reverse.seat_base_ms, reverse.seat_increment_ms) == ([5_000, 10_000], [50, 100])
    per_move = parse_args(
        ["-engine", "name=a", "proto=builtin", "tc=move:2", "-engine", "name=b",
         "proto=builtin", "tc=move:0.5"]
    )  # fmt: skip
    tc = per_move.time_control(per_move.engines)
    assert (tc.kind, tc.seat_per_move_ms) == ("per_move", [2_000, 500])
    assert (
        not parse_args(["-engine", "name=a", "cmd=sf", "-engine", "name=b", "cmd=sf"])
        .time_control([])
        .has_odds
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-engine", "proto=builtin"], "at least two engines"),
        (["-engine", "proto=uci", "-engine", "proto=builtin"], "cmd=PATH"),
        (["-engine", "proto=builtin", "-engine", "proto=builtin"], "names must differ"),
        (["-engine", "name=a", "proto=xboard", "-engine", "name=b", "proto=builtin"], "proto"),
        (["-engine", "name=a", "proto=builtin", "wat=1", "-engine", "proto=builtin"], "wat"),
        (
            ["-engine", "name=a", "proto=builtin", "ponder", "-engine", "proto=builtin"],
            "only uci and ucci engines ponder",
        ),
        (
            ["-variant", "gomoku", "-engine", "name=a", "cmd=x", "proto=gomocup", "ponder",
             "-engine", "proto=builtin"],
            "only uci and ucci engines ponder",
        ),
        (
            ["-engine", "name=a", "proto=builtin", "-engine", "name=b", "proto=builtin",
             "-tc", "40/60"],
            "moves/time",
        ),
        (
            ["-engine", "name=a", "proto=builtin", "-engine", "name=b", "proto=builtin",
             "-engine", "name=c", "proto=builtin", "-sprt", "elo0=0", "elo1=5"],
            "exactly two",
        ),
        (
            ["-engine", "name=a", "cmd=x", "proto=gomocup", "-engine", "name=b",
             "proto=builtin"],
            "gomoku only",
        ),
        (["games", "2"], "start with a -flag"),
        (
            ["-engine", "name=a", "proto=builtin", "tc=10+1", "-engine", "name=b",
             "proto=builtin", "tc=move:2"],
            "same kind of clock",
        ),
    ],
)  # fmt: skip
def test_bad_arguments_say_what_to_change(argv: list[str], message: str) -> None:
    with pytest.raises(MatchConfigError, match=message):
        parse_args(argv)


def test_xiangqi_openings_from_fen_epd_and_pgn(tmp_path: Path) -> None:
    fens = load_openings(OpeningsConfig(DATA / "openings10.fen"), "xiangqi")
    assert len(fens) == 10 and all(o.fen and not o.moves for o in fens)
    epd = tmp_path / "two.epd"
    epd.write_text(
        'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - id "start";\n'
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - -\n",
        encoding="utf-8",
    )
    two = load_openings(OpeningsConfig(epd, start=2), "xiangqi")
    assert [o.fen.split()[1] for o in two if o.fen] == ["b", "w"]  # started at the 2nd
    pgn = load_openings(OpeningsConfig(DATA / "openings3.pgn", plies=4), "xiangqi")
    assert len(pgn) == 3 and all(len(o.moves) == 4 and o.fen is None for o in pgn)
    random_order = load_openings(
        OpeningsConfig(DATA / "openings10.fen", order="random"), "xiangqi", seed=3
    )
    assert sorted(o.name for o in random_order) == sorted(o.name for o in fens)
    assert [o.name for o in random_order] != [o.name for o in fens]
    bad = tmp_path / "bad.fen"
    bad.write_text("not a position\n", encoding="utf-8")
    with pytest.raises(MatchConfigError, match=r"bad\.fen:1"):
        load_openings(OpeningsConfig(bad), "xiangqi")


def test_gomoku_openings_gomocup_offsets_and_moves() -> None:
    openings = load_openings(OpeningsConfig(DATA / "gomoku-openings.txt"), "gomoku")
    assert len(openings) == 4
    # 0,0 is the centre h8; x runs right and y down: 1,1 is i7; -1,1 is g7
    assert openings[0].moves == ("h8", "i7", "g7")
    assert openings[3].moves == ("h8", "i9", "g9")
    assert str(Move.from_gomocup("7,7", 15)) == "h8"


def note(ply: int, score: int | None) -> MoveNote:
    return MoveNote(ply, ply % 2, "x", score_cp=score, depth=5, time_ms=10)


def test_resign_adjudication_needs_movecount_moves_below_the_score() -> None:
    rules = Adjudication(resign_movecount=3, resign_score=500)
    notes = [note(p, -600 if p % 2 else 600) for p in range(5)]  # seat 1: two bad moves
    assert adjudicate(rules, notes, 5) is None
    notes.append(note(5, -650))
    verdict = adjudicate(rules, notes, 6)
    assert verdict is not None and (verdict.loser, verdict.reason) == (1, "adjudication: score")
    notes.append(note(6, 100))
    notes.append(note(7, -400))  # above -500 again: the streak is broken
    assert adjudicate(rules, notes, 8) is None
    two_sided = Adjudication(resign_movecount=2, resign_score=500, resign_twosided=True)
    lonely = [note(0, 0), note(1, -900), note(2, 0), note(3, -900)]  # opponent disagrees
    assert adjudicate(two_sided, lonely, 4) is None


def test_draw_and_move_count_adjudication() -> None:
    rules = Adjudication(draw_movenumber=3, draw_movecount=2, draw_score=10)
    quiet = [note(p, 5) for p in range(4)]
    assert adjudicate(rules, quiet, 4) is None  # before move 3
    quiet += [note(4, -3), note(5, 8)]
    verdict = adjudicate(rules, quiet, 6)
    assert verdict is not None and (verdict.loser, verdict.reason) == (None, "adjudication: draw")
    unknown = [*quiet[:-1], note(5, None)]  # a move without a score breaks the streak
    assert adjudicate(rules, unknown, 6) is None
    assert adjudicate(Adjudication(maxmoves=3), [], 5) is None
    verdict = adjudicate(Adjudication(maxmoves=3), [], 6)
    assert verdict is not None and verdict.reason == "adjudication: max moves"
    book = [MoveNote(p, p % 2, "x", book=True) for p in range(8)]
    assert adjudicate(Adjudication(draw_movenumber=1, draw_movecount=2), book, 8) is None


def _played(variant: str, moves: list[str], result: str, termination: str) -> Played:
    return Played(
        spec=GameSpec(number=3, round=2, seats=(0, 1), opening=None, pair=1),
        names=("SF", "AI"),
        engine_ids=("Fairy-Stockfish 11.1", "xiangqi-ai"),
        variant=variant,
        options={"size": 15, "rule": "freestyle"} if variant == "gomoku" else {},
        start_fen=None,
        moves=moves,
        notes=[
            MoveNote(0, 0, moves[0], book=True),
            MoveNote(1, 1, moves[1], score_cp=-35, depth=7, time_ms=1234),
            MoveNote(2, 0, moves[2], mate=3, score_cp=29_997, depth=9, time_ms=50),
        ],
        result=result,
        termination=termination,
        time_control=TimeControl(kind="fischer", base_ms=10_000, increment_ms=100),
        started=dt.datetime(2026, 12, 1, tzinfo=dt.UTC),
        game_id="abc",
    )


def test_pgn_record_has_reason_engines_comments_date_and_time_control() -> None:
    text = record_text(_played("xiangqi", ["h2e2", "h9g7", "h0g2"], "0-1", "crash"), "Ev")
    game = read_pgn(text)  # it replays legally
    tags = game.headers
    assert tags["Termination"] == "crash" and tags["Result"] == "0-1"
    assert tags["RedEngine"] == "Fairy-Stockfish 11.1" and tags["Red"] == "SF"
    assert tags["Date"] == "2026.12.01" and tags["TimeControl"] == "10+0.1"
    assert tags["Round"] == "3" and tags["Event"] == "Ev"
    assert "h2e2 {book} h9g7 {-0.35/7 1.23s} 2. h0g2 {+M3/9 0.05s}" in text
    flagged = record_text(_played("xiangqi", ["h2e2", "h9g7", "h0g2"], "1-0", "timeout"), "Ev")
    assert read_pgn(flagged).headers["Termination"] == "time forfeit"


def test_gomoku_record_and_psq() -> None:
    played = _played("gomoku", ["h8", "i9", "a1"], "1-0", "adjudication: score")
    text = record_text(played, "Ev")
    assert '[Termination "adjudication: score"]' in text and '[BlackEngine "Fairy' in text
    assert "1. h8 {book} i9 {-0.35/7 1.23s}" in text
    psq = extra_record(played, "psq").splitlines()
    # 1-based x, y from the top, then think time; the players; the winner
    assert psq == [
        "Piskvorky 15x15, 11:11, 0",
        "8,8,0",
        "9,7,1234",
        "1,15,50",
        "SF",
        "AI",
        "1",
    ]


def test_cli_help_and_one_line_start_errors(capsys: pytest.CaptureFixture[str]) -> None:
    from lanqi.cli.main import main

    assert main(["match", "-h"]) == 0
    assert "-engine name=N" in capsys.readouterr().out
    code = main(["match", "-engine", "cmd=/no/such/engine", "-engine", "proto=builtin"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "did not start" in err and "/no/such/engine" in err
    assert "Traceback" not in err
    code = main(
        ["match", "-engine", f"cmd={sys.executable} -c pass", "-engine", "proto=builtin",
         "-games", "2"]
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "did not start" in err


def test_sprt_model_is_logistic_unless_normalized_is_asked() -> None:
    two = ["-engine", "name=A", "proto=builtin", "-engine", "name=B", "proto=builtin"]
    config = parse_args([*two, "-sprt", "elo0=0", "elo1=2"])
    assert config.sprt is not None and config.sprt.model == "logistic"
    config = parse_args([*two, "-sprt", "elo0=0", "elo1=2", "model=normalized"])
    assert config.sprt is not None and config.sprt.model == "normalized"
    with pytest.raises(MatchConfigError, match="model must be logistic or normalized"):
        parse_args([*two, "-sprt", "elo0=0", "elo1=2", "model=bayeselo"])
