"""Where a document says its directors and beneficial owners live ("Farhad Rahimi
(resident in Iran)"): read beside each name, by country code, and a director or owner of
the subject company living in one of the tenant's high-risk jurisdictions rules out a low
rating, with a gap naming them."""

from __future__ import annotations

import pytest
from runtime_helpers import run
from test_document_owners import HEAD, attached
from test_documents_text import _extracted

from atlas.runtime.directors import directors
from atlas.runtime.tools.builtin import residence_line
from atlas.runtime.tools.document_directors import board_table_rows, names_listed
from atlas.runtime.tools.document_owners import owner_residences
from atlas.runtime.tools.document_residences import residences_listed


@pytest.mark.parametrize(
    ("line", "residences"),
    [
        (
            "Jane Roe (resident in Iran), Omar Li (resident in the UK)",
            {"Jane Roe": "IR", "Omar Li": "GB"},
        ),
        ("Jane Roe (Iran resident) 60%; Omar Li 40%", {"Jane Roe": "IR"}),
        ("Jane Roe (country of residence: Myanmar), Omar Li", {"Jane Roe": "MM"}),
        ("ROE, Jane (residing in Burma)", {"Jane Roe": "MM"}),
        ("Jane Roe, resident in Iran; Omar Li", {"Jane Roe": "IR"}),
        ("Jane Roe (British national, living in North Korea) and Omar Li", {"Jane Roe": "KP"}),
        ("Jane Roe, lives in Iran since 2019", {"Jane Roe": "IR"}),
        ("Jane Roe, who has lived in Iran since 2019", {"Jane Roe": "IR"}),
        ("Jane Roe (lives in Tehran, Iran), Omar Li", {"Jane Roe": "IR"}),
        ("Jane Roe lives in Iran.", {"Jane Roe": "IR"}),
        # Where someone lived once is not where they live.
        ("Jane Roe (resident in Iran until 2019)", {}),
        ("Jane Roe, formerly based in Iran", {}),
        ("Jane Roe, who lived in Iran", {}),
        ("Jane Roe was resident in Iran until 2019 and now lives in the UK", {"Jane Roe": "GB"}),
        # A name of two countries, or of none, is no residence.
        ("Jane Roe (resident in Korea)", {}),
        ("Jane Roe (resident in Atlantis)", {}),
        # A country without a word of living there is a nationality, or anything else.
        ("Jane Roe (Iran), Omar Li (British)", {}),
    ],
)
def test_a_residence_is_read_beside_the_name_it_follows(line, residences):
    assert residences_listed(line, names_listed(line)) == residences


def test_the_extraction_lists_residences_of_directors_and_owners():
    result = _extracted(
        (
            HEAD + "Directors: Sarah Linden (resident in the UK), Tom Becker\n"
            "Ultimate beneficial owner: Farhad Rahimi (resident in Iran), 60%\n"
        ).encode()
    )
    assert result.fields["residences"] == ["Sarah Linden: GB", "Farhad Rahimi: IR"]


def test_a_list_of_directors_one_a_line_gives_residences_too():
    result = _extracted(
        (HEAD + "Directors:\n- Sarah Linden\n- Tom Becker (residing in Myanmar)\n").encode()
    )
    assert result.fields["directors"] == ["Sarah Linden", "Tom Becker"]
    assert result.fields["residences"] == ["Tom Becker: MM"]


def test_an_owner_living_in_a_high_risk_jurisdiction_is_not_low(
    make_runtime, make_state, documents
):
    doc = attached(
        documents,
        "kyc.txt",
        HEAD + "Ultimate beneficial owner: Farhad Rahimi (resident in Iran), 60%\n",
    )
    state = run(make_runtime(), make_state(documents=[doc]))
    packet = state.proposed_packet
    assert packet.risk_rating == "medium"
    assert (
        "Beneficial owner Farhad Rahimi (Iran, IR) lives in one of the tenant's high-risk "
        "jurisdictions: enhanced due diligence applies."
    ) in packet.open_gaps
    assert state.high_risk_residences == ["beneficial owner Farhad Rahimi (Iran, IR)"]
    (read,) = [e for e in state.evidence if e.document_id == doc.document_id and not e.declares]
    assert "registration numbers, where its directors or owners live." in read.claim


def test_a_director_the_document_says_lives_there_counts(make_runtime, make_state, documents):
    doc = attached(
        documents,
        "kyc.txt",
        HEAD + "Directors: Sarah Linden, Tom Becker (country of residence: North Korea)\n",
    )
    state = run(make_runtime(), make_state(documents=[doc]))
    assert state.high_risk_residences == ["director Tom Becker (North Korea, KP)"]
    assert state.proposed_packet.risk_rating == "medium"


def test_residences_elsewhere_leave_the_rating_to_the_evidence(make_runtime, make_state, documents):
    doc = attached(
        documents,
        "kyc.txt",
        HEAD + "Directors: Sarah Linden (resident in the UK), Tom Becker (resident in Germany)\n",
    )
    state = run(make_runtime(), make_state(documents=[doc]))
    assert state.high_risk_residences == []
    assert state.proposed_packet.risk_rating == "low"


def test_a_document_about_another_company_says_nothing_of_the_subjects_people(
    make_runtime, make_state, documents
):
    doc = attached(
        documents,
        "kyc.txt",
        "Company: Blue Harbor Logistics Inc\nDirectors: Sarah Linden (resident in Iran)\n",
    )
    state = run(make_runtime(), make_state(documents=[doc]))
    assert "Sarah Linden" in directors(state)  # by the registry: her residence is not said
    assert state.high_risk_residences == []


@pytest.mark.parametrize(
    ("line", "residence"),
    [
        ("Country of residence: Iran", ["IR"]),
        ("Residential address: 14 Ferdowsi Avenue, Tehran, Iran", ["IR"]),
        ("Home address: 2 Strand Road, Yangon, Burma", ["MM"]),
        ("Residence: GB", ["GB"]),
        # No country to read: a postcode ends the address, or a place nobody can name.
        ("Residential address: 1 High Street, London SW1A 1AA", None),
        ("Country of residence: Narnia", None),
    ],
)
def test_a_forms_residence_is_read_as_a_country(line, residence):
    result = _extracted(f"Name: Sarah Linden\n{line}\n".encode())
    assert result.fields.get("residence") == residence


def test_the_line_read_for_a_forms_residence_is_the_one_quoted():
    """The first residence label naming a country, as extraction reads it."""
    form = (
        "Name: Sarah Linden\nResidential address: 1 High Street, London SW1A 1AA\n"
        "Country of residence:   Iran\n"
    )
    assert residence_line(form) == "Country of residence: Iran"
    assert residence_line("Name: Sarah Linden\nNationality: British\n") == ""


def test_a_person_subject_living_in_a_high_risk_jurisdiction_is_not_low(
    make_runtime, make_state, documents
):
    doc = attached(documents, "decl.txt", "Name: Sarah Linden\nCountry of residence: Iran\n")
    state = run(make_runtime(), make_state("Sarah Linden", subject_type="person", documents=[doc]))
    assert state.high_risk_residences == ["the subject (Iran, IR, by uploaded document decl.txt)"]
    packet = state.proposed_packet
    assert packet.risk_rating == "medium"
    assert (
        "The subject (Iran, IR, by uploaded document decl.txt) lives in one of the tenant's "
        "high-risk jurisdictions: enhanced due diligence applies."
    ) in packet.open_gaps


def test_a_company_form_on_a_persons_case_says_nothing_of_where_they_live(
    make_runtime, make_state, documents
):
    doc = attached(
        documents, "form.txt", "Company: Acme Analytics Ltd\nCountry of residence: Iran\n"
    )
    state = run(make_runtime(), make_state("Sarah Linden", subject_type="person", documents=[doc]))
    assert state.high_risk_residences == []


def test_a_residence_line_on_a_company_form_is_nobodys(make_runtime, make_state, documents):
    doc = attached(documents, "form.txt", HEAD + "Country of residence: Iran\n")
    state = run(make_runtime(), make_state(documents=[doc]))
    assert state.high_risk_residences == []
    assert state.proposed_packet.risk_rating == "low"


@pytest.mark.parametrize(
    ("table", "residences"),
    [
        (
            "Beneficial ownership\n| Name | Nationality | Country of residence | Share |\n"
            "|---|---|---|---|\n| Farhad Rahimi | British | Iran | 60% |\n"
            "| Jane Roe | British | United Kingdom | 40% |\n",
            {"Farhad Rahimi": "IR", "Jane Roe": "GB"},
        ),
        (
            "Persons with significant control\n"
            "Name            Nationality   Country of residence   Nature of control\n"
            "Farhad Rahimi   British       Iran                   75% or more\n",
            {"Farhad Rahimi": "IR"},
        ),
        # A nationality column says nothing of where anyone lives.
        (
            "Beneficial ownership\n| Name | Nationality | Share |\n| Farhad Rahimi | Iran | 60% |\n",
            {},
        ),
    ],
)
def test_a_table_of_owners_gives_residences_in_its_own_column(table, residences):
    assert owner_residences(table) == residences


def test_an_owner_a_table_says_lives_there_counts(make_runtime, make_state, documents):
    table = (
        "Persons with significant control\n"
        "Name            Country of residence   Nature of control\n"
        "Farhad Rahimi   Iran                   75% or more\n"
    )
    doc = attached(documents, "psc.txt", HEAD + table)
    state = run(make_runtime(), make_state(documents=[doc]))
    assert state.high_risk_residences == ["beneficial owner Farhad Rahimi (Iran, IR)"]


@pytest.mark.parametrize(
    ("table", "rows"),
    [
        (
            "Board of directors\n| Name | Role | Country of residence | Appointed |\n"
            "|---|---|---|---|\n| Sarah Linden | Director | United Kingdom | 2015 |\n"
            "| Farhad Rahimi | Non-executive director | Iran | 2018 |\n",
            [("Sarah Linden", "United Kingdom", "", ""), ("Farhad Rahimi", "Iran", "", "")],
        ),
        (
            "Directors\nName            Role        Residence     Nationality\n"
            "Farhad Rahimi   Director    Iran          British\n",
            [("Farhad Rahimi", "Iran", "British", "")],
        ),
        # Without such a column, a row's cells say nothing of where anyone lives.
        (
            "Board of directors\n| Name | Role | Nationality |\n| Farhad Rahimi | Director | Iran |\n",
            [("Farhad Rahimi", "", "Iran", "")],
        ),
        (
            "Board of directors\n| Name | Role | Date of birth | Nationality |\n"
            "| Dmitri Volkov | Director | 12.05.1985 | Russian |\n",
            [("Dmitri Volkov", "", "Russian", "12.05.1985")],
        ),
    ],
)
def test_a_board_table_gives_residences_nationalities_and_births_in_their_own_columns(table, rows):
    assert [tuple(row) for row in board_table_rows(table)] == rows


def test_a_director_a_board_table_says_lives_there_counts(make_runtime, make_state, documents):
    table = (
        "Board of directors\n"
        "Name            Role        Country of residence\n"
        "Sarah Linden    Director    United Kingdom\n"
        "Tom Becker      Director    Iran\n"
    )
    result = _extracted((HEAD + table).encode())
    assert result.fields["residences"] == ["Sarah Linden: GB", "Tom Becker: IR"]
    doc = attached(documents, "board.txt", HEAD + table)
    state = run(make_runtime(), make_state(documents=[doc]))
    assert state.high_risk_residences == ["director Tom Becker (Iran, IR)"]
    assert state.proposed_packet.risk_rating == "medium"


def test_a_sentence_about_a_director_says_where_they_live(make_runtime, make_state, documents):
    text = HEAD + "Directors: Sarah Linden, Tom Becker\n"
    text += "Tom Becker, appointed in 2021, lives in Tehran, Iran. Sarah Linden lives in London.\n"
    assert _extracted(text.encode()).fields["residences"] == ["Tom Becker: IR"]
    doc = attached(documents, "board.txt", text)
    state = run(make_runtime(), make_state(documents=[doc]))
    assert state.high_risk_residences == ["director Tom Becker (Iran, IR)"]


def test_a_residence_beside_a_name_comes_before_one_in_a_sentence():
    text = HEAD + "Directors: Sarah Linden, Tom Becker (resident in the UK)\n"
    text += "Tom Becker lives in Iran.\n"
    assert _extracted(text.encode()).fields["residences"] == ["Tom Becker: GB"]


def test_a_persons_form_says_where_they_live_in_a_sentence(make_runtime, make_state, documents):
    form = "Name: Sarah Linden\nSarah Linden has lived in Iran since 2018.\n"
    assert _extracted(form.encode()).fields["residence"] == ["IR"]
    doc = attached(documents, "decl.txt", form)
    state = run(make_runtime(), make_state("Sarah Linden", subject_type="person", documents=[doc]))
    assert state.high_risk_residences == ["the subject (Iran, IR, by uploaded document decl.txt)"]
    assert state.proposed_packet.risk_rating == "medium"


def test_someone_a_document_does_not_list_is_not_placed_by_a_sentence():
    text = HEAD + "Directors: Sarah Linden\nTheir lawyer, Omar Li, lives in Iran.\n"
    assert "residences" not in _extracted(text.encode()).fields


def test_a_residence_that_ended_is_not_read():
    assert residences_listed("Jane Roe, resident in Iran until 2019", ["Jane Roe"]) == {}
    assert residences_listed("Jane Roe lives in Tehran, Iran till May", ["Jane Roe"]) == {}
