"""A finish the runtime refuses however it is worded: the packet must rest on what this run
recorded (who was screened, which entity was matched, which hits were found)."""

from __future__ import annotations

import pytest
from runtime_helpers import FnModel, call, events_of, run

from atlas.runtime.adapters.base import ModelReply
from atlas.runtime.humans import ClarificationAnswer


def finish(
    risk: str,
    *,
    entity: str | None = None,
    sanctions: str,
    cite: str,
    subject: str = "Dmitry Wolkow",
) -> dict:
    return {
        "kind": "finish",
        "packet": {
            "subject": subject,
            "selected_entity": entity,
            "risk_rating": risk,
            "findings": [{"claim": "Registry record found.", "evidence_ids": [cite]}],
            "sanctions_result": sanctions,
            "adverse_media_summary": "None found.",
        },
    }


def first_refusal(store, state) -> list[str]:
    return events_of(store, state, "final_rejected")[0].data["errors"]


def test_screening_someone_else_does_not_stand_for_screening_the_subject(
    make_runtime, make_state, store
):
    turns = [
        call("resolve_entity", name="Dmitry Wolkow", entity_type="person"),
        call("screen_sanctions", name="Jane Unrelated Doe"),
        call("search_adverse_media", query="Dmitry Wolkow"),
        finish("low", sanctions="No hits.", cite="pe-dmitri-volkov"),
    ]
    state = run(
        make_runtime(turns=turns),
        make_state("Dmitry Wolkow", subject_type="person", jurisdiction=None),
    )
    assert "screen_sanctions" in state.completed_steps  # the playbook screened the subject after
    errors = first_refusal(store, state)
    assert any(
        e.startswith("The subject has not been screened against the sanctions") for e in errors
    )
    # Once the subject is screened, its hit makes the packet high risk.
    assert state.proposed_packet.risk_rating == "high"


def test_a_packet_must_name_every_hit_and_the_entity_the_run_matched(
    make_runtime, make_state, store
):
    turns = [
        call("resolve_entity", name="Dmitry Wolkow", entity_type="person"),
        call("screen_sanctions", entity_id="pe-dmitri-volkov"),
        call("search_adverse_media", query="Dmitry Wolkow"),
        finish(
            "high",
            entity="Acme Analytics Ltd [co-acme-analytics-gb]",
            sanctions="No sanctions hits.",
            cite="pe-dmitri-volkov",
        ),
    ]
    state = run(
        make_runtime(turns=turns),
        make_state("Dmitry Wolkow", subject_type="person", jurisdiction=None),
    )
    errors = first_refusal(store, state)
    assert (
        "The packet names the entity “Acme Analytics Ltd [co-acme-analytics-gb]”, but the run "
        "matched the subject to Dmitri Volkov [pe-dmitri-volkov]." in errors
    )
    assert (
        "The sanctions result must name the list of every sanctions hit this run recorded; "
        "it does not name Synthetic OFAC SDN, Synthetic UK HMT Consolidated." in errors
    )
    assert state.status == "awaiting_review"
    assert "Synthetic OFAC SDN" in state.proposed_packet.sanctions_result


# Acme matched and screened, with both its directors screened and searched, by a scripted
# model.
ACME_SCREENED = [
    call("resolve_entity", name="Acme Analytics", jurisdiction="GB", entity_type="company"),
    call("screen_sanctions", entity_id="co-acme-analytics-gb"),
    call("screen_sanctions", name="Sarah Linden"),
    call("screen_sanctions", name="Tom Becker"),
    call("search_adverse_media", query="Sarah Linden"),
    call("search_adverse_media", query="Tom Becker"),
]
UNSEARCHED = "Adverse media has not been searched: that rules out a low risk rating."


@pytest.mark.parametrize(
    "searches",
    [[], [call("search_adverse_media", query="Zzyzx Unrelated Bakery")]],
    ids=["no-search", "someone-elses"],
)
def test_without_a_media_search_of_the_subject_a_packet_cannot_be_low_risk(
    make_runtime, make_state, store, searches
):
    low = finish("low", sanctions="No hits.", cite="co-acme-analytics-gb", subject="Acme Analytics")
    state = run(make_runtime(turns=[*ACME_SCREENED, *searches, low]), make_state())
    assert first_refusal(store, state) == [UNSEARCHED]
    # The playbook then searched for the subject itself, which counts.
    assert "search_adverse_media" in state.completed_steps


def test_a_candidate_screened_by_id_before_it_was_matched_counts_once_matched(
    make_runtime, make_state
):
    turns = [
        call("resolve_entity", name="Northwind Trading", entity_type="company"),
        call("screen_sanctions", entity_id="co-northwind-gb"),
        call("resolve_entity", name="Northwind Trading", jurisdiction="GB", entity_type="company"),
    ]
    runtime = make_runtime(turns=turns)
    state = runtime.start(make_state("Northwind Trading", jurisdiction="GB"))
    for _ in turns:
        state = runtime.step(state)
    assert state.selected_entity.entity_id == "co-northwind-gb"
    assert "screen_sanctions" in state.completed_steps


def test_resolving_someone_else_does_not_match_the_subject(make_runtime, make_state, store):
    turns = [
        call("resolve_entity", name="Acme Analytics", jurisdiction="GB", entity_type="company"),
        call("screen_sanctions", entity_id="co-acme-analytics-gb"),
        call("search_adverse_media", query="Acme Analytics", entity_id="co-acme-analytics-gb"),
        finish(
            "low",
            subject="Dmitri Volkov",
            entity="Acme Analytics Ltd [co-acme-analytics-gb]",
            sanctions="No hits.",
            cite="co-acme-analytics-gb",
        ),
    ]
    state = run(
        make_runtime(turns=turns),
        make_state("Dmitri Volkov", subject_type="person", jurisdiction=None),
    )
    errors = first_refusal(store, state)
    assert any(
        error.startswith(
            "The packet names the entity “Acme Analytics Ltd [co-acme-analytics-gb]”, but the "
            "run has not matched the subject to a registry entity: leave selected_entity "
            "empty, or resolve the subject first (by its own name and type"
        )
        for error in errors
    )
    assert any(e.startswith("The subject has not been screened") for e in errors)
    # The playbook then resolved the subject itself, and its hit made the packet high risk.
    assert state.selected_entity.entity_id == "pe-dmitri-volkov"
    assert state.proposed_packet.risk_rating == "high"


def test_a_jurisdiction_the_case_does_not_give_is_not_the_models_to_choose(
    make_runtime, make_state
):
    turns = [call("resolve_entity", name="Northwind Trading", jurisdiction="US")]
    runtime = make_runtime(turns=turns)
    state = runtime.step(runtime.start(make_state("Northwind Trading", jurisdiction=None)))
    assert state.entity_candidates == [] and state.selected_entity is None
    # The playbook, taking over, asks the analyst instead.
    state = run(runtime, state)
    assert state.status == "waiting_for_input"


def test_a_packet_about_another_subject_is_refused(make_runtime, make_state, store):
    turns = [
        *ACME_SCREENED,
        call("search_adverse_media", query="Acme Analytics", entity_id="co-acme-analytics-gb"),
        finish(
            "medium",
            subject="Volga Petrochem Export",
            sanctions="No hits.",
            cite="co-acme-analytics-gb",
        ),
    ]
    state = run(make_runtime(turns=turns), make_state())
    assert first_refusal(store, state) == [
        "The packet's subject “Volga Petrochem Export” is not the case's subject, Acme Analytics."
    ]
    assert state.proposed_packet.subject != "Volga Petrochem Export"


def test_a_packet_that_names_no_entity_names_the_one_the_run_matched(make_runtime, make_state):
    turns = [
        *ACME_SCREENED,
        call("search_adverse_media", query="Acme Analytics", entity_id="co-acme-analytics-gb"),
        finish(
            "medium", subject="Acme Analytics", sanctions="No hits.", cite="co-acme-analytics-gb"
        ),
    ]
    state = run(make_runtime(turns=turns), make_state())
    assert state.termination_reason == "finish_proposed"
    assert state.proposed_packet.selected_entity == "Acme Analytics Ltd [co-acme-analytics-gb]"


def test_a_media_summary_that_denies_the_adverse_media_recorded_is_refused(
    make_runtime, make_state, store
):
    research = [
        call("resolve_entity", name="Crescent Minerals", entity_type="company"),
        call("screen_sanctions", name="Crescent Minerals"),
        call(
            "search_adverse_media", query="Crescent Minerals", entity_id="co-crescent-minerals-gb"
        ),
    ]
    packet = finish("medium", subject="Crescent Minerals", sanctions="No hits.", cite="x")
    packet["packet"]["adverse_media_summary"] = "None found."
    state = run(
        make_runtime(turns=[*research, packet]), make_state("Crescent Minerals", jurisdiction=None)
    )
    errors = first_refusal(store, state)
    assert any(
        e.startswith("The adverse-media summary says there is none, but this run recorded")
        for e in errors
    ), errors
    assert state.proposed_packet.adverse_media_summary != "None found."


def answered(runtime, state, text: str):
    return runtime.apply_human_input(
        state,
        ClarificationAnswer(
            decision_id=f"d-{state.step}",
            actor="analyst-ann",
            question_id=state.pending_question.question_id,
            text=text,
        ),
    )


def ask(question: str, candidates: list[str] | None = None) -> dict:
    return {"kind": "ask_human", "question": question, "candidates": candidates or []}


NORTHWINDS = ["Northwind Trading Ltd (GB)", "Northwind Trading Pte Ltd (SG)", "Northwind LLC (US)"]


def test_a_detour_before_the_analysts_pick_does_not_lose_the_candidates(make_runtime, make_state):
    runtime = make_runtime(
        turns=[
            call("resolve_entity", name="Northwind Trading", entity_type="company"),
            call("resolve_entity", name="Northwind Trading", jurisdiction="GB"),  # a guess
            ask("Which Northwind Trading?", NORTHWINDS),
            call("resolve_entity", name="Northwind Trading", jurisdiction="US"),
        ]
    )
    state = runtime.start(make_state("Northwind Trading", jurisdiction=None))
    for _ in range(3):
        state = runtime.step(state)
    assert state.status == "waiting_for_input"
    assert len(state.entity_candidates) == 3  # the guess did not replace the listing
    state = runtime.step(answered(runtime, state, "The US one"))
    assert state.selected_entity.entity_id == "co-northwind-us"


def test_an_answer_to_a_question_that_offered_no_pick_does_not_let_the_model_narrow(
    make_runtime, make_state
):
    runtime = make_runtime(
        turns=[
            ask("Is the client the trading company?"),  # asked before any candidates
            call("resolve_entity", name="Northwind Trading", entity_type="company"),
            call("resolve_entity", name="Northwind Trading", jurisdiction="GB"),
        ]
    )
    state = runtime.step(runtime.start(make_state("Northwind Trading", jurisdiction=None)))
    state = runtime.step(runtime.step(answered(runtime, state, "yes")))
    assert len(state.entity_candidates) == 3
    assert state.selected_entity is None


def test_a_narrowing_that_excluded_nothing_matches_the_subject(make_runtime, make_state):
    runtime = make_runtime(
        turns=[
            call("resolve_entity", name="Dmitri Volkov", entity_type="person", jurisdiction="RU")
        ]
    )
    state = runtime.step(
        runtime.start(make_state("Dmitri Volkov", subject_type="person", jurisdiction=None))
    )
    assert state.selected_entity.entity_id == "pe-dmitri-volkov"
    assert "resolve_entity" in state.completed_steps


def test_a_model_cannot_narrow_on_an_answer_to_its_own_yes_or_no_question(make_runtime, make_state):
    runtime = make_runtime(
        turns=[
            call("resolve_entity", name="Northwind Trading", entity_type="company"),
            ask("Do you want the report in English?", ["yes", "no"]),
            call("resolve_entity", name="Northwind Trading", jurisdiction="SG"),
        ]
    )
    state = runtime.step(
        runtime.step(runtime.start(make_state("Northwind Trading", jurisdiction=None)))
    )
    state = runtime.step(answered(runtime, state, "yes"))
    assert state.answered_questions[-1]["picked_entity_id"] == ""
    assert state.selected_entity is None and len(state.entity_candidates) == 3


def test_the_model_may_narrow_only_to_the_candidate_the_analyst_named(
    make_runtime, make_state, store
):
    def after_answer(narrowed_to: str):
        runtime = make_runtime(
            turns=[
                call("resolve_entity", name="Northwind Trading", entity_type="company"),
                ask("Which Northwind Trading?", NORTHWINDS),
                call("resolve_entity", name="Northwind Trading", jurisdiction=narrowed_to),
            ]
        )
        state = runtime.step(
            runtime.step(runtime.start(make_state("Northwind Trading", jurisdiction=None)))
        )
        return runtime.step(answered(runtime, state, "The one in Singapore, not the UK one"))

    against_the_answer = after_answer("US")
    assert against_the_answer.answered_questions[-1]["picked_entity_id"] == "co-northwind-sg"
    assert against_the_answer.selected_entity is None

    as_answered = after_answer("SG")
    assert as_answered.selected_entity.entity_id == "co-northwind-sg"
    received = events_of(store, as_answered, "clarification_received")
    assert received[-1].data["picked_entity_id"] == "co-northwind-sg"


def test_a_packet_must_cite_every_sanctions_hit_even_one_it_calls_lifted(
    make_runtime, make_state, store
):
    """A model may say a listing was lifted; it may not leave a recorded hit out."""

    def leaves_a_hit_out(context):
        projection = context.projection
        if context.turn_index == 0:
            action = call("resolve_entity", name="Dmitry Wolkow", entity_type="person")
        elif context.turn_index == 1:
            action = call("screen_sanctions", entity_id="pe-dmitri-volkov")
        elif context.turn_index == 2:
            action = call("search_adverse_media", query="Dmitry Wolkow")
        else:
            hits = [e for e in projection["evidence"] if "sanctions_hit" in e["signals"]]
            action = finish(
                "high",
                entity="Dmitri Volkov [pe-dmitri-volkov]",
                sanctions="Hits on Synthetic OFAC SDN and Synthetic UK HMT Consolidated, since removed.",
                cite=hits[0]["evidence_id"],
            )
            action["packet"]["findings"][0]["claim"] = "Delisted by OFAC; no longer a concern."
            action["packet"]["adverse_media_summary"] = "Two articles, both retracted."
        return ModelReply(action=action)

    state = run(
        make_runtime(FnModel(leaves_a_hit_out)),
        make_state("Dmitry Wolkow", subject_type="person", jurisdiction=None, max_iterations=6),
    )
    hits = [e.evidence_id for e in state.sanctions_hits()]
    assert len(hits) == 2
    assert first_refusal(store, state) == [
        f"Every sanctions hit this run recorded must be cited by a finding; none cites {hits[1]}."
    ]
    assert state.termination_reason != "finish_proposed"
