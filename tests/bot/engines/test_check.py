"""``lanqi engine check``: each faulty fake engine is caught by its own line, a clean
one and real Fairy-Stockfish (UCI and UCCI) are reported clean."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable

import pytest

from lanqi.bot.engines.check import CheckLimits, CheckReport, check_engine
from lanqi.cli.main import main

# short waits: the fakes answer at once unless their fault says otherwise
LIMITS = CheckLimits(answer_s=3.0, ready_s=0.5)


def _check(spec: str, env: dict[str, str]) -> CheckReport:
    return check_engine(spec, limits=LIMITS, env=env)


def _spec(protocol: str, argv: list[str]) -> str:
    return f"{protocol}:{shlex.join(argv)}"


# fault -> (the step that must fail, words of its line)
XIANGQI_FAULTS = {
    "no-ok": ("handshake", "no {ok} within"),
    "no-name": ("handshake", "no 'id name'"),
    "bad-option": ("options", "default 99 not in its range"),
    "late-ready": ("isready", "readyok came"),
    "crash-malformed": ("malformed input", "died"),
    "illegal": ("go depth", "illegal move in 'bestmove a0a5'"),
    "wrong-time": ("clock: Fischer, Red to move", "no bestmove within 2.00 s"),
    "early": ("stop", "before stop"),
    "ignores-stop": ("stop", "no bestmove within 2.0 s of stop"),
    "ponder-early": ("ponder", "before ponderhit"),
    "crash-quit": ("quit", "exit code 3 after quit"),
}


@pytest.mark.parametrize("protocol", ["uci", "ucci"])
@pytest.mark.parametrize("fault", sorted(XIANGQI_FAULTS))
def test_each_xiangqi_fault_is_caught_by_its_line(
    fault: str, protocol: str, fake: Callable[..., list[str]], fake_env: dict[str, str]
) -> None:
    report = _check(_spec(protocol, fake("faulty.py", protocol, fault)), fake_env)
    step, words = XIANGQI_FAULTS[fault]
    words = words.format(ok=f"{protocol}ok")
    lines = [f.line() for f in report.deviations]
    assert any(f.step == step and words in f.text for f in report.deviations), lines
    # the fault shows where it is: the other steps pass (an illegal mover fails every search)
    if fault not in ("illegal", "no-ok"):
        assert {f.step for f in report.deviations} <= {step, "clock: Fischer, Black to move"}, lines
    if fault == "no-ok":  # nothing more can run, and says so
        assert [f.status for f in report.findings[1:]] == ["skip"] * (len(report.findings) - 1)


@pytest.mark.parametrize("protocol", ["uci", "ucci"])
def test_a_clean_fake_is_clean(
    protocol: str, fake: Callable[..., list[str]], fake_env: dict[str, str]
) -> None:
    report = _check(_spec(protocol, fake("faulty.py", protocol, "none")), fake_env)
    assert report.clean, [f.line() for f in report.findings]
    assert report.engine_name == "Faulty 1.0"
    steps = {f.step for f in report.findings if f.status == "ok"}
    assert {"stop", "ponder", "quit", "clock: time per move"} <= steps


GOMOCUP_FAULTS = {
    "no-ok": ("START", "answered 'ERROR no thanks', not OK"),
    "illegal": ("TURN", "is not a legal move"),
    "silent-unknown": ("unknown command", "no answer within"),
    "ignores-time-left": ("clock: time_left", "no move within 2.00 s"),
    "chatty": ("BEGIN", "unexpected line 'thinking about INFO"),
    "crash-end": ("END", "exit code 5 after END"),
}


@pytest.mark.parametrize("fault", sorted(GOMOCUP_FAULTS))
def test_each_gomocup_fault_is_caught_by_its_line(
    fault: str, fake: Callable[..., list[str]], fake_env: dict[str, str]
) -> None:
    report = _check(_spec("gomocup", fake("faulty_gomocup.py", fault)), fake_env)
    step, words = GOMOCUP_FAULTS[fault]
    lines = [f.line() for f in report.deviations]
    assert any(f.step == step and words in f.text for f in report.deviations), lines


def test_a_clean_brain_is_clean(fake: Callable[..., list[str]], fake_env: dict[str, str]) -> None:
    report = _check(_spec("gomocup", fake("faulty_gomocup.py", "none")), fake_env)
    assert report.clean, [f.line() for f in report.findings]
    assert report.engine_name == "faulty"


@pytest.mark.parametrize("protocol", ["uci", "ucci"])
def test_fairy_stockfish_is_clean(protocol: str, fsf: str) -> None:
    report = check_engine(f"{protocol}:{fsf}")
    assert report.clean, [f.line() for f in report.deviations]
    ran = [f.step for f in report.findings if f.status == "ok"]
    assert "ponder" in ran
    assert "Fairy-Stockfish" in report.engine_name


def test_the_command_exits_1_with_deviations_and_0_when_clean(
    fake: Callable[..., list[str]],
    fake_env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for key, value in fake_env.items():
        monkeypatch.setenv(key, value)
    clean = _spec("uci", fake("faulty.py", "uci", "none"))
    assert main(["engine", "check", clean]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "Faulty 1.0 (uci): clean"
    faulty = _spec("uci", fake("faulty.py", "uci", "crash-quit"))
    assert main(["engine", "check", faulty, "--quiet"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "FAIL  quit: ended with exit code 3 after quit (0 expected)",
        "Faulty 1.0 (uci): 1 deviation",
    ]
    assert main(["engine", "check", f"xboard:{sys.executable}"]) == 2
    assert "must be uci:COMMAND" in capsys.readouterr().err
