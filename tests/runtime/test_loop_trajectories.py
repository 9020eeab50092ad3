"""The seed's trajectory tests and the endless-research failure injection."""

from __future__ import annotations

import pytest
from runtime_helpers import (
    ACME_DIRECTOR_STEPS,
    FINISH_TURN,
    TOOL_TURN,
    FnModel,
    call,
    events_of,
    run,
    stored_observations,
    types,
)

from atlas.runtime.adapters.base import ModelReply
from atlas.runtime.adapters.playbook import Playbook
from atlas.runtime.decisions import Finish
from atlas.runtime.state import AttachedDocument

ACME = {"name": "Acme Analytics", "jurisdiction": "GB", "entity_type": "company"}
MERIDIAN = {"name": "Meridian Shipping Holdings", "jurisdiction": "GB", "entity_type": "company"}


def test_an_identical_read_is_not_executed_twice(make_runtime, make_state, store):
    doc = AttachedDocument(document_id="doc-acme-onboarding", name="acme_onboarding_note.txt")
    read = call("extract_uploaded_document", document_id="doc-acme-onboarding")
    state = run(make_runtime(turns=[read, read]), make_state(documents=[doc]))
    assert types(store, state)[:8] == [
        "run_started",
        *TOOL_TURN,
        "model_requested",
        "model_decision",
        "duplicate_action_blocked",
    ]
    reads = [
        e
        for e in events_of(store, state, "tool_started")
        if e.data["tool"] == "extract_uploaded_document"
    ]
    assert len(reads) == 1
    blocked = next(
        o for o in stored_observations(store, state) if o.error_type == "duplicate_action"
    )
    assert "Change the plan or the arguments" in blocked.error_message


@pytest.mark.parametrize(
    "same_name",
    [
        "acme  ANALYTICS",
        "Acme\u200b Analytics",
        "\uff21\uff43\uff4d\uff45 Analytics",
        "Acme Ana\u00adlytics",
    ],
    ids=["case and spaces", "zero-width space", "full-width letters", "soft hyphen"],
)
def test_the_same_name_written_differently_is_the_same_action(
    make_runtime, make_state, store, same_name
):
    first = call("resolve_entity", **ACME)
    again = call("resolve_entity", **{**ACME, "name": same_name})
    state = run(make_runtime(turns=[first, again]), make_state())
    assert types(store, state)[: len(TOOL_TURN) + 4][-1] == "duplicate_action_blocked"
    resolves = [
        e for e in events_of(store, state, "tool_started") if e.data["tool"] == "resolve_entity"
    ]
    assert len(resolves) == 1


def test_a_finish_citing_an_unread_source_is_rejected_and_the_loop_goes_on(
    make_runtime, make_state, store
):
    playbook = Playbook()
    attempts = {"n": 0}

    def launderer(context):
        action = playbook.next_action(context.projection)
        if isinstance(action, Finish) and attempts["n"] == 0:
            attempts["n"] += 1
            packet = action.packet.model_copy(deep=True)
            packet.findings[0].evidence_ids.append("ev-never-read")
            return ModelReply(action=Finish(packet=packet))
        return ModelReply(action=action)

    state = run(make_runtime(FnModel(launderer)), make_state())
    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    assert types(store, state) == [
        "run_started",
        *TOOL_TURN * 3,
        *ACME_DIRECTOR_STEPS,
        "model_requested",
        "model_decision",
        "final_rejected",
        *FINISH_TURN,
    ]
    refused = events_of(store, state, "final_rejected")[0].data
    assert refused["errors"] == [
        "Finding 1 cites ev-never-read, which is not evidence this run has read."
    ]
    assert "ev-never-read" in refused["packet"]["findings"][0]["evidence_ids"]


def test_a_finding_may_cite_a_read_source_by_its_own_id(make_runtime, make_state, store):
    """A script cannot know the runtime's evidence ids in advance; the ids the tools gave
    (article, registry entity) or a source's address are read citations too. A source the
    run has not read is still refused."""
    research = [
        call("resolve_entity", **ACME),
        call("screen_sanctions", entity_id="co-acme-analytics-gb"),
        call("search_adverse_media", query="Acme Analytics", entity_id="co-acme-analytics-gb"),
    ]

    def finish(*cited: str) -> dict:
        findings = [
            {"claim": "Registered in GB; one funding article.", "evidence_ids": list(cited)}
        ]
        return {
            "kind": "finish",
            # Medium: the script does not screen Acme's directors, which rules out low.
            "packet": {"subject": "Acme Analytics", "risk_rating": "medium", "findings": findings},
        }

    turns = [*research, finish("art-acme-999"), finish("art-acme-001", "co-acme-analytics-gb")]
    state = run(make_runtime(turns=turns), make_state())
    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    errors = events_of(store, state, "final_rejected")[0].data["errors"]
    assert errors == ["Finding 1 cites art-acme-999, which is not evidence this run has read."]
    cited = state.proposed_packet.findings[0].evidence_ids
    sources = {e.evidence_id: e.source_id for e in state.evidence}
    assert {sources[evidence_id] for evidence_id in cited} == {
        "article:art-acme-001",
        "registry:co-acme-analytics-gb",
    }


def test_a_failed_tool_call_is_followed_by_a_new_decision_and_a_successful_call(
    make_runtime, make_state, store
):
    turns = [call("screen_sanctions", entity_id="co-no-such-company")]
    state = run(make_runtime(turns=turns), make_state())
    assert types(store, state)[:9] == [
        "run_started",
        "model_requested",
        "model_decision",
        "tool_started",
        "tool_failed",
        "model_requested",
        "model_decision",
        "tool_started",
        "tool_succeeded",
    ]
    failed = events_of(store, state, "tool_failed")[0].data
    assert failed["error_type"] == "not_found" and failed["retryable"] is False
    assert failed["duration_ms"] >= 0  # the call was timed, so its step's time includes it
    assert stored_observations(store, state)[0].error_type == "not_found"
    assert state.status == "awaiting_review"


def test_endless_research_on_conflicting_directors_escalates_with_the_conflict(
    make_runtime, make_state, store
):
    phrasings = [
        "Meridian Shipping directors",
        "Meridian Shipping board members",
        "Meridian Shipping Holdings management",
        "who runs Meridian Shipping",
        "Meridian Shipping leadership change",
        "Meridian Shipping Petrenko Whitfield",
    ]
    turns = [
        call("resolve_entity", **MERIDIAN),
        call("screen_sanctions", entity_id="co-meridian-shipping-gb"),
        *[call("search_adverse_media", query=q) for q in phrasings],
    ]
    state = run(make_runtime(turns=turns), make_state("Meridian Shipping Holdings"))
    assert (state.status, state.termination_reason) == ("awaiting_review", "no_progress")
    assert types(store, state) == [
        "run_started",
        *TOOL_TURN * 3,
        "conflict_detected",
        *TOOL_TURN * 3,
        "no_progress_detected",
        "escalated",
    ]
    # The same two articles came back every time: one piece of evidence, deduplicated.
    media = [e for e in state.evidence if e.evidence_class == "adverse_media"]
    assert len(media) == 1
    packet = state.proposed_packet
    assert packet.partial
    (conflict,) = packet.unresolved_conflicts
    assert conflict.fact == "directors"
    assert {(v.value, v.source_id) for v in conflict.values} == {
        ("Helen Carter, James Whitfield", "registry:co-meridian-shipping-gb"),
        ("Helen Carter, Viktor Petrenko", "article:art-meridian-001"),
    }
    assert all(v.retrieved_at and v.source_label for v in conflict.values)
    escalated = events_of(store, state, "escalated")[0].data
    assert escalated["conflicts"] == [conflict.conflict_id]
    detected = events_of(store, state, "conflict_detected")
    assert len(detected) == 1


def test_endless_research_under_a_tight_budget_ends_on_the_budget(make_runtime, make_state, store):
    turns = [
        call("resolve_entity", **MERIDIAN),
        *[call("search_adverse_media", query=f"Meridian Shipping angle {n}") for n in range(10)],
    ]
    state = run(
        make_runtime(turns=turns), make_state("Meridian Shipping Holdings", max_iterations=3)
    )
    assert (state.status, state.termination_reason) == ("awaiting_review", "max_iterations")
    assert state.proposed_packet.unresolved_conflicts
