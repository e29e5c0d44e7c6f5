"""The message catalogue: every line in both languages, the same fields in each, and
English plurals that agree with the count (issue 19)."""

from __future__ import annotations

import re
import string

import pytest

from lanqi.i18n import CATALOGUE, Term, en, tr, zh

CJK = re.compile(r"[\u3400-\u9fff]")


def fields(pattern: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(pattern) if name}


@pytest.mark.parametrize("key", sorted(CATALOGUE))
def test_every_entry_has_both_languages_with_the_same_fields(key: str) -> None:
    text = CATALOGUE[key]
    assert text.zh.strip() and text.en.strip(), f"{key}: a language is empty"
    assert CJK.search(text.zh) or not re.search(r"[A-Za-z]{4,}", text.zh), (
        f"{key}: the Chinese line {text.zh!r} has English words and no Chinese"
    )
    assert not CJK.search(text.en), f"{key}: the English line {text.en!r} has Chinese"
    assert fields(text.zh) == fields(text.en), f"{key}: the fields differ between zh and en"
    if text.en_plural:
        assert fields(text.en_plural) == fields(text.en), f"{key}: the plural's fields differ"
        assert "n" in fields(text.en), f"{key}: a plural form needs the count {{n}}"
        assert text.en_plural != text.en, f"{key}: the plural is the singular"


def test_every_counted_english_line_has_a_plural_when_its_noun_changes() -> None:
    # a line with {n} followed by a noun takes a plural form ("1 move", "2 moves")
    for key, text in CATALOGUE.items():
        if re.search(r"\{n\} (move|game|player|point|round)\b", text.en):
            assert text.en_plural, f"{key}: {text.en!r} needs en_plural"


def test_plural_forms_follow_the_count() -> None:
    assert en("moves_taken_back", n=1) == "1 move taken back"
    assert en("moves_taken_back", n=2) == "2 moves taken back"
    assert en("moves_taken_back", n=0) == "0 moves taken back"
    assert zh("moves_taken_back", n=2) == "悔了 2 步"
    assert en("unfinished_moves", n=1) == "It has 1 move and no result yet."
    assert en("unfinished_moves", n=5) == "It has 5 moves and no result yet."
    assert en("resume.moves", n=1) == "1 move"


def test_tr_puts_chinese_first_and_fills_the_fields() -> None:
    assert tr("draw_offered", name="Bob") == "Bob 提和 Bob offers a draw"
    declined = tr("lobby.challenge_declined", name="Bob")
    assert declined == "Bob 拒绝了挑战 Bob declined your challenge"


def test_a_term_field_is_put_in_each_language() -> None:
    line = tr("illegal.piece_cannot_move", piece=Term("piece.horse"))
    assert line == "马不能这样走 a horse cannot move like that"


def test_a_missing_key_says_where_to_add_it() -> None:
    with pytest.raises(KeyError, match=r"add it to lanqi\.i18n\.catalogue"):
        tr("no such line")


def test_the_catalogue_says_what_the_issue_found_half_translated() -> None:
    # the lines issue 19 found in English only, now in both languages
    for key in ("draw_declined_by", "moves_taken_back", "connect.no_answer", "connect.need_name"):
        assert key in CATALOGUE
    assert "lanqi serve" not in "".join(t.en + t.zh for t in CATALOGUE.values())
    assert "roster" not in "".join(t.en for t in CATALOGUE.values())
