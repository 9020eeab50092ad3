"""IBANs whose groups a file name or an export joins with "_" or ".", hidden like those in
groups of spaces or dashes; a code of the same shape whose check digits fail is not."""

from __future__ import annotations

import pytest

from atlas.runtime.redaction import personal_data_found, redact


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ("IBAN: DE89_3704_0044_0532_0130_00", "IBAN: [REDACTED IBAN]"),
        ("paid from DE89_3704_0044_0532_0130_00 today", "paid from [REDACTED IBAN] today"),
        ("DE89.3704.0044.0532.0130.00.", "[REDACTED IBAN]."),
        ("GB82_WEST_1234_5698_7654_32.pdf", "[REDACTED IBAN].pdf"),
        (
            "statement_GB82_WEST_1234_5698_7654_32_2024.pdf",
            "statement_[REDACTED IBAN]_2024.pdf",
        ),
        ("DE89 3704 0044 0532 0130 00. Next line 1234.", "[REDACTED IBAN]. Next line 1234."),
    ],
)
def test_an_iban_in_groups_joined_by_underscores_or_full_stops_is_hidden(text, redacted):
    assert redact(text) == redacted


def test_the_iban_found_is_the_number_without_its_separators_gone_astray():
    assert personal_data_found("acct_GB82_WEST_1234_5698_7654_32.pdf") == {
        "ibans": ["GB82_WEST_1234_5698_7654_32"]
    }


@pytest.mark.parametrize(
    "text",
    [
        "ref_AB12_3456_7890_1234_end",  # check digits fail
        "GB82_WEST_1234_5698_7654_33.pdf",  # one digit off
        "release_v2.3.4_build_0042.zip",
    ],
)
def test_a_code_shaped_like_an_iban_whose_check_digits_fail_stays(text):
    assert redact(text) == text
