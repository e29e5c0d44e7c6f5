"""``lanqi bench referee --flood`` run tiny: both phases measured, every bad message
refused with its own code, the game untouched.  Counts and shape only; how fast
anything was is the benchmark's figure, never asserted here."""

from __future__ import annotations

import pytest

from lanqi.bench.flood import FloodConfig, FloodPhase, FloodReport, format_flood_report
from lanqi.bench.referee import Latency
from lanqi.cli.main import main


def test_cli_bench_referee_flood(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bench", "referee", "--flood", "--flood-probes", "20", "--flood-window", "40"])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    lines = out.splitlines()
    assert lines[0].startswith("lanqi bench referee --flood:")
    assert "40 bad requests in flight" in lines[0]
    baseline, flood = lines[1].split(), lines[2].split()
    assert baseline[0] == "baseline" and flood[0] == "flood"
    assert "(20 probes)" in lines[1] and "(20 probes)" in lines[2]
    assert "p99 under the flood / baseline p99:" in lines[3]
    # the flood kept its window full while the probes ran: every kind was sent and
    # refused with its own code (a request that changed the game would be a problem)
    codes = dict(
        (code, int(count))
        for code, count in (
            part.rsplit(" ", 1) for part in lines[4].split("/s): ", 1)[1].split(", ")
        )
    )
    assert set(codes) == {"bad_message", "bad_token", "not_your_turn", "unknown_type"}
    assert sum(codes.values()) >= 40
    assert "problem" not in out
    assert "baseline: 20 probes" in err and "flood: 20 probes" in err


def test_a_flood_that_changed_the_game_is_not_ok() -> None:
    lat = Latency.of([1_000_000, 2_000_000])
    report = FloodReport(
        FloodConfig(probes=2, window=1),
        FloodPhase("baseline", lat, 0.01),
        FloodPhase("flood", lat, 0.01, 4),
        ["the flood changed the game"],
    )
    assert not report.ok
    assert report.p99_ratio == pytest.approx(1.0)
    assert "problem: the flood changed the game" in format_flood_report(report)


@pytest.mark.parametrize(
    "argv",
    [["--flood-probes", "0"], ["--flood-window", "0"]],
)
def test_cli_bench_referee_flood_errors(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "referee", "--flood", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("lanqi bench referee: --flood-") and len(err.splitlines()) == 1
