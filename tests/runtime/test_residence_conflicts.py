"""Where a director or owner of the subject company lives is weighed source by source: the
registry record and a document giving one person different countries are a conflict for a
reviewer, sources giving different people never disagree, and the country a reviewer
chooses is the one the country risk counts."""

from __future__ import annotations

from runtime_helpers import events_of, run
from test_document_owners import attached

from atlas.runtime.context import project_state
from atlas.runtime.humans import ConflictResolution
from atlas.runtime.residences import FACT, with_residence_facts

# A GB company whose registry record says Daniel Mercer lives in GB, Farhad Rahimi in Iran.
GULFSTAR = "Gulfstar Marine Services"
RAHIMI_IN_THE_UK = (
    "Company: Gulfstar Marine Services Ltd\n"
    "Directors: Daniel Mercer, Farhad Rahimi (resident in the United Kingdom)\n"
)
RAHIMI_IN_IRAN = (
    "Director Farhad Rahimi (Iran, IR) lives in one of the tenant's high-risk jurisdictions: "
    "enhanced due diligence applies."
)
UNRESOLVED = (
    "Unresolved conflict on country of residence of director Farhad Rahimi: sources disagree."
)


def gulfstar(make_runtime, make_state, documents, text: str):
    runtime = make_runtime()
    doc = attached(documents, "kyc.txt", text)
    return runtime, run(runtime, make_state(GULFSTAR, jurisdiction="GB", documents=[doc]))


def resolved(runtime, state, value: str | None):
    (conflict,) = state.conflicts
    resolution = ConflictResolution(
        decision_id="d-1",
        actor="reviewer-rita",
        conflict_id=conflict.conflict_id,
        value=value,
        unresolvable=value is None,
        note="Checked the passport copy on file.",
    )
    return run(runtime, runtime.apply_human_input(state, resolution))


def test_the_registry_and_a_document_disagreeing_are_a_conflict(
    make_runtime, make_state, documents
):
    _, state = gulfstar(make_runtime, make_state, documents, RAHIMI_IN_THE_UK)
    (conflict,) = state.conflicts
    assert (conflict.fact, conflict.person, conflict.status) == (
        FACT,
        "director Farhad Rahimi",
        "open",
    )
    by_value = {value.value: value for value in conflict.values}
    assert set(by_value) == {"Iran, IR", "United Kingdom, GB"}
    assert by_value["Iran, IR"].source_id == "registry:co-gulfstar-marine-gb"
    assert "Farhad Rahimi (lives in IR)" in by_value["Iran, IR"].excerpt
    assert by_value["United Kingdom, GB"].source_id == "document:doc-kyc.txt"
    assert by_value["United Kingdom, GB"].excerpt == (
        "Directors: Daniel Mercer, Farhad Rahimi (resident in the United Kingdom)"
    )
    packet = state.proposed_packet
    assert [c.conflict_id for c in packet.unresolved_conflicts] == [conflict.conflict_id]
    assert UNRESOLVED in packet.open_gaps
    assert packet.risk_rating == "medium"
    (projected,) = project_state(state)["conflicts"]
    assert projected["about"] == "director Farhad Rahimi"
    # Until a reviewer weighs them, the worse country counts.
    assert state.high_risk_residences == [
        "director Farhad Rahimi (Iran, IR; another source says United Kingdom, GB)"
    ]


def test_sources_agreeing_where_both_speak_raise_none(make_runtime, make_state, documents):
    """The document says where Mercer lives, as the registry does, and nothing of Rahimi;
    a person the registry gives no country for is nobody's disagreement either."""
    _, state = gulfstar(
        make_runtime,
        make_state,
        documents,
        "Company: Gulfstar Marine Services Ltd\n"
        "Directors: Daniel Mercer (resident in the UK), Farhad Rahimi\n"
        "Beneficial owner: Leila Navabi (resident in France)\n",
    )
    assert state.conflicts == []
    assert RAHIMI_IN_IRAN in state.proposed_packet.open_gaps


def test_two_documents_disagreeing_on_an_owner_are_a_conflict(make_runtime, make_state, documents):
    runtime = make_runtime()
    first = attached(
        documents,
        "kyc.txt",
        "Company: Gulfstar Marine Services Ltd\nUBO: Leila Navabi (resident in Iran)\n",
    )
    second = attached(
        documents,
        "ownership.txt",
        "Company: Gulfstar Marine Services Ltd\n"
        "Ultimate beneficial owner: Leila Navabi, residing in France\n",
    )
    state = run(runtime, make_state(GULFSTAR, jurisdiction="GB", documents=[first, second]))
    (conflict,) = state.conflicts
    assert conflict.person == "beneficial owner Leila Navabi"
    assert {v.value for v in conflict.values} == {"Iran, IR", "France, FR"}


def test_the_country_a_reviewer_chooses_is_the_one_counted(make_runtime, make_state, documents):
    runtime, state = gulfstar(make_runtime, make_state, documents, RAHIMI_IN_THE_UK)
    in_the_uk = resolved(runtime, state, "United Kingdom, GB")
    assert in_the_uk.conflicts[0].status == "resolved"
    assert in_the_uk.high_risk_residences == []
    assert RAHIMI_IN_IRAN not in in_the_uk.proposed_packet.open_gaps
    assert UNRESOLVED not in in_the_uk.proposed_packet.open_gaps

    runtime, state = gulfstar(make_runtime, make_state, documents, RAHIMI_IN_THE_UK)
    in_iran = resolved(runtime, state, "Iran, IR")
    assert in_iran.high_risk_residences == ["director Farhad Rahimi (Iran, IR)"]
    assert RAHIMI_IN_IRAN in in_iran.proposed_packet.open_gaps


def test_one_ruled_unresolvable_keeps_the_worse_country(make_runtime, make_state, documents):
    runtime, state = gulfstar(make_runtime, make_state, documents, RAHIMI_IN_THE_UK)
    state = resolved(runtime, state, None)
    assert state.conflicts[0].status == "unresolvable"
    assert state.high_risk_residences == [
        "director Farhad Rahimi (Iran, IR; another source says United Kingdom, GB)"
    ]
    assert (
        "Unresolved conflict on country of residence of director Farhad Rahimi: a reviewer "
        "recorded it as unresolvable."
    ) in state.proposed_packet.open_gaps


def test_a_state_from_before_residence_facts_reads_them_off_its_evidence(
    make_runtime, make_state, documents
):
    _, state = gulfstar(make_runtime, make_state, documents, RAHIMI_IN_THE_UK)
    said = {(f.person, f.value, f.source_id) for f in state.facts if f.fact == FACT}
    assert len(said) == 3
    older = state.model_copy(deep=True)
    older.facts = [f for f in older.facts if f.fact != FACT]
    older = with_residence_facts(older)
    assert {(f.person, f.value, f.source_id) for f in older.facts if f.fact == FACT} == said


# Farhad Rahimi matches no registry person; Gulfstar's record lists a director of that name
# living in Iran. His own declaration gives a London address.
RAHIMI_DECLARATION = (
    "CLIENT DECLARATION\nName: Farhad Rahimi\n"
    "Residential address: 4 Harbour Row, London, United Kingdom\n"
    "Source of wealth: Salary as a marine engineer since 2009.\n"
)
SUBJECT_IN_IRAN = "the subject (Iran, IR, by Gulfstar Marine Services Ltd's registry record)"


def rahimi(make_runtime, make_state, documents):
    runtime = make_runtime()
    doc = attached(documents, "declaration.txt", RAHIMI_DECLARATION)
    state = make_state("Farhad Rahimi", subject_type="person", jurisdiction=None, documents=[doc])
    return runtime, run(runtime, state)


def test_a_person_subjects_form_and_a_company_record_disagreeing_are_a_conflict(
    make_runtime, make_state, documents
):
    _, state = rahimi(make_runtime, make_state, documents)
    (conflict,) = state.conflicts
    assert (conflict.fact, conflict.person, conflict.entity_id) == (FACT, "", "")
    # One value a source, however many steps derived them again.
    assert sorted((value.value, value.source_id) for value in conflict.values) == [
        ("Iran, IR", "registry:co-gulfstar-marine-gb"),
        ("United Kingdom, GB", "document:doc-declaration.txt"),
    ]
    by_value = {value.value: value for value in conflict.values}
    assert by_value["United Kingdom, GB"].excerpt == (
        "Residential address: 4 Harbour Row, London, United Kingdom"
    )
    packet = state.proposed_packet
    assert "Unresolved conflict on country of residence: sources disagree." in packet.open_gaps
    assert state.high_risk_residences == [SUBJECT_IN_IRAN]
    assert packet.risk_rating == "medium"


def test_a_person_subjects_residence_a_reviewer_settles_is_the_one_counted(
    make_runtime, make_state, documents
):
    runtime, state = rahimi(make_runtime, make_state, documents)
    state = resolved(runtime, state, "United Kingdom, GB")
    assert state.high_risk_residences == []
    assert not any("high-risk" in gap for gap in state.proposed_packet.open_gaps)
    runtime, state = rahimi(make_runtime, make_state, documents)
    state = resolved(runtime, state, "Iran, IR")
    assert state.high_risk_residences == [SUBJECT_IN_IRAN]


def two_boards(make_runtime, make_state, documents):
    """The registry and one form name Rahimi a director, living in Iran and in the UK;
    another form names Priya Nair in his place."""
    runtime = make_runtime()
    board = attached(
        documents,
        "board.txt",
        "Company: Gulfstar Marine Services Ltd\nDirectors: Daniel Mercer, Priya Nair\n",
    )
    kyc = attached(documents, "kyc.txt", RAHIMI_IN_THE_UK)
    state = run(runtime, make_state(GULFSTAR, jurisdiction="GB", documents=[board, kyc]))
    directors, residence = sorted(state.conflicts, key=lambda c: c.fact != "directors")
    assert (directors.fact, residence.fact) == ("directors", FACT)
    return runtime, state, directors, residence


def settle(runtime, state, conflict, value: str):
    resolution = ConflictResolution(
        decision_id=f"d-{conflict.conflict_id}",
        actor="reviewer-rita",
        conflict_id=conflict.conflict_id,
        value=value,
        note="Checked against the board minutes.",
    )
    return run(runtime, runtime.apply_human_input(state, resolution))


def test_a_conflict_over_someone_the_reviewer_rules_no_director_is_withdrawn(
    make_runtime, make_state, documents, store
):
    """Once a reviewer takes the board without Rahimi, where he lives is nobody's concern."""
    runtime, state, directors, residence = two_boards(make_runtime, make_state, documents)
    state = settle(runtime, state, directors, "Daniel Mercer, Priya Nair")
    assert [(c.fact, c.status) for c in state.conflicts] == [("directors", "resolved")]
    assert state.high_risk_residences == []
    withdrawn = [
        e.data
        for e in events_of(store, state, "conflict_resolved")
        if e.data["status"] == "withdrawn"
    ]
    assert [(w["conflict_id"], w["person"]) for w in withdrawn] == [
        (residence.conflict_id, "director Farhad Rahimi")
    ]
    assert UNRESOLVED not in state.proposed_packet.open_gaps


def test_one_a_reviewer_settled_first_is_kept(make_runtime, make_state, documents):
    runtime, state, directors, residence = two_boards(make_runtime, make_state, documents)
    state = settle(runtime, state, residence, "United Kingdom, GB")
    state = settle(runtime, state, directors, "Daniel Mercer, Priya Nair")
    assert sorted((c.fact, c.status) for c in state.conflicts) == [
        (FACT, "resolved"),
        ("directors", "resolved"),
    ]
