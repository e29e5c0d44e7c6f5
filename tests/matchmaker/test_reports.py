"""The director's exports from a real store file: the HTML report, PGN, gomoku records.

A two-player event is written into a real SQLite store the way the matchmaker
writes it (entrants, a round, a game created, its result with clock readings and
ratings); the exports are then read back.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lanqi.games import gomoku
from lanqi.games.xiangqi.pgn import read_pgn
from lanqi.matchmaker.director import Director, TournamentHost
from lanqi.matchmaker.errors import MatchmakerError
from lanqi.matchmaker.store import (
    GameRecord,
    MatchmakerStore,
    PairingRecord,
    PlayerRecord,
    TournamentRecord,
)
from lanqi.protocol import TimeControl, TournamentSpec
from lanqi.tournament.ratings import Glicko2
from lanqi.tournament.scoring import score_game

NAMES = {"p1": "王小明", "p2": "Bo"}


def _director(store: MatchmakerStore) -> Director:
    host = TournamentHost(
        publish=lambda topic, message: None,
        create_game=lambda order: None,
        player_of=lambda identity: store.player("p1"),  # type: ignore[arg-type,return-value]
        now=lambda: 0.0,
        reconciled=lambda: True,
        sign_out=lambda player_id: None,
    )
    return Director(store, "key", host, site="Riverside hall")


def _event(
    tmp_path: Path, variant: str, moves: list[str], result: str, termination: str
) -> tuple[MatchmakerStore, TournamentRecord]:
    store = MatchmakerStore(tmp_path / "mm.sqlite3")
    for pid, name in NAMES.items():
        store.add_player(PlayerRecord(pid, name, "bot", f"s-{pid}"), 0)
    tc = TimeControl(kind="fischer", base_ms=300_000, increment_ms=2_000)
    spec = TournamentSpec(
        name="Spring <Open>", format="round_robin", variant=variant, time_control=tc
    )
    store.add_tournament(TournamentRecord("t1", spec, "running", 0, 0))
    for pid in NAMES:
        store.add_entrant("t1", pid, 0)
    store.start_round("t1", 1, [PairingRecord("t1", 1, 1, 0, "p1", "p2")], "running")
    store.add_game(
        GameRecord(
            game_id="g1",
            referee="r",
            variant=variant,
            options={},
            time_control=tc,
            player_ids=["p1", "p2"],
            names=list(NAMES.values()),
            tokens=["a", "b"],
            rated=True,
            status="playing",
            created_ms=1_780_000_000_000,
            tournament_id="t1",
            round=1,
            board=1,
        )
    )
    clocks = [300_000 - 1_500 * i for i in range(len(moves))]
    applied = store.record_result(
        "g1",
        result=result,
        termination=termination,
        moves=moves,
        ended_ms=1_780_000_600_000,
        referee="r",
        result_seq=1,
        score=score_game(result, termination, len(moves)),
        ratings={"p1": Glicko2(1662.0, 290.0, 0.06), "p2": Glicko2(1338.0, 290.0, 0.06)},
        clocks=clocks,
    )
    assert applied
    store.set_tournament_status("t1", "finished")
    record = store.tournament("t1")
    assert record is not None
    return store, record


XIANGQI = ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7", "h0h6", "h7i7", "h6g6", "i7i8"]


def test_html_report_holds_the_event_facts_rounds_standings_and_moves(tmp_path: Path) -> None:
    store, record = _event(tmp_path, "xiangqi", XIANGQI, "1-0", "resignation")
    page = _director(store).export_text(record, "html")
    store.close()
    assert "<h1>Spring &lt;Open&gt;</h1>" in page  # escaped
    assert "<dd>Riverside hall</dd>" in page
    assert "<dd>5 min + 2 s per move</dd>" in page
    assert "<dd>Round robin, 2 players</dd>" in page
    assert re.search(r"<dd>2026-\d\d-\d\d</dd>", page)
    # the round's board, linked to its game, and how it ended
    assert '<a href="#r1b1g0">1-0</a>' in page and '<td class="how">resignation</td>' in page
    # standings: readable tie-breaks, ratings before and after with the change
    assert "<th>Sonneborn-Berger (SB)</th>" in page and "sonneborn_berger" not in page
    row = page[page.index('<td class="name">王小明</td>') :].split("</tr>")[0]
    assert "<td>1500</td><td>1662</td>" in row and "+162" in row
    # moves in Chinese and WXF, with the termination
    assert '<span class="zh">炮二平五</span><span class="wxf">C2=5</span>' in page
    assert '<span class="zh">马８进７</span><span class="wxf">H8+7</span>' in page
    assert "Resignation after 5 moves." in page
    assert "@media print" in page


def test_crosstable_shades_the_own_cell_on_every_row(tmp_path: Path) -> None:
    store, record = _event(tmp_path, "xiangqi", XIANGQI, "1-0", "resignation")
    page = _director(store).export_text(record, "html")
    store.close()
    section = page[page.index('<section class="crosstable">') :].split("</section>")[0]
    rows = re.findall(r"<tr>(.*?)</tr>", section.split("<tbody>")[1], re.DOTALL)
    assert len(rows) == 2
    for i, cells in enumerate(rows):
        tds = re.findall(r"<td[^>]*>", cells)
        assert tds[2 + i] == '<td class="self">'
    # the shading rule outranks the zebra rule on even rows
    assert "tbody tr td.self" in page and "tbody tr:nth-child(even) td" in page


@pytest.mark.parametrize(
    ("notation", "first"), [("wxf", "C2=5"), ("iccs", "h2e2"), ("chinese", "炮二平五")]
)
def test_pgn_carries_the_tags_and_clock_of_each_move(
    tmp_path: Path, notation: str, first: str
) -> None:
    store, record = _event(tmp_path, "xiangqi", XIANGQI, "1-0", "resignation")
    text = _director(store).export_text(record, "pgn", notation)
    store.close()
    game = read_pgn(text)
    assert [str(m) for m in game.board.move_stack] == XIANGQI
    tags = game.headers
    assert (tags["Event"], tags["Site"], tags["Round"]) == (
        "Spring <Open>",
        "Riverside hall",
        "1.1",
    )
    assert re.fullmatch(r"2026\.\d\d\.\d\d", tags["Date"])
    assert (tags["TimeControl"], tags["Termination"]) == ("300+2", "resignation")
    assert (tags["Red"], tags["Black"], tags["Result"]) == ("王小明", "Bo", "1-0")
    assert f"1. {first} {{[%clk 0:05:00]}}" in text
    assert re.findall(r"\{\[%clk (0:0\d:\d\d)\]\}", text)[-1] == "0:04:46"  # 300 - 9 * 1.5 s


def test_export_refuses_an_unknown_notation(tmp_path: Path) -> None:
    store, record = _event(tmp_path, "xiangqi", XIANGQI, "1-0", "resignation")
    with pytest.raises(MatchmakerError, match="notation must be wxf, iccs, chinese"):
        _director(store).export_text(record, "pgn", "klingon")
    store.close()


def test_gomoku_records_carry_the_termination_and_the_report_lists_coordinates(
    tmp_path: Path,
) -> None:
    moves = ["h8", "a1", "i8", "a2", "j8", "a3", "k8", "a4"]
    store, record = _event(tmp_path, "gomoku", moves, "0-1", "resignation")
    director = _director(store)
    text = director.export_text(record, "pgn")
    page = director.export_text(record, "html")
    store.close()
    headers, board = gomoku.read_record(text)
    assert headers["Termination"] == "resignation"
    assert [str(m) for m in board.move_stack] == moves
    assert '<span class="no">1.</span><span class="pt">h8</span><span class="pt">a1</span>' in page
    assert "<th>Black</th>" in page or '<th class="name">Black</th>' in page


def test_report_replays_each_game_with_its_own_options() -> None:
    # the fourth time the start position comes round ends a default game (repetition
    # count 3), not one played with repetition_count=4: the report must not refuse it
    from lanqi.tournament.report import readable_moves

    moves = ["b0c2", "b9c7", "c2b0", "c7b9"] * 2 + ["b0c2"]
    notations, lines = readable_moves("xiangqi", None, moves, {"repetition_count": 4})
    assert notations == ("Chinese", "WXF") and len(lines) == 5
    assert lines[-1].first == ("马八进七", "H8+7") and lines[-1].second is None


def test_create_refuses_an_unknown_points_system_or_tiebreak_and_keeps_canonical_names(
    tmp_path: Path,
) -> None:
    from lanqi.protocol import CreateTournament, TournamentCreated

    store = MatchmakerStore(tmp_path / "mm.sqlite3")
    director = _director(store)

    def create(**spec: object) -> object:
        request = CreateTournament(
            id=1,
            director_key="key",
            spec=TournamentSpec(name="Open", format="swiss", variant="xiangqi", **spec),  # type: ignore[arg-type]
        )
        return director.create(request, b"director", 0.0)

    with pytest.raises(MatchmakerError, match="unknown points system '4-2-0'"):
        create(points="4-2-0")
    with pytest.raises(MatchmakerError, match="unknown tie-break 'XYZ'"):
        create(tiebreaks=["XYZ"])
    with pytest.raises(MatchmakerError, match="at most 8 tie-breaks"):
        create(tiebreaks=["cxa", "cxa_progressive", "BH", "BH-C1", "SB", "PS"])  # cxa: 4
    created = create(points="2/1/0", tiebreaks=["cxa-progressive"])
    assert isinstance(created, TournamentCreated)
    record = store.tournament(created.tournament_id)
    assert record is not None and record.spec.points == "2-1-0"
    assert record.spec.tiebreaks == ["cxa-progressive"]
