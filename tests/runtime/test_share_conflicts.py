"""What each document says one owner holds is weighed owner by owner: documents giving an
owner different shares are a conflict over that owner's share, one that lists fewer owners
disputes nothing, and the 50 Percent Rule is said as far as the documents allow: blocked
(or not) whichever share stands, or a gap until a reviewer settles it."""

from __future__ import annotations

from datetime import UTC, datetime

from runtime_helpers import run, settled
from test_document_owners import HEAD, attached

from atlas.runtime.context import project_state
from atlas.runtime.shares import FACT, WHOLE_MAP_FACT, ownership_by_listed_owners
from atlas.runtime.state import (
    Conflict,
    ConflictResolutionRecord,
    ConflictValue,
    Fact,
    conflict_id_for,
)

BLOCKED = "50% or more, so under OFAC's 50 Percent Rule the company is itself blocked"


def two_declarations(make_runtime, make_state, documents, first: str, second: str):
    runtime = make_runtime()
    older = attached(documents, "ubo_2023.txt", HEAD + f"UBO: {first}\n")
    newer = attached(documents, "ubo_2024.txt", HEAD + f"UBO: {second}\n")
    return runtime, run(runtime, make_state(documents=[older, newer]))


def share_conflicts(state) -> dict[str, Conflict]:
    return {c.person: c for c in state.conflicts if c.fact == FACT}


def test_documents_giving_an_owner_different_shares_are_a_conflict_over_that_owners_share(
    make_runtime, make_state, documents
):
    _, state = two_declarations(
        make_runtime,
        make_state,
        documents,
        "Dmitri Volkov (60%); Jane Roe (40%)",
        "Dmitri Volkov (40%); Jane Roe (60%)",
    )
    conflicts = share_conflicts(state)
    assert set(conflicts) == {"beneficial owner Dmitri Volkov", "beneficial owner Jane Roe"}
    volkov = conflicts["beneficial owner Dmitri Volkov"]
    assert {(v.value, v.source_label) for v in volkov.values} == {
        ("60%", "Uploaded document ubo_2023.txt"),
        ("40%", "Uploaded document ubo_2024.txt"),
    }
    assert {v.excerpt for v in volkov.values} == {
        "UBO: Dmitri Volkov (60%); Jane Roe (40%)",
        "UBO: Dmitri Volkov (40%); Jane Roe (60%)",
    }
    packet = state.proposed_packet
    assert "Owners with sanctions hits hold" not in packet.sanctions_result
    assert (
        "The sources disagree on the share of Acme Analytics Ltd that Dmitri Volkov, a "
        "beneficial owner with a sanctions hit, holds: whether owners on the lists hold 50% or "
        "more of it (OFAC's 50 Percent Rule) is not known until a reviewer settles which share "
        "stands."
    ) in packet.open_gaps
    assert (
        "Unresolved conflict on ownership share of beneficial owner Dmitri Volkov: sources "
        "disagree."
    ) in packet.open_gaps
    projected = {c["about"] for c in project_state(state)["conflicts"]}
    assert "beneficial owner Dmitri Volkov" in projected


def test_a_document_giving_fewer_owners_shares_disputes_no_share(
    make_runtime, make_state, documents
):
    _, state = two_declarations(
        make_runtime,
        make_state,
        documents,
        "Dmitri Volkov (60%); Jane Roe (40%)",
        "Dmitri Volkov (60%); Jane Roe",
    )
    assert share_conflicts(state) == {}
    assert not state.conflicts
    assert (
        "Owners with sanctions hits hold 60% of Acme Analytics Ltd (Dmitri Volkov 60%, by "
        f"uploaded document ubo_2023.txt and uploaded document ubo_2024.txt): {BLOCKED}"
    ) in state.proposed_packet.sanctions_result


def test_a_disputed_share_that_blocks_the_company_either_way_is_said_so(
    make_runtime, make_state, documents
):
    _, state = two_declarations(
        make_runtime, make_state, documents, "Dmitri Volkov (60%)", "Dmitri Volkov (55%)"
    )
    assert set(share_conflicts(state)) == {"beneficial owner Dmitri Volkov"}
    packet = state.proposed_packet
    assert (
        "Owners with sanctions hits hold at least 55% of Acme Analytics Ltd (Dmitri Volkov 60% "
        f"or 55%, by uploaded document ubo_2023.txt and uploaded document ubo_2024.txt): {BLOCKED}"
    ) in packet.sanctions_result
    assert not any(gap.startswith("The sources disagree on the share") for gap in packet.open_gaps)


def test_a_disputed_share_under_half_either_way_is_said_not_to_block(
    make_runtime, make_state, documents
):
    _, state = two_declarations(
        make_runtime,
        make_state,
        documents,
        "Dmitri Volkov (10%); Jane Roe (90%)",
        "Dmitri Volkov (20%); Jane Roe (80%)",
    )
    assert (
        "Owners with sanctions hits hold at most 20% of Acme Analytics Ltd (Dmitri Volkov 10% or "
        "20%, by uploaded document ubo_2023.txt and uploaded document ubo_2024.txt): under 50% "
        "whichever of the sources' shares stands"
    ) in state.proposed_packet.sanctions_result


def test_the_share_a_reviewer_settles_on_is_the_one_counted(make_runtime, make_state, documents):
    runtime, state = two_declarations(
        make_runtime,
        make_state,
        documents,
        "Dmitri Volkov (60%); Jane Roe (40%)",
        "Dmitri Volkov (40%); Jane Roe (60%)",
    )
    conflicts = share_conflicts(state)
    state = settled(runtime, state, conflicts["beneficial owner Dmitri Volkov"].conflict_id, "40%")
    packet = state.proposed_packet
    assert (
        "Owners with sanctions hits hold 40% of Acme Analytics Ltd (Dmitri Volkov 40%, by "
        "uploaded document ubo_2024.txt): under 50%"
    ) in packet.sanctions_result
    assert not any(gap.startswith("The sources disagree on the share") for gap in packet.open_gaps)
    # Jane Roe's share is still in dispute, and holds sign-off back.
    (open_conflict,) = packet.unresolved_conflicts
    assert open_conflict.conflict_id == conflicts["beneficial owner Jane Roe"].conflict_id


def test_a_settled_share_that_reaches_half_blocks_the_company(make_runtime, make_state, documents):
    runtime, state = two_declarations(
        make_runtime, make_state, documents, "Dmitri Volkov (60%)", "Dmitri Volkov (40%)"
    )
    (conflict,) = share_conflicts(state).values()
    state = settled(runtime, state, conflict.conflict_id, "60%")
    assert (
        "Owners with sanctions hits hold 60% of Acme Analytics Ltd (Dmitri Volkov 60%, by "
        f"uploaded document ubo_2023.txt): {BLOCKED}"
    ) in state.proposed_packet.sanctions_result


def whole_map(source: str, shares: str, stored) -> Fact:
    return Fact(
        fact=WHOLE_MAP_FACT,
        entity_id="co-acme-analytics-gb",
        value=shares.lower(),
        display_value=shares,
        source_id=f"document:doc-{source}",
        source_label=f"Uploaded document {source}",
        retrieved_at=stored,
        evidence_id=f"ev-{source}",
    )


def test_a_run_stored_with_whole_maps_is_read_owner_by_owner(make_runtime, make_state, documents):
    """Before each owner's share was a fact of its own, a document's shares were one fact,
    and a reviewer who settled a conflict between two chose one whole map."""
    doc = attached(documents, "ubo.txt", HEAD + "UBO: Dmitri Volkov (30%); Jane Roe (70%)\n")
    state = run(make_runtime(), make_state(documents=[doc]))
    stored = datetime(2026, 1, 5, tzinfo=UTC)
    older = whole_map("ubo_2023.txt", "Dmitri Volkov: 60%; Jane Roe: 40%", stored)
    newer = whole_map("ubo_2024.txt", "Dmitri Volkov: 40%; Jane Roe: 60%", stored)
    state.facts = [f for f in state.facts if f.fact != FACT] + [older, newer]
    said, gap = ownership_by_listed_owners(state)
    assert (said, gap.startswith("The sources disagree on the share")) == ("", True)

    state.conflicts.append(
        Conflict(
            conflict_id=conflict_id_for("co-acme-analytics-gb", WHOLE_MAP_FACT),
            fact=WHOLE_MAP_FACT,
            entity_id="co-acme-analytics-gb",
            values=[
                ConflictValue(value=f.display_value, source_id=f.source_id, retrieved_at=stored)
                for f in (older, newer)
            ],
            status="resolved",
            resolution=ConflictResolutionRecord(
                value=newer.display_value, actor="reviewer-rita", decision_id="d-1"
            ),
        )
    )
    said, gap = ownership_by_listed_owners(state)
    assert (said, gap) == (
        "Owners with sanctions hits hold 40% of Acme Analytics Ltd (Dmitri Volkov 40%, by "
        "uploaded document ubo_2024.txt): under 50%, so OFAC's 50 Percent Rule does not block "
        "the company by ownership alone.",
        "",
    )
