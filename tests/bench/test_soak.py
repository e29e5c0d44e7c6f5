"""``lanqi bench soak``: the checkpoint-lag reading, the verdict, a 10-minute soak (CI)
and the 2-hour one (asked for only: ``pytest -m soak tests/bench/test_soak.py``).

The 10-minute soak scales the 2-hour one's warm-up: 3 minutes of warm-up, then 7
judged minutes (15 samples, 30 s apart) with the same tolerances.  Either warm-up
also lasts until the referee's cache of finished games is full (640 games: at full
speed on two cores, within the first three minutes).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from lanqi.bench.soak import (
    REFEREE_FINISHED_CACHE,
    Judgement,
    ServiceSample,
    SoakConfig,
    SoakReport,
    SoakSample,
    format_sample,
    format_verdict,
    judged_samples,
    read_samples,
    run_soak,
    verdict,
    wal_lag,
    warmup_games,
)


def test_the_lag_is_the_frames_a_checkpoint_has_not_copied_yet(tmp_path: Path) -> None:
    db = tmp_path / "store.sqlite3"
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA wal_autocheckpoint = 0")
        conn.execute("CREATE TABLE t (x BLOB)")
        for _ in range(20):
            conn.execute("INSERT INTO t VALUES (randomblob(5000))")
        lag = wal_lag(db)
        assert lag is not None and lag >= 20  # each row spills onto pages of its own
        _, frames, copied = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        assert frames == copied and wal_lag(db) == 0
        conn.execute("INSERT INTO t VALUES (1)")
        assert wal_lag(db) == 1
    finally:
        conn.close()
    assert wal_lag(tmp_path / "none.sqlite3") is None


def sample(
    minute: float,
    games: int,
    *,
    rss: float,
    fds: int = 40,
    store: float = 1.0,
    wal: float = 0.5,
    lag: int = 100,
) -> SoakSample:
    service = ServiceSample(
        name="referee-1",
        pid=1,
        rss_mib=rss,
        fds=fds,
        threads=4,
        store_mib=store,
        wal_mib=wal,
        lag_frames=lag,
        errors=0,
    )
    return SoakSample(
        minute=minute,
        load1=1.0,
        games=games,
        moves=games * 100,
        live=16,
        tournaments=0,
        hellos=26,
        reclaims=0,
        bots_rss_mib=100.0,
        bot_errors=0,
        services=[service],
    )


def test_the_warm_up_waits_for_the_referees_cache_of_finished_games() -> None:
    from lanqi.referee.service import FINISHED_CACHE

    assert REFEREE_FINISHED_CACHE == FINISHED_CACHE
    samples = [sample(m, 100 * m, rss=40 + m) for m in range(0, 11)]
    assert [s.minute for s in judged_samples(samples, 3, warmup_games(1))] == [7, 8, 9, 10]


def test_the_verdict_flags_what_grows_after_the_warm_up_only(tmp_path: Path) -> None:
    # RSS climbs in the warm-up, then stays within noise; descriptors leak one a minute
    # after it; the store grows with the games (1 MiB per 100), which is no leak
    samples = [
        sample(m, 100 * m, rss=min(40 + 5 * m, 60) + (m % 2), fds=40 + max(0, m - 10), store=m)
        for m in range(0, 31)
    ]
    judged = {j.series: j for j in verdict(samples, warmup_minutes=10)}
    assert not judged["rss_mib"].grows
    assert judged["rss_mib"].start == 40 and judged["rss_mib"].at_warmup == 60
    assert judged["fds"].grows and judged["fds"].slope_per_hour == pytest.approx(60)
    assert not judged["store_per_game"].grows
    report = SoakReport(SoakConfig(minutes=30), samples=samples, judgements=list(judged.values()))
    assert not report.ok and "GROWS: referee-1 fds" in "\n".join(report.summary())

    path = tmp_path / "samples.jsonl"  # --samples, read back by --judge
    path.write_text("".join(s.to_json() + "\n" for s in samples), encoding="utf-8")
    assert read_samples(path) == samples
    assert "referee-1" in format_sample(samples[0], header=True)[1]


#: the referee's checkpoint lag (frames) and WAL file (MiB) sampled every 30 s from
#: minute 3 to 10 of a CI run's 10-minute soak (load 13-18): two saw-teeth, no trend,
#: whose least-squares lines still rose 1,386 frames (allowed 1,000: that run failed)
CI_LAG = [249, 1006, 1542, 126, 123, 396, 1116, 116, 2312, 592, 2181, 1954, 2988, 549, 1414]
CI_WAL = [22.3, 26.4, 6.1, 10.2, 24.4, 4.0, 15.9, 10.8, 20.2, 13.8, 8.6, 7.7, 23.0, 4.0, 17.6]


def test_a_saw_tooth_is_flat_and_the_same_teeth_on_a_climb_grow() -> None:
    def judged(lag_per_min: float, wal_per_min: float) -> dict[str, Judgement]:
        samples = [
            sample(
                3 + i / 2,
                700 + 100 * i,
                rss=60,
                lag=round(lag + lag_per_min * i / 2),
                wal=wal + wal_per_min * i / 2,
            )
            for i, (lag, wal) in enumerate(zip(CI_LAG, CI_WAL, strict=True))
        ]
        return {j.series: j for j in verdict(samples, warmup_minutes=3)}

    flat = judged(0, 0)
    lag, wal = flat["lag_frames"], flat["wal_mib"]
    assert lag.growth > lag.allowed  # the line alone calls the teeth a climb
    assert not lag.grows and not wal.grows  # their scatter says it is chance
    assert lag.noise == pytest.approx(3 * 701, rel=0.01)
    assert not flat["rss_mib"].grows and flat["rss_mib"].noise == 0  # no scatter
    # a checkpoint falling behind by 600 frames a minute, a log file gaining 5 MiB
    climbing = judged(600, 5)
    assert climbing["lag_frames"].grows and climbing["wal_mib"].grows
    assert "noise" in format_verdict(list(climbing.values()))[0]


@pytest.mark.slow
def test_ten_minutes_at_full_speed_stay_flat(tmp_path: Path) -> None:
    """The CI soak: 16 games at once, tournaments, players leaving, arriving and taking
    their seats back; every service's series flat from minute 3 to minute 10."""
    config = SoakConfig(
        minutes=10, warmup_minutes=3, sample_s=30, samples_path=tmp_path / "samples.jsonl"
    )
    report = run_soak(config)
    summary = "\n".join(report.summary())
    print(summary)  # the figures, in the log of a run with -rP or -s
    assert report.ok, summary
    last = report.samples[-1]
    assert report.judgements and report.judgements[0].samples >= 4, summary
    assert last.games > 0 and last.tournaments >= 1, summary
    assert last.reclaims >= 1 and last.hellos > 26, summary  # players came and went
    assert {j.service for j in report.judgements} == {"matchmaker", "referee-1", "house-bots"}
    assert all(s.errors == 0 for s in last.services) and last.bot_errors == 0, summary


@pytest.mark.slow
@pytest.mark.soak
def test_two_hours_at_full_speed_stay_flat(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    """The issue's long evening: two hours, judged from minute 10.  Not in the default
    run (nor CI's): only ``pytest -m soak`` runs it."""
    if "soak" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("the 2-hour soak runs only when asked: pytest -m soak tests/bench")
    report = run_soak(
        SoakConfig(minutes=120, warmup_minutes=10, samples_path=tmp_path / "samples.jsonl")
    )
    summary = "\n".join(report.summary())
    assert report.ok, summary
    assert report.samples[-1].tournaments >= 10, summary
