"""``lanqi bench pairing``: every system is timed on the same small events."""

from __future__ import annotations

from lanqi.bench.pairing import SYSTEMS, format_report, run_pairing_bench


def test_every_system_gets_a_figure_per_size() -> None:
    seen: list[str] = []
    report = run_pairing_bench([8, 11], SYSTEMS, rounds=3, seed=2, progress=seen.append)
    for n in (8, 11):
        for system in SYSTEMS:
            figure = report.seconds[(n, system)]
            assert figure is not None and figure > 0
    assert len(seen) == 6
    table = format_report(report).splitlines()
    assert table[0].split() == ["players", "dutch", "(s/round)", "dutch-2017", "(s/round)",
                                "lanqi", "(s/round)"]  # fmt: skip
    assert [row.split()[0] for row in table[1:3]] == ["8", "11"]
