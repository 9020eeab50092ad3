"""A person subject's own documents give a date of birth; its year is weighed against the
registry person the subject was matched to. A passport born in another year is a conflict
for a reviewer, and the packet says the match may be on a namesake, naming the registry
persons of that name born in the document's year."""

from __future__ import annotations

import json

import pytest
from runtime_helpers import answer, run, settled, signed_off, tool_arguments
from test_document_owners import attached
from test_documents_text import _extracted

from atlas.runtime.adapters.playbook import (
    _born_as_documents_say,
    _namesakes_born_when_documents_say,
)
from atlas.runtime.birth_year_disputes import hits_born_in_other_years
from atlas.runtime.birth_years import FACT, namesake_gaps, subject_birth_year_facts
from atlas.runtime.context import project_state
from atlas.runtime.namesakes import candidate_words
from atlas.runtime.tools.document_birth_years import (
    birth_years_labelled,
    birth_years_listed,
    year_of_birth,
    year_written,
)
from tests.mrz import passport_zone

# Two registry persons named Sergei Markov: RU, born 1961 (on a sanctions list), and GB,
# born 1990.
FORM = "CLIENT IDENTIFICATION FORM\nFull name: Sergei Markov\nDate of birth: {}\n"
NAMESAKE_GAP = (
    "A document of the subject's own gives a year of birth (1990) other than that of Sergei "
    "Markov (RU, born 1961), the registry person they were matched to: the match, and what "
    "was found on it, may be on a namesake. Registry persons of the subject's name born "
    "then: Sergei Markov (GB, born 1990) [pe-sergei-markov-gb]."
)


@pytest.mark.parametrize(
    ("written", "year"),
    [
        ("14 March 1990", 1990),
        ("14.03.1975", 1975),
        ("1970-01-02", 1970),
        ("19700102", 1970),
        ("March 12, 1968", 1968),
        ("3rd of May 1981", 1981),
        ("14/03/75", 1975),
        ("14/03/09", 2009),  # a two-digit year is the latest that has been
        ("900314", 1990),  # a passport zone's YYMMDD
        ("9 0 0 3 1 4", 1990),  # ... as an OCR spaced it out
        ("200314", 2020),
        ("1890-01-01", None),  # nobody alive was born then
        ("2031-01-01", None),  # not yet
        ("unknown", None),
        ("14 March", None),
    ],
)
def test_the_year_a_date_of_birth_gives(written, year):
    assert year_written(written, 2026) == year


def test_a_documents_dates_of_birth_give_a_year_when_they_agree():
    assert year_of_birth(["14 March 1990", "900314"], 2026) == 1990
    assert year_of_birth(["14 March 1990", "2 May 1985"], 2026) is None  # a spouse's too
    assert year_of_birth(["14 March 1990", "unknown"], 2026) is None
    assert year_of_birth([], 2026) is None


def markov(make_runtime, make_state, documents, *texts: str, jurisdiction: str | None = "RU"):
    runtime = make_runtime()
    docs = [attached(documents, f"form{n}.txt", text) for n, text in enumerate(texts, start=1)]
    state = make_state(
        "Sergei Markov", subject_type="person", jurisdiction=jurisdiction, documents=docs
    )
    return runtime, run(runtime, state)


def birth_conflict(state):
    return next(c for c in state.conflicts if c.fact == FACT)


def test_a_form_born_in_another_year_than_the_match_is_a_conflict_naming_the_namesake(
    make_runtime, make_state, documents, store
):
    _, state = markov(make_runtime, make_state, documents, FORM.format("14 March 1990"))
    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    conflict = birth_conflict(state)
    assert conflict.status == "open"
    assert [(v.value, v.source_id) for v in conflict.values] == [
        ("1961", "registry:pe-sergei-markov-ru"),
        ("1990", "document:doc-form1.txt"),
    ]
    assert conflict.values[1].excerpt == "A date of birth in 1990 (the date itself is redacted)."
    packet = state.proposed_packet
    assert "Unresolved conflict on year of birth: sources disagree." in packet.open_gaps
    assert NAMESAKE_GAP in packet.open_gaps
    # The match was made in the case's country: the subject's name was then looked up
    # everywhere, which found the namesake born in 1990.
    assert tool_arguments(store, state, "resolve_entity") == [
        {"name": "Sergei Markov", "jurisdiction": "RU", "entity_type": "person"},
        {"name": "Sergei Markov", "entity_type": "person"},
    ]
    # The namesake's record is no finding about the subject, and the date stays redacted.
    assert not any("GB" in finding.claim for finding in packet.findings)
    assert "14 March" not in json.dumps(project_state(state), default=str)


def test_only_the_subjects_registry_candidates_are_named_as_namesakes(
    make_runtime, make_state, documents
):
    _, state = markov(make_runtime, make_state, documents, FORM.format("14 March 1990"))
    namesake = next(e for e in state.evidence if e.candidate_id == "pe-sergei-markov-gb")
    someone_else = namesake.model_copy(
        update={
            "candidate_id": "",
            "source_id": "registry:pe-anna-markova",
            "claim": "Registry record: Anna Markova (GB), born 1990.",
        }
    )
    state.evidence.append(someone_else)
    assert namesake_gaps(state) == [NAMESAKE_GAP]


def test_documents_agreeing_with_each_other_are_named_together(make_runtime, make_state, documents):
    zone = passport_zone("Markov", "Sergei", "GBR", "533401927", "900314")
    texts = (FORM.format("14 March 1990"), f"PASSPORT\n{zone}")
    _, state = markov(make_runtime, make_state, documents, *texts)
    assert [v.value for v in birth_conflict(state).values] == ["1961", "1990", "1990"]
    plural = NAMESAKE_GAP.replace(
        "A document of the subject's own gives", "Documents of the subject's own give"
    )
    assert plural in state.proposed_packet.open_gaps


def test_a_form_born_in_the_matchs_year_raises_nothing(make_runtime, make_state, documents, store):
    _, state = markov(make_runtime, make_state, documents, FORM.format("02.11.1961"))
    assert not any(c.fact == FACT for c in state.conflicts)
    assert not any("namesake" in gap for gap in state.proposed_packet.open_gaps)
    assert len(tool_arguments(store, state, "resolve_entity")) == 1


def test_a_passport_zone_gives_the_year_too(make_runtime, make_state, documents):
    zone = passport_zone("Markov", "Sergei", "GBR", "533401927", "900314")
    _, state = markov(make_runtime, make_state, documents, f"PASSPORT\n{zone}")
    assert [v.value for v in birth_conflict(state).values] == ["1961", "1990"]


def test_a_zones_misread_date_of_birth_gives_no_year(make_runtime, make_state, documents):
    zone = passport_zone("Markov", "Sergei", "GBR", "533401927", "900314")
    misread = zone.replace("9003141", "9003142")  # the date's check digit, misread
    assert misread != zone
    _, state = markov(make_runtime, make_state, documents, f"PASSPORT\n{misread}")
    assert not any(c.fact == FACT for c in state.conflicts)
    # The date printed above the zone still gives it.
    printed = f"PASSPORT\nDate of birth: 14 MAR 1990\n{misread}"
    _, state = markov(make_runtime, make_state, documents, printed)
    assert [v.value for v in birth_conflict(state).values] == ["1961", "1990"]


def test_a_form_giving_two_years_says_nothing_of_the_subjects(make_runtime, make_state, documents):
    text = FORM.format("14 March 1990") + "Spouse: Anna Markova\nDate of birth: 2 May 1985\n"
    _, state = markov(make_runtime, make_state, documents, text)
    assert not any(c.fact == FACT for c in state.conflicts)


def test_another_persons_form_says_nothing_of_the_subjects_year(
    make_runtime, make_state, documents
):
    text = "Full name: Anna Markova\nDate of birth: 2 May 1985\n"
    _, state = markov(make_runtime, make_state, documents, text)
    assert not any(c.fact == FACT for c in state.conflicts)


def test_a_companys_form_on_a_persons_case_says_nothing_of_their_year(
    make_runtime, make_state, documents
):
    text = "Company: Volga Petrochem Export JSC\nDate of birth: 14 March 1990\n"
    _, state = markov(make_runtime, make_state, documents, text)
    assert not any(c.fact == FACT for c in state.conflicts)


def test_only_namesakes_born_in_the_documents_years_are_named(make_runtime, make_state, documents):
    """John Smith: GB, born 1965, and US, born 1990. Two forms give 1972 and 1965."""
    runtime = make_runtime()
    docs = [
        attached(documents, "a.txt", "Full name: John Smith\nDate of birth: 1 May 1972\n"),
        attached(documents, "b.txt", "Full name: John Smith\nDate of birth: 1965-02-03\n"),
    ]
    state = make_state("John Smith", subject_type="person", jurisdiction="GB", documents=docs)
    state = run(runtime, state)
    assert [v.value for v in birth_conflict(state).values] == ["1965", "1972", "1965"]
    assert (
        "A document of the subject's own gives a year of birth (1972) other than that of John "
        "Smith (GB, born 1965), the registry person they were matched to: the match, and what "
        "was found on it, may be on a namesake."
    ) in state.proposed_packet.open_gaps


def test_two_forms_disagreeing_with_no_match_are_a_conflict_without_a_namesake(
    make_runtime, make_state, documents
):
    """Noor Haddad is on no register: the forms still disagree with each other."""
    runtime = make_runtime()
    docs = [
        attached(documents, "a.txt", "Full name: Noor Haddad\nDate of birth: 1 May 1980\n"),
        attached(documents, "b.txt", "Full name: Noor Haddad\nDate of birth: 1 May 1981\n"),
    ]
    state = run(runtime, make_state("Noor Haddad", subject_type="person", documents=docs))
    assert state.selected_entity is None
    assert [v.value for v in birth_conflict(state).values] == ["1980", "1981"]
    assert not any("namesake" in gap for gap in state.proposed_packet.open_gaps)


def test_the_analysts_pick_is_weighed_against_the_forms_year(make_runtime, make_state, documents):
    """Without a country the name is ambiguous: the analyst picks the Russian one, whose
    year the form contradicts, and both records were read already."""
    runtime, state = markov(
        make_runtime, make_state, documents, FORM.format("14 March 1990"), jurisdiction=None
    )
    assert state.status == "waiting_for_input"
    state = answer(runtime, state, "the Russian one")
    assert state.selected_entity.entity_id == "pe-sergei-markov-ru"
    assert NAMESAKE_GAP in state.proposed_packet.open_gaps


def test_a_reviewer_settling_on_the_matchs_year_clears_the_namesake_gap(
    make_runtime, make_state, documents
):
    runtime, state = markov(make_runtime, make_state, documents, FORM.format("14 March 1990"))
    state = settled(runtime, state, birth_conflict(state).conflict_id, "1961")
    assert not any("namesake" in gap for gap in state.proposed_packet.open_gaps)


def test_a_reviewer_settling_on_the_forms_year_says_the_match_is_on_someone_else(
    make_runtime, make_state, documents
):
    runtime, state = markov(make_runtime, make_state, documents, FORM.format("14 March 1990"))
    state = settled(runtime, state, birth_conflict(state).conflict_id, "1990")
    assert (
        "A reviewer settled the subject's year of birth as 1990, not that of Sergei Markov "
        "(RU, born 1961), the registry person they were matched to: the match is on someone "
        "else, and what was found on it is not about the subject. Send the packet back: the "
        "analyst corrects the subject ('Correct the subject' on the case page, with the "
        "country of the right person) and the research starts afresh."
    ) in state.proposed_packet.open_gaps


def test_the_wider_search_is_made_once_and_only_after_a_search_in_one_country():
    conflict = {"fact": FACT, "status": "open"}
    base = {
        "case": {"subject": "Sergei Markov", "subject_type": "person", "jurisdiction": "RU"},
        "conflicts": [conflict],
        "candidates_registered_elsewhere": 1,
        "executed_actions": [],
        "denied_actions": [],
        "last_observations": [],
    }
    assert _namesakes_born_when_documents_say(base, {}).arguments == {
        "name": "Sergei Markov",
        "entity_type": "person",
    }
    done = {
        **base,
        "executed_actions": [
            {
                "tool": "resolve_entity",
                "arguments": {"name": "Sergei Markov", "entity_type": "person"},
            }
        ],
    }
    assert _namesakes_born_when_documents_say(done, {}) is None
    nowhere = {**base, "case": {**base["case"], "jurisdiction": None}}
    assert _namesakes_born_when_documents_say(nowhere, {}) is None
    none_left_out = {**base, "candidates_registered_elsewhere": 0}
    assert _namesakes_born_when_documents_say(none_left_out, {}) is None
    settled_conflict = {**base, "conflicts": [{**conflict, "status": "resolved"}]}
    assert _namesakes_born_when_documents_say(settled_conflict, {}) is None


def test_an_ambiguous_name_is_asked_about_after_the_forms_are_read(
    make_runtime, make_state, documents, store
):
    _, state = markov(
        make_runtime, make_state, documents, FORM.format("14 March 1990"), jurisdiction=None
    )
    assert state.status == "waiting_for_input"
    assert [o.name for o in state.observations if o.source == "tool"] == [
        "resolve_entity",
        "extract_uploaded_document",
    ]
    question = state.pending_question.question
    assert (
        "Candidates: 1. Sergei Markov (GB, born 1990) [pe-sergei-markov-gb]; 2. Sergei Markov "
        "(RU, born 1961) [pe-sergei-markov-ru]. The uploaded document “form1.txt” gives a date "
        "of birth in 1990: only candidate 1 was born that year. If none of them is"
    ) in question
    assert "14 March" not in question


def test_a_form_born_in_no_candidates_year_says_so(make_runtime, make_state, documents):
    _, state = markov(
        make_runtime, make_state, documents, FORM.format("1975-06-01"), jurisdiction=None
    )
    assert (
        "The uploaded document “form1.txt” gives a date of birth in 1975: none of them was "
        "born that year."
    ) in state.pending_question.question


def test_forms_that_disagree_tell_the_candidates_apart_by_nothing(
    make_runtime, make_state, documents
):
    texts = (FORM.format("14 March 1990"), FORM.format("2 November 1961"))
    _, state = markov(make_runtime, make_state, documents, *texts, jurisdiction=None)
    question = state.pending_question.question
    assert "date of birth" not in question
    assert "Candidates: 1." in question


@pytest.mark.parametrize(
    ("said", "hint"),
    [
        ({}, ""),
        (
            {"1990": ["a.txt", "b.txt"]},
            " The subject's own documents give a date of birth in 1990: candidates 1 and 3 "
            "were born that year.",
        ),
    ],
)
def test_which_candidates_were_born_as_the_documents_say(said, hint):
    candidates = [{"born_year": 1990}, {"born_year": 1961}, {"born_year": 1990}]
    assert _born_as_documents_say({"birth_years_in_documents": said}, candidates) == hint


# --- the people a document lists ---------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "names", "years"),
    [
        (
            "Richard Miles 14.03.1975, Jane Roe 02.05.1980",
            ["Richard Miles", "Jane Roe"],
            {"Richard Miles": 1975, "Jane Roe": 1980},
        ),
        (
            "Dmitri Volkov (born 12 May 1985), Colin Marsh (b. 1971)",
            ["Dmitri Volkov", "Colin Marsh"],
            {"Dmitri Volkov": 1985, "Colin Marsh": 1971},
        ),
        ("Jane Roe, British, DOB: 1980-05-02", ["Jane Roe"], {"Jane Roe": 1980}),
        ("Jane Roe (born on March 3, 1966)", ["Jane Roe"], {"Jane Roe": 1966}),
        ("VOLKOV, Dmitri 1985-05-12", ["Dmitri Volkov"], {"Dmitri Volkov": 1985}),
        # Dates that are not births: after other words about the person, or a year alone.
        ("Jane Roe, appointed 14.03.2019", ["Jane Roe"], {}),
        ("Jane Roe since 2015, born 1970", ["Jane Roe"], {}),
        ("Jane Roe 2019", ["Jane Roe"], {}),
        # Only before the next name: Colin Marsh's date is not Jane Roe's.
        ("Jane Roe, Colin Marsh 03.06.1971", ["Jane Roe", "Colin Marsh"], {"Colin Marsh": 1971}),
        # Too far after the name to be of it.
        ("Jane Roe " + "Xy " * 22 + "03.06.1971", ["Jane Roe"], {}),
        # A name the line does not hold.
        ("Colin Marsh 03.06.1971", ["Jane Roe"], {}),
    ],
)
def test_a_birth_date_beside_a_name_gives_its_year(line, names, years):
    assert birth_years_listed(line, names) == years


def test_a_long_run_of_capitals_before_a_date_is_read_at_once():
    line = "Jane Roe " + "A" * 50_000 + " 1"
    assert birth_years_listed(line, ["Jane Roe"]) == {}


def test_the_extraction_lists_the_years_its_directors_and_owners_were_born_in():
    text = (
        "Company: Harrow Bay Freight Ltd\n"
        "Directors: Colin Marsh (born 3 June 1971), Anita Rao\n"
        "UBO: Dmitri Volkov (DOB 1985-05-12)\n"
    )
    fields = _extracted(text).fields
    assert fields["birth_years"] == ["Colin Marsh: 1971", "Dmitri Volkov: 1985"]
    assert fields["dates_of_birth"] == ["3 June 1971", "1985-05-12"]


def test_a_board_tables_birth_column_gives_the_years():
    text = (
        "Company: Fjordline Seafood AS\nBoard of directors\n"
        "| Name | Role | Date of birth |\n| Henrik Solberg | Director | 04.02.1972 |\n"
    )
    assert _extracted(text).fields["birth_years"] == ["Henrik Solberg: 1972"]


def test_an_owners_tables_birth_column_gives_the_years():
    text = (
        "Company: Harrow Bay Freight Ltd\nBeneficial ownership\n"
        "| Name | Date of birth | Share |\n|---|---|---|\n"
        "| Dmitri Volkov | 12.05.1985 | 60% |\n| Jane Roe | unknown | 40% |\n"
    )
    assert _extracted(text).fields["birth_years"] == ["Dmitri Volkov: 1985"]


HARROW = "Company: Harrow Bay Freight Ltd\nDirectors: Colin Marsh, Anita Rao\n"
VOLKOV_HITS = (
    "The sanctions hits on beneficial owner Dmitri Volkov (Synthetic OFAC SDN, Synthetic UK "
    "HMT Consolidated) are on entries listing a date of birth in 1968, but the uploaded "
    "document “{}” gives beneficial owner Dmitri Volkov "
    "a date of birth in 1985: they may be on a namesake, for a reviewer to confirm or mark a "
    "false positive."
)


def harrow(make_runtime, make_state, documents, *texts: str):
    docs = [attached(documents, f"doc{n}.txt", text) for n, text in enumerate(texts, start=1)]
    state = make_state("Harrow Bay Freight Ltd", jurisdiction="GB", documents=docs)
    return run(make_runtime(), state)


def test_an_owner_born_in_another_year_than_the_listed_person_may_be_a_namesake(
    make_runtime, make_state, documents
):
    state = harrow(make_runtime, make_state, documents, HARROW + "UBO: Dmitri Volkov (b. 1985)\n")
    packet = state.proposed_packet
    assert VOLKOV_HITS.format("doc1.txt") in packet.open_gaps
    assert packet.risk_rating == "high"  # the hits count until a reviewer marks them


def test_an_owner_born_in_the_listed_persons_year_raises_nothing(
    make_runtime, make_state, documents
):
    state = harrow(make_runtime, make_state, documents, HARROW + "UBO: Dmitri Volkov (b. 1968)\n")
    assert not any("date of birth in" in gap for gap in state.proposed_packet.open_gaps)


def test_an_owners_own_passport_gives_their_year(make_runtime, make_state, documents):
    passport = "PASSPORT\nName: Dmitri Volkov\nDate of birth: 12.05.1985\n"
    state = harrow(make_runtime, make_state, documents, HARROW + "UBO: Dmitri Volkov\n", passport)
    assert VOLKOV_HITS.format("doc2.txt") in state.proposed_packet.open_gaps


def test_documents_disagreeing_on_a_persons_year_say_nothing_of_a_namesake(
    make_runtime, make_state, documents
):
    texts = (HARROW + "UBO: Dmitri Volkov (b. 1985)\n", HARROW + "UBO: Dmitri Volkov (b. 1968)\n")
    state = harrow(make_runtime, make_state, documents, *texts)
    assert not any("date of birth in" in gap for gap in state.proposed_packet.open_gaps)


def test_a_director_on_the_register_born_in_another_year_may_be_a_namesake(
    make_runtime, make_state, documents
):
    text = "Company: Fjordline Seafood AS\nDirectors: Henrik Solberg (born 1972), Ingrid Berg\n"
    doc = attached(documents, "board.txt", text)
    state = run(
        make_runtime(), make_state("Fjordline Seafood AS", jurisdiction="NO", documents=[doc])
    )
    assert (
        "The match on the register of politically exposed persons on director Henrik Solberg "
        "(Register of politically exposed persons) is on an entry linked to a registry person "
        "born in 1966 [pe-henrik-solberg], but the uploaded document “board.txt” gives "
        "director Henrik Solberg a date of birth in 1972: it may be on a namesake, for a "
        "reviewer to confirm or mark a false positive."
    ) in state.proposed_packet.open_gaps


def test_a_hit_by_name_on_an_unmatched_person_is_weighed_against_their_documents(
    make_runtime, make_state, documents
):
    runtime, state = markov(
        make_runtime, make_state, documents, FORM.format("14 March 1990"), jurisdiction=None
    )
    state = answer(runtime, state, "none of them")
    assert state.selected_entity is None
    assert (
        "The sanctions hit on the subject (Synthetic OFAC SDN) is on an entry listing a date "
        "of birth in 1961, but the uploaded document “form1.txt” gives the subject a date of birth in 1990: it may be on a namesake, for "
        "a reviewer to confirm or mark a false positive."
    ) in state.proposed_packet.open_gaps


def test_a_year_no_living_person_was_born_in_is_not_weighed(make_runtime, make_state, documents):
    state = harrow(make_runtime, make_state, documents, HARROW + "UBO: Dmitri Volkov (b. 2031)\n")
    assert not any("date of birth in" in gap for gap in state.proposed_packet.open_gaps)


def test_a_hit_on_someone_else_of_the_subjects_is_not_weighed_against_the_subjects_year(
    make_runtime, make_state, documents
):
    runtime, state = markov(
        make_runtime, make_state, documents, FORM.format("14 March 1990"), jurisdiction=None
    )
    state = answer(runtime, state, "none of them")
    hit = next(e for e in state.evidence if e.linked_born_year)
    hit.about = "co-director Sergei Markov"
    assert not any("date of birth in" in gap for gap in hits_born_in_other_years(state))


def test_one_lists_entries_on_a_person_are_named_once(make_runtime, make_state, documents):
    runtime, state = markov(
        make_runtime, make_state, documents, FORM.format("14 March 1990"), jurisdiction=None
    )
    state = answer(runtime, state, "none of them")
    hit = next(e for e in state.evidence if e.linked_born_year)
    state.evidence.append(hit.model_copy(update={"source_id": "sanctions:sdn-99999"}))
    (gap,) = hits_born_in_other_years(state)
    assert "(Synthetic OFAC SDN) is on an entry" in gap


@pytest.mark.parametrize(
    ("text", "years"),
    [
        ("Signatory: Helen Carter\nDate of birth: 14/03/1975\n", {"Helen Carter": 1975}),
        (
            "Director: Colin Marsh\nNationality: British\nDate of birth: 03.06.1971\n\n"
            "Director: Anita Rao\nDOB: 1980-01-02\n",
            {"Colin Marsh": 1971, "Anita Rao": 1980},
        ),
        # A line naming several people says whose it is of none.
        ("Directors: Helen Carter, Colin Marsh\nDate of birth: 14/03/1975\n", {}),
        ("Signatory: Helen Carter and Jane Doe\nDate of birth: 14/03/1975\n", {}),
        # Not across a blank line, nor from further above than a few lines.
        ("Signatory: Helen Carter\n\nDate of birth: 14/03/1975\n", {}),
        ("Signatory: Helen Carter\na\nb\nc\nDate of birth: 14/03/1975\n", {}),
        # Someone the document does not list as a director or owner, even below one it does.
        ("Name: Jane Doe\nDate of birth: 14/03/1975\n", {}),
        ("Director: Colin Marsh\nName: Jane Doe\nDate of birth: 14/03/1975\n", {}),
    ],
)
def test_a_date_of_birth_line_below_a_line_naming_one_person_is_theirs(text, years):
    assert birth_years_labelled(text, ["Helen Carter", "Colin Marsh", "Anita Rao"]) == years


def test_a_signatorys_date_of_birth_line_gives_their_year():
    text = (
        "Company: Meridian Shipping Holdings Ltd\nDirectors: Helen Carter, James Whitfield\n"
        "Signatory: Helen Carter\nDate of birth: 14/03/1975\n"
    )
    assert _extracted(text).fields["birth_years"] == ["Helen Carter: 1975"]


def test_an_owners_date_of_birth_line_disputes_the_hits_on_him(make_runtime, make_state, documents):
    text = HARROW + "UBO: Dmitri Volkov\nDate of birth: 12.05.1985\n"
    state = harrow(make_runtime, make_state, documents, text)
    assert VOLKOV_HITS.format("doc1.txt") in state.proposed_packet.open_gaps


# The GB registry's Oleg Danilov, born 1987, has the name of a person on the Synthetic UK
# HMT list (hmt-8124) born in 1959 or 1960, an entry linked to no registry person.
DANILOV_HIT = (
    "The sanctions hit on the subject (Synthetic UK HMT Consolidated) is on an entry listing a "
    "date of birth in 1959 or 1960, but {}: it may be on a namesake, for a reviewer to confirm "
    "or mark a false positive."
)


DANILOV_FORM = FORM.replace("Sergei Markov", "Oleg Danilov")


def danilov(make_runtime, make_state, documents, *texts: str, jurisdiction: str | None = "GB"):
    docs = [attached(documents, f"form{n}.txt", text) for n, text in enumerate(texts, start=1)]
    state = make_state(
        "Oleg Danilov", subject_type="person", jurisdiction=jurisdiction, documents=docs
    )
    return run(make_runtime(), state)


def test_a_hit_listing_other_years_than_the_matched_persons_may_be_a_namesake(
    make_runtime, make_state, documents
):
    state = danilov(make_runtime, make_state, documents)
    assert state.selected_entity.entity_id == "pe-oleg-danilov-gb"
    (hit,) = [e for e in state.evidence if e.source_id == "sanctions:hmt-8124"]
    assert "listed 2022-05-04, born 1959 or 1960, national of RU;" in hit.claim
    gap = DANILOV_HIT.format("the subject was matched to Oleg Danilov (GB), born in 1987")
    assert gap in state.proposed_packet.open_gaps
    # The hit still counts until a reviewer marks it.
    assert state.proposed_packet.risk_rating == "high"
    assert hits_born_in_other_years(state)[0] == gap


def test_the_subjects_own_document_is_weighed_before_the_registrys_year(
    make_runtime, make_state, documents
):
    state = danilov(make_runtime, make_state, documents, DANILOV_FORM.format("01.02.1988"))
    gap = DANILOV_HIT.format(
        "the uploaded document “form1.txt” gives the subject a date of birth in 1988"
    )
    assert gap in state.proposed_packet.open_gaps


@pytest.mark.parametrize("born", ["1959", "1960"])
def test_a_document_born_in_a_year_the_entry_lists_disputes_nothing(
    make_runtime, make_state, documents, born
):
    state = danilov(make_runtime, make_state, documents, DANILOV_FORM.format(f"01.02.{born}"))
    assert hits_born_in_other_years(state) == []
    # ... though the registry person matched was born in another year: a namesake gap.
    assert birth_conflict(state).status == "open"


def test_a_hit_linked_to_another_registry_person_is_weighed_by_the_years_it_lists(
    make_runtime, make_state, documents
):
    # The GB Sergei Markov (born 1990) hits an entry linked to the RU one (its claim says
    # so), which lists his date of birth in 1961.
    _, state = markov(make_runtime, make_state, documents, jurisdiction="GB")
    assert hits_born_in_other_years(state) == [
        "The sanctions hit on the subject (Synthetic OFAC SDN) is on an entry listing a date "
        "of birth in 1961, but the subject was matched to Sergei Markov (GB), born in 1990: it "
        "may be on a namesake, for a reviewer to confirm or mark a false positive."
    ]
    # An entry that lists none is not weighed by the year of the registry person it is
    # linked to: two registry persons' years.
    for item in state.evidence:
        item.listed_born_years = []
    assert hits_born_in_other_years(state) == []


# Calder Print Works Ltd's registry record gives its director Sergei Markov's year of birth
# (1990); his name hits the list entry of the Sergei Markov born in 1961.
CALDER_HIT = (
    "The sanctions hit on director Sergei Markov (Synthetic OFAC SDN) is on an entry listing a "
    "date of birth in 1961, but the registry record of Calder Print Works Ltd (GB) gives "
    "director Sergei Markov a date of birth in 1990: it may be on a namesake, for a reviewer "
    "to confirm or mark a false positive."
)


def test_a_directors_hit_listing_another_year_than_the_registry_gives_may_be_a_namesake(
    make_runtime, make_state
):
    state = run(make_runtime(), make_state("Calder Print Works", jurisdiction="GB"))
    record = next(e for e in state.evidence if e.source_id == "registry:co-calder-print-works-gb")
    assert (
        "directors: Sergei Markov (born 1990; national of GB), Emma Hale (born 1984; national of GB)"
        in record.claim
    )
    assert hits_born_in_other_years(state) == [CALDER_HIT]
    assert CALDER_HIT in state.proposed_packet.open_gaps
    assert state.proposed_packet.risk_rating == "high"


def test_another_companys_record_says_nothing_of_the_subjects_directors(make_runtime, make_state):
    state = run(make_runtime(), make_state("Calder Print Works", jurisdiction="GB"))
    record = next(e for e in state.evidence if e.source_id == "registry:co-calder-print-works-gb")
    elsewhere = record.model_copy(
        update={
            "evidence_id": "ev-elsewhere",
            "source_id": "registry:co-elsewhere-gb",
            "birth_years_of": {"Sergei Markov": 1961},
        }
    )
    state.evidence.append(elsewhere)
    assert hits_born_in_other_years(state) == [CALDER_HIT]


def test_an_owners_hits_listing_the_year_the_register_gives_dispute_nothing(
    make_runtime, make_state
):
    state = run(make_runtime(), make_state("Kestrel Ridge Haulage", jurisdiction="GB"))
    assert any(e.listed_born_years == [1968] for e in state.evidence)
    assert hits_born_in_other_years(state) == []


@pytest.mark.parametrize(
    ("claim", "words"),
    [
        ("Registry record: Sergei Markov (GB), born 1990.", "Sergei Markov (GB, born 1990)"),
        (
            "Registry record: Calder Print Works Ltd (GB, no. 11472093), status active; "
            "directors: Sergei Markov (born 1990), Emma Hale (born 1984).",
            "Calder Print Works Ltd (GB)",
        ),
    ],
)
def test_a_candidate_is_described_with_its_own_year_of_birth_only(claim, words):
    evidence = [{"source_id": "registry:the-candidate", "claim": claim}]
    assert candidate_words("the-candidate", [], evidence) == words


def test_an_article_found_by_name_giving_another_age_may_be_about_a_namesake(
    make_runtime, make_state, documents
):
    state = danilov(make_runtime, make_state, documents)
    (article,) = [e for e in state.evidence if e.source_id == "article:art-danilov-001"]
    assert (article.age_given, article.published) == (62, "2022-05-05")
    assert (
        "The article on the subject (Example Wire, 2022-05-05: UK freezes assets of former "
        "Russian energy official) gives an age of 62 on 2022-05-05, so born in 1959 or 1960, "
        "but the subject was matched to Oleg Danilov (GB), born in 1987: it may be about a "
        "namesake, for a reviewer to confirm or mark a false positive."
    ) in state.proposed_packet.open_gaps


def test_an_article_giving_an_age_the_documents_year_fits_disputes_nothing(
    make_runtime, make_state, documents
):
    state = danilov(make_runtime, make_state, documents, DANILOV_FORM.format("01.02.1960"))
    assert not any("article" in gap for gap in hits_born_in_other_years(state))


@pytest.mark.parametrize(
    "said_to_be_about",
    [
        {"found_by_name": False},  # found by the subject's registry record: theirs
        {"candidate_id": "pe-someone"},  # linked to a candidate for the subject
        {"about_another_entity": "Someone Else (GB)"},  # linked to someone else
        {"signals": []},  # not adverse: no match for a reviewer to mark
    ],
)
def test_an_article_said_to_be_about_an_entity_is_not_weighed_by_its_age(
    make_runtime, make_state, documents, said_to_be_about
):
    state = danilov(make_runtime, make_state, documents)
    article = next(e for e in state.evidence if e.source_id == "article:art-danilov-001")
    for field, value in said_to_be_about.items():
        setattr(article, field, value)
    assert not any("article" in gap for gap in hits_born_in_other_years(state))


def test_an_article_on_a_director_giving_another_age_than_a_document_may_be_a_namesakes(
    make_runtime, make_state, documents
):
    # The article on Colin Marsh's conviction calls him 58 in March 2025.
    born_1990 = "Company: Harrow Bay Freight Ltd\nDirectors: Colin Marsh (born 1990), Anita Rao\n"
    state = harrow(make_runtime, make_state, documents, born_1990)
    assert (
        "The article on director Colin Marsh (Example Business News, 2025-03-18: Haulage director "
        "Colin Marsh convicted of customs fraud) gives an age of 58 on 2025-03-18, so born in "
        "1966 or 1967, but the uploaded document “doc1.txt” gives director Colin Marsh a date "
        "of birth in 1990: it may be about a namesake, for a reviewer to confirm or mark a "
        "false positive."
    ) in state.proposed_packet.open_gaps
    born_1967 = born_1990.replace("1990", "1967")
    state = harrow(make_runtime, make_state, documents, born_1967)
    assert hits_born_in_other_years(state) == []


def calder_with(make_runtime, make_state, documents, board: str):
    runtime = make_runtime()
    doc = attached(documents, "board.txt", f"Company: Calder Print Works Ltd\n{board}")
    state = make_state("Calder Print Works", jurisdiction="GB", documents=[doc])
    return runtime, run(runtime, state)


def test_a_document_giving_a_director_another_year_than_the_registry_is_a_conflict(
    make_runtime, make_state, documents
):
    runtime, state = calder_with(
        make_runtime, make_state, documents, "Directors: Sergei Markov (b. 12.05.1985), Emma Hale\n"
    )
    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    conflict = next(c for c in state.conflicts if c.fact == FACT)
    assert conflict.person == "director Sergei Markov"
    assert [(v.value, v.source_id) for v in conflict.values] == [
        ("1990", "registry:co-calder-print-works-gb"),
        ("1985", "document:doc-board.txt"),
    ]
    # The date itself is not quoted, only its year.
    assert "12.05" not in conflict.values[1].excerpt
    # Until a reviewer settles it, neither year is weighed against the list entry's.
    assert hits_born_in_other_years(state) == []
    state = settled(runtime, state, conflict.conflict_id, "1990")
    assert CALDER_HIT.replace(
        "the registry record of Calder Print Works Ltd (GB) gives",
        "the year a reviewer settled on gives",
    ) in hits_born_in_other_years(state)


def test_a_director_whose_year_is_ruled_unresolvable_is_not_weighed_by_it(
    make_runtime, make_state, documents
):
    runtime, state = calder_with(
        make_runtime, make_state, documents, "Directors: Sergei Markov (b. 12.05.1985), Emma Hale\n"
    )
    conflict = next(c for c in state.conflicts if c.fact == FACT)
    state = settled(runtime, state, conflict.conflict_id, None)
    assert hits_born_in_other_years(state) == []


def test_sources_giving_a_director_one_year_agree(make_runtime, make_state, documents):
    _, state = calder_with(
        make_runtime, make_state, documents, "Directors: Sergei Markov (born 1990), Emma Hale\n"
    )
    assert not any(c.fact == FACT for c in state.conflicts)
    assert hits_born_in_other_years(state) == [CALDER_HIT]


# Emma Hale has no registry person: Calder Print Works Ltd's record lists a director of
# her name, born in 1984, and is researched as a company she directs.
HALE_FORM = "CLIENT FORM\nFull name: Emma Hale\nDate of birth: {}\n"
HALE_GAP = (
    "The registry record of Calder Print Works Ltd (GB), a company the subject is found to "
    "direct, gives its director of the subject's name a year of birth (1984) other than a "
    "document of the subject's own (1990): that directorship, and what was found through it, "
    "may be a namesake's."
)


def hale(make_runtime, make_state, documents, born: str):
    runtime = make_runtime()
    doc = attached(documents, "form.txt", HALE_FORM.format(born))
    state = make_state("Emma Hale", subject_type="person", jurisdiction="GB", documents=[doc])
    return runtime, run(runtime, state)


def test_a_directorship_whose_record_gives_another_year_may_be_a_namesakes(
    make_runtime, make_state, documents
):
    runtime, state = hale(make_runtime, make_state, documents, "14 March 1990")
    conflict = birth_conflict(state)
    assert [(v.value, v.source_id) for v in conflict.values] == [
        ("1984", "registry:co-calder-print-works-gb"),
        ("1990", "document:doc-form.txt"),
    ]
    assert HALE_GAP in state.proposed_packet.open_gaps
    state = settled(runtime, state, conflict.conflict_id, "1990")
    assert (
        "A reviewer settled the subject's year of birth as 1990, not the 1984 the registry "
        "record of Calder Print Works Ltd (GB), a company the subject is found to direct, gives "
        "its director of that name: that directorship is a namesake's, and what was found "
        "through it is not about the subject."
    ) in state.proposed_packet.open_gaps


def test_a_directorship_whose_record_gives_the_documents_year_raises_nothing(
    make_runtime, make_state, documents
):
    _, state = hale(make_runtime, make_state, documents, "3 September 1984")
    assert not any(c.fact == FACT for c in state.conflicts)
    assert namesake_gaps(state) == []


def test_a_reviewer_settling_on_the_directorships_year_leaves_no_gap(
    make_runtime, make_state, documents
):
    runtime, state = hale(make_runtime, make_state, documents, "14 March 1990")
    state = settled(runtime, state, birth_conflict(state).conflict_id, "1984")
    assert namesake_gaps(state) == []


def test_a_directorship_record_listing_the_subject_by_another_spelling_gives_their_year(
    make_runtime, make_state, documents
):
    _, state = hale(make_runtime, make_state, documents, "14 March 1990")
    record = next(e for e in state.evidence if e.source_id == "registry:co-calder-print-works-gb")
    record.birth_years_of = {"HALE, Emma J.": 1984}
    for held in state.directorships.values():
        for company in held:
            company.listed_as = "HALE, Emma J."
    assert [f.value for f in subject_birth_year_facts(state)] == ["1984", "1990"]


def test_a_codirectors_hit_is_weighed_by_the_year_their_companys_record_gives(
    make_runtime, make_state
):
    state = run(make_runtime(), make_state("Emma Hale", subject_type="person", jurisdiction="GB"))
    assert hits_born_in_other_years(state) == [
        "The sanctions hit on co-director Sergei Markov at Calder Print Works Ltd (GB) "
        "(Synthetic OFAC SDN) is on an entry listing a date of birth in 1961, but the registry "
        "record of Calder Print Works Ltd (GB) gives co-director Sergei Markov at Calder Print "
        "Works Ltd (GB) a date of birth in 1990: it may be on a namesake, for a reviewer to "
        "confirm or mark a false positive."
    ]


def test_a_signed_off_packet_keeps_no_gap_asking_to_rule_on_a_match_the_reviewer_marked(
    make_runtime, make_state, documents
):
    runtime = make_runtime()
    state = make_state("Oleg Danilov", subject_type="person", jurisdiction="GB")
    state = run(runtime, state)
    gaps = hits_born_in_other_years(state)
    assert len(gaps) == 2 and all(gap in state.proposed_packet.open_gaps for gap in gaps)
    state = signed_off(runtime, state, "low", "false_positive")
    assert state.termination_reason == "packet_approved"
    assert not any(gap in state.proposed_packet.open_gaps for gap in gaps)
    dispositions = state.proposed_packet.hit_dispositions
    assert {d.disposition for d in dispositions} == {"false_positive"}
    # Why each might have been on a namesake stays in the record, with the reviewer's mark.
    assert [d.namesake_reasons for d in dispositions] == [
        [
            "Its entry lists a date of birth in 1959 or 1960; the subject was matched to Oleg "
            "Danilov (GB), born in 1987."
        ],
        [
            "It gives an age of 62 on 2022-05-05, so born in 1959 or 1960; the subject was "
            "matched to Oleg Danilov (GB), born in 1987."
        ],
    ]
