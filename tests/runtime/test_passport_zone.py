"""A passport's machine-readable zone: its document number, date of birth and personal
number are redacted before the model sees them, as their labels would have them elsewhere,
and the holder's name and nationality are read from it."""

from __future__ import annotations

import pytest
from runtime_helpers import run
from test_document_owners import attached
from test_documents_text import _extracted

from atlas.runtime.policy import TenantPolicy
from atlas.runtime.redaction import personal_data_in, redact
from atlas.runtime.redaction_mrz import check_digit
from tests.mrz import passport_zone

# Doc 9303's own specimens: a passport (two lines of 44) and an identity card (three of 30).
SPECIMEN_PASSPORT = (
    "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10\n"
)
SPECIMEN_CARD = "I<UTOD231458907<<<<<<<<<<<<<<<\n7408122F1204159UTO<<<<<<<<<<<6\nERIKSSON<<ANNA<MARIA<<<<<<<<<<\n"
RAHIMI = passport_zone("Rahimi", "Farhad", "IRN", "K12345678", "790312")


@pytest.mark.parametrize(
    ("field", "digit"),
    [("L898902C3", "6"), ("740812", "2"), ("120415", "9"), ("ZE184226B<<<<<", "1")],
)
def test_check_digits_are_doc_9303s(field, digit):
    assert check_digit(field) == digit


def test_a_passports_zone_keeps_only_what_is_no_personal_data():
    assert redact(SPECIMEN_PASSPORT) == (
        "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\n"
        "[REDACTED PASSPORT]6UTO[REDACTED DOB]2F1204159[REDACTED NATIONAL ID]<<<<<10\n"
    )
    assert personal_data_in(SPECIMEN_PASSPORT) == [
        "passport number",
        "national ID number",
        "date of birth",
    ]


def test_an_identity_cards_zone_is_read_too():
    assert redact(SPECIMEN_CARD) == (
        "I<UTO[REDACTED NATIONAL ID]7<<<<<<<<<<<<<<<\n"
        "[REDACTED DOB]2F1204159UTO<<<<<<<<<<<6\nERIKSSON<<ANNA<MARIA<<<<<<<<<<\n"
    )


def test_a_zone_in_a_windows_text_file_is_read():
    assert "K12345678" not in redact(RAHIMI.replace("\n", "\r\n"))


@pytest.mark.parametrize(
    ("misread", "dates_of_birth"),
    [
        # An OCR misread the document number's check digit (6), or the date of birth's (2).
        (SPECIMEN_PASSPORT.replace("L898902C36", "L898902C35"), ["740812"]),
        (SPECIMEN_PASSPORT.replace("7408122F", "7408123F"), None),
        # ... or a character of the number, or of the date.
        (SPECIMEN_PASSPORT.replace("L898902C36", "L8989O2C36"), ["740812"]),
        (SPECIMEN_PASSPORT.replace("7408122F", "7408172F"), None),
        # ... in a zone an OCR spaced apart.
        (SPECIMEN_PASSPORT.replace("UTO7408122F", "UTO 7408 123F"), None),
    ],
)
def test_a_zone_whose_check_digit_an_ocr_misread_is_still_redacted(misread, dates_of_birth):
    redacted = redact(misread)
    assert "[REDACTED PASSPORT]" in redacted and "[REDACTED DOB]" in redacted
    assert "740812" not in redacted and "740817" not in redacted
    assert "L898902C3" not in redacted
    # Its holder is read only from a zone whose check digits hold, and a year of birth
    # only from a date of birth whose own check digit holds.
    fields = _extracted(f"PASSPORT\n{misread}".encode()).fields
    assert "person_names" not in fields and "nationality" not in fields
    assert fields.get("dates_of_birth") == dates_of_birth


def test_lines_of_two_kinds_of_zone_are_no_zone():
    mixed = SPECIMEN_PASSPORT.splitlines()[0] + "\n" + SPECIMEN_CARD.splitlines()[1] + "\n"
    assert redact(mixed) == mixed


def test_the_holders_name_and_nationality_are_read_from_the_zone():
    fields = _extracted(f"PASSPORT\n{RAHIMI}".encode()).fields
    assert fields["person_names"] == ["Farhad Rahimi"]
    assert fields["nationality"] == ["IR"]
    assert fields["passport_numbers"] == ["K12345678"]
    assert fields["dates_of_birth"] == ["790312"]


def test_a_german_passports_nationality_is_read_from_its_own_code():
    zone = passport_zone("Mustermann", "Erika", "D<<", "C01X00T47", "640812", "F")
    assert _extracted(zone.encode()).fields["nationality"] == ["DE"]


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        ("Nationality / Nationalité: ISLAMIC REPUBLIC OF IRAN", ["IR"]),
        ("Nationality: BRITISH CITIZEN", ["GB"]),
        ("Nationality/Nationalité: IRN", ["IR"]),
    ],
)
def test_a_passports_nationality_label_is_read(line, codes):
    assert _extracted(f"PASSPORT\n{line}\n".encode()).fields["nationality"] == codes


def test_a_passport_of_a_national_of_a_high_risk_jurisdiction_counts_and_hides_its_numbers(
    make_runtime, make_state, documents
):
    doc = attached(documents, "passport.txt", f"PASSPORT\n{RAHIMI}")
    runtime = make_runtime(tenant_policy=TenantPolicy(nationality_counts=True))
    state = run(runtime, make_state("Farhad Rahimi", subject_type="person", documents=[doc]))
    assert state.high_risk_nationalities == [
        "the subject (a national of Iran, IR, by uploaded document passport.txt)"
    ]
    (seen,) = [o.model_view for o in state.observations if o.name == "extract_uploaded_document"]
    assert "K12345678" not in seen and "790312" not in seen
    assert "[REDACTED PASSPORT]" in seen


# Acme Analytics Ltd: directors Sarah Linden and Tom Becker.
BECKER = passport_zone("Becker", "Tom", "IRN", "X98765432", "710203")


def test_a_directors_passport_on_the_companys_case_gives_their_nationality(
    make_runtime, make_state, documents
):
    doc = attached(documents, "becker_passport.txt", f"PASSPORT\n{BECKER}")
    runtime = make_runtime(tenant_policy=TenantPolicy(nationality_counts=True))
    state = run(runtime, make_state(documents=[doc]))
    assert state.high_risk_nationalities == [
        "director Tom Becker (a national of Iran, IR, by uploaded document becker_passport.txt)"
    ]
    assert state.proposed_packet.risk_rating == "medium"


def test_a_directors_proof_of_address_on_the_companys_case_says_where_they_live(
    make_runtime, make_state, documents
):
    proof = (
        "PROOF OF ADDRESS\nName: Tom Becker\nResidential address: 12 Vali Asr Ave, Tehran, Iran\n"
    )
    doc = attached(documents, "becker_address.txt", proof)
    state = run(make_runtime(), make_state(documents=[doc]))
    assert state.high_risk_residences == ["director Tom Becker (Iran, IR)"]
    assert state.proposed_packet.risk_rating == "medium"


def test_the_passport_of_someone_the_company_does_not_name_counts_for_nothing(
    make_runtime, make_state, documents
):
    doc = attached(documents, "passport.txt", f"PASSPORT\n{RAHIMI}")
    runtime = make_runtime(tenant_policy=TenantPolicy(nationality_counts=True))
    state = run(runtime, make_state(documents=[doc]))
    assert state.high_risk_nationalities == []
    assert state.proposed_packet.risk_rating == "low"


def test_a_name_the_zone_repeats_from_the_page_is_one_person():
    fields = _extracted(f"PASSPORT\nName: FARHAD RAHIMI\n{RAHIMI}".encode()).fields
    assert [name.casefold() for name in fields["person_names"]] == ["farhad rahimi"]


def test_someone_elses_passport_on_a_persons_case_says_nothing_of_them(
    make_runtime, make_state, documents
):
    doc = attached(documents, "passport.txt", f"PASSPORT\n{RAHIMI}")
    runtime = make_runtime(tenant_policy=TenantPolicy(nationality_counts=True))
    state = run(runtime, make_state("Sarah Linden", subject_type="person", documents=[doc]))
    (document,) = [e for e in state.evidence if e.evidence_class == "document"]
    assert "It is about Farhad Rahimi, not Sarah Linden" in document.claim
    assert state.high_risk_nationalities == []


def test_a_zone_of_two_lines_of_36_is_read_too():
    zone = "I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<\nD231458907UTO7408122F1204159<<<<<<<6\n"
    assert redact(zone) == (
        "I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<\n"
        "[REDACTED NATIONAL ID]7UTO[REDACTED DOB]2F1204159<<<<<<<6\n"
    )
    assert _extracted(zone.encode()).fields["person_names"] == ["Anna Maria Eriksson"]


def test_a_zone_an_ocr_spaced_apart_is_read_and_redacted():
    spaced = (
        "P<IRN RAHIMI<<FARHAD<<<<<<<<<<<<<<<<<<<<<<<<<\n"
        "K12345678 4 IRN 7903122 M 3001019 <<<<<<<<<<<<<< 08\n"
    )
    assert redact(spaced) == (
        "P<IRN RAHIMI<<FARHAD<<<<<<<<<<<<<<<<<<<<<<<<<\n"
        "[REDACTED PASSPORT] 4 IRN [REDACTED DOB]2 M 3001019 <<<<<<<<<<<<<< 08\n"
    )
    assert _extracted(spaced.encode()).fields["nationality"] == ["IR"]


@pytest.mark.parametrize(
    "not_a_zone",
    [
        # No double filler parts a name: two lines of prose as long as a zone's.
        "ABCDEFGHI6UTO7408122F1204159ZE184226B0000010\nL898902C36UTO7408122F1204159ZE184226B0000010\n",
        # No document's code opens it, and a check digit fails.
        SPECIMEN_PASSPORT.replace("P<UTO", "X<UTO").replace("L898902C36", "L898902C35"),
        # A check digit fails, and no date stands where the date of birth would.
        SPECIMEN_PASSPORT.replace("L898902C36", "L898902C35").replace("7408122F", "7413122F"),
        # A check digit fails, and digits stand where the nationality would.
        SPECIMEN_PASSPORT.replace("L898902C36UTO", "L898902C35U10"),
    ],
)
def test_lines_shaped_like_a_zone_are_not_one_unless_laid_out_as_one(not_a_zone):
    assert redact(not_a_zone) == not_a_zone


def test_a_zone_whose_check_digits_hold_is_one_whatever_opens_it():
    unknown_code = SPECIMEN_PASSPORT.replace("P<UTO", "X<UTO")
    assert "[REDACTED PASSPORT]" in redact(unknown_code)
