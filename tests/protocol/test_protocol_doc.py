"""docs/protocol.md keeps up with the code: every message type and error code is
documented (with the service that raises it), every field table matches its
dataclass (names, order, types, limits, defaults), and every example in it is a
valid message of the current protocol on the right topic."""

from __future__ import annotations

import dataclasses
import json
import re
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest

import lanqi.protocol
from lanqi.games.registry import create_game
from lanqi.matchmaker.referees import GameOrder, RefereeLink
from lanqi.matchmaker.service import MatchmakerConfig, MatchmakerService
from lanqi.protocol import PROTOCOL_VERSION, GameEvent, Message, TimeControl, decode, message_types
from lanqi.protocol.schema import (
    DEFAULT_MAX_ITEMS,
    DEFAULT_MAX_STR,
    Struct,
    family_members,
    to_wire,
)
from lanqi.referee.service import RefereeConfig, RefereeService

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "protocol.md"
#: where each service's error codes come from; the shared codec speaks for both
SOURCES = {
    "both": sorted((ROOT / "shared" / "lanqi" / "protocol").glob("*.py")),
    # the referee's GameSession lives in shared/ (a local table runs it too)
    "referee": [
        *sorted((ROOT / "services" / "lanqi" / "referee").glob("*.py")),
        ROOT / "shared" / "lanqi" / "session.py",
    ],
    "matchmaker": sorted((ROOT / "services" / "lanqi" / "matchmaker").glob("*.py")),
}
RAISED_CODE = re.compile(
    r'\b(?:RefereeError|GameEndedError|ProtocolError|MatchmakerError|_error)\(\s*"([a-z_]+)"'
)
REPLIED_CODE = re.compile(r'\bcode="([a-z_]+)"')


def doc_text() -> str:
    return DOC.read_text(encoding="utf-8")


def named_in_headings_or_table_rows(text: str) -> set[str]:
    """Every `name` in backticks on a heading line or at the start of a table row."""
    names: set[str] = set()
    for line in text.splitlines():
        if line.startswith("#"):
            names.update(re.findall(r"`([^`]+)`", line))
        elif line.startswith("|"):
            first_cell = line.split("|")[1]
            names.update(re.findall(r"`([^`]+)`", first_cell))
    return names


def example_values() -> list[Any]:
    """The JSON values in the doc's ```jsonc blocks (``//`` lines are comments)."""
    blocks = re.findall(r"^```jsonc\n(.*?)^```", doc_text(), flags=re.M | re.S)
    decoder = json.JSONDecoder()
    values = []
    for block in blocks:
        body = "\n".join(ln for ln in block.splitlines() if not ln.lstrip().startswith("//"))
        pos = 0
        while True:
            while pos < len(body) and body[pos].isspace():
                pos += 1
            if pos == len(body):
                break
            value, pos = decoder.raw_decode(body, pos)
            values.append(value)
    return values


def test_every_message_type_is_documented() -> None:
    documented = named_in_headings_or_table_rows(doc_text())
    missing = sorted(set(message_types()) - documented)
    assert not missing, f"docs/protocol.md does not document message type(s) {missing}"


def raised_codes() -> dict[str, set[str]]:
    """Service ("both", "referee", "matchmaker") -> the error codes its sources raise."""
    found: dict[str, set[str]] = {}
    for service, paths in SOURCES.items():
        codes: set[str] = set()
        for path in paths:
            source = path.read_text(encoding="utf-8")
            codes.update(RAISED_CODE.findall(source))
            codes.update(REPLIED_CODE.findall(source))
        found[service] = codes
    found["both"].add("bad_version")  # raised with the code on its own line in codec.py
    return found


def error_table() -> dict[str, str]:
    """The code table of the Errors section: code -> its "raised by" cell."""
    body = sections()["Errors"]
    table = re.search(r"^\| code \| raised by \|.*\n\|[-|]+\|\n((?:\|.*\n?)*)", body, flags=re.M)
    assert table, "no '| code | raised by |' table in the Errors section"
    rows = {}
    for line in table.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        code = re.fullmatch(r"`([a-z_]+)`", cells[0])
        assert code and len(cells) == 3, f"bad error table row {line!r}"
        rows[code.group(1)] = cells[1]
    return rows


def test_every_error_code_is_in_the_error_table() -> None:
    codes = raised_codes()
    assert {"bad_message", "unknown_type"} <= codes["both"]  # the scan works
    assert {"bad_token", "internal"} <= codes["referee"]
    assert {"no_session", "unknown_tournament", "internal"} <= codes["matchmaker"]
    table = error_table()
    documented = named_in_headings_or_table_rows(doc_text())
    everything = set().union(*codes.values())
    missing = sorted(everything - documented)
    assert not missing, f"docs/protocol.md does not explain error code(s) {missing}"
    not_in_table = sorted(everything - set(table))
    assert not not_in_table, f"the error table lacks {not_in_table}"
    # what a key port answers besides its key (tests/security/test_keyport_e2e.py)
    key_port = {code for code, raised_by in table.items() if "key port" in raised_by}
    assert key_port == {"too_large", "bad_message", "bad_version", "unknown_type"}
    for code, raised_by in table.items():
        who = {name.strip() for name in raised_by.split(",")}
        for service in ("referee", "matchmaker"):
            raises = code in codes[service] or code in codes["both"]
            marked = bool(who & {"both", service})
            assert raises == marked, (
                f"error {code!r}: raised by the {service}? the code says {raises}, the doc {marked}"
            )


def test_every_message_with_its_own_section_has_an_example() -> None:
    sections = set(re.findall(r"^#{3,4} `([a-z_]+)`", doc_text(), flags=re.M))
    assert sections & set(message_types()), "no message sections found"
    seen = {(v[1] if isinstance(v, list) else v)["t"] for v in example_values()}
    missing = sorted((sections & set(message_types())) - seen)
    assert not missing, f"no example of {missing}"


def sections() -> dict[str, str]:
    """Heading name (the first word, without backticks) -> the text up to the next heading."""
    parts = re.split(r"^(#{2,4} .*)$", doc_text(), flags=re.M)
    found = {}
    for head, body in zip(parts[1::2], parts[2::2], strict=True):
        name = re.match(r"#+ `?([A-Za-z_]+)`?", head)
        if name:
            found[name.group(1)] = body
    return found


def documented_field_tables() -> dict[str, list[dict[str, str]]]:
    """Section name -> the rows of its ``| field |`` table, as {column: cell}."""
    tables = {}
    for name, body in sections().items():
        table = re.search(r"^\| field \|.*\n\|[-|]+\|\n((?:\|.*\n?)*)", body, flags=re.M)
        if not table:
            continue
        header = body[table.start() :].splitlines()[0]
        columns = [c.strip() for c in header.strip().strip("|").split("|")]
        rows = []
        for line in table.group(1).splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            rows.append(dict(zip(columns, cells, strict=False)))
        tables[name] = rows
    return tables


def documented_class(name: str) -> type[Struct] | None:
    cls = message_types().get(name) or getattr(lanqi.protocol, name, None)
    return cls if isinstance(cls, type) and issubclass(cls, Struct) else None


def documented_fields(cls: type[Struct]) -> list[dataclasses.Field[Any]]:
    fields = [f for f in dataclasses.fields(cls) if f.name not in ("id", "re")]  # type: ignore[arg-type]
    if issubclass(cls, GameEvent):  # every event's game_id and seq are described once
        fields = [f for f in fields if f.name not in ("game_id", "seq")]
    return fields


def type_text(tp: Any) -> str:
    """How a field's type is written in the tables: ``str``, ``int or nil``, ``list of Seek``."""
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        (inner,) = [a for a in typing.get_args(tp) if a is not type(None)]
        return f"{type_text(inner)} or nil"
    if typing.get_origin(tp) is list:
        (item,) = typing.get_args(tp)
        return f"list of {type_text(item)}"
    if typing.get_origin(tp) is dict:
        return "map"
    if isinstance(tp, type) and issubclass(tp, Message):
        return f"{tp.T} maps"  # a message nested in a reply (results_since)
    if typing.get_origin(tp) is typing.Literal:
        return "str"  # one of the values the table lists, checked at decode
    return {str: "str", int: "int", bool: "bool", float: "number"}.get(tp) or tp.__name__


def limit_numbers(tp: Any, meta: dict[str, Any]) -> list[int]:
    """The numbers the limit cell must show (empty: the cell must be empty)."""
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        (tp,) = [a for a in typing.get_args(tp) if a is not type(None)]
    if typing.get_origin(tp) in (list, dict):
        item_len = [meta["item_len"]] if "item_len" in meta else []
        return [meta.get("max_len", DEFAULT_MAX_ITEMS), *item_len]
    if tp is str or typing.get_origin(tp) is typing.Literal:
        return [meta.get("max_len", DEFAULT_MAX_STR)]
    if tp is int:
        return [v for v in (meta.get("min"), meta.get("max")) if v]
    return []


def default_text(f: dataclasses.Field[Any]) -> str | None:
    """The default cell (None: anything but "required", e.g. a nested value's defaults)."""
    if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
        return "required"
    if f.default is not dataclasses.MISSING:
        value = f.default
    else:
        factory: Any = f.default_factory
        value = factory()
    if isinstance(value, Struct):
        return None
    return f"`{json.dumps(value, ensure_ascii=False)}`"


def test_field_tables_match_the_code() -> None:
    tables = documented_field_tables()
    assert {"move", "snapshot", "moved", "TimeControl", "hello", "Assignment", "lobby"} <= set(
        tables
    )
    for name, rows in tables.items():
        cls = documented_class(name)
        if cls is None:
            continue  # e.g. the error reply's table lives under "Errors"
        listed = [row["field"].strip("`") for row in rows]
        if issubclass(cls, Message) and family_members(cls.T):
            check_family_table(cls, rows)
            continue
        fields = documented_fields(cls)
        assert listed == [f.name for f in fields], f"the table of {name} lists {listed}"
        hints = typing.get_type_hints(cls)
        for row, f in zip(rows, fields, strict=True):
            where = f"{name}.{f.name}"
            assert row["type"] == type_text(hints[f.name]), f"{where}: type {row['type']!r}"
            cell = re.sub(r"[\s\u202f\u00a0,]", "", row["limit"])
            wanted = limit_numbers(hints[f.name], dict(f.metadata))
            for number in wanted:
                found = re.search(rf"(?<!\d){number}(?!\d)", cell)
                assert found, f"{where}: limit {row['limit']!r}, the code says {number}"
            if not wanted:
                assert not cell, f"{where}: the code sets no limit, the doc says {row['limit']!r}"
            if f.metadata.get("min_len") == f.metadata.get("max_len", -1):
                assert "exactly" in row["limit"], f"{where}: the code wants exactly that many"
            if "default" in row:
                expected = default_text(f)
                if expected is None:
                    assert row["default"] != "required", f"{where}: has a default"
                else:
                    assert row["default"] == expected, f"{where}: default {row['default']!r}"


def check_family_table(base: type[Message], rows: list[dict[str, str]]) -> None:
    """A family's table is its wire: every field any member sends, with the value a
    member that does not use it sends; each member's own fields are in it with their
    limits, and its section names every member's kind with its class."""
    listed = [row["field"].strip("`") for row in rows]
    wire = dict(base.FAMILY_WIRE)
    assert listed == list(wire), f"the table of {base.T} lists {listed}, the wire {list(wire)}"
    by_name = dict(zip(listed, rows, strict=True))
    text = sections()[base.T]
    for kind, member in family_members(base.T).items():
        assert re.search(rf"^\| `{kind}` \| `{member.__name__}` \|", text, flags=re.M), (
            f"the {base.T} section does not list kind {kind} as class {member.__name__}"
        )
        hints = typing.get_type_hints(member)
        for f in dataclasses.fields(member):  # type: ignore[arg-type]
            row = by_name[f.name]
            cell = re.sub(r"[\s\u202f\u00a0,]", "", row["limit"])
            for number in limit_numbers(hints[f.name], dict(f.metadata)):
                assert re.search(rf"(?<!\d){number}(?!\d)", cell), f"{member.__name__}.{f.name}"
    every = {"kind"} | {f.name for f in dataclasses.fields(base)}  # type: ignore[arg-type]
    for name, row in by_name.items():
        expected = "required" if name in every else f"`{json.dumps(wire[name])}`"
        assert row["default"] == expected, f"{base.T}.{name}: default {row['default']!r}"


def test_every_message_with_fields_has_a_table_or_shares_one() -> None:
    """A message section shows its fields in a table, or says "same fields as `x`"
    of a message whose table lists the same fields."""
    tables, texts = documented_field_tables(), sections()
    for tag, cls in message_types().items():
        fields = [f.name for f in documented_fields(cls)]
        if not fields or tag in tables or tag == "error":  # error: under "Errors"
            continue
        assert tag in texts, f"no section for {tag}"
        same = re.search(r"same fields as\s+`([a-z_]+)`", texts[tag])
        assert same, f"no field table for {tag}, and no 'same fields as'"
        other = [row["field"].strip("`") for row in tables[same.group(1)]]
        assert other == fields, f"{tag} has {fields}, not the fields of {same.group(1)}"


def expected_topic(payload: dict[str, Any]) -> str:
    if payload["t"] == "result":
        return "results"
    if payload["t"] == "lobby":
        return "lobby"
    if payload["t"] == "tour_event":
        return f"tour/{payload['tournament_id']}"
    return f"game/{payload['game_id']}"


@pytest.mark.parametrize("value", example_values(), ids=lambda v: str(v)[:60])
def test_every_example_is_an_exact_message_of_this_protocol(value: Any) -> None:
    if isinstance(value, list):  # an event: [topic, payload]
        topic, payload = value
        assert topic == expected_topic(payload)
    else:
        payload = value
    assert payload["v"] == PROTOCOL_VERSION
    message = decode([msgpack.packb(payload, use_bin_type=True)])
    wire = to_wire(message)
    wire["v"] = PROTOCOL_VERSION
    assert wire == payload  # every field present, nothing unknown, same values


# ---------------------------------------------------------------- the doc against the services
#
# The statements below were once contradicted by the services (issue 10, part 3): which
# requests each service takes, what it answers to a request it cannot read, how a
# game's options and casual flag come out of the matchmaker, and what each request's
# section says it may be refused with.


@pytest.fixture(scope="module")
def services(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A real referee and matchmaker object each (their stores in a temporary
    directory, no sockets bound): their request handling, without the network."""
    data = tmp_path_factory.mktemp("doc-services")
    referee = RefereeService(RefereeConfig(data_dir=data))
    link = RefereeLink("r", "tcp://127.0.0.1:1", "tcp://127.0.0.1:2", "", "")
    matchmaker = MatchmakerService(
        MatchmakerConfig(data_dir=data, referees=[link], director_key="doc-test")
    )
    yield {"referee": referee, "matchmaker": matchmaker}
    referee.store.close()
    matchmaker.store.close()


def glance_requests(section: str) -> set[str]:
    """The tags a service's "at a glance" table (under "## <section> messages")
    lists as requests."""
    body = re.search(rf"^## {section} messages\n(.*?)^#", doc_text(), flags=re.M | re.S)
    assert body, f"no section '## {section} messages'"
    rows = re.findall(r"^\| `([a-z_]+)` \| request \|", body.group(1), flags=re.M)
    assert rows, f"no requests in the table of {section!r}"
    return set(rows)


def test_each_service_handles_the_requests_its_table_lists(services: dict[str, Any]) -> None:
    """Everything else (the other service's requests, replies, events) is unknown_type."""
    for section, service in (("Referee", "referee"), ("Matchmaker", "matchmaker")):
        handled = {cls.T for cls in services[service]._handlers}
        assert glance_requests(section) == handled, section


def refusal_examples() -> list[tuple[str, list[bytes], dict[str, Any]]]:
    """(service, request frames, documented reply) of the Errors section's ```text
    blocks: raw requests, one per line, each followed by its reply.  A block belongs
    to the matchmaker when the paragraph before it says "The matchmaker answers"."""
    body = sections()["Errors"]
    examples = []
    after_last = 0
    for found in re.finditer(r"^```text\n(.*?)^```", body, flags=re.M | re.S):
        intro = body[after_last : found.start()].strip().split("\n\n")[-1]
        after_last, block = found.end(), found.group(1)
        service = "matchmaker" if "The matchmaker answers" in intro else "referee"
        lines = block.strip().splitlines()
        assert len(lines) % 2 == 0, f"a request without its reply in {block!r}"
        for request, reply in zip(lines[::2], lines[1::2], strict=True):
            examples.append((service, request_frames(request), json.loads(reply)))
    return examples


def request_frames(line: str) -> list[bytes]:
    """``{...}`` is one frame, ``["", {...}]`` two; ``<bin "x">`` is a msgpack bin value."""
    value = json.loads(re.sub(r'<bin ("[^"]*")>', r'{"<bin>": \1}', line))

    def restore(v: Any) -> Any:
        if isinstance(v, dict):
            if set(v) == {"<bin>"}:
                return v["<bin>"].encode()
            return {k: restore(x) for k, x in v.items()}
        return [restore(x) for x in v] if isinstance(v, list) else v

    parts = value if isinstance(value, list) else [value]
    return [p.encode() if isinstance(p, str) else msgpack.packb(restore(p)) for p in parts]


def test_the_refusal_examples_are_what_the_services_answer(services: dict[str, Any]) -> None:
    """Each raw request of the Errors section goes through the service's own request
    handling and must get exactly the documented reply (code, ``re``, message)."""
    examples = refusal_examples()
    assert {service for service, _, _ in examples} == {"referee", "matchmaker"}
    assert any(reply["re"] is not None and reply["code"] == "bad_message" for *_, reply in examples)
    for service, frames, documented in examples:
        if service == "referee":
            reply = services["referee"].handle_payload(b"doc", frames)
        else:
            reply = services["matchmaker"].handle(b"doc", frames)
        wire = to_wire(reply)
        wire["v"] = PROTOCOL_VERSION
        assert wire == documented, f"{service} answers {frames!r} with {wire}"


def server_examples() -> list[dict[str, Any]]:
    """The payloads of the examples that a service sends: replies, pushes, events."""
    found = []
    for value in example_values():
        payload = value[1] if isinstance(value, list) else value
        if isinstance(value, list) or "re" in payload:
            found.append(payload)
    return found


def games_in(value: Any) -> Iterator[dict[str, Any]]:
    """Every map in ``value`` that describes a game: a variant with its options
    (seeks, assignments, snapshots), but not a tournament's spec."""
    if isinstance(value, dict):
        if "variant" in value and "options" in value and "format" not in value:
            yield value
        for item in value.values():
            yield from games_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from games_in(item)


def test_options_the_services_send_are_written_out_in_full() -> None:
    """Seeks, assignments and snapshots carry every option of the variant (a seek's
    ``{}`` comes back as the defaults), as the Seek and Assignment tables say."""
    games = [game for payload in server_examples() for game in games_in(payload)]
    assert any(game.get("token") for game in games), "no assignment among the examples"
    for game in games:
        options = {k: v for k, v in game["options"].items() if k != "fen"}
        normal = dict(create_game(game["variant"], **options).options)
        assert options == normal, f"{game['variant']} options {options}, in full {normal}"


def test_snapshots_of_assigned_games_are_casual_as_the_matchmaker_makes_them() -> None:
    """ "Being assigned a game": an unrated lobby game is casual, rated and tournament
    games are not; every snapshot example of an assigned game agrees with the rule
    the matchmaker applies (``GameOrder.casual``)."""
    assigned = {}
    for payload in server_examples():
        for game in games_in(payload):
            if game.get("token"):
                order = GameOrder(
                    game_id=game["game_id"],
                    variant=game["variant"],
                    options={},
                    time_control=TimeControl(),
                    player_ids=[],
                    names=[],
                    rated=game["rated"],
                    tournament_id=game["tournament_id"],
                )
                assigned[game["game_id"]] = order.casual
    snapshots = [p for p in server_examples() if p["t"] == "snapshot" and p["game_id"] in assigned]
    assert snapshots, "no snapshot of an assigned game among the examples"
    for snapshot in snapshots:
        assert snapshot["casual"] == assigned[snapshot["game_id"]], snapshot["game_id"]
    assert GameOrder("g", "gomoku", {}, TimeControl(), [], [], rated=False).casual
    assert not GameOrder("g", "gomoku", {}, TimeControl(), [], [], rated=True).casual
    assert not GameOrder(
        "g", "gomoku", {}, TimeControl(), [], [], rated=False, tournament_id="t"
    ).casual


def test_each_request_section_lists_the_errors_the_table_gives_it() -> None:
    """A request whose section lists its errors ("Errors: ...") lists every code the
    Errors table names it under (codes of one service; `both` codes apply to all)."""
    texts = sections()
    requests = glance_requests("Referee") | glance_requests("Matchmaker")
    rows = re.findall(r"^\| `([a-z_]+)` \| (referee|matchmaker) \| (.*) \|$", texts["Errors"], re.M)
    assert rows
    checked = 0
    for code, _, when in rows:
        for tag in set(re.findall(r"`([a-z_]+)`", when)) & requests:
            listed = re.search(r"Errors?: ([^.]*)\.", texts[tag])
            if listed is None:
                continue
            checked += 1
            assert f"`{code}`" in listed.group(1), f"the section of {tag} does not list {code}"
    assert checked > 10
