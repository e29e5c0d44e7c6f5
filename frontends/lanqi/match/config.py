"""What a match is: its engines, games, openings, adjudication and outputs.

Built from cutechess-cli style arguments (:func:`parse_args`), from a TOML or
JSON file (:func:`load_file`), or both (the command line wins).  Nothing here
starts a process; :meth:`EngineConfig.make_bot` does, when a game needs it.
"""

from __future__ import annotations

import json
import shlex
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from lanqi.bot.base import Bot
from lanqi.bot.catalog import builtin_ai, variants_of
from lanqi.games.registry import VARIANTS, create_game, variant_spec
from lanqi.match.builtin_books import builtin_book, is_builtin
from lanqi.protocol import TimeControl
from lanqi.stats import Sprt

__all__ = [
    "Adjudication",
    "EngineConfig",
    "MatchConfig",
    "MatchConfigError",
    "OpeningsConfig",
    "load_file",
    "parse_args",
    "parse_tc",
]

PROTOCOLS = ("uci", "ucci", "gomocup", "builtin")


class MatchConfigError(ValueError):
    """A match that cannot be played as described; the message says what to change."""


def parse_tc(text: str) -> TimeControl:
    """A cutechess time control (seconds): ``10+0.1``, ``60``, ``inf``; ``move:2`` is a
    fixed 2 s per move.  (``moves/time+inc`` is not supported: lanqi clocks have no
    time controls by move count.)

    >>> tc = parse_tc("10+0.1")
    >>> tc.kind, tc.base_ms, tc.increment_ms
    ('fischer', 10000, 100)
    >>> parse_tc("inf").kind
    'none'
    """
    text = text.strip().lower()
    if "/" in text:
        raise MatchConfigError(
            f"time control {text!r}: moves/time is not supported; use BASE+INC in seconds"
        )
    try:
        if text in ("", "inf", "none", "-"):
            return TimeControl()
        if text.startswith("move:"):
            return TimeControl(kind="per_move", per_move_ms=round(float(text[5:]) * 1000))
        base, _, inc = text.partition("+")
        base_ms, inc_ms = round(float(base) * 1000), round(float(inc or 0) * 1000)
    except ValueError:
        raise MatchConfigError(
            f"time control {text!r}: want BASE+INC in seconds (10+0.1), move:SECONDS or inf"
        ) from None
    if base_ms <= 0:
        raise MatchConfigError(f"time control {text!r}: the base time must be positive")
    return TimeControl(kind="fischer", base_ms=base_ms, increment_ms=inc_ms)


def _value(text: Any) -> Any:
    """``"16"`` -> 16, ``"true"`` -> True; anything else unchanged."""
    if not isinstance(text, str):
        return text
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    try:
        return int(text)
    except ValueError:
        return text


@dataclass(slots=True)
class EngineConfig:
    """One player: an engine program (``uci``, ``ucci``, ``gomocup``) or ``builtin``."""

    name: str = ""
    cmd: str = ""
    proto: str = "uci"
    options: dict[str, Any] = field(default_factory=dict)
    #: this engine's own clock (time odds); None: the match's
    tc: str | None = None
    depth: int | None = None
    nodes: int | None = None
    #: a fixed think time per move, in seconds (cutechess ``st``)
    st: float | None = None
    #: built-in AI level (1 up to the variant's ``ai_levels``: xiangqi 8, gomoku 5)
    level: int | None = None
    ponder: bool = False
    dir: str | None = None
    #: seconds an engine may overrun before it counts as hung (cutechess ``timemargin``)
    timemargin: float | None = None
    handshake_timeout: float | None = None
    #: the engine's memory cap in MB (RLIMIT_AS): over it, it dies and loses the game
    memory: int | None = None
    #: stop the engine (SIGSTOP) while the opponent thinks (never when it ponders)
    pause: bool = False

    def check(self, variant: str) -> None:
        if self.proto not in PROTOCOLS:
            raise MatchConfigError(
                f"engine {self.name!r}: proto must be one of {', '.join(PROTOCOLS)}"
            )
        if self.proto != "builtin" and not self.cmd:
            raise MatchConfigError(f"engine {self.name or '?'}: give its command with cmd=PATH")
        if self.proto == "builtin" and variant_spec(variant).ai is None:
            raise MatchConfigError(f"engine {self.name!r}: lanqi has no built-in {variant} AI")
        if self.proto != "builtin" and variant not in variants_of(self.proto):
            games = " and ".join(variants_of(self.proto))
            raise MatchConfigError(f"engine {self.name!r}: {self.proto} engines play {games} only")
        if self.ponder and self.proto not in ("uci", "ucci"):
            raise MatchConfigError(
                f"engine {self.name or self.proto!r}: only uci and ucci engines ponder; "
                "drop 'ponder'"
            )
        if self.tc is not None:
            parse_tc(self.tc)
        if not self.name:
            self.name = (
                "builtin" if self.proto == "builtin" else Path(shlex.split(self.cmd)[0]).name
            )

    def make_bot(self, variant: str, *, cpus: Sequence[int] | None = None) -> Bot:
        """Start this player (an engine process, or a built-in AI) for ``variant``;
        an engine is pinned to ``cpus`` when given."""
        movetime = round(self.st * 1000) if self.st is not None else None
        if self.proto == "builtin":
            return builtin_ai(
                variant,
                level=self.level or None,  # the strongest unless the level says
                depth=self.depth,
                nodes=self.nodes,
                time_ms=movetime,
            )
        from lanqi.bot.engines import create_engine

        pause = self.pause and not self.ponder
        kwargs: dict[str, Any] = {
            "cwd": self.dir,
            "memory_mb": self.memory,
            "cpus": cpus,
            "pause_waiting": pause,
        }
        if self.timemargin is not None:
            kwargs["timeout_margin_ms"] = round(self.timemargin * 1000)
        if self.proto == "gomocup":
            kwargs["movetime"] = movetime
            if self.handshake_timeout is not None:
                kwargs["start_timeout_s"] = self.handshake_timeout
        else:
            kwargs.update(depth=self.depth, nodes=self.nodes, movetime=movetime, ponder=self.ponder)
            if self.handshake_timeout is not None:
                kwargs["handshake_timeout_s"] = self.handshake_timeout
        return create_engine(f"{self.proto}:{self.cmd}", options=self.options, **kwargs)

    def limits(self) -> str:
        """How this player is limited, for records and the table (``depth 3``)."""
        parts = []
        if self.depth is not None:
            parts.append(f"depth {self.depth}")
        if self.nodes is not None:
            parts.append(f"nodes {self.nodes}")
        if self.st is not None:
            parts.append(f"{self.st:g} s/move")
        if self.level is not None:
            parts.append(f"level {self.level}")
        return ", ".join(parts)


@dataclass(slots=True)
class OpeningsConfig:
    file: Path
    format: str = ""  # fen, epd, pgn, gomoku (by the file's extension when empty)
    order: str = "sequential"  # or random
    plies: int | None = None  # PGN/move-list openings: play this many plies of each
    start: int = 1  # the first opening to use (1-based)


@dataclass(slots=True)
class Adjudication:
    """cutechess ``-draw``, ``-resign`` and ``-maxmoves``; None turns one off."""

    #: draw once both scores stay within draw_score cp for draw_movecount moves each,
    #: from full move draw_movenumber on
    draw_movenumber: int | None = None
    draw_movecount: int = 8
    draw_score: int = 10
    #: resign when a side's score stays at or below -resign_score for resign_movecount
    #: of its moves (twosided: the opponent's score must agree)
    resign_movecount: int | None = None
    resign_score: int = 600
    resign_twosided: bool = False
    #: a draw after this many full moves
    maxmoves: int | None = None

    @property
    def enabled(self) -> bool:
        return any(
            x is not None for x in (self.draw_movenumber, self.resign_movecount, self.maxmoves)
        )


@dataclass(slots=True)
class MatchConfig:
    engines: list[EngineConfig] = field(default_factory=list)
    variant: str = "xiangqi"
    #: gomoku rule and board size
    rule: str = "freestyle"
    size: int = 15
    #: xiangqi repetition rules (``axf``, ``check``, ``draw``) and the count that ends a
    #: game; None: the rules' own defaults (axf, 3).  Engines are kept from moves that
    #: lose by them (UCCI ``banmoves``, UCI ``searchmoves``).
    repetition: str | None = None
    repetition_count: int | None = None
    tc: str = "inf"
    #: games per encounter per round (cutechess ``-games``)
    games: int = 2
    rounds: int = 1
    #: games per opening, colours alternating (2: colour-reversed pairs)
    repeat: int = 2
    concurrency: int = 1
    openings: OpeningsConfig | None = None
    adjudication: Adjudication = field(default_factory=Adjudication)
    sprt: Sprt | None = None
    pgnout: Path | None = None
    psqout: Path | None = None
    #: rewrite this state file after every finished game (``lanqi match -resume FILE``)
    autosave: Path | None = None
    event: str = "lanqi match"
    seed: int = 0
    #: use this referee (``tcp://HOST:PORT`` and its admin key) instead of a private one
    referee: str | None = None
    referee_pub: str | None = None
    admin_key: str | None = None
    #: print the interval this often (games); 0: only at the end
    ratinginterval: int = 1
    #: pin each engine process to a core of its own (round robin over the usable cores)
    use_affinity: bool = False

    def game_options(self) -> dict[str, Any]:
        """The options of this match's games that its variant takes (gomoku ``size``,
        ``rule``; xiangqi ``repetition``, ``repetition_count`` when given)."""
        options = {name: getattr(self, name) for name in variant_spec(self.variant).option_names}
        for name in ("repetition", "repetition_count"):  # given: the game must take them
            if getattr(self, name) is not None:
                options[name] = getattr(self, name)
        return options

    def check(self) -> MatchConfig:
        if self.variant not in VARIANTS:
            raise MatchConfigError(f"variant must be one of {', '.join(VARIANTS)}")
        if len(self.engines) < 2:
            raise MatchConfigError("a match needs at least two engines (-engine ... -engine ...)")
        for engine in self.engines:
            engine.check(self.variant)
        names = [e.name for e in self.engines]
        if len(set(names)) != len(names):
            raise MatchConfigError(f"engine names must differ: {', '.join(names)} (use name=)")
        self._check_odds()
        if self.repetition is not None or self.repetition_count is not None:
            try:  # the variant's own rules judge them (xiangqi has them, gomoku none)
                create_game(self.variant, **self.game_options())
            except ValueError as exc:
                raise MatchConfigError(f"-repetition: {exc}") from None
        for label, number in (
            ("games", self.games),
            ("rounds", self.rounds),
            ("repeat", self.repeat),
            ("concurrency", self.concurrency),
        ):
            if number < 1:
                raise MatchConfigError(f"-{label} must be at least 1")
        if self.sprt is not None and len(self.engines) != 2:
            raise MatchConfigError("-sprt needs exactly two engines")
        if self.openings is not None:
            if is_builtin(self.openings.file):  # a shipped book: it must fit the variant
                try:
                    builtin_book(self.openings.file, self.variant, rule=self.rule)
                except ValueError as exc:
                    raise MatchConfigError(str(exc)) from None
            elif not self.openings.file.is_file():
                raise MatchConfigError(f"opening file {self.openings.file} not found")
        if self.referee and not self.admin_key:
            raise MatchConfigError("-referee needs the referee's admin key (-admin-key KEY)")
        return self

    def time_control(self, seats: Sequence[EngineConfig] = ()) -> TimeControl:
        """The clock of a game between ``seats`` (seat 0 first): the match's, or time
        odds when the engines have their own ``tc`` (each seat its own base time and
        increment, or its own time per move).  No first-move window: as in
        cutechess-cli, the clock of the side to move runs from the start."""
        return replace(self._clock(seats), first_move_ms=0)

    def _clock(self, seats: Sequence[EngineConfig]) -> TimeControl:
        match_tc = parse_tc(self.tc)
        own = [parse_tc(e.tc) if e.tc else match_tc for e in seats]
        if len(own) != 2 or own[0] == own[1]:
            return own[0] if own else match_tc
        first, second = own
        if first.kind == "per_move":
            return TimeControl(
                kind="per_move",
                per_move_ms=first.per_move_ms,
                seat_per_move_ms=[first.per_move_ms, second.per_move_ms],
            )
        return TimeControl(
            kind="fischer",
            base_ms=first.base_ms,
            increment_ms=first.increment_ms,
            seat_base_ms=[first.base_ms, second.base_ms],
            seat_increment_ms=[first.increment_ms, second.increment_ms],
        )

    def _check_odds(self) -> None:
        match_tc = parse_tc(self.tc)
        own = [parse_tc(e.tc) if e.tc else match_tc for e in self.engines]
        if len({tc.kind for tc in own}) > 1:
            raise MatchConfigError(
                "time odds (an engine's own tc=) need the same kind of clock for every "
                "engine: all BASE+INC, or all move:SECONDS (not inf)"
            )


# ----------------------------------------------------------------- command line

_ENGINE_KEYS = {
    "name",
    "cmd",
    "proto",
    "tc",
    "depth",
    "nodes",
    "st",
    "level",
    "ponder",
    "dir",
    "timemargin",
    "handshake",
    "memory",
    "pause",
}


#: cutechess spellings of lanqi settings
_ALIASES = {"srand": "seed"}


def _pairs(flag: str, values: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for value in values:
        key, sep, rest = value.partition("=")
        if not sep:
            if key in ("ponder", "twosided"):
                out[key] = "true"
                continue
            raise MatchConfigError(f"{flag}: {value!r} should be KEY=VALUE")
        out[key] = rest
    return out


def _engine_fields(pairs: Mapping[str, Any], flag: str) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    options: dict[str, Any] = {}
    for key, value in pairs.items():
        if key.startswith("option."):
            options[key[len("option.") :]] = _value(value)
        elif key == "options" and isinstance(value, Mapping):
            options.update({str(k): _value(v) for k, v in value.items()})
        elif key not in _ENGINE_KEYS:
            raise MatchConfigError(
                f"{flag}: unknown key {key!r} "
                f"(known: {', '.join(sorted(_ENGINE_KEYS))}, option.NAME)"
            )
        else:
            fields[key] = value
    try:
        for key in ("depth", "nodes", "level"):
            if key in fields:
                fields[key] = int(fields[key])
        for key in ("st", "timemargin"):
            if key in fields:
                fields[key] = float(fields[key])
        if "handshake" in fields:
            fields["handshake_timeout"] = float(fields.pop("handshake"))
    except ValueError as exc:
        raise MatchConfigError(f"{flag}: {exc}") from None
    for key in ("ponder", "pause"):
        if key in fields:
            fields[key] = str(fields[key]).lower() in ("true", "1", "on", "yes")
    if "memory" in fields:
        fields["memory"] = _int(f"{flag} memory", fields["memory"])
        if fields["memory"] < 1:
            raise MatchConfigError(f"{flag}: memory is in MB and must be at least 1")
    for key in ("tc", "cmd", "name", "proto", "dir"):
        if key in fields and fields[key] is not None:
            fields[key] = str(fields[key])
    if options:
        fields["options"] = options
    return fields


def _int(flag: str, text: Any) -> int:
    try:
        return int(text)
    except (TypeError, ValueError):
        raise MatchConfigError(f"{flag} wants a whole number, not {text!r}") from None


def _split_flags(argv: Sequence[str]) -> list[tuple[str, list[str]]]:
    flags: list[tuple[str, list[str]]] = []
    for token in argv:
        if token.startswith("-") and len(token) > 1 and not token[1:2].isdigit():
            flags.append((token.lstrip("-"), []))
        elif not flags:
            raise MatchConfigError(f"unexpected {token!r}: arguments start with a -flag")
        else:
            flags[-1][1].append(token)
    return flags


def _apply(config: MatchConfig, data: Mapping[str, Any], each: dict[str, Any]) -> None:
    """Settings common to the file and the command line (already as values)."""
    for key, value in data.items():
        if key in ("variant", "rule", "tc", "event"):
            setattr(config, key, str(value))
        elif key in ("games", "rounds", "repeat", "concurrency", "size", "seed", "ratinginterval"):
            setattr(config, key, _int(f"-{key}", value))
        elif key == "use_affinity":
            config.use_affinity = str(value).lower() in ("true", "1", "on", "yes")
        elif key == "repetition":
            config.repetition = str(value)
        elif key == "repetition_count":
            config.repetition_count = _int("-repetition-count", value)
        elif key == "maxmoves":
            config.adjudication.maxmoves = _int("-maxmoves", value)
        elif key == "openings":
            config.openings = _openings(value)
        elif key == "draw":
            adj = config.adjudication
            adj.draw_movenumber = _int("-draw movenumber", value.get("movenumber", 0))
            adj.draw_movecount = _int("-draw movecount", value.get("movecount", 8))
            adj.draw_score = _int("-draw score", value.get("score", 10))
        elif key == "resign":
            adj = config.adjudication
            adj.resign_movecount = _int("-resign movecount", value.get("movecount", 3))
            adj.resign_score = _int("-resign score", value.get("score", 600))
            adj.resign_twosided = str(value.get("twosided", "false")).lower() == "true"
        elif key == "sprt":
            try:
                config.sprt = Sprt(
                    elo0=float(value.get("elo0", 0)),
                    elo1=float(value.get("elo1", 5)),
                    alpha=float(value.get("alpha", 0.05)),
                    beta=float(value.get("beta", 0.05)),
                    model=str(value.get("model", "logistic")),
                )
            except ValueError as exc:
                raise MatchConfigError(f"-sprt: {exc}") from None
        elif key in ("pgnout", "psqout", "autosave"):
            setattr(config, key, Path(str(value)))
        elif key in ("referee", "referee_pub", "admin_key"):
            setattr(config, key, str(value))
        elif key == "each":
            each.update(_engine_fields(value, "-each"))
        elif key in ("engine", "engines"):
            for item in value:
                config.engines.append(EngineConfig(**_engine_fields(item, "-engine")))
        else:
            raise MatchConfigError(f"unknown setting {key!r}")


def _openings(value: Mapping[str, Any]) -> OpeningsConfig:
    if "file" not in value:
        raise MatchConfigError("-openings needs file=PATH")
    order = str(value.get("order", "sequential"))
    if order not in ("sequential", "random"):
        raise MatchConfigError("-openings order must be sequential or random")
    plies = value.get("plies")
    return OpeningsConfig(
        file=Path(str(value["file"])),
        format=str(value.get("format", "")),
        order=order,
        plies=None if plies is None else _int("-openings plies", plies),
        start=_int("-openings start", value.get("start", 1)),
    )


def _finish(config: MatchConfig, each: Mapping[str, Any]) -> MatchConfig:
    config.engines = [
        replace(e, **{k: v for k, v in each.items() if k not in _set_fields(e)})
        for e in config.engines
    ]
    for engine in config.engines:
        if "options" in each:
            engine.options = {**each["options"], **engine.options}
    return config.check()


def _set_fields(engine: EngineConfig) -> set[str]:
    default = EngineConfig()
    return {
        name
        for name in EngineConfig.__dataclass_fields__
        if getattr(engine, name) != getattr(default, name)
    } | {"options"}


def load_file(path: Path) -> tuple[MatchConfig, dict[str, Any]]:
    """A match from a TOML (``.toml``) or JSON file; see docs/engines.md for the keys."""
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text) if path.suffix.lower() == ".toml" else json.loads(text)
    except OSError as exc:
        raise MatchConfigError(f"cannot read {path}: {exc.strerror}") from None
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise MatchConfigError(f"{path}: {exc}") from None
    if not isinstance(data, dict):
        raise MatchConfigError(f"{path}: the top level must be a table of settings")
    config, each = MatchConfig(), dict[str, Any]()
    _apply(config, data, each)
    return config, each


def parse_args(argv: Sequence[str]) -> MatchConfig:
    """A match from cutechess-cli style arguments (plus ``-config FILE``)."""
    flags = _split_flags(argv)
    config: MatchConfig = MatchConfig()
    each: dict[str, Any] = {}
    for flag, values in flags:
        if flag == "config":
            if len(values) != 1:
                raise MatchConfigError("-config wants one file")
            config, each = load_file(Path(values[0]))
    data: dict[str, Any] = {}
    engines: list[dict[str, str]] = []
    for flag, values in flags:
        if flag == "config":
            continue
        if flag == "engine":
            engines.append(_pairs("-engine", values))
            continue
        if flag == "openings":  # -openings builtin:xiangqi is short for file=builtin:xiangqi
            values = [f"file={v}" if v.split(":")[0] == "builtin" else v for v in values]  # noqa: PLW2901
        if flag in ("each", "openings", "draw", "resign", "sprt"):
            data[flag] = _pairs(f"-{flag}", values)
            continue
        if flag == "repeat" and not values:
            data["repeat"] = 2
            continue
        if flag == "use-affinity" and not values:  # fastchess's flag, without a value
            data["use_affinity"] = True
            continue
        if len(values) < 1:
            raise MatchConfigError(f"-{flag} wants a value")
        if flag == "pgnout":  # cutechess: -pgnout FILE [min] [fi]; the extras are ignored
            values = values[:1]  # noqa: PLW2901
        if len(values) != 1:
            raise MatchConfigError(f"-{flag} wants one value, not {' '.join(values)}")
        data[_ALIASES.get(flag, flag).replace("-", "_")] = values[0]
    if engines:
        data["engine"] = engines
    _apply(config, data, each)
    return _finish(config, each)
