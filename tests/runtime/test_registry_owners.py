"""A registry that publishes the persons with significant control names owners of the
subject company, each with the band of shares it holds: they are screened and searched for
as owners a document names are, their bands count under OFAC's 50 Percent Rule, and a
document's share agrees with a band it falls in; one outside it, under its floor or over its
ceiling, is a conflict.

Kestrel Ridge Haulage Ltd (GB): the register gives Dmitri Volkov (sanctioned) more than 50%
but less than 75%, and its director Owen Pryce more than 25% but not more than 50%."""

from __future__ import annotations

import pytest
from runtime_helpers import run, tool_arguments
from test_document_owners import attached

from atlas.runtime.shares import FACT, share_bounds, shares_agree

KESTREL = "Kestrel Ridge Haulage"
HEAD = "Company: Kestrel Ridge Haulage Ltd\nCompany number: 10457328\n"
BLOCKED = "50% or more, so under OFAC's 50 Percent Rule the company is itself blocked"


def kestrel(make_runtime, make_state, documents, *texts: str):
    store_documents = [
        attached(documents, f"ubo{i}.txt", HEAD + text) for i, text in enumerate(texts)
    ]
    runtime = make_runtime()
    state = run(runtime, make_state(KESTREL, jurisdiction="GB", documents=store_documents))
    return runtime, state


def test_the_registers_owners_are_researched_and_their_bands_counted(
    make_runtime, make_state, documents, store
):
    _, state = kestrel(make_runtime, make_state, documents)
    assert {"name": "Dmitri Volkov"} in tool_arguments(store, state, "screen_sanctions")
    assert {"query": "Dmitri Volkov"} in tool_arguments(store, state, "search_adverse_media")
    # A director who owns a share is researched as a director, once.
    assert tool_arguments(store, state, "screen_sanctions").count({"name": "Owen Pryce"}) == 1
    (record,) = [e for e in state.evidence if e.source_id == "registry:co-kestrel-ridge-haulage-gb"]
    assert record.claim.endswith(
        "directors: Owen Pryce (born 1979); persons with significant control: Dmitri Volkov "
        "(more than 50% but less than 75%; born 1968), Owen Pryce (more than 25% but not more "
        "than 50%; born 1979)."
    )
    packet = state.proposed_packet
    assert packet.risk_rating == "high"
    assert (
        "Owners with sanctions hits hold at least 50% of Kestrel Ridge Haulage Ltd (Dmitri "
        f"Volkov more than 50% but less than 75%, by company registry (GB)): {BLOCKED}"
    ) in packet.sanctions_result
    assert not state.conflicts


def test_a_documents_share_inside_the_registers_band_agrees_with_it(
    make_runtime, make_state, documents
):
    _, state = kestrel(
        make_runtime, make_state, documents, "UBO: Dmitri Volkov (60%); Owen Pryce (40%)\n"
    )
    assert not [c for c in state.conflicts if c.fact == FACT]
    assert (
        "Owners with sanctions hits hold 60% of Kestrel Ridge Haulage Ltd (Dmitri Volkov 60%, by "
        f"company registry (GB) and uploaded document ubo0.txt): {BLOCKED}"
    ) in state.proposed_packet.sanctions_result


def test_a_documents_share_outside_the_registers_band_is_a_conflict(
    make_runtime, make_state, documents
):
    """Under its floor (Volkov's 40% against more than 50%) or over its ceiling (Pryce's 60%
    against not more than 50%)."""
    _, state = kestrel(
        make_runtime, make_state, documents, "UBO: Dmitri Volkov (40%); Owen Pryce (60%)\n"
    )
    conflicts = {c.person: c for c in state.conflicts if c.fact == FACT}
    assert set(conflicts) == {"beneficial owner Dmitri Volkov", "director Owen Pryce"}
    assert {
        (v.value, v.source_label) for v in conflicts["beneficial owner Dmitri Volkov"].values
    } == {
        ("more than 50% but less than 75%", "Company registry (GB)"),
        ("40%", "Uploaded document ubo0.txt"),
    }
    assert {v.value for v in conflicts["director Owen Pryce"].values} == {
        "more than 25% but not more than 50%",
        "60%",
    }
    packet = state.proposed_packet
    assert "Owners with sanctions hits hold" not in packet.sanctions_result
    assert any(
        gap.startswith(
            "The sources disagree on the share of Kestrel Ridge Haulage Ltd that Dmitri Volkov"
        )
        for gap in packet.open_gaps
    )


@pytest.mark.parametrize(
    ("share", "bounds"),
    [
        ("60%", (60, 60)),
        ("25.5%", (25.5, 25.5)),
        ("more than 25%", (25, 100)),
        ("at least 75%", (75, 100)),
        ("less than 10%", (0, 10)),
        ("up to 60%", (0, 60)),
        ("more than 50% but less than 75%", (50, 75)),
        ("at least 25% but not more than 50%", (25, 50)),
    ],
)
def test_a_share_holds_between_its_bounds(share, bounds):
    assert share_bounds(share) == tuple(pytest.approx(b) for b in bounds)


@pytest.mark.parametrize(
    ("shares", "agree"),
    [
        ({"60%", "more than 50%"}, True),
        ({"40%", "more than 50%"}, False),
        ({"more than 25%", "less than 30%"}, True),
        ({"at least 75%", "less than 50%"}, False),
        ({"60%", "40%"}, False),
        ({"80%", "more than 50% but less than 75%"}, False),
        ({"60%", "more than 50% but less than 75%"}, True),
    ],
)
def test_shares_agree_when_one_owner_could_hold_them_all(shares, agree):
    assert shares_agree(shares) is agree
