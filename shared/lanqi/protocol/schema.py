"""Declarative message schema: typed, tagged dataclasses validated from wire maps.

Every message is a frozen dataclass subclass of :class:`Message` with a class tag
``T``.  Field types come from the annotations; limits from ``field(metadata=...)``
made with :func:`limit`.  :func:`from_wire` turns a decoded msgpack map into a
message (or raises :class:`ProtocolError`), :func:`to_wire` does the reverse.
Checkers are built once per class, so validation is a flat loop.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Collection
from typing import Any, ClassVar, Literal, TypeVar

__all__ = [
    "DEFAULT_MAX_ITEMS",
    "DEFAULT_MAX_STR",
    "ErrorCode",
    "Message",
    "ProtocolError",
    "Struct",
    "family_members",
    "from_wire",
    "limit",
    "register",
    "request_id_of",
    "struct_from_wire",
    "struct_to_wire",
    "to_wire",
]

#: A refused request's ``code`` (docs/protocol.md#errors says when each comes).
ErrorCode = Literal[
    "too_large",
    "bad_message",
    "bad_version",
    "unknown_type",
    "no_session",
    "bad_session",
    "name_taken",
    "unauthorized",
    "bad_request",
    "unknown_game",
    "game_exists",
    "bad_token",
    "stale_move",
    "game_over",
    "not_started",
    "not_your_turn",
    "timeout",
    "ambiguous_move",
    "illegal_move",
    "bad_move",
    "unknown_seek",
    "unknown_player",
    "locked_out",
    "too_many_names",
    "removed",
    "muted",
    "not_locked",
    "bad_claim",
    "claim_needed",
    "offline",
    "unknown_challenge",
    "unknown_tournament",
    "already_joined",
    "closed",
    "full",
    "game_failed",
    "not_entered",
    "not_allowed",
    "no_offer",
    "rate_limited",
    "internal",
    # a client's own answer to a request whose link went down before its answer
    # came (or whose server refused the handshake): never sent by a server
    "unreachable",
]

DEFAULT_MAX_STR = 200
DEFAULT_MAX_ITEMS = 64
MAX_INT = 2**63 - 1


class ProtocolError(ValueError):
    """A message that cannot be accepted; ``code`` is the stable error code for replies."""

    def __init__(self, code: ErrorCode, msg: str, request_id: int | None = None) -> None:
        super().__init__(msg)
        self.code = code
        self.msg = msg
        self.request_id = request_id


def limit(  # noqa: PLR0913 - keyword-only limits, each its own
    max_len: int | None = None,
    *,
    min_len: int | None = None,
    item_len: int | None = None,
    min_value: int | None = None,
    max_value: int | None = None,
    omit_empty: bool = False,
) -> dict[str, Any]:
    """Field metadata: the longest string / list / map, the fewest items of a list,
    the longest string item of a list, and the range of an int.  ``omit_empty``:
    the field is left out of the wire map while it holds its default (a field added
    to a message keeps the message's bytes for everything that does not use it)."""
    meta: dict[str, Any] = {}
    if omit_empty:
        meta["omit_empty"] = True
    if max_len is not None:
        meta["max_len"] = max_len
    if min_len is not None:
        meta["min_len"] = min_len
    if item_len is not None:
        meta["item_len"] = item_len
    if min_value is not None:
        meta["min"] = min_value
    if max_value is not None:
        meta["max"] = max_value
    return meta


Checker = Callable[[Any, str], Any]


class Struct:
    """A nested value inside a message (a time control, a player...).

    ``LEGACY``, when set, rewrites a decoded map before its fields are checked: the
    way a message keeps reading what an older sender (or an older store) wrote after
    one of its fields changed shape.
    """

    LEGACY: ClassVar[Callable[[dict[str, Any]], dict[str, Any]] | None] = None
    _fields_spec: ClassVar[tuple[tuple[str, Checker, bool], ...]] = ()
    _wire_plan: ClassVar[tuple[tuple[str, ...], tuple[str, ...], tuple[tuple[str, Any], ...]]] = (
        (),
        (),
        (),
    )


class Message(Struct):
    """Base of every message; ``T`` is the tag sent as ``t`` on the wire.

    A *family* of messages shares one tag and tells its members apart by the wire
    field ``kind`` (the lobby's and tournaments' events): the family's base class is
    registered with ``T`` and declares in ``FAMILY_WIRE`` every wire field of the
    family with the value a member that does not use it sends; each member sets
    ``KIND`` and is registered with :func:`register` too.  A member is a class of
    its own, decoded by its ``kind`` and dispatched on by type like any message.
    """

    T: ClassVar[str] = ""
    #: a family member's ``kind`` on the wire ("" outside families)
    KIND: ClassVar[str] = ""
    #: on a family's base: (wire field, value when unused), in wire order
    FAMILY_WIRE: ClassVar[tuple[tuple[str, Any], ...]] = ()


_REGISTRY: dict[str, type[Message]] = {}
_KINDS: dict[str, dict[str, type[Message]]] = {}
M = TypeVar("M", bound=Message)
S = TypeVar("S", bound=Struct)


def _bad(path: str, want: str, value: Any) -> ProtocolError:
    return ProtocolError(
        "bad_message", f"field {path!r} must be {want}, got {type(value).__name__}"
    )


def _check_str(max_len: int) -> Checker:
    def check(value: Any, path: str) -> Any:
        if type(value) is not str:
            raise _bad(path, "a string", value)
        if len(value) > max_len:
            raise ProtocolError(
                "bad_message", f"field {path!r} is longer than {max_len} characters"
            )
        return value

    return check


def _check_int(lo: int, hi: int) -> Checker:
    def check(value: Any, path: str) -> Any:
        if type(value) is not int:
            raise _bad(path, "an integer", value)
        if not lo <= value <= hi:
            raise ProtocolError("bad_message", f"field {path!r} must be from {lo} to {hi}")
        return value

    return check


def _check_bool(value: Any, path: str) -> Any:
    if type(value) is not bool:
        raise _bad(path, "true or false", value)
    return value


def _check_float(value: Any, path: str) -> Any:
    if type(value) not in (float, int) or type(value) is bool:
        raise _bad(path, "a number", value)
    return float(value)


def _check_any_map(max_len: int) -> Checker:
    def check(value: Any, path: str) -> Any:
        if type(value) is not dict:
            raise _bad(path, "a map", value)
        if len(value) > max_len:
            raise ProtocolError("bad_message", f"field {path!r} has more than {max_len} entries")
        for key, item in value.items():
            if type(key) is not str or len(key) > DEFAULT_MAX_STR:
                raise ProtocolError("bad_message", f"field {path!r} keys must be short strings")
            if type(item) not in (str, int, bool, float, type(None)):
                raise ProtocolError(
                    "bad_message", f"field {path!r}.{key} must be a string, number or boolean"
                )
            if type(item) is str and len(item) > 1000:
                raise ProtocolError("bad_message", f"field {path!r}.{key} is too long")
        return value

    return check


def _check_choice(choices: tuple[Any, ...], max_len: int) -> Checker:
    """A string that must be one of ``choices`` (a ``Literal`` field)."""
    text = _check_str(max_len)
    wanted = ", ".join(map(str, choices))

    def check(value: Any, path: str) -> Any:
        if text(value, path) not in choices:
            raise ProtocolError("bad_message", f"field {path!r} must be one of {wanted}")
        return value

    return check


def _optional(inner: Checker) -> Checker:
    def check(value: Any, path: str) -> Any:
        return None if value is None else inner(value, path)

    return check


def _list_of(inner: Checker, max_len: int, min_len: int = 0) -> Checker:
    def check(value: Any, path: str) -> Any:
        if type(value) is not list:
            raise _bad(path, "a list", value)
        if not min_len <= len(value) <= max_len:
            if min_len == max_len:
                wanted = f"exactly {max_len}"
            elif len(value) > max_len:
                wanted = f"at most {max_len}"
            else:
                wanted = f"at least {min_len}"
            raise ProtocolError(
                "bad_message", f"field {path!r} must have {wanted} items, got {len(value)}"
            )
        return [inner(item, f"{path}[{i}]") for i, item in enumerate(value)]

    return check


def _struct(cls: type[Struct]) -> Checker:
    def check(value: Any, path: str) -> Any:
        if type(value) is not dict:
            raise _bad(path, "a map", value)
        return _build(cls, value, path + ".")

    return check


def _checker_for(tp: Any, meta: dict[str, Any]) -> Checker:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) != 1:
            raise TypeError(f"unsupported union {tp}")
        return _optional(_checker_for(args[0], meta))
    if origin is list:
        (item,) = typing.get_args(tp)
        item_meta = {k: v for k, v in meta.items() if k not in ("max_len", "min_len")}
        item_meta.update(meta.get("item", {}))
        return _list_of(
            _checker_for(item, item_meta),
            meta.get("max_len", DEFAULT_MAX_ITEMS),
            meta.get("min_len", 0),
        )
    if origin is dict:
        return _check_any_map(meta.get("max_len", DEFAULT_MAX_ITEMS))
    if tp is str:
        return _check_str(meta.get("item_len", meta.get("max_len", DEFAULT_MAX_STR)))
    if origin is typing.Literal:
        choices = typing.get_args(tp)
        if not all(type(c) is str for c in choices):
            raise TypeError(f"unsupported literal {tp}: strings only")
        return _check_choice(choices, meta.get("item_len", meta.get("max_len", DEFAULT_MAX_STR)))
    if tp is bool:
        return _check_bool
    if tp is int:
        return _check_int(meta.get("min", 0), meta.get("max", MAX_INT))
    if tp is float:
        return _check_float
    if isinstance(tp, type) and issubclass(tp, Struct):
        return _struct(tp)
    raise TypeError(f"unsupported field type {tp}")


def _prepare(cls: type[Struct]) -> None:
    hints = typing.get_type_hints(cls)
    spec = []
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        spec.append((f.name, _checker_for(hints[f.name], dict(f.metadata)), required))
    cls._fields_spec = tuple(spec)


def _build(cls: type[S], data: dict[str, Any], prefix: str = "") -> S:
    if not cls.__dict__.get("_fields_spec"):
        _prepare(cls)
    if cls.LEGACY is not None:
        data = cls.LEGACY(data)
    kwargs = {}
    for name, check, required in cls._fields_spec:
        if name in data:
            kwargs[name] = check(data[name], prefix + name)
        elif required:
            raise ProtocolError("bad_message", f"missing field {prefix + name!r}")
    return cls(**kwargs)


def register(cls: type[M]) -> type[M]:
    """Class decorator: make ``cls`` decodable by its tag ``T`` (and, for a family
    member, its ``KIND``)."""
    if cls.KIND:
        family = _REGISTRY.get(cls.T)
        members = _KINDS.setdefault(cls.T, {})
        if family is None or not issubclass(cls, family) or cls.KIND in members:
            raise TypeError(f"{cls.__name__}: no family {cls.T!r}, or kind {cls.KIND!r} taken")
        members[cls.KIND] = cls
        return cls
    if not cls.T or cls.T in _REGISTRY:
        raise TypeError(f"message tag {cls.T!r} is empty or taken")
    _REGISTRY[cls.T] = cls
    return cls


def family_members(tag: str) -> dict[str, type[Message]]:
    """The members of the family with tag ``tag`` by kind (empty if it is none)."""
    return dict(_KINDS.get(tag, {}))


def message_types() -> dict[str, type[Message]]:
    """Every registered tag and its class (for docs and fuzzing)."""
    return dict(_REGISTRY)


def request_id_of(data: dict[Any, Any]) -> int | None:
    """The map's ``id`` if it is one a reply can carry back (an int in range), else None."""
    request_id = data.get("id")
    if type(request_id) is not int or not 0 <= request_id <= MAX_INT:
        return None
    return request_id


def from_wire(
    data: Any, accepted: Collection[type[Message]] | None = None, receiver: str = ""
) -> Message:
    """Validate a decoded map and build its message; raises :class:`ProtocolError`.

    With ``accepted``, a registered tag of any other type is ``unknown_type`` (the
    ``receiver`` does not handle it) before its fields are checked.
    """
    if type(data) is not dict:
        raise ProtocolError("bad_message", "a message must be a msgpack map")
    request_id = request_id_of(data)
    tag = data.get("t")
    cls = _REGISTRY.get(tag) if type(tag) is str else None
    if cls is None:
        raise ProtocolError("unknown_type", f"unknown message type {tag!r}", request_id)
    if accepted is not None and cls not in accepted:
        raise ProtocolError("unknown_type", f"the {receiver} does not handle {tag!r}", request_id)
    members = _KINDS.get(cls.T)
    if members is not None:
        kind = data.get("kind")
        member = members.get(kind) if type(kind) is str else None
        if member is None:
            known = ", ".join(members)
            raise ProtocolError(
                "bad_message", f"field 'kind' of {tag!r} must be one of {known}", request_id
            )
        cls = member
    try:
        return _build(cls, data)
    except ProtocolError as exc:
        exc.request_id = request_id
        raise


def struct_from_wire(cls: type[S], data: Any) -> S:
    """Validate and build a nested struct from a map."""
    if type(data) is not dict:
        raise ProtocolError("bad_message", f"{cls.__name__} must be a map")
    return _build(cls, data)


def _mentions_struct(hint: Any) -> bool:
    if isinstance(hint, type) and issubclass(hint, Struct):
        return True
    return any(_mentions_struct(arg) for arg in typing.get_args(hint))


Plan = tuple[tuple[str, ...], tuple[str, ...], tuple[tuple[str, Any], ...]]


def _wire_plan(cls: type[Struct]) -> Plan:
    """The field names of ``cls`` in order, those that may hold structs (to be
    turned into plain maps), and those left out while they hold their default
    (``omit_empty``, with the default); computed once per class."""
    plan: Plan | None = cls.__dict__.get("_wire_plan")
    if plan is None:
        hints = typing.get_type_hints(cls)
        fields = dataclasses.fields(cls)  # type: ignore[arg-type]
        names = tuple(f.name for f in fields)
        omitted = tuple((f.name, f.default) for f in fields if f.metadata.get("omit_empty"))
        plan = names, tuple(n for n in names if _mentions_struct(hints[n])), omitted
        cls._wire_plan = plan
    return plan


def _omit(out: dict[str, Any], omitted: tuple[tuple[str, Any], ...]) -> dict[str, Any]:
    for name, default in omitted:
        if out.get(name) == default:
            del out[name]
    return out


def _plain(value: Any) -> Any:
    if isinstance(value, Struct):
        names, _, omitted = _wire_plan(type(value))
        out = {name: _plain(getattr(value, name)) for name in names}
        return _omit(out, omitted) if omitted else out
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def struct_to_wire(value: Struct) -> dict[str, Any]:
    """The plain map of a nested struct."""
    plain: dict[str, Any] = _plain(value)
    return plain


def to_wire(message: Message) -> dict[str, Any]:
    """The wire map of ``message`` (without the version field)."""
    names, nested, omitted = _wire_plan(type(message))
    out: dict[str, Any] = {"t": message.T}
    if message.KIND:  # a family member sends every field of its family
        out.update(message.FAMILY_WIRE)
        out["kind"] = message.KIND
    for name in names:
        out[name] = getattr(message, name)
    for name in nested:
        out[name] = _plain(out[name])
    return _omit(out, omitted) if omitted else out
