"""Each director of the subject company is screened against the sanctions lists by name."""

from __future__ import annotations

import copy

from runtime_helpers import FnModel, events_of, playbook_skipping, run, tool_arguments

from atlas.runtime.adapters.base import ModelReply
from atlas.runtime.adapters.playbook import Playbook
from atlas.runtime.context import FENCE_OPEN, build_context
from atlas.runtime.directors import director_step, directors, unscreened_directors
from atlas.runtime.policy import TenantPolicy
from atlas.runtime.progress import pending_requirements
from atlas.runtime.state import AttachedDocument, ConflictResolutionRecord, Signal
from atlas.runtime.tools.registry import default_registry
from atlas.runtime.world import World, default_world


def test_the_playbook_screens_every_director_and_a_listed_one_makes_the_packet_high_risk(
    make_runtime, make_state, store
):
    state = run(make_runtime(), make_state("Amber Coast Freight", jurisdiction="LT"))
    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    assert tool_arguments(store, state, "screen_sanctions") == [
        {"entity_id": "co-amber-coast-freight-lt"},
        {"name": "Ieva Petraitytė"},
        {"name": "Dmitry Volkov"},
    ]
    assert unscreened_directors(state) == []
    assert "screen_sanctions" in state.completed_steps
    packet = state.proposed_packet
    assert packet.risk_rating == "high"
    assert packet.sanctions_result == (
        "2 sanctions hits: on director Dmitry Volkov (Synthetic UK HMT Consolidated, "
        "Synthetic OFAC SDN). No hits for the subject or director Ieva Petraitytė."
    )
    hits = [e.claim for e in state.evidence if Signal.SANCTIONS_HIT in e.signals]
    assert hits and all(c.startswith("Sanctions hit on director Dmitry Volkov:") for c in hits)
    assert "No sanctions hits for director Ieva Petraitytė" in " ".join(
        f.claim for f in packet.findings
    )


def test_screening_a_director_does_not_count_as_screening_the_subject(make_runtime, make_state):
    def directors_first(context):
        done = context.projection["completed_steps"]
        if "resolve_entity" in done and not any(s.startswith("screen_director:") for s in done):
            name = context.projection["directors_to_screen"][0]
            return ModelReply(
                action={
                    "kind": "call_tool",
                    "tool_name": "screen_sanctions",
                    "arguments": {"name": name},
                }
            )
        return ModelReply(action=Playbook().next_action(context.projection))

    state = run(make_runtime(FnModel(directors_first)), make_state())
    assert state.completed_steps[:3] == [
        "resolve_entity",
        director_step("Sarah Linden"),
        "screen_sanctions",
    ]
    assert state.termination_reason == "finish_proposed"


def test_unscreened_directors_rule_out_low_risk_and_are_named_in_the_packet(
    make_runtime, make_state, store
):
    """A model that skips the directors: its low rating is refused, its medium one goes to
    sign-off with each unscreened director named among the open gaps."""
    state = run(make_runtime(playbook_skipping("directors_to_screen")), make_state())
    (rejected,) = events_of(store, state, "final_rejected")
    assert rejected.data["errors"] == [
        "Not every director of the subject has been screened against the sanctions lists "
        "(see directors_to_screen): that rules out a low risk rating."
    ]
    assert state.termination_reason == "finish_proposed"
    assert state.proposed_packet.risk_rating == "medium"
    assert state.proposed_packet.open_gaps == [
        "Director Sarah Linden was not screened against the sanctions lists.",
        "Director Tom Becker was not screened against the sanctions lists.",
    ]
    assert pending_requirements(state)[-2:] == [
        director_step("Sarah Linden"),
        director_step("Tom Becker"),
    ]


def test_directors_named_by_any_source_count_until_a_reviewer_settles_the_conflict(
    make_runtime, make_state
):
    state = run(make_runtime(), make_state("Meridian Shipping Holdings", max_iterations=3))
    assert directors(state) == ["Helen Carter", "James Whitfield", "Viktor Petrenko"]
    (conflict,) = state.conflicts
    conflict.status = "resolved"
    conflict.resolution = ConflictResolutionRecord(
        value="Helen Carter, James Whitfield", actor="rita", decision_id="d-1"
    )
    assert directors(state) == ["Helen Carter", "James Whitfield"]


def test_director_names_reach_the_model_only_inside_the_untrusted_data_fence(
    make_runtime, make_state
):
    state = run(make_runtime(), make_state("Meridian Shipping Holdings", max_iterations=3))
    context = build_context(state, default_registry(), TenantPolicy())
    trusted, fenced = context.messages[1]["content"].split(FENCE_OPEN, 1)
    assert director_step("Viktor Petrenko") in trusted
    assert "Viktor Petrenko" not in trusted
    assert '"directors_to_screen": ["Helen Carter", "James Whitfield", "Viktor Petrenko"]' in fenced


def acme_directed_by(*names: str) -> World:
    """The world with Acme Analytics' registry record naming `names` as its directors."""
    world = default_world()
    entities = copy.deepcopy(world.entities)
    for entity in entities:
        if entity["entity_id"] == "co-acme-analytics-gb":
            entity["directors"] = list(names)
    return World(entities, world.sanctions, world.articles)


def test_a_name_the_screening_tool_refuses_does_not_keep_the_other_directors_unscreened(
    make_runtime, make_state
):
    refused = "X" * 201
    state = run(make_runtime(world=acme_directed_by(refused, "Dmitry Volkov")), make_state())
    assert state.termination_reason == "finish_proposed"
    assert state.proposed_packet.risk_rating == "high"
    assert unscreened_directors(state) == [refused]
    assert f"Director {refused} was not screened against the sanctions lists." in (
        state.proposed_packet.open_gaps
    )


def test_a_source_naming_the_subject_as_its_own_director_adds_nothing_to_screen(
    make_runtime, make_state
):
    note = AttachedDocument(document_id="doc-acme-onboarding", name="acme_onboarding_note.txt")
    world = acme_directed_by("Sarah Linden", "Acme Analytics Ltd")
    state = run(make_runtime(world=world), make_state(documents=[note]))
    assert "Acme Analytics Ltd" not in directors(state)
    assert "extract:doc-acme-onboarding" in state.completed_steps
    assert state.termination_reason == "finish_proposed"
