"""``lanqi bench crowd`` runs end to end on a small scale: a matchmaker and two referee
subprocesses, 40 real client connections in two processes, 20 seekers, a 16-player
Swiss and 4 players following the lobby as the GUI does.  Its report's figures are
there and add up; no wall-clock figure is judged."""

from __future__ import annotations

import math

from lanqi.bench.crowd import CrowdConfig, format_report, run_crowd
from lanqi.cli.main import main


def test_a_small_crowd_says_hello_plays_its_games_and_finishes_its_swiss() -> None:
    config = CrowdConfig(
        players=40, processes=2, swiss=16, swiss_rounds=2, games=2, plies=6, think_ms=50.0
    )
    said: list[str] = []
    report = run_crowd(config, said.append)

    assert report.problems == [] and report.broke == [], report.problems + report.broke
    assert (report.connected, report.hellos, len(report.hello_ms)) == (40, 40, 40)
    assert report.hello_failed == []
    # 20 seekers x 2 games: every seek finds a partner (an even number of seats)
    assert report.seek_games == 40 and len(report.seek_ms) == 40 and report.seekers_done == 20
    assert report.swiss_joined == 16 and report.swiss_status == "finished"
    assert report.swiss_rounds_done == 2 and report.swiss_results == 16
    assert report.swiss_games == 32  # 8 boards x 2 rounds, each game played from two seats
    assert report.games_unfinished == 0
    # every move of every game was answered: up to 6 plies a game, then a resignation
    assert report.move_ms and all(ms >= 0 and not math.isnan(ms) for ms in report.move_ms)
    assert len(report.move_ms) <= 6 * (report.seek_games + report.swiss_games) // 2
    assert report.move_refused == {}
    # presence: the timed players' hellos seen by the 4 lobby followers
    assert config.watcher_count == 4 and report.presence_expected > 0
    assert len(report.presence_ms) == report.presence_expected
    assert report.lists_ms and report.lists_failed == 0
    assert report.lists["list_players"][0] == 40
    assert (report.players_total, report.players_paged) == (40, 40)
    assert report.stuck == [] and report.seekers_stuck == 0
    # the services were read from /proc at every phase
    assert [s.name for s in report.services] == ["referee-0", "referee-1", "matchmaker"]
    for service in report.services:
        assert set(service.samples) == {"base", "connected", "hello", "end"}
        assert service.samples["end"].cpu_s >= service.samples["base"].cpu_s > 0
        assert service.samples["end"].rss_mib > 0 and service.peak_fds > 0
    assert report.matchmaker.peak_fds > 40  # a TCP link per player at least
    assert report.clients_cpu_s > 0 and report.clients_rss_mib > 0

    text = format_report(report)
    for line in ("hello ", "presence ", "seek -> assigned", "move round trip", "per player:"):
        assert line in text
    assert "broke: nothing" in text


def test_the_command_line_refuses_a_swiss_bigger_than_the_players_who_do_not_seek() -> None:
    assert main(["bench", "crowd", "--players", "10", "--swiss", "8"]) == 2
