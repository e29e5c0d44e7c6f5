"""What a variant's spec tells the frontends: its AI levels (one clamp), notations by
one name, record reader, option choices; and the registry's lists of names."""

from __future__ import annotations

import pytest

from lanqi.games.registry import (
    VARIANTS,
    create_game,
    notation_names,
    read_records,
    variant_names,
    variant_spec,
)


def test_the_registry_names_its_variants_and_notations() -> None:
    assert variant_names() == ("xiangqi", "gomoku") == tuple(VARIANTS)
    assert notation_names() == ("chinese", "wxf", "iccs")


@pytest.mark.parametrize(("variant", "levels"), [("xiangqi", 8), ("gomoku", 5)])
def test_one_clamp_for_the_built_in_ai_level(variant: str, levels: int) -> None:
    spec = variant_spec(variant)
    assert spec.ai is not None and spec.ai_levels == levels
    assert [spec.ai_level(n) for n in (-3, 0, 1, 4, levels, levels + 1, 99)] == [
        1, 1, 1, 4, levels, levels, levels
    ]  # fmt: skip
    assert spec.ai_level(None) == levels  # no level: the strongest


def test_notations_have_one_name_a_title_and_a_label() -> None:
    spec = variant_spec("xiangqi")
    board = create_game("xiangqi")
    move = board.parse_move("h2e2")
    written = {
        name: (n.title, n.label, n.for_people, n(board, move)) for name, n in spec.notations.items()
    }
    assert written == {
        "chinese": ("Chinese", "中文", True, "炮二平五"),
        "wxf": ("WXF", "WXF", True, "C2=5"),
        "iccs": ("ICCS", "ICCS", False, "h2e2"),
    }
    assert spec.record_notation == "wxf"
    assert variant_spec("gomoku").notations == {}


@pytest.mark.parametrize("variant", variant_names())
def test_a_written_record_reads_back_through_the_registry(variant: str) -> None:
    spec = variant_spec(variant)
    game = create_game(variant)
    for _ in range(4):
        game.push(sorted(game.legal_moves(), key=str)[0])
    first, second = spec.seat_names
    text = spec.write_record(game, {first: "Ann", second: "Bob", "Result": "*"})
    read_spec, games = read_records("\ufeff" + text)
    assert read_spec is spec and len(games) == 1
    headers, board, result = games[0]
    assert (headers[first], headers[second], result) == ("Ann", "Bob", "*")
    assert board.snapshot()["moves"] == game.snapshot()["moves"]


def test_the_game_tag_picks_the_reader_and_an_unknown_one_is_refused() -> None:
    spec, _ = read_records('[Game "gomoku"]\n[Result "*"]\n\n1. h8\n')  # any case
    assert spec.name == "gomoku"
    spec, games = read_records("1. h2e2 h9g7 *\n")  # no tag: the first registered
    assert spec.name == "xiangqi" and len(games[0][1].move_stack) == 2
    with pytest.raises(ValueError, match="no variant reads 'Shogi' records"):
        read_records('[Game "Shogi"]\n\n1. P7g7f *\n')
    with pytest.raises(ValueError):
        read_records("")


def test_the_options_players_choose_default_first() -> None:
    assert variant_spec("gomoku").option_choices == {
        "size": (15, 19, 20),
        "rule": ("freestyle", "standard", "renju"),
    }
    assert variant_spec("xiangqi").option_choices == {}
    for spec in VARIANTS.values():
        for option, values in spec.option_choices.items():
            create_game(spec.name, **{option: values[0]})
    assert [spec.title for spec in VARIANTS.values()] == ["象棋 Xiangqi", "五子棋 Gomoku"]
