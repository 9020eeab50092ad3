"""What redaction must leave alone: names, dates, companies' registration numbers and
amounts, in prose, forms and tables, next to the personal data it hides."""

from __future__ import annotations

import pytest

from atlas.runtime.redaction import personal_data_in, redact

FILING = """\
Company: Acme Analytics Ltd
Company number: 01234567
Registered office: 1 King Street, London EC2V 8AU
Directors: Jane Roe, John Smith
Incorporated on 2014-06-12; accounts made up to 31 March 2023.
Turnover GBP 4,100,000.00 (2022: GBP 3,250,000.00); share capital 1,000,000 shares of £1.
Account balance: GBP 1,250,000.00
Kontostand: 1.250.000,00 EUR; Handelsregister HRB 123456; USt-IdNr. DE123456789.
SIRET 732 829 320 00074; montant du compte 12 500,00 EUR.
Número de registro mercantil 28012345; importe 1.500.000 EUR.
The passport office and the accounts team met on 12 March 2020 about invoice 2023-0042.
Card payments totalled 1,234,567 in 2022; phone +44 20 7946 0958.

| Director | Appointed | Shares | Company number |
|----------|-----------|--------|----------------|
| Jane Roe | 2014-06-12 | 500000 | 01234567 |
| John Smith | 2019-01-01 | 250000 | SC123456 |

Name Date of birth Appointed Shares
Jane Roe 1979-02-11 2014-06-12 500000
"""


def test_a_filing_without_personal_data_is_left_as_it_is():
    text = FILING.replace("Name Date of birth Appointed Shares\nJane Roe 1979-02-11", "")
    assert redact(text) == text
    assert personal_data_in(text) == []


@pytest.mark.parametrize(
    "kept",
    [
        "Jane Roe",
        "John Smith",
        "Acme Analytics Ltd",
        "01234567",
        "SC123456",
        "HRB 123456",
        "DE123456789",
        "732 829 320 00074",
        "28012345",
        "2014-06-12",
        "31 March 2023",
        "12 March 2020",
        "GBP 4,100,000.00",
        "GBP 1,250,000.00",
        "1.250.000,00 EUR",
        "12 500,00 EUR",
        "1.500.000 EUR",
        "1,234,567",
        "| Jane Roe | 2014-06-12 | 500000 | 01234567 |",
    ],
)
def test_names_dates_company_numbers_and_amounts_stay_next_to_personal_data(kept):
    text = (
        FILING
        + "\nPassport No. K7654321; Kontonummer 1234567890; IBAN DE89 3704 0044 0532 0130 00"
        + "\nName | Passport No.\nJane Roe | P1234567\n"
    )
    redacted = redact(text)
    assert kept in redacted
    for secret in ("K7654321", "1234567890", "DE89 3704", "P1234567"):
        assert secret not in redacted
