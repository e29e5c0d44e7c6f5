"""``lanqi match -autosave FILE`` and ``-resume FILE``: a match killed with SIGKILL at
any moment goes on from its state file, every finished game kept once (in the
counts, the pentanomial and the PGN), with real Fairy-Stockfish at fixed nodes."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from lanqi.bench.process import LanqiService
from lanqi.games.base import score_of
from lanqi.games.xiangqi.pgn import read_pgns
from lanqi.match.config import parse_args
from lanqi.match.runner import Match
from lanqi.match.state import MatchState, StateFileError, load_state, save_state
from lanqi.stats import pentanomial

KEY = "resume-admin-key"
READY = re.compile(rb"referee ready: requests (?P<requests>\S+), events (?P<events>[^\s,]+)")
SPRT = ["-sprt", "elo0=-10", "elo1=10"]  # wide enough not to stop 8 games
LANQI = [sys.executable, "-m", "lanqi.cli.main", "match"]
GAMES = 8  # -games 2 -rounds 4: four colour-reversed pairs
WAIT_S = 120.0


def _argv(fsf: str, tmp: Path, *extra: str) -> list[str]:
    return [
        "-engine", "name=A", f"cmd={fsf}", "proto=uci", "nodes=400",
        "-engine", "name=B", f"cmd={fsf}", "proto=uci", "nodes=200",
        "-games", "2", "-rounds", "4", "-openings", "builtin:xiangqi", "-maxmoves", "60",
        "-pgnout", str(tmp / "match.pgn"), "-autosave", str(tmp / "state.json"), *SPRT, *extra,
    ]  # fmt: skip


def _start(argv: list[str], tmp: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*LANQI, *argv],
        cwd=tmp,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def _state(path: Path) -> dict[str, Any] | None:
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # not there yet (it is replaced whole, never half written)
        return None
    return data


def _wait_for_games(proc: subprocess.Popen[str], path: Path, count: int) -> dict[str, Any]:
    """Wait until the autosave holds at least ``count`` finished games."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        data = _state(path)
        if data is not None and len(data["games"]) >= count:
            return data
        assert proc.poll() is None, f"lanqi match ended early: {proc.communicate()[0]}"
        time.sleep(0.01)
    raise AssertionError(f"no autosave with {count} games in {WAIT_S} s")


def load_json(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _engines(pid: int) -> list[int]:
    """The Fairy-Stockfish processes ``pid`` started, first engine first."""
    children = [
        int(child)
        for task in Path(f"/proc/{pid}/task").iterdir()
        for child in (task / "children").read_text().split()
    ]
    engines = [p for p in children if "fairy" in Path(f"/proc/{p}/cmdline").read_text()]
    assert len(engines) == 2, children
    return sorted(engines)


def _cpu_ticks(pid: int) -> int:
    """User and system CPU time of ``pid`` in clock ticks (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def _wait_thinking(pid: int) -> None:
    """Wait for engine ``pid`` to use 5 more clock ticks of CPU: a game is running."""
    start = _cpu_ticks(pid)
    deadline = time.monotonic() + WAIT_S
    while _cpu_ticks(pid) < start + 5:
        assert time.monotonic() < deadline, f"engine {pid} does not think"
        time.sleep(0.005)


#: a stand-in for an engine: starts the engine given (argv[3:]), copies lines both ways
#: and ends when the engine does.  Once the file ``argv[1].armed`` exists, at the first
#: position in the middle of a game (6 to 19 moves: with -maxmoves 60 that game cannot
#: end before the engine's next turn) it SIGKILLs the engine, once in the match (it
#: leaves ``argv[1].killed``): with argv[2] ``thinking`` instead of passing on ``go`` (the
#: runner waits for a ``bestmove`` that never comes), with ``waiting`` just after passing
#: on its ``bestmove`` (dead while the opponent thinks: nobody is talking to it)
RELAY = """
import os, signal, subprocess, sys, threading
base, mode = sys.argv[1], sys.argv[2]
engine = subprocess.Popen(sys.argv[3:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
mid_game = False
def due():
    return mid_game and os.path.exists(base + ".armed") and not os.path.exists(base + ".killed")
def kill():
    open(base + ".killed", "w").close()
    os.kill(engine.pid, signal.SIGKILL)
def back():
    for line in engine.stdout:
        sys.stdout.write(line)
        sys.stdout.flush()
        if mode == "waiting" and line.startswith("bestmove") and due():
            kill()
    os._exit(engine.wait())  # the engine died: so does its stand-in
threading.Thread(target=back, daemon=True).start()
for line in sys.stdin:
    if line.startswith("position"):
        words = line.split()
        moves = len(words) - words.index("moves") - 1 if "moves" in words else 0
        mid_game = 6 <= moves < 20
    if mode == "thinking" and line.startswith("go") and due():
        kill()
        continue
    engine.stdin.write(line)
    engine.stdin.flush()
engine.stdin.close()
sys.exit(engine.wait())
"""


def _kill(proc: subprocess.Popen[str]) -> None:
    """SIGKILL lanqi match, then its engines (orphans of the killed process)."""
    proc.kill()
    proc.wait()
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


def _finish(argv: list[str], tmp: Path) -> str:
    proc = _start(argv, tmp)
    out, _ = proc.communicate(timeout=600)
    assert proc.returncode == 0, out
    return out


def _pentanomial(games: list[dict[str, Any]]) -> list[int]:
    """The pentanomial counts from engine A's side, worked out from the games."""
    by_pair: dict[int, list[float]] = defaultdict(list)
    for game in games:
        points = score_of(game["result"])
        assert points is not None
        by_pair[game["pair"]].append(points if game["seats"][0] == 0 else 1.0 - points)
    counts = [0] * 5
    for scores in by_pair.values():
        assert len(scores) == 2
        counts[round(2 * sum(scores))] += 1
    return counts


def _check_whole(tmp: Path, out: str) -> None:
    """Every planned game once: in the state, the counts, the pentanomial, the PGN."""
    data = _state(tmp / "state.json")
    assert data is not None
    games = data["games"]
    assert sorted(g["number"] for g in games) == list(range(1, GAMES + 1))
    pairs: dict[int, int] = defaultdict(int)
    for game in games:
        pairs[game["pair"]] += 1
    assert sorted(pairs.values()) == [2] * (GAMES // 2)  # each pair index once, both games
    ptnml = _pentanomial(games)
    assert data["pentanomial"] == ptnml and sum(ptnml) == GAMES // 2
    assert data["finished_games"] == GAMES and data["next_game"] is None
    assert f"Pairs: {GAMES // 2}, Ptnml(0-2): [{', '.join(map(str, ptnml))}]" in out
    sprt = parse_args(
        ["-engine", "name=A", "proto=builtin", "-engine", "name=B", "proto=builtin", *SPRT]
    ).sprt
    assert sprt is not None
    llr = sprt.state(pentanomial(ptnml)).llr  # the SPRT of every game, each once
    assert data["llr"] == round(llr, 4) and f"LLR: {llr:.2f} (" in out
    wins = sum(score_of(g["result"]) == (1.0 if g["seats"][0] == 0 else 0.0) for g in games)
    draws = sum(g["result"] == "1/2-1/2" for g in games)
    losses = GAMES - wins - draws
    assert f"Games: {GAMES}, Wins: {wins}, Losses: {losses}, Draws: {draws}" in out
    records = read_pgns((tmp / "match.pgn").read_text(encoding="utf-8"))
    rounds = sorted(int(r.headers["Round"]) for r in records)
    assert rounds == list(range(1, GAMES + 1))  # each game's record once
    by_round = {int(r.headers["Round"]): r.headers["Result"] for r in records}
    assert by_round == {g["number"]: g["result"] for g in games}


@pytest.mark.slow
@pytest.mark.parametrize(("kill_after", "concurrency"), [(0, 1), (3, 2), (GAMES - 1, 1)])
def test_kill_9_of_the_match_then_resume_keeps_every_game_once(
    fsf: str, tmp_path: Path, kill_after: int, concurrency: int
) -> None:
    proc = _start(_argv(fsf, tmp_path, "-concurrency", str(concurrency)), tmp_path)
    try:
        _wait_for_games(proc, tmp_path / "state.json", kill_after)
    finally:
        _kill(proc)
    at_kill = _state(tmp_path / "state.json")
    assert at_kill is not None and len(at_kill["games"]) < GAMES
    kept = {g["number"]: g for g in at_kill["games"]}
    out = _finish(["-resume", str(tmp_path / "state.json")], tmp_path)
    _check_whole(tmp_path, out)
    after = {g["number"]: g for g in load_json(tmp_path / "state.json")["games"]}
    assert all(after[n] == game for n, game in kept.items())  # finished games kept as they were
    replayed = [
        int(line.split()[2]) for line in out.splitlines() if line.startswith("Finished game")
    ]
    assert sorted(replayed) == sorted(set(range(1, GAMES + 1)) - set(kept))  # none twice


@pytest.mark.slow
def test_a_record_written_after_the_last_autosave_is_not_duplicated(
    fsf: str, tmp_path: Path
) -> None:
    proc = _start(_argv(fsf, tmp_path), tmp_path)
    try:
        _wait_for_games(proc, tmp_path / "state.json", 2)
    finally:
        _kill(proc)
    # the moment between a game's record and its autosave: the record is there, the
    # state does not have the game yet
    pgn = tmp_path / "match.pgn"
    with pgn.open("a", encoding="utf-8") as pgn_file:
        pgn_file.write('[Event "lanqi match"]\n[Round "99"]\n[Result "1-0"]\n\n1. h2e2 ')
    out = _finish(["-config", "state.json"], tmp_path)  # fastchess's way: the state as config
    _check_whole(tmp_path, out)


@pytest.mark.slow
@pytest.mark.parametrize("moment", ["thinking", "waiting"])
def test_kill_9_of_an_engine_loses_that_game_as_a_crash_and_the_match_goes_on(
    fsf: str, tmp_path: Path, moment: str
) -> None:
    base = tmp_path / "relay"
    argv = _argv(fsf, tmp_path)
    relay = f"{sys.executable} -c {shlex.quote(RELAY)} {base} {moment} {fsf}"
    argv[argv.index(f"cmd={fsf}")] = f"cmd={relay}"
    proc = _start(argv, tmp_path)
    try:
        _wait_for_games(proc, tmp_path / "state.json", 1)
        Path(f"{base}.armed").touch()  # in a game after the first
        out, _ = proc.communicate(timeout=600)
    finally:
        _kill(proc)
    assert proc.returncode == 0, out
    assert Path(f"{base}.killed").exists()
    data = _state(tmp_path / "state.json")
    assert data is not None
    crashed = [g for g in data["games"] if "crash" in g["termination"]]
    assert len(crashed) == 1, data["games"]  # lost as a crash, not played on nor again
    assert crashed[0]["number"] > 1
    assert "Time losses: 0, disconnects: 1 (A 1)" in out
    _check_whole(tmp_path, out)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{not json", "not JSON"),
        ('{"engines": [{"name": "x"}]}', "no 'format'"),  # fastchess's config, say
        ('{"format": "lanqi match state", "version": 1, "argv": []}', "damaged"),
        ('{"format": "lanqi match state", "version": 7}', "version 7"),
    ],
)
def test_a_corrupt_or_foreign_state_file_is_refused_in_one_line(
    tmp_path: Path, text: str, why: str
) -> None:
    path = tmp_path / "state.json"
    path.write_text(text, encoding="utf-8")
    done = subprocess.run(
        [*LANQI, "-resume", str(path)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and why in lines[0] and "Traceback" not in done.stderr, done.stderr


def test_a_state_of_another_match_is_refused(fsf: str, tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    state = {
        "format": "lanqi match state",
        "version": 1,
        "argv": [],
        "cwd": str(tmp_path),
        "records": {},
        "games": [
            {"number": 1, "round": 1, "seats": [1, 0], "pair": 0, "opening": None,
             "result": "1-0", "termination": "checkmate"},
        ],
    }  # fmt: skip
    path.write_text(json.dumps(state), encoding="utf-8")
    config = parse_args(_argv(fsf, tmp_path))
    with pytest.raises(StateFileError, match="is not this match's game 1"):
        Match(config, say=lambda _: None, state=load_state(path)).run()


@pytest.mark.slow
def test_kill_9_of_the_referee_then_of_the_match_then_resume(fsf: str, tmp_path: Path) -> None:
    """A ``lanqi referee`` subprocess killed while a game runs: restarted on its ports
    (its games are in its database) the match goes on by itself; the match killed too,
    ``-resume`` against the restarted referee plays the rest, each game once."""
    (tmp_path / "logs").mkdir()
    referee = LanqiService(
        "referee",
        ["--host", "127.0.0.1", "--data-dir", str(tmp_path / "data"), "--admin-key", KEY],
        tmp_path / "logs",
        name="referee",
        ready=READY,
        ports={"--port": "requests", "--pub-port": "events"},
    )
    referee.start()
    try:
        requests, events = referee.endpoints["requests"], referee.endpoints["events"]
        link = ["-referee", requests, "-referee-pub", events, "-admin-key", KEY]
        proc = _start(_argv(fsf, tmp_path, *link), tmp_path)
        try:
            _wait_for_games(proc, tmp_path / "state.json", 2)
            engine = _engines(proc.pid)[0]
            _wait_thinking(engine)  # game 3 is running
            referee.kill()
            referee.start()  # same ports, same database
            _wait_for_games(proc, tmp_path / "state.json", 4)  # the match went on
        finally:
            _kill(proc)
        out = _finish(["-resume", str(tmp_path / "state.json")], tmp_path)
        _check_whole(tmp_path, out)
    finally:
        referee.stop()


def test_a_failed_autosave_leaves_the_last_state_whole(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    state = MatchState(argv=["-games", "2"], cwd=str(tmp_path))
    save_state(path, state, finished_games=0)
    before = path.read_bytes()
    with pytest.raises(TypeError):  # fails half way through writing the new state
        save_state(path, state, finished_games=object())
    assert path.read_bytes() == before and load_state(path).argv == ["-games", "2"]
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]  # no temporary left
