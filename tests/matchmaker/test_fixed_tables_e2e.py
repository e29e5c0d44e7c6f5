"""A player's fixed table (a wheelchair place) from the entry CSV: their games are
played there, the other games on the tables left, results are entered by table, and
the report calls the column "Table"; the CSV's sex, federation and FIDE number reach
the TRF. A real ``lanqi serve`` driven from the CLI alone."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .test_arbiter_cli_e2e import ok, rounds_of, run


def test_a_fixed_table_and_the_trf_fields(lanqi: Any, tmp_path: Path) -> None:
    data = lanqi.data_dir("tables-data")
    server = lanqi.serve(data_dir=data, director_key=None)
    tag = os.urandom(2).hex()
    p = [f"tab{i}x{tag}" for i in range(6)]

    def tour(*args: str) -> str:
        return ok(run(server, data, "tournament", *args))

    tid = tour("create", "Fixed Places", "--format", "swiss", "--rounds", "2", "--board", "otb")
    tid = tid.strip()
    bad = tmp_path / "bad.csv"
    bad.write_text(f"name,sex\n{p[0]},x\n", encoding="utf-8")
    refused = run(server, data, "tournament", "join", tid, "--csv", str(bad))
    assert refused.returncode == 2
    assert refused.stderr.strip().endswith("line 2, column sex: 'x' is not m or w")
    field = tmp_path / "field.csv"
    field.write_text(
        "name,rating,sex,federation,fide_id,table\n"
        f"{p[0]},2100,w,chn,8601234,\n"
        + "".join(f"{name},{2000 - 10 * i},,,,\n" for i, name in enumerate(p[1:5], 1))
        + f"{p[5]},1900,m,,,7\n",  # the lowest seed plays at table 7, nearest the door
        encoding="utf-8",
    )
    tour("join", tid, "--csv", str(field))
    tour("start", tid)

    one = rounds_of(tour("pairings", tid))[1]
    tables = {row[0]: (row[1], row[3]) for row in one}
    assert sorted(tables) == ["1", "2", "7"], one
    assert p[5] in tables["7"]
    for table in tables:
        tour("result", tid, "1", table, "1-0")
    two = rounds_of(tour("pairings", tid))[2]
    assert p[5] in next((row[1], row[3]) for row in two if row[0] == "7")

    report = tmp_path / "report.html"
    tour("export", tid, "--format", "html", "--out", str(report))
    page = report.read_text(encoding="utf-8")
    assert "<th>Table</th>" in page and "<th>Board</th>" not in page
    assert "<td>7</td>" in page
    trf = tour("export", tid, "--format", "trf").splitlines()
    line = next(x for x in trf if x.startswith("001") and p[0] in x)
    assert line[9] == "w" and line[53:56] == "CHN" and line[57:68].strip() == "8601234"
