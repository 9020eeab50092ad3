"""A person's form gives their nationality ("Nationality: Iranian"); where the tenant's
policy counts nationality, a person subject who is a national of one of its high-risk
jurisdictions is not rated low, and the packet asks for enhanced due diligence. Where it
does not (the default), nationality changes nothing."""

from __future__ import annotations

import pytest
from runtime_helpers import run, settled
from test_document_owners import attached
from test_documents_text import _extracted

from atlas.runtime.countries import nationality_codes
from atlas.runtime.jurisdiction_risk import high_risk_nationalities
from atlas.runtime.policy import TenantPolicy
from atlas.runtime.result_words import result_lines
from atlas.runtime.tools.document_nationalities import nationalities_listed, read_nationality_entry
from runs.rating_grounds import grounds_of
from tests.pdfs import table_pdf

# Sarah Linden: a GB person on no list and in no article, directing the clean Acme
# Analytics Ltd.
FORM = "CLIENT DECLARATION\nName: Sarah Linden\nNationality: {}\n"
GAP = (
    "The subject (a national of Iran, IR, by uploaded document form.txt) is a national of one "
    "of the tenant's high-risk jurisdictions, which its policy counts: enhanced due diligence "
    "applies."
)


def linden(make_runtime, make_state, documents, nationality: str, *, counts: bool):
    doc = attached(documents, "form.txt", FORM.format(nationality))
    runtime = make_runtime(tenant_policy=TenantPolicy(nationality_counts=counts))
    state = make_state("Sarah Linden", subject_type="person", documents=[doc])
    return run(runtime, state)


def test_a_national_of_a_high_risk_jurisdiction_is_not_low_where_the_policy_counts_it(
    make_runtime, make_state, documents
):
    state = linden(make_runtime, make_state, documents, "British / Iranian", counts=True)
    packet = state.proposed_packet
    assert packet.risk_rating == "medium"
    assert GAP in packet.open_gaps
    assert state.high_risk_nationalities == [
        "the subject (a national of Iran, IR, by uploaded document form.txt)"
    ]
    assert (
        "nationality of a high-risk jurisdiction: the subject (a national of Iran, IR, by "
        "uploaded document form.txt)"
    ) in grounds_of(state)


def test_nationality_changes_nothing_where_the_policy_does_not_count_it(
    make_runtime, make_state, documents
):
    state = linden(make_runtime, make_state, documents, "Iranian", counts=False)
    (document,) = [e for e in state.evidence if e.evidence_class == "document"]
    assert document.nationalities == ["IR"]
    assert state.proposed_packet.risk_rating == "low"
    assert state.high_risk_nationalities == []
    assert not any("national" in gap for gap in state.proposed_packet.open_gaps)


def test_a_nationality_outside_the_high_risk_list_changes_nothing(
    make_runtime, make_state, documents
):
    state = linden(make_runtime, make_state, documents, "British", counts=True)
    assert state.proposed_packet.risk_rating == "low"


def test_a_companys_form_says_nothing_of_a_person_subjects_nationality(
    make_runtime, make_state, documents
):
    doc = attached(documents, "form.txt", "Company: Crescent Minerals Ltd\nNationality: Iranian\n")
    runtime = make_runtime(tenant_policy=TenantPolicy(nationality_counts=True))
    state = run(runtime, make_state("Sarah Linden", subject_type="person", documents=[doc]))
    assert state.high_risk_nationalities == []


@pytest.mark.parametrize(
    ("text", "codes"),
    [
        ("Iranian", ["IR"]),
        ("Iran", ["IR"]),
        ("North Korean", ["KP"]),
        ("Burmese", ["MM"]),
        ("British / Iranian", ["GB", "IR"]),
        ("Iranian and British", ["IR", "GB"]),
        ("American", ["US"]),
        # Names several countries share are not guessed.
        ("Congolese", []),
        ("Korean", []),
        ("n/a", []),
    ],
)
def test_a_nationality_is_read_as_countries(text, codes):
    assert nationality_codes(text) == codes


def test_the_extraction_reads_a_nationality_beside_another_label():
    fields = _extracted(b"Name: Sarah Linden    Nationality: Iranian\n").fields
    assert fields["nationality"] == ["IR"]


def test_the_extraction_step_names_the_countries_it_read():
    fields = {"residence": ["GB"], "nationality": ["GB", "IR"], "person_names": ["Sarah Linden"]}
    lines = result_lines("extract_uploaded_document", {"fields": fields, "document_id": "d"})
    assert "a country of residence: United Kingdom, GB" in lines
    assert "nationality: United Kingdom, GB; Iran, IR" in lines


OWNERS_TABLE = (
    "Company: Acme Analytics Ltd\nCompany number: 08812345\n"
    "Beneficial ownership\n"
    "| Name | Nationality | Share |\n|---|---|---|\n"
    "| Jane Roe | Iranian | 60% |\n| John Doe | British | 40% |\n"
)
BOARD_TABLE = (
    "Company: Acme Analytics Ltd\nCompany number: 08812345\n"
    "Board of directors\n"
    "Name            Role        Nationality\n"
    "Sarah Linden    Director    British / Iranian\n"
)


def acme(make_runtime, make_state, documents, text: str, *, counts: bool):
    doc = attached(documents, "acme.txt", text)
    runtime = make_runtime(tenant_policy=TenantPolicy(nationality_counts=counts))
    return run(runtime, make_state(documents=[doc]))


def test_a_companys_owner_or_director_of_a_high_risk_nationality_counts_where_the_policy_says(
    make_runtime, make_state, documents
):
    state = acme(
        make_runtime, make_state, documents, OWNERS_TABLE + "\n" + BOARD_TABLE, counts=True
    )
    assert state.high_risk_nationalities == [
        "director Sarah Linden (a national of Iran, IR, by uploaded document acme.txt)",
        "beneficial owner Jane Roe (a national of Iran, IR, by uploaded document acme.txt)",
    ]
    packet = state.proposed_packet
    assert packet.risk_rating == "medium"
    assert any(
        gap.endswith(
            "are nationals of the tenant's high-risk jurisdictions, which its policy counts: "
            "enhanced due diligence applies."
        )
        for gap in packet.open_gaps
    )


def test_a_companys_owners_nationality_changes_nothing_where_the_policy_does_not_count_it(
    make_runtime, make_state, documents
):
    state = acme(make_runtime, make_state, documents, OWNERS_TABLE, counts=False)
    (document,) = [e for e in state.evidence if e.evidence_class == "document"]
    assert document.nationalities_of == {"Jane Roe": ["IR"], "John Doe": ["GB"]}
    assert state.high_risk_nationalities == []
    assert state.proposed_packet.risk_rating == "low"


def test_a_director_the_reviewer_settles_out_of_the_board_no_longer_counts(
    make_runtime, make_state, documents
):
    """The registry names Sarah Linden and Tom Becker; the document's board table names
    Farhad Rahimi, an Iranian national, instead."""
    board = (
        "Company: Acme Analytics Ltd\nCompany number: 08812345\nBoard of directors\n"
        "Name            Role        Nationality\nFarhad Rahimi   Director    Iranian\n"
    )
    doc = attached(documents, "board.txt", board)
    runtime = make_runtime(tenant_policy=TenantPolicy(nationality_counts=True))
    state = run(runtime, make_state(documents=[doc]))
    assert state.high_risk_nationalities == [
        "director Farhad Rahimi (a national of Iran, IR, by uploaded document board.txt)"
    ]
    (conflict,) = [c for c in state.conflicts if c.fact == "directors"]
    state = settled(runtime, state, conflict.conflict_id, "Sarah Linden, Tom Becker")
    assert state.high_risk_nationalities == []
    assert not any("national" in gap for gap in state.proposed_packet.open_gaps)


@pytest.mark.parametrize(
    ("line", "nationals"),
    [
        ("Directors: Daniel Mercer, Farhad Rahimi (Iranian national)", {"Farhad Rahimi": ["IR"]}),
        ("Directors: Farhad Rahimi (national of Iran), Daniel Mercer", {"Farhad Rahimi": ["IR"]}),
        ("Directors: Farhad Rahimi, an Iranian citizen", {"Farhad Rahimi": ["IR"]}),
        ("Directors: Omar Li, a citizen of Singapore", {"Omar Li": ["SG"]}),
        ("UBO: Jane Roe (dual citizen of Iran), 60%", {"Jane Roe": ["IR"]}),
        (
            "UBO: Jane Roe (dual British and Iranian national), 60%",
            {"Jane Roe": ["GB", "IR"]},
        ),
        ("UBO: Jane Roe (nationality: Singaporean), 60%", {"Jane Roe": ["SG"]}),
        # A list of countries is read whole, as far as its words name countries.
        ("Directors: Farhad Rahimi, a citizen of Iran and the UK", {"Farhad Rahimi": ["IR", "GB"]}),
        (
            "Directors: Farhad Rahimi (nationality: Iranian/British)",
            {"Farhad Rahimi": ["IR", "GB"]},
        ),
        ("Directors: Omar Li, a citizen of Trinidad and Tobago", {"Omar Li": ["TT"]}),
        ("Directors: Omar Li, a citizen of both Iran and Canada", {"Omar Li": ["IR", "CA"]}),
        ("Directors: Farhad Rahimi (North Korean national)", {"Farhad Rahimi": ["KP"]}),
        # The name a nationality follows is the one it is said of, not the next one.
        ("Directors: Farhad Rahimi (Iranian national), Daniel Mercer", {"Farhad Rahimi": ["IR"]}),
        (
            "Directors: Omar Li, a citizen of Iran and of the United Kingdom",
            {"Omar Li": ["IR", "GB"]},
        ),
        ("Directors: Farhad Rahimi, a citizen of Iran since 2010", {"Farhad Rahimi": ["IR"]}),
        ("Directors: Farhad Rahimi, an Iranian-born British citizen", {"Farhad Rahimi": ["GB"]}),
        ("Directors: Jane Roe (a U.S. citizen)", {"Jane Roe": ["US"]}),
        (
            "Directors: Farhad Rahimi (holds Iranian and British passports)",
            {"Farhad Rahimi": ["IR", "GB"]},
        ),
        (
            "Directors: Farhad Rahimi (Iranian passport No. K12345678)",
            {"Farhad Rahimi": ["IR"]},
        ),
        # A nationality someone had is not one they hold.
        ("Directors: Farhad Rahimi, a former Iranian national", {}),
        ("Directors: Farhad Rahimi (formerly a citizen of Iran)", {}),
        (
            "Directors: Farhad Rahimi, who renounced his Iranian citizenship, a British citizen",
            {"Farhad Rahimi": ["GB"]},
        ),
        # Adjectives alone in brackets after the name; not a country's name, which may be
        # where they live, nor a name that only begins with an adjective.
        (
            "Directors: Farhad Rahimi (Iranian), Jane Roe (British)",
            {"Farhad Rahimi": ["IR"], "Jane Roe": ["GB"]},
        ),
        ("Directors: Jane Roe (British/Iranian, CEO)", {"Jane Roe": ["GB", "IR"]}),
        ("Directors: Jane Roe (dual British and Iranian)", {"Jane Roe": ["GB", "IR"]}),
        ("Directors: Farhad Rahimi (Iran), Jane Roe (UK)", {}),
        ("Directors: Jane Roe (British Petroleum)", {}),
        ("Directors: Jane Roe (Iranian-born)", {}),
        ("Directors: Jane Roe (CEO; Iranian)", {}),
        # Words that name no one country, or a bank's name, say nothing of anyone.
        ("Directors: Farhad Rahimi (senior citizen)", {}),
        ("Directors: Daniel Mercer\nBank: The National Bank", {}),
    ],
)
def test_a_nationality_said_beside_a_name_is_read(line, nationals):
    text = f"Company: Acme Analytics Ltd\n{line}\n"
    entries = _extracted(text.encode()).fields.get("nationalities", [])
    assert dict(map(read_nationality_entry, entries)) == nationals


def test_a_nationality_line_of_any_length_is_read_only_as_far_as_nationalities_go():
    assert nationality_codes("Iranian / " + "xx/" * 1_000_000 + "British") == ["IR"]


BOARD = "Company: Acme Analytics Ltd\nDirectors: Jane Roe, Farhad Rahimi\n"


@pytest.mark.parametrize(
    ("prose", "nationals"),
    [
        (
            "Farhad Rahimi, appointed in 2021, is an Iranian national.",
            {"Farhad Rahimi": ["IR"]},
        ),
        ("Mr Rahimi holds Iranian citizenship.", {"Farhad Rahimi": ["IR"]}),
        (
            "The board includes the Iranian national Farhad Rahimi and Jane Roe.",
            {"Farhad Rahimi": ["IR"]},
        ),
        (
            "Jane Roe is a citizen of the United Kingdom. Farhad Rahimi is a dual Iranian and "
            "British national.",
            {"Jane Roe": ["GB"], "Farhad Rahimi": ["IR", "GB"]},
        ),
        (
            "Jane Roe, an Iranian national who hired Farhad Rahimi, chairs the board.",
            {"Jane Roe": ["IR"]},
        ),
        # Adjectives alone, right after the name and to the clause's end.
        ("Farhad Rahimi is Iranian.", {"Farhad Rahimi": ["IR"]}),
        (
            "Jane Roe is British and Iranian, and Farhad Rahimi is also British.",
            {"Jane Roe": ["GB", "IR"], "Farhad Rahimi": ["GB"]},
        ),
        ("Jane Roe is both British and Iranian; she chairs the board.", {"Jane Roe": ["GB", "IR"]}),
        # Not where anything else follows or stands between.
        ("Jane Roe is British-born.", {}),
        ("Jane Roe is Iranian by birth.", {}),
        ("Jane Roe is British Petroleum's chief financial officer.", {}),
        ("Jane Roe is not British.", {}),
        ("Jane Roe was Iranian.", {}),
        ("Jane Roe is the Iranian partner of the firm.", {}),
        ("Jane Roe, the chair, is British.", {}),
        ("The company is British.", {}),
        # A nationality word that goes on about something else says nothing of anyone.
        ("Jane Roe advises the Iranian National Oil Company.", {}),
        ("Farhad Rahimi coached the Iranian national team.", {}),
        # Someone the document does not list as a director or owner is not read.
        ("Their lawyer, Omar Li, is a Singaporean national.", {}),
    ],
)
def test_a_nationality_said_in_a_sentence_about_a_director_is_read(prose, nationals):
    entries = _extracted((BOARD + prose + "\n").encode()).fields.get("nationalities", [])
    assert dict(map(read_nationality_entry, entries)) == nationals


def test_a_nationality_beside_a_name_comes_before_one_in_a_sentence():
    text = BOARD.replace("Farhad Rahimi", "Farhad Rahimi (British national)")
    text += "Farhad Rahimi is an Iranian national.\n"
    entries = _extracted(text.encode()).fields["nationalities"]
    assert dict(map(read_nationality_entry, entries)) == {"Farhad Rahimi": ["GB"]}


def test_a_persons_form_gives_their_nationality_by_an_adjective():
    form = "CLIENT DECLARATION\nName: Sarah Linden\nSarah Linden is British and Iranian.\n"
    assert _extracted(form.encode()).fields["nationality"] == ["GB", "IR"]


def test_a_persons_form_gives_their_nationality_in_a_sentence(make_runtime, make_state, documents):
    form = "CLIENT DECLARATION\nName: Sarah Linden\nSarah Linden is a citizen of the United "
    form += "Kingdom and Iran.\n"
    fields = _extracted(form.encode()).fields
    assert fields["nationality"] == ["GB", "IR"]
    assert "nationalities" not in fields  # those are a company's directors' and owners'
    doc = attached(documents, "form.txt", form)
    runtime = make_runtime(tenant_policy=TenantPolicy(nationality_counts=True))
    state = run(runtime, make_state("Sarah Linden", subject_type="person", documents=[doc]))
    assert state.proposed_packet.risk_rating == "medium"
    assert GAP in state.proposed_packet.open_gaps


def test_a_sentence_a_pdf_wraps_over_lines_is_read_whole():
    pdf = table_pdf(
        [["Company: Acme Analytics Ltd"], ["Directors: Jane Roe, Farhad Rahimi"]],
        [40],
        [
            "The board met in March. Farhad Rahimi, appointed in 2021, is an",
            "Iranian national and has lived in Tehran,",
            "Iran since 2015.",
        ],
    )
    fields = _extracted(pdf, "application/pdf").fields
    assert fields["nationalities"] == ["Farhad Rahimi: IR"]
    assert fields["residences"] == ["Farhad Rahimi: IR"]


def test_prose_of_any_length_is_read_only_a_sentence_at_a_time():
    text = BOARD + ("Farhad Rahimi is an Iranian national " * 200_000) + "\n\n"
    text += "Farhad Rahimi is a British national.\n"
    entries = _extracted(text.encode()).fields["nationalities"]
    assert dict(map(read_nationality_entry, entries)) == {"Farhad Rahimi": ["GB"]}


def test_a_nationality_is_said_of_no_one_the_line_does_not_name():
    assert nationalities_listed("a citizen of Iran", ["Omar Li"]) == {}
    assert nationalities_listed("Hired by the Iranian national.", ["Omar Li"]) == {}


# Caspian Bridge Logistics Ltd (GB): its registry record gives each director's nationality;
# Reza Tehrani lives in the UK and is a national of Iran and the UK.
CASPIAN = "Caspian Bridge Logistics"
TEHRANI = "director Reza Tehrani (a national of Iran, IR, by company registry (GB))"


def test_a_directors_nationality_on_the_registry_counts_where_the_policy_says(
    make_runtime, make_state
):
    runtime = make_runtime(tenant_policy=TenantPolicy(nationality_counts=True))
    state = run(runtime, make_state(CASPIAN))
    assert state.high_risk_nationalities == [TEHRANI]
    assert state.high_risk_residences == []
    assert state.proposed_packet.risk_rating == "medium"
    (registry,) = [e for e in state.evidence if e.evidence_class == "registry"]
    assert "Reza Tehrani (lives in GB; national of IR, GB)" in registry.claim


def test_a_directors_nationality_on_the_registry_changes_nothing_by_default(
    make_runtime, make_state
):
    state = run(make_runtime(), make_state(CASPIAN))
    assert state.high_risk_nationalities == []
    assert state.proposed_packet.risk_rating == "low"


def test_another_companys_registry_record_says_nothing_of_the_subjects_directors(
    make_runtime, make_state
):
    runtime = make_runtime(tenant_policy=TenantPolicy(nationality_counts=True))
    state = run(runtime, make_state(CASPIAN))
    for item in state.evidence:
        if item.evidence_class == "registry":
            item.source_id = "registry:co-namesake-gb"
    assert high_risk_nationalities(state) == []
