"""A case opened with the wrong country: the registry's entity of that name elsewhere is
offered to the analyst, and each answer leads where it should; so is a company named with
another legal form than the registry gives."""

from __future__ import annotations

from runtime_helpers import answer, run


def test_a_subject_registered_only_in_another_country_is_offered_to_the_analyst(
    make_runtime, make_state
):
    runtime = make_runtime()
    state = run(runtime, make_state("Amber Coast Freight", jurisdiction="GB"))

    assert (state.status, state.selected_entity) == ("waiting_for_input", None)
    question = state.pending_question
    assert question.question.startswith(
        "No registry entity in GB, the case's country, matches 'Amber Coast Freight' "
        "closely; outside it, the registry has Amber Coast Freight UAB (LT"
    )
    assert question.question.endswith(
        "If the subject's name or country is wrong, correct it with 'Correct the subject' on "
        "the case page."
    )
    (label,) = question.candidates
    assert label.endswith("[co-amber-coast-freight-lt]")

    # Matched, its directors are screened: one of them is listed.
    state = answer(runtime, state, "yes")
    assert state.termination_reason == "finish_proposed"
    assert state.selected_entity.entity_id == "co-amber-coast-freight-lt"
    assert state.proposed_packet.risk_rating == "high"
    assert "on director Dmitry Volkov" in state.proposed_packet.sanctions_result


def test_a_no_to_the_entity_in_another_country_leaves_the_subject_unmatched(
    make_runtime, make_state
):
    runtime = make_runtime()
    state = run(runtime, make_state("Dmitri Volkov", subject_type="person", jurisdiction="GB"))
    assert "outside it, the registry has Dmitri Volkov (RU" in state.pending_question.question

    state = answer(runtime, state, "no")
    assert (state.termination_reason, state.selected_entity) == ("finish_proposed", None)
    assert state.proposed_packet.risk_rating == "high"  # the name alone is listed
    assert (
        "The analyst said the registry candidate offered, Dmitri Volkov (RU) [pe-dmitri-volkov], "
        "is not the subject: the subject was researched by name only."
        in state.proposed_packet.open_gaps
    )


def test_an_exact_name_elsewhere_is_listed_beside_a_partial_one_in_the_case_country(
    make_runtime, make_state
):
    runtime = make_runtime()
    state = run(runtime, make_state("Acme Analytics", jurisdiction="US"))

    question = state.pending_question
    assert "but none registered in US, the case's country, matches closely" in question.question
    assert "If the subject's name or country is wrong" in question.question
    assert [label.rsplit("[", 1)[1] for label in question.candidates] == [
        "co-acme-analytics-gb]",
        "co-cedar-analytics-us]",
    ]

    state = answer(runtime, state, "the UK one")
    assert state.termination_reason == "finish_proposed"
    assert state.selected_entity.entity_id == "co-acme-analytics-gb"


def test_a_legal_form_in_the_name_picks_the_company_of_that_form(make_runtime, make_state):
    # Three Northwind Tradings score alike; only one is an LLC.
    state = run(make_runtime(), make_state("Northwind Trading LLC", jurisdiction=None))
    assert state.termination_reason == "finish_proposed"
    assert state.selected_entity.entity_id == "co-northwind-us"


def test_a_company_of_another_legal_form_is_confirmed_by_the_analyst_first(
    make_runtime, make_state
):
    runtime = make_runtime()
    state = run(runtime, make_state("Harrow Bay Freight Inc", jurisdiction="GB"))

    assert (state.status, state.selected_entity) == ("waiting_for_input", None)
    assert state.pending_question.question.startswith(
        "No registry entity is named 'Harrow Bay Freight Inc' with that legal form; the "
        "nearest is Harrow Bay Freight Ltd (GB"
    )
    state = answer(runtime, state, "yes")
    assert state.selected_entity.entity_id == "co-harrow-bay-freight-gb"
    assert state.proposed_packet.risk_rating == "medium"  # its director's conviction
