"""What a packet the playbook drafts says about the research: every piece of evidence it
rests on is a finding, however much there is."""

from __future__ import annotations

from runtime_helpers import run

from atlas.runtime.memory import MemoryDocumentSource
from atlas.runtime.ports import StoredDocument
from atlas.runtime.state import AttachedDocument, Signal

# A document naming two directors the registry does not: each is screened and searched,
# which makes more evidence than a packet of a dozen findings would hold.
MORE_DIRECTORS = StoredDocument(
    document_id="doc-more-directors",
    name="board_list.txt",
    content_type="text/plain",
    content=(
        b"Company: Acme Analytics Ltd\n"
        b"Directors: Sarah Linden, Tom Becker, Dmitry Wolkow, Jane Roe\n"
    ),
)


def test_every_hit_and_adverse_article_is_a_finding_however_many_there_are(
    make_runtime, make_state
):
    runtime = make_runtime(documents=MemoryDocumentSource([MORE_DIRECTORS]))
    attached = AttachedDocument(document_id="doc-more-directors", name="board_list.txt")
    state = run(runtime, make_state("Acme Analytics", documents=[attached]))

    assert state.termination_reason == "finish_proposed"
    cited = {eid for f in state.proposed_packet.findings for eid in f.evidence_ids}
    decisive = [
        item
        for item in state.evidence
        if {Signal.SANCTIONS_HIT, Signal.ADVERSE} & set(item.signals)
    ]
    assert len(decisive) == 4  # two list entries and two articles on the new director
    assert not [item.claim for item in decisive if item.evidence_id not in cited]
    assert cited == {item.evidence_id for item in state.evidence}


def test_a_partial_packet_says_plainly_why_the_research_stopped(make_runtime, make_state):
    state = run(
        make_runtime(), make_state("Volga Petrochem Export", jurisdiction=None, max_iterations=3)
    )

    assert (state.termination_reason, state.proposed_packet.partial) == ("max_iterations", True)
    gaps = state.proposed_packet.open_gaps
    assert "The research stopped early: it reached its iteration limit." in gaps
    # The console's status sentence speaks to the reviewer about the packet; the packet's
    # own gaps do not.
    assert not [gap for gap in gaps if "partial packet" in gap]


def test_a_finding_carries_its_sources_claim_whole_not_cut_as_the_model_saw_it(
    make_runtime, make_state
):
    state = run(
        make_runtime(), make_state("Dmitri Volkov", subject_type="person", jurisdiction=None)
    )
    read = state.evidence_by_id()
    long_claims = [
        finding
        for finding in state.proposed_packet.findings
        if len(finding.evidence_ids) == 1 and len(read[finding.evidence_ids[0]].claim) > 300
    ]
    assert long_claims, "the sanctions entry's claim lists more than the model's view holds"
    for finding in long_claims:
        assert finding.claim == read[finding.evidence_ids[0]].claim
        assert not finding.claim.endswith("…")


def test_a_directorship_the_press_disputes_is_weighed_as_a_conflict(make_runtime, make_state):
    # The registry has James Whitfield directing Meridian Shipping; the press names its
    # board without him ("after James Whitfield stepped down").
    state = run(make_runtime(), make_state("James Whitfield", subject_type="person"))
    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    packet = state.proposed_packet
    (conflict,) = packet.unresolved_conflicts
    assert conflict.fact == "directors"
    # The company's own record, which came with his resolution, against the article.
    assert {(v.value, v.source_id) for v in conflict.values} == {
        ("Helen Carter, Viktor Petrenko", "article:art-meridian-001"),
        ("Helen Carter, James Whitfield", "registry:co-meridian-shipping-gb"),
    }
    assert packet.risk_rating != "low"
    assert (
        "Unresolved conflict on directors of Meridian Shipping Holdings Ltd (GB), a company "
        "the subject directs: sources disagree." in packet.open_gaps
    )


def test_a_directorship_no_source_disputes_raises_no_conflict(make_runtime, make_state):
    # Helen Carter directs Meridian Shipping by the registry, and the press names her too.
    state = run(make_runtime(), make_state("Helen Carter", subject_type="person"))
    assert [c.entity_id for c in state.directorships[state.selected_entity.entity_id]] == [
        "co-meridian-shipping-gb"
    ]
    assert any(e.source_id == "article:art-meridian-001" for e in state.evidence)
    # The article and the company's record name her, and disagree on who else: no conflict
    # on what the research is about; the co-director only the article names is a gap.
    assert any(e.source_id == "registry:co-meridian-shipping-gb" for e in state.evidence)
    assert not state.conflicts
    assert any(
        gap.startswith("Example Business News names Viktor Petrenko a director of Meridian")
        for gap in state.proposed_packet.open_gaps
    )
