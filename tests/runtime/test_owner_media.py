"""Each beneficial owner a document names is searched for adverse media by name, as a
director is: an owner in the news makes the company's packet at least medium risk, and an
owner nobody searched rules out low."""

from __future__ import annotations

from runtime_helpers import events_of, playbook_skipping, run, tool_arguments
from test_document_owners import HEAD, attached

from atlas.runtime.owners import owner_media_step
from atlas.runtime.progress import pending_requirements


def test_an_owner_in_the_news_makes_a_clean_company_medium(
    make_runtime, make_state, store, documents
):
    """Colin Marsh directs Harrow Bay Freight, not Acme Analytics: here he is only its owner."""
    doc = attached(
        documents, "acme_ubo.txt", HEAD + "Ultimate beneficial owner: Colin Marsh (100%)\n"
    )
    state = run(make_runtime(), make_state("Acme Analytics", documents=[doc]))
    assert {"query": "Colin Marsh"} in tool_arguments(store, state, "search_adverse_media")
    (article,) = [e for e in state.evidence if e.about == "beneficial owner Colin Marsh" and e.url]
    assert "convicted of customs fraud" in article.claim
    packet = state.proposed_packet
    assert packet.risk_rating == "medium"
    assert "(on beneficial owner Colin Marsh)" in packet.adverse_media_summary
    assert owner_media_step("Colin Marsh") in state.completed_steps


def test_the_sample_declarations_listed_owner_is_searched_too(make_runtime, make_state, store):
    state = run(
        make_runtime(),
        make_state(
            "Harrow Bay Freight",
            documents=[{"document_id": "doc-harrow-ownership", "name": "ownership.txt"}],
        ),
    )
    assert {"query": "Dmitri Volkov"} in tool_arguments(store, state, "search_adverse_media")
    assert "Volkov linked to shadow tanker network (on beneficial owner Dmitri Volkov)" in (
        state.proposed_packet.adverse_media_summary
    )


def test_unsearched_owners_rule_out_low_and_are_named_in_the_packet(
    make_runtime, make_state, store, documents
):
    doc = attached(documents, "acme_ubo.txt", HEAD + "Beneficial owner: Jane Roe (100%)\n")
    state = run(make_runtime(playbook_skipping("owners_to_search")), make_state(documents=[doc]))
    (rejected,) = events_of(store, state, "final_rejected")
    assert rejected.data["errors"] == [
        "Adverse media has not been searched on every beneficial owner a document names (see "
        "owners_to_search): that rules out a low risk rating."
    ]
    assert state.proposed_packet.risk_rating == "medium"
    assert "Beneficial owner Jane Roe was not searched for adverse media." in (
        state.proposed_packet.open_gaps
    )
    assert pending_requirements(state)[-1:] == [owner_media_step("Jane Roe")]


def test_a_clean_owner_searched_leaves_the_company_low(make_runtime, make_state, store, documents):
    doc = attached(documents, "acme_ubo.txt", HEAD + "Beneficial owner: Jane Roe (100%)\n")
    state = run(make_runtime(), make_state(documents=[doc]))
    assert {"query": "Jane Roe"} in tool_arguments(store, state, "search_adverse_media")
    assert state.proposed_packet.risk_rating == "low"
    assert not state.proposed_packet.open_gaps
