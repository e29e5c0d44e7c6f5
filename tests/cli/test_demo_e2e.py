"""``lanqi demo`` as a newcomer runs it: real processes, every game ends by the rules.

The README's first command starts a server and bot processes and plays a round robin
of each game on a 2 s per-move clock (the bots think 0.3 s of it).  Every game must
end the way its rules end a game (checkmate, five in a row, ...): a timeout, forfeit
or abandonment means a bot could not keep to the clock, which the demo must never show.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from lanqi.cli.demo import ending

REPO = Path(__file__).resolve().parents[2]
SOURCE_PATH = os.pathsep.join(str(REPO / part) for part in ("shared", "services", "frontends"))
RESULT = re.compile(r"^\[(xiangqi|gomoku)\] round \d+: (.+)$", re.MULTILINE)
RULE_ENDINGS = {
    "xiangqi": (
        "checkmate",
        "stalemate",
        "repetition",
        "perpetual_check",
        "perpetual_chase",
        "move_limit",
        "insufficient_material",
    ),
    "gomoku": ("five_in_a_row", "board_full", "forbidden_move"),
}


def _by_the_rules(variant: str, line: str) -> bool:
    """Whether a result line says the game ended by one of ``variant``'s rules."""
    for termination in RULE_ENDINGS[variant]:
        for result in ("1-0", "0-1", "1/2-1/2"):
            sample = ending(
                variant, first="A", second="B", result=result, termination=termination, ply=1
            )
            how = sample.split(": ", 1)[1].rsplit(" at ", 1)[0]
            if f": {how} at " in line:
                return True
    return False


def test_the_demo_plays_every_game_to_a_rules_ending(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=SOURCE_PATH, PYTHONUNBUFFERED="1")
    env.pop("LANQI_DATA_DIR", None)
    command = [sys.executable, "-m", "lanqi.cli.main", "demo", "--data-dir", str(tmp_path)]
    done = subprocess.run(
        command, capture_output=True, text=True, env=env, timeout=600, check=False
    )
    lost = [  # what the bots said about their losses, for a failure message
        line
        for log in sorted(tmp_path.glob("bot-*.log"))
        for line in log.read_text(errors="replace").splitlines()
        if " lost " in line or "WARNING" in line or "ERROR" in line
    ]
    output = done.stdout + "\nbot logs:\n" + "\n".join(lost)
    assert done.returncode == 0, output + done.stderr
    assert "2 s per move (the bots think 0.3 s of it)" in done.stdout.splitlines()[0]
    assert "Traceback" not in output + done.stderr
    results = RESULT.findall(output)
    finished = [(variant, text) for variant, text in results if " beat " in text or " drew" in text]
    # 4 bots, a round robin of each game: 6 games per variant
    assert sorted(v for v, _ in finished) == ["gomoku"] * 6 + ["xiangqi"] * 6, output
    for variant, text in finished:
        assert _by_the_rules(variant, text), f"[{variant}] {text}\n\n{output}"
    assert "all 12 games finished" in output
    exports = tmp_path / "exports"
    assert (exports / "xiangqi.pgn").exists() and (exports / "gomoku.txt").exists()


def test_the_demo_names_a_lost_game_in_words() -> None:
    assert (
        ending("gomoku", first="Tiger", second="Crane", result="0-1", termination="timeout", ply=1)
        == "Crane beat Tiger: lost on time at stone 1"
    )
    assert (
        ending(
            "xiangqi", first="Tiger", second="Crane", result="1-0", termination="checkmate", ply=79
        )
        == "Tiger beat Crane: checkmate at move 40"
    )


def test_the_demo_on_a_terminal_shows_the_live_view_and_where_the_report_is(
    tmp_path: Path,
) -> None:
    """On a terminal (a pseudo-terminal here) the demo draws the director's dashboard
    while the bots play, then says where the event's report is."""
    import pty
    import select

    env = dict(os.environ, PYTHONPATH=SOURCE_PATH, COLUMNS="140", LINES="45", TERM="xterm")
    env.pop("LANQI_DATA_DIR", None)
    command = [sys.executable, "-m", "lanqi.cli.main", "demo", "--data-dir", str(tmp_path)]
    command += ["--bots", "2", "--variant", "gomoku"]
    main, child = pty.openpty()
    proc = subprocess.Popen(command, stdin=child, stdout=child, stderr=child, env=env)
    os.close(child)
    out = b""
    try:
        while True:
            ready, _, _ = select.select([main], [], [], 120)
            assert ready, "the demo went silent for two minutes:\n" + out.decode(errors="replace")
            try:
                chunk = os.read(main, 65536)
            except OSError:  # the terminal closed: the demo is done
                break
            if not chunk:
                break
            out += chunk
        assert proc.wait(timeout=60) == 0, out.decode(errors="replace")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(main)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.decode(errors="replace"))
    assert "lanqi demo gomoku" in text and "round robin" in text
    assert "latest results" in text and "standings" in text  # the dashboard's panels
    pairing = r"(Tiger (1-0|0-1|1/2-1/2) Crane|Crane (1-0|0-1|1/2-1/2) Tiger)"
    assert re.search(rf"round 1 board 1: {pairing} \(", text), text
    assert "lanqi demo gomoku: final standings" in text
    report = tmp_path / "exports" / "gomoku-report.html"
    assert f"the gomoku event's report (open it in a browser): {report}" in text
    assert report.exists() and "<h1>lanqi demo gomoku</h1>" in report.read_text("utf-8")
