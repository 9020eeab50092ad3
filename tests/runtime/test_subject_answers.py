"""The analyst's answer to which registry entity is the subject: a yes to the one candidate
offered picks it, a number picks that place in the list, "none of them" leaves the run
unmatched, and whatever the answer holds, the question asked again is a usable decision."""

from __future__ import annotations

import pytest
from runtime_helpers import (
    ACME_DIRECTOR_STEPS,
    FINISH_TURN,
    TOOL_TURN,
    answer,
    events_of,
    run,
    tool_arguments,
    types,
)

from atlas.runtime.adapters.answers import candidate_picked_by, candidates_ruled_out_by
from atlas.runtime.decisions import UNSAFE_CHARACTERS
from atlas.runtime.humans import PacketSignOff
from atlas.runtime.state import candidate_label

ACME_GB = "co-acme-analytics-gb"
NORTHWINDS = ["co-northwind-gb", "co-northwind-sg", "co-northwind-us"]
UP_TO_THE_QUESTION = ["run_started", *TOOL_TURN, "model_requested", "model_decision"]
ASKED = [*UP_TO_THE_QUESTION, "clarification_requested"]
# Nothing in the case's country matched closely: the name is looked for in every country
# before the analyst is asked.
ANSWERED = ["clarification_received", "run_resumed"]


def northwind(**extra) -> list[dict]:
    return [
        {"entity_id": entity_id, "name": "Northwind Trading", "jurisdiction": code, **extra}
        for entity_id, code in zip(NORTHWINDS, ("GB", "SG", "US"), strict=True)
    ]


ACME = {
    "entity_id": ACME_GB,
    "name": "Acme Analytics Ltd",
    "jurisdiction": "GB",
    "registration_number": "08812345",
}
ACME_LABEL = candidate_label(ACME)


def listed(candidates: list[dict]) -> list[str]:
    return [candidate_label(c) for c in candidates]


@pytest.mark.parametrize(
    "text",
    ["yes", "Yes, it is", "correct", "yes that one", "Yep!", "It is.", "That's the one"],
)
def test_a_yes_to_the_one_candidate_offered_picks_it(text):
    assert candidate_picked_by(text, [ACME], [ACME_LABEL]) == ACME
    # Offered several, a yes says nothing about which.
    assert candidate_picked_by(text, northwind(), listed(northwind())) is None


def test_a_no_to_the_one_candidate_offered_does_not_pick_it_even_by_name():
    for text in ("no", "not it", "no, it is a different company", "It isn’t"):
        assert candidate_picked_by(text, [ACME], [ACME_LABEL]) is None, text
    # The name alone would pick it.
    assert candidate_picked_by("Acme Analytics Ltd", [ACME], [ACME_LABEL]) == ACME
    assert candidate_picked_by("No, not Acme Analytics Ltd", [ACME], [ACME_LABEL]) is None


def test_the_candidates_own_label_is_no_no():
    # The candidate's button sends its label, whose "no. 08812345" is a number.
    assert candidate_picked_by(ACME_LABEL, [ACME], [ACME_LABEL]) == ACME
    without_id = "Acme Analytics Ltd (GB, no. 08812345)"
    assert candidate_picked_by(without_id, [ACME], [ACME_LABEL]) == ACME
    # Neither a yes nor a no, nor a name: nothing picked, as before.
    for text in ("Not sure", "yes, if it is not the other one", "I will check"):
        assert candidate_picked_by(text, [ACME], [ACME_LABEL]) is None, text


@pytest.mark.parametrize(("text", "place"), [("2", 1), ("2.", 1), ("(2)", 1), ("3", 2), ("1", 0)])
def test_a_number_alone_picks_that_place_in_the_list_and_none_past_it(text, place):
    assert candidate_picked_by(text, northwind(), listed(northwind())) == northwind()[place]
    for outside in ("4", "0", "(2", "12"):
        assert candidate_picked_by(outside, northwind(), listed(northwind())) is None, outside


@pytest.mark.parametrize(
    "text", ["none of them", "Neither", "none", "not any of these", "None of the above."]
)
def test_none_of_them_rules_out_every_candidate_listed(text):
    assert candidates_ruled_out_by(text, northwind(), listed(northwind())) == northwind()


@pytest.mark.parametrize("text", ["no", "No.", "nope", "no, sorry"])
def test_a_bare_no_to_several_candidates_rules_them_all_out(text):
    """ "Which one is the subject?" answered "no" says none of them is: asked again, the
    analyst would only say it twice."""
    assert candidates_ruled_out_by(text, northwind(), listed(northwind())) == northwind()


@pytest.mark.parametrize(
    "text", ["No, the second one", "no, it is the US one", "no idea", "not sure, no"]
)
def test_a_no_that_picks_or_doubts_rules_none_out(text):
    assert candidates_ruled_out_by(text, northwind(), listed(northwind())) == []


@pytest.mark.parametrize(
    "text",
    [
        "none of them except the UK one",
        "neither the UK one nor the US one",  # of three: the Singapore one
    ],
)
def test_an_answer_that_keeps_one_rules_none_out(text):
    assert candidates_ruled_out_by(text, northwind(), listed(northwind())) == []


@pytest.mark.parametrize("text", ["yes", "Yes, it is", "correct", "yes that one"])
def test_a_yes_to_the_nearest_match_makes_it_the_subject(make_runtime, make_state, store, text):
    runtime = make_runtime()
    state = run(runtime, make_state("Acme", jurisdiction="GB"))
    assert types(store, state) == ASKED
    (label,) = state.pending_question.candidates
    assert label.endswith(f"[{ACME_GB}]")

    state = answer(runtime, state, text)
    assert types(store, state) == [
        *ASKED,
        *ANSWERED,
        *TOOL_TURN,  # the candidate the analyst confirmed, resolved
        *TOOL_TURN,  # screened by its id
        *TOOL_TURN,  # media
        *ACME_DIRECTOR_STEPS,
        *FINISH_TURN,
    ]
    assert events_of(store, state, "clarification_received")[0].data["picked_entity_id"] == ACME_GB
    assert state.answered_questions[-1]["picked_entity_id"] == ACME_GB
    assert state.selected_entity.entity_id == ACME_GB
    assert tool_arguments(store, state, "screen_sanctions")[0] == {"entity_id": ACME_GB}
    assert state.proposed_packet.selected_entity == f"Acme Analytics Ltd [{ACME_GB}]"


def test_a_no_to_the_nearest_match_researches_the_name_unmatched(make_runtime, make_state, store):
    # Named, and denied: the name alone would pick it.
    for text in ("no, it is a different company", "No, not Acme Analytics Ltd"):
        runtime = make_runtime()
        state = answer(runtime, run(runtime, make_state("Acme", jurisdiction="GB")), text)
        assert types(store, state) == [
            *ASKED,
            *ANSWERED,
            *TOOL_TURN,
            *TOOL_TURN,
            *FINISH_TURN,
        ]
        assert state.termination_reason == "finish_proposed"
        assert state.selected_entity is None, text
        assert state.answered_questions[-1]["picked_entity_id"] == ""
        assert tool_arguments(store, state, "screen_sanctions") == [{"name": "Acme"}]
        assert any(
            gap.startswith("The analyst said the registry candidate offered, Acme")
            and gap.endswith("is not the subject: the subject was researched by name only.")
            for gap in state.proposed_packet.open_gaps
        )


@pytest.mark.parametrize(
    ("text", "entity_id"),
    [("2", NORTHWINDS[1]), ("2.", NORTHWINDS[1]), ("(2)", NORTHWINDS[1]), ("3", NORTHWINDS[2])],
)
def test_a_number_answer_picks_that_candidate_of_the_list(
    make_runtime, make_state, text, entity_id
):
    runtime = make_runtime()
    state = run(runtime, make_state("Northwind Trading", jurisdiction=None))
    assert "Candidates: 1. Northwind Trading Ltd (GB" in state.pending_question.question
    state = answer(runtime, state, text)
    assert state.termination_reason == "finish_proposed"
    assert state.selected_entity.entity_id == entity_id


@pytest.mark.parametrize("text", ["4", "0"])
def test_a_number_past_the_list_is_asked_again_and_one_in_it_is_taken(
    make_runtime, make_state, text
):
    runtime = make_runtime()
    state = run(runtime, make_state("Northwind Trading", jurisdiction=None))
    state = answer(runtime, state, text)
    assert state.status == "waiting_for_input"
    assert state.pending_question.question.startswith(f"Your answer '{text}' did not point")
    assert state.selected_entity is None
    state = answer(runtime, state, "1")
    assert state.selected_entity.entity_id == NORTHWINDS[0]


def test_the_question_of_several_says_how_to_answer_none_of_them(make_runtime, make_state):
    state = run(make_runtime(), make_state("Northwind Trading", jurisdiction=None))
    question = state.pending_question.question
    assert "If none of them is, say 'none of them'" in question
    assert "the research goes on without a registry match" in question
    assert "'Correct the subject' on the case page" in question
    assert (
        "Or attach a document giving the client's company number (a certificate or a registry "
        "extract) on the case page and say so here: the number tells them apart." in question
    )


def test_a_person_is_not_asked_for_a_company_number(make_runtime, make_state):
    state = run(make_runtime(), make_state("John Smith", subject_type="person", jurisdiction=None))
    assert state.status == "waiting_for_input"
    assert "company number" not in state.pending_question.question


@pytest.mark.parametrize("text", ["none of them", "neither", "none", "not any of these"])
def test_none_of_them_researches_the_name_unmatched(make_runtime, make_state, store, text):
    runtime = make_runtime()
    state = run(runtime, make_state("Northwind Trading", jurisdiction=None))
    assert types(store, state) == ASKED

    state = answer(runtime, state, text)
    # Not asked again: screened and searched by name, then a packet.
    assert types(store, state) == [*ASKED, *ANSWERED, *TOOL_TURN, *TOOL_TURN, *FINISH_TURN]
    (received,) = events_of(store, state, "clarification_received")
    assert received.data["ruled_out_entity_ids"] == NORTHWINDS
    assert "picked_entity_id" not in received.data
    assert state.entity_candidates == []
    assert tool_arguments(store, state, "screen_sanctions") == [{"name": "Northwind Trading"}]
    assert tool_arguments(store, state, "search_adverse_media") == [{"query": "Northwind Trading"}]
    packet = state.proposed_packet
    assert (state.termination_reason, state.selected_entity) == ("finish_proposed", None)
    assert packet.selected_entity is None
    assert packet.risk_rating == "medium"  # screened by name only
    assert (
        "The analyst said none of the registry candidates offered is the subject: the "
        "subject was researched by name only." in packet.open_gaps
    )


def test_after_none_of_them_a_send_back_is_not_met_with_the_candidates_again(
    make_runtime, make_state, store
):
    runtime = make_runtime()
    state = run(runtime, make_state("Northwind Trading", jurisdiction=None))
    state = answer(runtime, state, "none of them")
    sent_back = PacketSignOff(decision_id="d-back", actor="rita", approved=False, reason="Why?")
    state = run(runtime, runtime.apply_human_input(state, sent_back))
    assert state.pending_question.question.startswith("A reviewer sent the packet back")

    state = answer(runtime, state, "The analyst checked: none of the three is the client.")
    assert (state.termination_reason, state.selected_entity) == ("finish_proposed", None)
    assert types(store, state).count("clarification_requested") == 2


@pytest.mark.parametrize("unsafe", ["\u202e", "\u2066", "\x07", "\x00"])
def test_an_answer_with_a_control_character_is_quoted_back_without_it(
    make_runtime, make_state, store, unsafe
):
    runtime = make_runtime()
    state = run(runtime, make_state("Northwind Trading", jurisdiction=None))
    state = answer(runtime, state, f"the big {unsafe}one")
    assert (state.status, state.termination_reason) == ("waiting_for_input", "waiting_for_input")
    assert "model_failed" not in types(store, state)
    question = state.pending_question.question
    assert question.startswith("Your answer 'the big one' did not point")
    assert not UNSAFE_CHARACTERS.search(question)
    # Then answered as any other question asked again.
    state = answer(runtime, state, "the UK one")
    assert state.selected_entity.entity_id == NORTHWINDS[0]


def test_an_answer_too_long_to_quote_whole_is_quoted_cut(make_runtime, make_state, store):
    runtime = make_runtime()
    state = run(runtime, make_state("Northwind Trading", jurisdiction=None))
    state = answer(runtime, state, "the big one " * 2000)
    assert (state.status, state.termination_reason) == ("waiting_for_input", "waiting_for_input")
    assert "model_failed" not in types(store, state)
    assert "the big one the big one" in state.pending_question.question
    assert len(state.pending_question.question) < 2000


def test_a_reviewers_reason_with_a_control_character_is_quoted_without_it(
    make_runtime, make_state, store
):
    runtime = make_runtime()
    state = run(runtime, make_state())
    sent_back = PacketSignOff(
        decision_id="d-back", actor="rita", approved=False, reason="Check the \u202eaccounts."
    )
    state = run(runtime, runtime.apply_human_input(state, sent_back))
    assert (state.status, state.termination_reason) == ("waiting_for_input", "waiting_for_input")
    assert "“Check the accounts.”" in state.pending_question.question
    assert "model_failed" not in types(store, state)


def _amber_coast_answered(*answers: str):
    """Amber Coast Freight opened as GB: the one candidate is the Lithuanian company, whose
    director is sanctioned."""
    from atlas.runtime.engine import run_scenario
    from atlas.runtime.scenario import parse_scenario

    case = {"subject": "Amber Coast Freight", "jurisdiction": "GB"}
    return run_scenario(parse_scenario({"case": case, "human": {"answers": list(answers)}}))


@pytest.mark.parametrize(
    "unclear", ["Unsure", "no idea", "hmm", "possibly, need to verify", "I don't know"]
)
def test_an_answer_saying_neither_yes_nor_no_turns_nobody_down_and_is_asked_again(unclear):
    state, store = _amber_coast_answered(unclear, "yes")
    first, second = events_of(store, state, "clarification_requested")
    assert second.data["question"].startswith(
        f"Your answer '{unclear}' said neither yes nor no. " + first.data["question"][:40]
    )
    assert state.answered_questions[0]["unclear"] == "yes"
    said, picked = events_of(store, state, "clarification_received")
    assert said.data["unclear"] is True and "picked_entity_id" not in said.data
    assert "unclear" not in picked.data
    assert state.selected_entity.entity_id == "co-amber-coast-freight-lt"
    assert state.proposed_packet.risk_rating == "high"  # its director is sanctioned


def test_a_clear_no_to_the_one_candidate_still_researches_the_name_alone():
    state, store = _amber_coast_answered("No, it is a different company")
    assert len(events_of(store, state, "clarification_requested")) == 1
    assert "unclear" not in state.answered_questions[0]
    assert state.selected_entity is None
    assert (
        "The analyst said the registry candidate offered, Amber Coast Freight UAB (LT, no. "
        "305512874) [co-amber-coast-freight-lt], is not the subject: the subject was "
        "researched by name only." in state.proposed_packet.open_gaps
    )


def test_answers_that_keep_saying_neither_hand_the_run_to_a_reviewer():
    state, _ = _amber_coast_answered("hmm", "hmm", "hmm", "hmm", "hmm")
    assert (state.status, state.termination_reason) == ("awaiting_review", "repeated_action")
    assert state.selected_entity is None


@pytest.mark.parametrize(
    ("text", "excluded"),
    [
        ("anything but Singapore", "co-northwind-sg"),
        ("other than the GB one", "co-northwind-gb"),
        ("excluding the US one", "co-northwind-us"),
        ("Singapore is wrong", "co-northwind-sg"),
        ("never the British one", "co-northwind-gb"),
        ("the US one is not the subject", "co-northwind-us"),
        ("rather than the GB one", "co-northwind-gb"),
    ],
)
def test_an_answer_that_excludes_a_country_never_picks_it(text, excluded):
    """Of three, ruling one out leaves two: nothing is picked, and the question is put
    again; the one excluded is never taken for the subject."""
    assert candidate_picked_by(text, northwind(), listed(northwind())) is None
    two = [c for c in northwind() if c["entity_id"] in (excluded, "co-northwind-gb")]
    if len(two) == 2:
        kept = next(c for c in two if c["entity_id"] != excluded)
        assert candidate_picked_by(text, two, listed(two)) == kept


def test_a_country_then_not_another_still_picks_the_first():
    assert candidate_picked_by("US not UK", northwind(), listed(northwind()))["entity_id"] == (
        "co-northwind-us"
    )


@pytest.mark.parametrize(
    "text",
    ["No doubt, that is the company", "That is the one, no question", "Of course, no doubt"],
)
def test_a_yes_said_with_a_no_in_it_picks_the_one_offered(text):
    assert candidate_picked_by(text, [ACME], [ACME_LABEL]) == ACME


@pytest.mark.parametrize("text", ["No, it is the subject", "no, that's the one"])
def test_a_no_and_a_yes_in_one_answer_picks_nothing_and_rules_nothing_out(text):
    from atlas.runtime.adapters.answers import rules_out_the_one

    assert candidate_picked_by(text, [ACME], [ACME_LABEL]) is None
    assert not rules_out_the_one(text, [ACME_LABEL])


def test_a_no_to_the_one_candidate_is_recorded_as_turning_it_down():
    state, store = _amber_coast_answered("Nope")
    (said,) = events_of(store, state, "clarification_received")
    assert said.data["turned_down"] is True and "unclear" not in said.data


def _gb_us() -> list[dict]:
    return [c for c in northwind() if c["jurisdiction"] in ("GB", "US")]


@pytest.mark.parametrize(
    "text",
    [
        "It's none other than the UK one",
        "I checked them all but the UK one is the subject",
        "Other than the UK one, none fit",
        "The GB one which is not the one in the press",
        "No doubt the UK one",
        "Without a doubt the UK one",
    ],
)
def test_an_answer_that_keeps_the_uk_one_picks_it(text):
    assert candidate_picked_by(text, _gb_us(), listed(_gb_us()))["entity_id"] == "co-northwind-gb"


@pytest.mark.parametrize(
    "text",
    [
        "It's the one in Singapore",
        "It is the one registered in Delaware",
        "He's the same name as the subject's father",
    ],
)
def test_a_sentence_about_another_place_is_no_yes(text):
    assert candidate_picked_by(text, [ACME], [ACME_LABEL]) is None


@pytest.mark.parametrize(
    "text",
    [
        "Of course not",
        "No, of course not",
        "Of course it isn't",
        "No problem, but it is not the company",
        "No, it's the one registered in Delaware",
        "No, it is the company in Singapore",
        "No, this is the one in Ireland",
        "No - he's the same name but a different person",
        "That's the company in the US, not this one",
    ],
)
def test_a_no_with_a_sentence_in_it_still_turns_the_one_down(text):
    from atlas.runtime.adapters.answers import rules_out_the_one

    assert candidate_picked_by(text, [ACME], [ACME_LABEL]) is None
    assert rules_out_the_one(text, [ACME_LABEL])


@pytest.mark.parametrize(
    "text", ["Of course, the US one", "Yes, the Singapore one", "No doubt it is the Irish company"]
)
def test_a_yes_naming_another_country_than_the_one_offered_picks_nothing(text):
    assert candidate_picked_by(text, [ACME], [ACME_LABEL]) is None


def test_a_yes_naming_the_offered_ones_country_picks_it():
    assert candidate_picked_by("Yes, the UK one", [ACME], [ACME_LABEL]) == ACME
    assert candidate_picked_by("YES, IT IS", [ACME], [ACME_LABEL]) == ACME
