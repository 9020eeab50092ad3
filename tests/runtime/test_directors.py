"""Each director of the subject company is screened against the sanctions lists and
searched for adverse media by name."""

from __future__ import annotations

import copy

from runtime_helpers import FnModel, events_of, playbook_skipping, run, tool_arguments
from test_document_owners import HEAD, attached

from atlas.runtime.adapters.base import ModelReply
from atlas.runtime.adapters.playbook import Playbook, draft_packet
from atlas.runtime.context import FENCE_OPEN, build_context, project_state
from atlas.runtime.directors import (
    DISPUTED,
    director_media_step,
    director_step,
    directors,
    unscreened_directors,
    unsearched_directors,
)
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
        " Nobody screened is on the register of politically exposed persons."
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


def test_adverse_media_on_a_director_makes_a_clean_company_medium_risk(
    make_runtime, make_state, store
):
    """Harrow Bay Freight is on no list and in no article, but one of its directors was
    convicted of customs fraud."""
    state = run(make_runtime(), make_state("Harrow Bay Freight", jurisdiction="GB"))
    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    assert tool_arguments(store, state, "search_adverse_media") == [
        {"query": "Harrow Bay Freight Ltd", "entity_id": "co-harrow-bay-freight-gb"},
        {"query": "Colin Marsh"},
        {"query": "Anita Rao"},
    ]
    assert unsearched_directors(state) == []
    (article,) = [e for e in state.evidence if e.source_id == "article:art-marsh-001"]
    assert (article.about, Signal.ADVERSE in article.signals) == ("director Colin Marsh", True)
    # Found by his name alone, it may be about a namesake: a reviewer marks it.
    assert article.found_by_name
    assert state.screening_matches() == [article]
    packet = state.proposed_packet
    assert packet.risk_rating == "medium"
    conviction = "Haulage director Colin Marsh convicted of customs fraud (on director Colin Marsh)"
    assert packet.adverse_media_summary.endswith(conviction + ".")
    assert any(f.claim.endswith(conviction) for f in packet.findings)
    assert "No adverse media found for director Anita Rao." in [f.claim for f in packet.findings]


def test_a_search_on_a_director_does_not_count_as_the_subjects(make_runtime, make_state, store):
    state = run(make_runtime(playbook_skipping("directors_to_screen")), make_state())
    assert director_media_step("Sarah Linden") in state.completed_steps
    searches = tool_arguments(store, state, "search_adverse_media")
    assert searches[0] == {"query": "Acme Analytics Ltd", "entity_id": "co-acme-analytics-gb"}
    assert [s.get("entity_id") for s in searches[1:]] == [None, None]
    assert [e.about for e in state.evidence if e.about.startswith("director")] == [
        "director Sarah Linden",
        "director Tom Becker",
    ]


def test_unsearched_directors_rule_out_low_risk_and_are_named_in_the_packet(
    make_runtime, make_state, store
):
    state = run(make_runtime(playbook_skipping("directors_to_search")), make_state())
    (rejected,) = events_of(store, state, "final_rejected")
    assert rejected.data["errors"] == [
        "Adverse media has not been searched on every director of the subject (see "
        "directors_to_search): that rules out a low risk rating."
    ]
    assert state.proposed_packet.risk_rating == "medium"
    assert state.proposed_packet.open_gaps == [
        "Director Sarah Linden was not searched for adverse media.",
        "Director Tom Becker was not searched for adverse media.",
    ]
    assert pending_requirements(state)[-2:] == [
        director_media_step("Sarah Linden"),
        director_media_step("Tom Becker"),
    ]


def test_with_media_search_forbidden_the_directors_are_named_not_tried(
    make_runtime, make_state, store
):
    """A tool the tenant forbids is not offered to the model: the playbook leaves the
    directors to the packet's gaps instead of running into a denial for each."""
    runtime = make_runtime(tenant_policy=TenantPolicy(forbidden_tools=["search_adverse_media"]))
    state = run(runtime, make_state())
    assert state.termination_reason == "finish_proposed"
    assert len(events_of(store, state, "policy_denied")) == 1  # the subject's own search
    assert state.proposed_packet.risk_rating == "medium"
    assert state.proposed_packet.open_gaps[-3:] == [
        "Director Sarah Linden was not searched for adverse media.",
        "Director Tom Becker was not searched for adverse media.",
        "The adverse media search for Acme Analytics Ltd was not run: search_adverse_media is "
        "forbidden by the tenant's policy.",
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
    assert '"directors_to_search": ["Helen Carter", "James Whitfield", "Viktor Petrenko"]' in fenced
    assert director_media_step("Viktor Petrenko") in trusted


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


def test_a_director_search_finding_only_articles_already_held_says_so_in_the_packet(
    make_runtime, make_state, store
):
    """Meridian's two syndicated articles name Viktor Petrenko; searching his name finds
    them again. The packet still answers whether he was looked for."""
    state = run(make_runtime(), make_state("Meridian Shipping Holdings", jurisdiction="GB"))
    assert {"query": "Viktor Petrenko"} in tool_arguments(store, state, "search_adverse_media")
    (held,) = [
        e
        for e in state.evidence
        if e.about == "director Viktor Petrenko" and e.tool == "search_adverse_media"
    ]
    # The second article is a copy of the first at another address: one story, held once.
    assert held.claim == (
        "The media search for director Viktor Petrenko found only 1 article already held: "
        "Example Business News, 2024-09-12: Meridian Shipping appoints Viktor Petrenko to the "
        "board."
    )
    assert not held.signals and not held.found_by_name
    # The registry does not name him, and nobody settled the conflict yet.
    assert held.claim.replace("director Viktor Petrenko", f"Viktor Petrenko ({DISPUTED})") in [
        f.claim for f in state.proposed_packet.findings
    ]
    assert held not in state.screening_matches()
    articles = [e for e in state.evidence if e.source_id.startswith("article:")]
    assert len(articles) == 1 and articles[0].about == ""


def test_once_the_directors_are_settled_the_packet_calls_no_one_set_aside_a_director(
    make_runtime, make_state
):
    state = run(make_runtime(), make_state("Meridian Shipping Holdings"))
    assert state.termination_reason == "finish_proposed"
    (conflict,) = state.conflicts
    assert any(f"James Whitfield ({DISPUTED})" in f.claim for f in state.proposed_packet.findings)
    conflict.status = "resolved"
    conflict.resolution = ConflictResolutionRecord(
        value="Helen Carter, Viktor Petrenko", actor="rita", decision_id="d-1"
    )
    packet = draft_packet(project_state(state), state.brief.subject, [])
    texts = [f.claim for f in packet.findings] + [
        packet.sanctions_result,
        packet.adverse_media_summary,
    ]
    assert not any("director James Whitfield" in text for text in texts)
    whitfield = "James Whitfield (named a director only by a source the reviewer set aside)"
    assert any(whitfield in f.claim for f in packet.findings)
    assert whitfield in packet.sanctions_result
    # The directors the reviewer kept are still called so.
    assert "director Viktor Petrenko" in packet.sanctions_result
    assert "director Helen Carter" in packet.sanctions_result


def test_while_the_directors_conflict_is_open_only_people_every_source_names_are_directors(
    make_runtime, make_state
):
    """The registry names Helen Carter and James Whitfield, an article Helen Carter and
    Viktor Petrenko: until a reviewer settles it, neither Whitfield nor Petrenko is called a
    director outright, in the packet or on its page."""
    from atlas.runtime.directors import as_settled_in as page_wording

    state = run(make_runtime(), make_state("Meridian Shipping Holdings"))
    assert state.conflicts[0].status == "open"
    packet = state.proposed_packet
    texts = [f.claim for f in packet.findings] + [packet.sanctions_result]
    for name in ("James Whitfield", "Viktor Petrenko"):
        assert not any(f"director {name}" in text for text in texts)
        assert f"{name} ({DISPUTED})" in packet.sanctions_result
    assert "director Helen Carter" in packet.sanctions_result
    settled = page_wording(state.model_dump(mode="json"))
    claims = [settled(e.claim) for e in state.evidence]
    assert not any("director Viktor Petrenko" in claim for claim in claims)
    assert any(f"Viktor Petrenko ({DISPUTED})" in claim for claim in claims)


def test_the_packet_pages_evidence_lists_read_as_the_settled_packet_does(make_runtime, make_state):
    """The sources listed beside the packet's summaries are reworded as its findings are."""
    from atlas.runtime.directors import as_settled_in as page_wording

    state = run(make_runtime(), make_state("Meridian Shipping Holdings"))
    (conflict,) = state.conflicts
    conflict.status = "resolved"
    conflict.resolution = ConflictResolutionRecord(
        value="Helen Carter, Viktor Petrenko", actor="rita", decision_id="d-1"
    )
    settled = page_wording(state.model_dump(mode="json"))
    claims = [settled(e.claim) for e in state.evidence]
    assert not any("director James Whitfield" in claim for claim in claims)
    assert sum("Whitfield (named a director only by a source" in claim for claim in claims) == 2
    assert sum("director Viktor Petrenko" in claim for claim in claims) >= 1


def test_a_business_listed_as_a_director_is_screened_by_its_whole_name(
    make_runtime, make_state, store, documents
):
    doc = attached(
        documents,
        "board.txt",
        HEAD + "Directors: Sarah Linden, Tom Becker, Harbor Nominees Ltd\n",
    )
    state = run(make_runtime(), make_state(documents=[doc]))
    assert "Harbor Nominees Ltd" in directors(state)
    assert {"name": "Harbor Nominees Ltd"} in tool_arguments(store, state, "screen_sanctions")
    assert {"query": "Harbor Nominees Ltd"} in tool_arguments(store, state, "search_adverse_media")
    # The registry names only the two people: the sources disagree on who the directors are.
    assert [c.fact for c in state.conflicts] == ["directors"]
