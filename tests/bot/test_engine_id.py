"""What a bot tells the matchmaker it is (``hello.engine``): the built-in AIs name
themselves and their level; whatever an engine says is cut to what ``hello`` takes."""

from __future__ import annotations

from lanqi.bot.base import Bot
from lanqi.bot.catalog import bot_factory
from lanqi.bot.runner import _engine_field
from lanqi.protocol import Hello, decode, encode


def test_built_in_ais_name_themselves_with_their_level() -> None:
    assert bot_factory("builtin", level=6)().engine_id() == "lanqi built-in AI level 6"
    assert bot_factory("xiangqi-ai", level=3)().engine_id() == "lanqi built-in xiangqi AI level 3"
    assert bot_factory("gomoku-ai", level=2)().engine_id() == "lanqi built-in gomoku AI level 2"
    assert Bot().engine_id() is None  # a bot that does not say


def test_an_engine_name_is_made_fit_for_hello() -> None:
    assert _engine_field(None) is None
    assert _engine_field(" \t") is None
    assert _engine_field("Brain\x1b[31m 2.0 ") == "Brain[31m 2.0"
    long = _engine_field("x" * 200)
    assert long == "x" * 80
    hello = Hello(id=1, name="b", kind="bot", engine=long)
    assert decode(encode(hello)) == hello  # within the protocol's limit
