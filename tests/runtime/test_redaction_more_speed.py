"""What the model is shown of a long text is redacted without reading all of it (how
redaction scales with adversarial text is measured by bench/redaction.py)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from atlas.runtime import redaction
from atlas.runtime.redaction import redact, redact_value, redacted_opening

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
