"""The codec and schema: every message round-trips; bad input gets a stable code."""

from __future__ import annotations

import contextlib
from typing import Any, get_args

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lanqi.games.base import (
    RESULTS,
    ResultText,
    Termination,
    TerminationText,
    parse_result,
    parse_termination,
    result_for,
    score_of,
    termination_text,
    winner_of,
)
from lanqi.protocol import (
    MAX_MESSAGE_BYTES,
    ClockInfo,
    CreateGame,
    ErrorReply,
    GameEnded,
    LobbyEvent,
    LobbyPaired,
    LobbyPresence,
    MoveMade,
    ProtocolError,
    Snapshot,
    TimeControl,
    TourJoined,
    TournamentEvent,
    decode,
    decode_payload,
    encode,
    encode_event,
    error_for,
    message_types,
    termination_label,
)
from lanqi.protocol.schema import family_members, to_wire


def raw(data: Any) -> list[bytes]:
    return [msgpack.packb(data, use_bin_type=True)]


def refused(frames: list[bytes]) -> ProtocolError:
    with pytest.raises(ProtocolError) as info:
        decode(frames)
    return info.value


def test_round_trip_of_nested_messages() -> None:
    create = CreateGame(
        id=3,
        variant="xiangqi",
        options={"repetition": "check"},
        players=["ann", "bob"],
        time_control=TimeControl(kind="fischer", base_ms=60_000, increment_ms=1_000),
    )
    assert decode(encode(create)) == create
    snap = Snapshot(
        re=1,
        game_id="g",
        seq=4,
        variant="gomoku",
        fen="15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 b",
        ply=0,
        status="active",
        players=["a", "b"],
        clock=ClockInfo(remaining_ms=[1, 2], running=0),
    )
    assert decode(encode(snap)) == snap
    event = MoveMade(
        game_id="g", seq=9, ply=0, seat=0, move="h2e2", text="C2=5", fen="x", clock=ClockInfo()
    )
    topic, payload = encode_event("game/g", event)
    assert topic == b"game/g"
    assert decode([topic, payload]) == event


def test_every_registered_type_has_a_unique_tag() -> None:
    types = message_types()
    assert len(types) == len(set(types))
    assert {"move", "move_ok", "error", "moved", "sync", "snapshot", "result"} <= set(types)


@pytest.mark.parametrize(
    ("frames", "code"),
    [
        ([b"\xc1"], "bad_message"),
        (raw([1, 2]), "bad_message"),
        (raw({"v": 1}), "unknown_type"),
        (raw({"v": 1, "t": "nope", "id": 4}), "unknown_type"),
        (raw({"v": 2, "t": "sync", "id": 4, "game_id": "g"}), "bad_version"),
        (raw({"t": "sync", "id": 4, "game_id": "g"}), "bad_version"),
        (raw({"v": 1, "t": "sync", "id": 4}), "bad_message"),
        (raw({"v": 1, "t": "sync", "id": 4, "game_id": 5}), "bad_message"),
        (raw({"v": 1, "t": "sync", "id": 4, "game_id": "g" * 65}), "bad_message"),
        (
            raw(
                {"v": 1, "t": "move", "id": 1, "game_id": "g", "token": "t", "ply": -1, "move": "a"}
            ),
            "bad_message",
        ),
        (
            raw(
                {
                    "v": 1,
                    "t": "move",
                    "id": 1,
                    "game_id": "g",
                    "token": "t",
                    "ply": True,
                    "move": "a",
                }
            ),
            "bad_message",
        ),
        (
            raw({"v": 1, "t": "create_game", "id": 1, "variant": "x", "options": {"a": [1]}}),
            "bad_message",
        ),
        (
            raw({"v": 1, "t": "create_game", "id": 1, "variant": "x", "players": ["a", "b", "c"]}),
            "bad_message",
        ),
        ([b"a", b"b", b"c"], "bad_message"),
        ([b"\x00" * (MAX_MESSAGE_BYTES + 1)], "too_large"),
    ],
)
def test_bad_input_gets_a_stable_code(frames: list[bytes], code: str) -> None:
    assert refused(frames).code == code


def test_error_reply_carries_the_request_id_when_readable() -> None:
    exc = refused(raw({"v": 1, "t": "sync", "id": 77, "game_id": 5}))
    reply = error_for(exc)
    assert isinstance(reply, ErrorReply)
    assert reply.re == 77 and reply.code == "bad_message"
    assert "game_id" in reply.msg


def test_unknown_fields_are_ignored_for_forward_compatibility() -> None:
    message = decode(raw({"v": 1, "t": "sync", "id": 1, "game_id": "g", "future": 1}))
    assert message.T == "sync"


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_never_escape_as_other_exceptions(data: bytes) -> None:
    with contextlib.suppress(ProtocolError):
        decode_payload(data)


json_like = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats()
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(sorted(message_types())),
    st.dictionaries(st.text(max_size=12), json_like, max_size=8),
)
def test_random_maps_with_real_tags_are_validated(tag: str, fields: dict[str, Any]) -> None:
    data = {**fields, "v": 1, "t": tag}
    try:
        message = decode(raw(data))
    except ProtocolError as exc:
        assert exc.code in {"bad_message", "unknown_type", "bad_version"}
    else:
        assert tag == message.T
        assert decode(encode(message)) == message


def _ended(**fields: Any) -> dict[str, Any]:
    base = {"v": 1, "t": "ended", "game_id": "g", "seq": 3, "result": "1-0"}
    base.update(termination="checkmate", winner=0, fen="x", clock={"remaining_ms": []})
    base.update(fields)
    return base


def test_closed_words_are_checked_at_decode_and_stay_strings_on_the_wire() -> None:
    ended = decode(raw(_ended()))
    assert isinstance(ended, GameEnded) and ended.result == "1-0"
    assert msgpack.unpackb(encode_event("game/g", ended)[1])["result"] == "1-0"
    for field, word in (("result", "2-0"), ("result", "draw")):
        error = refused(raw(_ended(**{field: word})))
        assert error.code == "bad_message" and f"'{field}' must be one of" in error.msg
    assert refused(raw(_ended(result=5))).code == "bad_message"
    # a termination is a closed word; what a seat said travels beside it as reason
    crashed = decode(raw(_ended(termination="resignation", reason="crash")))
    assert isinstance(crashed, GameEnded)
    assert (crashed.termination, crashed.reason) == ("resignation", "crash")
    error = refused(raw(_ended(termination="crash", reason="")))
    assert error.code == "bad_message" and "'termination' must be one of" in error.msg


def test_an_ending_from_before_reason_reads_as_the_closed_word_and_its_reason() -> None:
    # lanqi before the reason field sent (and stored) a seat's words as the termination
    for text, result, want in (
        ("crash", "0-1", ("resignation", "crash")),
        ("illegal move h2h9", "1-0", ("resignation", "illegal move h2h9")),
        ("adjudication: draw", "1/2-1/2", ("adjudication", "adjudication: draw")),
        ("adjudication: score", "1-0", ("adjudication", "adjudication: score")),
        ("match stopped", "1-0", ("resignation", "match stopped")),
        ("timeout", "1-0", ("timeout", "")),
    ):
        ended = decode(raw(_ended(termination=text, result=result)))
        assert isinstance(ended, GameEnded)
        assert (ended.termination, ended.reason) == want
        assert termination_label(ended.termination, ended.reason) == text
    old = {"v": 1, "t": "snapshot", "re": 1, "game_id": "g", "seq": 9, "variant": "gomoku"}
    old.update(fen="x", ply=0, status="finished", result="0-1", termination="crash", players=[])
    snap = decode(raw(old))
    assert isinstance(snap, Snapshot) and (snap.termination, snap.reason) == (
        "resignation",
        "crash",
    )


def test_an_ending_without_reason_is_sent_byte_for_byte_as_before() -> None:
    # the field is left out while empty: main's encoder wrote exactly these bytes
    ended = GameEnded(game_id="g", seq=3, result="1-0", termination="checkmate", winner=0, fen="x")
    wire = msgpack.unpackb(encode(ended)[0])
    assert "reason" not in wire
    assert list(wire) == [
        "t",
        "game_id",
        "seq",
        "result",
        "termination",
        "winner",
        "fen",
        "clock",
        "v",
    ]
    said = GameEnded(
        game_id="g", seq=3, result="0-1", termination="resignation", fen="x", reason="crash"
    )
    assert msgpack.unpackb(encode(said)[0])["reason"] == "crash"


@pytest.mark.parametrize(
    ("message", "field", "word"),
    [
        (
            {"t": "create_game", "variant": "gomoku", "time_control": {"kind": "blitz"}},
            "time_control.kind",
            "blitz",
        ),
        ({"t": "hello", "name": "ann", "kind": "alien"}, "kind", "alien"),
        ({"t": "error", "re": 1, "code": "no_such_code"}, "code", "no_such_code"),
        ({"t": "adjudicate", "game_id": "g", "result": "2-0", "reason": "x"}, "result", "2-0"),
    ],
    ids=["time-control-kind", "player-kind", "error-code", "adjudication-result"],
)
def test_closed_words_of_requests_and_replies_are_bad_messages(
    message: dict[str, Any], field: str, word: str
) -> None:
    error = refused(raw({"v": 1, "id": 7, **message}))
    assert error.code == "bad_message" and f"'{field}' must be one of" in error.msg, error.msg
    assert error.request_id == 7


def test_termination_words_are_the_rules_cores_terminations() -> None:
    assert set(get_args(TerminationText)) == {t.value for t in Termination}
    assert [termination_text(t) for t in Termination] == [t.value for t in Termination]
    assert get_args(ResultText) == RESULTS == ("1-0", "0-1", "1/2-1/2", "*")
    assert [score_of(r) for r in RESULTS] == [1.0, 0.0, 0.5, None]
    assert [winner_of(r) for r in RESULTS] == [0, 1, None, None]
    assert [result_for(w) for w in (0, 1, None)] == ["1-0", "0-1", "1/2-1/2"]
    assert parse_termination("five_in_a_row") == "five_in_a_row"
    with pytest.raises(ValueError):
        parse_result("1:0")


def test_lobby_and_tournament_events_are_one_class_per_kind_on_the_old_wire() -> None:
    presence = LobbyPresence(player="ann", online=True)
    assert to_wire(presence) == {
        "t": "lobby",
        "kind": "presence",
        "player": "ann",
        "online": True,
        "seek_id": None,
        "seek": None,
        "to": None,
        "game_id": None,
        "players": [],
    }
    assert list(to_wire(presence)) == ["t", *(name for name, _ in LobbyEvent.FAMILY_WIRE)]
    again = decode(encode_event("lobby", presence)[1:])
    assert type(again) is LobbyPresence and again == presence and again.kind == "presence"
    paired = decode(raw({"v": 1, **to_wire(LobbyPaired(game_id="g", players=["a", "b"]))}))
    assert isinstance(paired, LobbyPaired) and paired.players == ["a", "b"]
    joined = TourJoined(tournament_id="t1", player="bob")
    assert list(to_wire(joined)) == ["t", *(name for name, _ in TournamentEvent.FAMILY_WIRE)]
    assert to_wire(joined)["round"] == 0 and to_wire(joined)["pairings"] == []
    assert decode(raw({"v": 1, **to_wire(joined)})) == joined
    for tag in ("lobby", "tour_event"):
        members = family_members(tag)
        assert len(members) >= 5 and all(kind == cls.KIND for kind, cls in members.items())
    unknown = refused(raw({"v": 1, "t": "lobby", "kind": "weather", "player": "x"}))
    assert unknown.code == "bad_message" and "'kind'" in unknown.msg
    assert refused(raw({"v": 1, "t": "tour_event", "tournament_id": "t"})).code == "bad_message"
    # a member's own fields are required: a presence without "online" is refused
    assert refused(raw({"v": 1, "t": "lobby", "kind": "presence", "player": "x"})).code == (
        "bad_message"
    )
