"""Redaction reads a long text in linear time, whatever it holds, and what the model is
shown of a long text can be redacted without reading all of it."""

from __future__ import annotations

import random
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from atlas.runtime import redaction
from atlas.runtime.redaction import personal_data_found, redact, redact_value, redacted_opening

MB = 1_000_000


def _digits_and_separators() -> str:
    pick = random.Random(7).choice
    return "".join(pick("0123456789 -\n,") for _ in range(MB))


ADVERSARIAL = {
    "digits and separators": _digits_and_separators,
    "digits": lambda: "7" * MB,
    "passport then digit groups": lambda: "passport " + "12 34-" * (MB // 6),
    "groups shaped like an IBAN": lambda: "GB29 NWBK " * (MB // 10),
    "groups shaped like a card": lambda: "4111 " * (MB // 5),
    "at signs": lambda: "a@" * (MB // 2),
    "a table of a million bytes": lambda: "Name | Passport\n" + "x | 1\n" * (MB // 6),
    "table headers one after another": lambda: "Name Passport No.\n" * (MB // 18),
    "labels with long gaps": lambda: ("iban:" + " " * 1000 + "passport" + "\n" * 1000) * 500,
}


@pytest.mark.parametrize("make_text", ADVERSARIAL.values(), ids=ADVERSARIAL.keys())
def test_a_megabyte_built_to_make_matching_backtrack_is_read_in_linear_time(make_text):
    text = make_text()
    began = time.perf_counter()
    redact(text)
    personal_data_found(text)
    # Linear, these take well under a second; a quadratic pattern takes minutes. The bound
    # is wide so a loaded machine cannot fail it.
    assert time.perf_counter() - began < 5.0


DOCUMENT = (
    "Company: Acme Analytics Ltd\nPassport No. K7654321\n"
    + "Revenue rose in 2022 to GBP 4,100,000.00 under company number 01234567. " * 70_000
    + "\nIBAN: DE89 3704 0044 0532 0130 00\n"
)


def test_only_as_much_of_a_long_text_as_is_shown_is_read(monkeypatch):
    read: list[int] = []
    spans = redaction._spans

    def counting_spans(text: str):
        read.append(len(text))
        return spans(text)

    monkeypatch.setattr(redaction, "_spans", counting_spans)
    opening = redacted_opening(DOCUMENT, 3000)
    assert len(DOCUMENT) > 5_000_000
    assert max(read) < 10_000
    assert opening.startswith("Company: Acme Analytics Ltd\nPassport No. [REDACTED PASSPORT]")
    assert len(opening) >= 3000


def test_a_long_strings_opening_is_redacted_inside_a_structured_result():
    shown = redact_value({"text": DOCUMENT, "pages": 1}, chars_shown=3000)
    assert shown["pages"] == 1
    assert shown["text"].startswith("Company: Acme Analytics Ltd\nPassport No. [REDACTED")
    assert 3000 <= len(shown["text"]) < 10_000


PIECES = [
    "Passport No. K7654321",
    "passport numbers: K7654321, P1234567",
    "Account number 1234\n5678",
    "IBAN GB29 NWBK 6016 1331 9268 19",
    "gb29 nwbk 6016 1331 9268 19",
    "4111 1111 1111 1111",
    "cfo@acme.example",
    "Name | Passport No.\nJane Roe | K7654321\n\n",
    "Name Passport No.\nJane Roe K7654321\n",
    "Date of birth: 11 February 1979",
    "Company number 01234567",
    " ",
    "\n",
    "    ",
    "word",
]


@settings(max_examples=200, deadline=None)
@given(pieces=st.lists(st.sampled_from(PIECES), max_size=60), chars=st.integers(1, 400))
def test_the_opening_is_the_start_of_the_whole_text_redacted(pieces, chars):
    text = "".join(pieces)
    whole = redact(text)
    opening = redacted_opening(text, chars)
    assert whole.startswith(opening)
    assert len(opening) >= min(chars, len(whole))
