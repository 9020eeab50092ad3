"""Personal data in the layouts documents are exported in besides forms and tables: JSON
written out as text, comma- or semicolon-separated rows under a header, a sentence, an
aside in brackets, and a label with an invisible soft hyphen in it."""

from __future__ import annotations

import pytest

from atlas.runtime.redaction import personal_data_found, redact


def test_json_written_as_text_has_its_values_hidden():
    text = (
        '{"signatory": "Sarah Linden", "passport_number": "533401882", '
        '"dob": "1975-03-14", "account_no": "41926837"}'
    )
    assert redact(text) == (
        '{"signatory": "Sarah Linden", "passport_number": "[REDACTED PASSPORT]", '
        '"dob": "[REDACTED DOB]", "account_no": "[REDACTED ACCOUNT]"}'
    )


@pytest.mark.parametrize("delimiter", [",", ";"])
def test_separated_values_under_a_header_are_hidden_by_column(delimiter):
    header = delimiter.join(["signatory", "passport_number", "date_of_birth", "account_number"])
    rows = [
        delimiter.join(["Sarah Linden", "533401882", "1975-03-14", "41926837"]),
        delimiter.join(['"Becker, Tom"', '"P4821907"', "1980-01-02", "12345678"]),
    ]
    text = "\n".join([header, *rows, "", "Company number, 08812345"])
    hidden = redact(text)
    for secret in ("533401882", "1975-03-14", "41926837", "P4821907", "1980-01-02", "12345678"):
        assert secret not in hidden
    assert "Sarah Linden" in hidden and '"Becker, Tom"' in hidden
    assert hidden.endswith("\n\nCompany number, 08812345")
    assert personal_data_found(text)["passport_numbers"] == ["533401882", "P4821907"]


def test_a_sentence_after_separated_values_is_not_read_as_their_rows():
    text = "Name, Passport\nThe board met on 12 May, 2024, in Vilnius, with 12345 shares voted."
    assert redact(text) == text


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        (
            "Sarah Linden, born on 3rd of May 1981, signs for the company.",
            "Sarah Linden, born on [REDACTED DOB], signs for the company.",
        ),
        (
            "Sarah Linden, born on the 3rd of May 1981.",
            "Sarah Linden, born on the [REDACTED DOB].",
        ),
        (
            "Her passport (number 765432198) was checked.",
            "Her passport (number [REDACTED PASSPORT]) was checked.",
        ),
        ("Passport (765432198) seen.", "Passport ([REDACTED PASSPORT]) seen."),
        ("Pass\u00adport number: 765432198", "Passport number: [REDACTED PASSPORT]"),
        ("Pass\u200bport No. K7654321", "Passport No. [REDACTED PASSPORT]"),
        ("Pass\u200eport No: K7654321", "Passport No: [REDACTED PASSPORT]"),
        ("Date of birth is the 3rd of May 1981", "Date of birth is the [REDACTED DOB]"),
        ("born the 3rd of May 1981", "born the [REDACTED DOB]"),
        ("Drivers' licence: D1234567", "Drivers' licence: [REDACTED DRIVING LICENCE]"),
        ("Driver's Lic. No. D1234567", "Driver's Lic. No. [REDACTED DRIVING LICENCE]"),
        ("{'passport': 'K7654321'}", "{'passport': '[REDACTED PASSPORT]'}"),
        ("Date of birth:\u200f01.02.1980", "Date of birth:[REDACTED DOB]"),
    ],
)
def test_personal_data_in_a_sentence_an_aside_or_behind_an_invisible_hyphen(text, redacted):
    assert redact(text) == redacted


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        (
            "Directors: Richard Miles 14.03.1975; Jane Roe 1980-01-02",
            "Directors: Richard Miles [REDACTED DOB]; Jane Roe [REDACTED DOB]",
        ),
        ("Signatory: Sarah Linden, 3 May 1981", "Signatory: Sarah Linden, [REDACTED DOB]"),
        (
            "Directors: Jane Roe (appointed 2019-01-02), John Doe since 12.03.2020",
            "Directors: Jane Roe (appointed 2019-01-02), John Doe since 12.03.2020",
        ),
        ("Filed: 2024-01-02", "Filed: 2024-01-02"),
        (
            "Directors: Richard Wilson 14.03.1975, Mark Johnson 02.05.1980",
            "Directors: Richard Wilson [REDACTED DOB], Mark Johnson [REDACTED DOB]",
        ),
    ],
)
def test_a_date_beside_a_name_on_a_directors_line_is_taken_for_a_birth_date(text, redacted):
    assert redact(text) == redacted


@pytest.mark.parametrize(
    "text",
    [
        "Directors: John Smith, date of appointment 2019-01-02",
        "Directors: John Smith, 2019-01-02 to 2021-03-04",
        "Directors: Richard Miles, Jane Doe. Incorporated 12 March 2019",
        "Directors: Alice Brown; Bob Green. Company number 08812345 registered 2001-03-04",
        "Directors: None. Dissolved 2020-01-01",
        "Director: John Smith, elected 2019-01-02",
        "Director: John Smith, in office since the 1st of May 2019",
        "Officers: John Smith (Secretary) 01/05/2019",
        "Shareholders: 100 ordinary shares issued 2019-01-02",
        "Shareholders: Acme Holdings Ltd 50% (acquired 2020-05-01)",
        "Shareholders: John Smith 50 shares 2019, Jane Doe 50 shares 2019",
        "Directors: 3 appointed 2019",
        "Directors: Jane Roe, 1 of 3 directors 2024",
    ],
)
def test_a_date_on_a_directors_line_that_is_not_beside_a_name_stays(text):
    assert redact(text) == text


@pytest.mark.parametrize("delimiter", [",", ";"])
def test_a_separated_row_with_a_long_run_of_spaces_takes_linear_time(delimiter):
    # A cell's last letter and the spaces after it could be split in many ways: 50,000
    # spaces cost 18 s.
    import time

    text = f"name{delimiter}passport{delimiter}dob\nx" + " " * 200_000 + "y"
    began = time.perf_counter()
    redact(text)
    assert time.perf_counter() - began < 1.0


@pytest.mark.parametrize(
    "text",
    [
        "id,name,dob\n1,John,1981-05-03\n2,Jane, Jr.,1980-01-01\n3,Bob,1979-01-01",
        "name,address_line_1,passport_no,dob\nJohn Smith,1 High St,K7654321,1981-05-03",
        "name,passport_no,dob,\nJohn Smith,K7654321,1981-05-03,",
    ],
)
def test_separated_values_in_common_layouts_are_hidden(text):
    hidden = redact(text)
    for secret in ("1981-05-03", "1979-01-01", "K7654321"):
        assert secret not in hidden


def test_a_driving_licence_column_of_a_table_read_from_a_pdf_is_hidden():
    # PDF text puts a table's cells one space apart.
    text = "Name Driving Licence Passport No\nJane Roe MORGA753116SM9IJ K7654321"
    assert redact(text) == (
        "Name Driving Licence Passport No\nJane Roe [REDACTED DRIVING LICENCE] [REDACTED PASSPORT]"
    )
