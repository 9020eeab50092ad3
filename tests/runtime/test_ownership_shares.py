"""How much of a company owners with sanctions hits hold, from the shares its documents
give (OFAC's 50 Percent Rule): read from the owners line, added up, and said in the
packet's sanctions result, or left as a gap when it cannot be told."""

from __future__ import annotations

import pytest
from runtime_helpers import minimal_pdf, run, signed_off
from test_document_owners import HEAD, attached

from atlas.runtime.ports import StoredDocument
from atlas.runtime.state import AttachedDocument
from atlas.runtime.tools.document_owners import owner_shares, owners_named

TWO_LISTED_OWNERS = (
    HEAD + "Beneficial owners: Dmitri Volkov (30%); Golden Gate Shipping SA (25%); Jane Roe (45%)\n"
)


@pytest.mark.parametrize(
    ("text", "shares"),
    [
        ("UBO: Jane Roe (60%); John Doe (40%)", {"Jane Roe": "60%", "John Doe": "40%"}),
        ("UBO: 60% Jane Roe; 40% John Doe", {"Jane Roe": "60%", "John Doe": "40%"}),
        (
            "UBO: Jane Roe 25,5 %, John Doe 74.5 per cent",
            {"Jane Roe": "25.5%", "John Doe": "74.5%"},
        ),
        (
            "Beneficial owner: Dmitri Volkov (passport 765432198), 60% via nominee",
            {"Dmitri Volkov": "60%"},
        ),
        ("UBO: ROE, Jane (more than 25%)", {"Jane Roe": "more than 25%"}),
        # A band as the UK's register of persons with significant control writes one.
        (
            "UBO: Jane Roe (more than 50% but less than 75%)",
            {"Jane Roe": "more than 50% but less than 75%"},
        ),
        ("UBO: Jane Roe and John Doe, 50% each", {"Jane Roe": "50%", "John Doe": "50%"}),
        ("Beneficial owners:\n- Jane Roe (60%)\n- John Doe\n\nSigned.", {"Jane Roe": "60%"}),
        # Nothing to tell whose is whose, or a number no share can be: no guess.
        ("UBO: Jane Roe 25% 30%", {}),
        ("UBO: Jane Roe (150%)", {}),
        ("UBO: Jane Roe", {}),
    ],
)
def test_shares_are_read_beside_the_names_they_belong_to(text, shares):
    assert owner_shares(text) == shares
    assert owners_named(text) == list(dict.fromkeys([*shares, *owners_named(text)]))


def test_the_sample_declaration_gives_a_listed_owner_sixty_percent_so_the_company_is_blocked(
    make_runtime, make_state
):
    state = run(
        make_runtime(),
        make_state(
            "Harrow Bay Freight",
            documents=[{"document_id": "doc-harrow-ownership", "name": "ownership.txt"}],
        ),
    )
    packet = state.proposed_packet
    assert packet.risk_rating == "high"
    assert (
        "Owners with sanctions hits hold 60% of Harrow Bay Freight Ltd (Dmitri Volkov 60%, by "
        "uploaded document harrow_ownership_declaration.txt): 50% or more, so under OFAC's 50 Percent Rule the "
        "company is itself blocked while those hits stand."
    ) in packet.sanctions_result
    (document,) = [e for e in state.evidence if e.evidence_class == "document"]
    assert "ownership shares" in document.claim


def test_shares_of_listed_owners_add_up(make_runtime, make_state, documents):
    """Neither holds half alone; together they do."""
    doc = attached(documents, "ubo.txt", TWO_LISTED_OWNERS)
    packet = run(make_runtime(), make_state(documents=[doc])).proposed_packet
    assert (
        "Owners with sanctions hits hold 55% of Acme Analytics Ltd (Dmitri Volkov 30%, Golden "
        "Gate Shipping SA 25%, by uploaded document ubo.txt): 50% or more"
    ) in packet.sanctions_result


def test_a_listed_minority_owner_is_said_not_to_block_the_company_by_ownership(
    make_runtime, make_state, documents
):
    doc = attached(documents, "ubo.txt", HEAD + "UBO: Dmitri Volkov (30%); Jane Roe (70%)\n")
    packet = run(make_runtime(), make_state(documents=[doc])).proposed_packet
    assert packet.risk_rating == "high"  # the hit on an owner is high whatever the share
    assert (
        "Owners with sanctions hits hold 30% of Acme Analytics Ltd (Dmitri Volkov 30%, by "
        "uploaded document ubo.txt): under 50%, so OFAC's 50 Percent Rule does not block the "
        "company by ownership alone."
    ) in packet.sanctions_result
    assert not packet.open_gaps


def test_a_listed_director_counts_with_the_share_they_own(make_runtime, make_state, documents):
    """Screened as a director (once), owning as an owner."""
    doc = attached(
        documents, "ubo.txt", HEAD + "Directors: Dmitri Volkov\nUBO: Dmitri Volkov (51%)\n"
    )
    packet = run(make_runtime(), make_state(documents=[doc])).proposed_packet
    assert "Owners with sanctions hits hold 51% of Acme Analytics Ltd" in packet.sanctions_result


def test_a_listed_owner_of_unknown_share_is_a_gap(make_runtime, make_state, documents):
    doc = attached(documents, "ubo.txt", HEAD + "UBO: Dmitri Volkov; Jane Roe (20%)\n")
    packet = run(make_runtime(), make_state(documents=[doc])).proposed_packet
    assert "Owners with sanctions hits hold" not in packet.sanctions_result
    assert (
        "The sources give no exact share for Dmitri Volkov, a beneficial owner with a "
        "sanctions hit: whether owners on the lists hold 50% or more of Acme Analytics Ltd "
        "(OFAC's 50 Percent Rule) is not known."
    ) in packet.open_gaps


def test_a_share_known_only_as_a_ceiling_under_half_does_not_block(
    make_runtime, make_state, documents
):
    doc = attached(documents, "ubo.txt", HEAD + "UBO: Dmitri Volkov (less than 10%)\n")
    packet = run(make_runtime(), make_state(documents=[doc])).proposed_packet
    assert (
        "Owners with sanctions hits hold at most 10% of Acme Analytics Ltd (Dmitri Volkov less "
        "than 10%, by uploaded document ubo.txt): under 50%, so OFAC's 50 Percent Rule does not "
        "block the company by ownership alone."
    ) in packet.sanctions_result
    assert not any("exact share" in gap for gap in packet.open_gaps)


def test_a_share_known_only_as_a_ceiling_of_half_or_more_is_a_gap(
    make_runtime, make_state, documents
):
    doc = attached(documents, "ubo.txt", HEAD + "UBO: Dmitri Volkov (up to 60%)\n")
    packet = run(make_runtime(), make_state(documents=[doc])).proposed_packet
    assert any(
        gap.startswith("The sources give no exact share for Dmitri Volkov")
        for gap in packet.open_gaps
    )


def test_a_clean_owners_share_adds_nothing_to_the_sanctions_result(
    make_runtime, make_state, documents
):
    doc = attached(documents, "ubo.txt", HEAD + "UBO: Jane Roe (100%)\n")
    packet = run(make_runtime(), make_state(documents=[doc])).proposed_packet
    assert packet.risk_rating == "low"
    assert "Owners with sanctions hits" not in packet.sanctions_result


def test_owners_beside_other_labels_on_one_line_are_read(make_runtime, make_state, documents):
    """As a PDF's columns come out of it."""
    form = "Company: Acme Analytics Ltd   Directors: Sarah Linden   UBO: Dmitri Volkov (60%)\n"
    doc = attached(documents, "form.txt", form)
    packet = run(make_runtime(), make_state(documents=[doc])).proposed_packet
    assert "on beneficial owner Dmitri Volkov" in packet.sanctions_result
    assert "Owners with sanctions hits hold 60% of Acme Analytics Ltd" in packet.sanctions_result
    assert not any("names none that could be read" in gap for gap in packet.open_gaps)


@pytest.mark.parametrize(
    "table",
    [
        "Beneficial owners:\n| Name | Nationality | Share |\n|---|---|---|\n"
        "| Dmitri Volkov | Russian | 60% |\n| Jane Roe | British | 40% |\n",
        "Beneficial ownership\nName            Nationality   Share\n"
        "Mr Dmitri Volkov   Russian       60%\nJane Roe        British       40%\n\n"
        "Signed for the company  Tom Becker  100%\n",
    ],
)
def test_owners_are_read_from_a_table_under_their_heading(table):
    assert owner_shares(table) == {"Dmitri Volkov": "60%", "Jane Roe": "40%"}


def test_a_band_with_no_ceiling_is_a_floor():
    assert owner_shares("Persons with significant control\n\tDmitri Volkov\tRU\t75% or more\n") == {
        "Dmitri Volkov": "at least 75%"
    }


def test_a_pdf_declarations_owners_table_blocks_the_company(make_runtime, make_state, documents):
    pdf = minimal_pdf(
        "OWNERSHIP DECLARATION\nCompany: Acme Analytics Ltd\nBeneficial ownership\n"
        "Name    Nationality    Share\nDmitri Volkov    RU    50%\nJane Roe    GB    50%\n"
    )
    documents.add(
        StoredDocument(
            document_id="doc-pdf", name="ubo.pdf", content_type="application/pdf", content=pdf
        )
    )
    doc = AttachedDocument(document_id="doc-pdf", name="ubo.pdf")
    packet = run(make_runtime(), make_state(documents=[doc])).proposed_packet
    assert (
        "Owners with sanctions hits hold 50% of Acme Analytics Ltd (Dmitri Volkov 50%, by "
        "uploaded document ubo.pdf): 50% or more, so under OFAC's 50 Percent Rule"
    ) in packet.sanctions_result


@pytest.mark.parametrize(
    ("text", "shares"),
    [
        (
            "UBO: Dmitri Volkov (more than 25% but not more than 50%)",
            {"Dmitri Volkov": "more than 25% but not more than 50%"},
        ),
        (
            "UBO: Jane Roe 25-50%, John Doe 50%",
            {"Jane Roe": "at least 25% but not more than 50%", "John Doe": "50%"},
        ),
        (
            "Persons with significant control\nName   Nature of control\n"
            "Dmitri Volkov   More than 25% but not more than 50% of shares\n",
            {"Dmitri Volkov": "more than 25% but not more than 50%"},
        ),
    ],
)
def test_a_band_is_read_with_both_its_ends(text, shares):
    assert owner_shares(text) == shares


def test_a_listed_owner_known_only_to_hold_more_than_a_quarter_is_a_gap_not_under_half(
    make_runtime, make_state, documents
):
    """They may hold half: nothing rules the 50 Percent Rule out."""
    doc = attached(
        documents, "psc.txt", HEAD + "UBO: Dmitri Volkov (more than 25% but not more than 50%)\n"
    )
    packet = run(make_runtime(), make_state(documents=[doc])).proposed_packet
    assert "under 50%" not in packet.sanctions_result
    assert any(
        gap.startswith("The sources give no exact share for Dmitri Volkov")
        for gap in packet.open_gaps
    )


def test_a_floor_that_reaches_half_is_enough(make_runtime, make_state, documents):
    doc = attached(documents, "psc.txt", HEAD + "UBO: Dmitri Volkov (75% or more)\n")
    packet = run(make_runtime(), make_state(documents=[doc])).proposed_packet
    assert (
        "Owners with sanctions hits hold at least 75% of Acme Analytics Ltd (Dmitri Volkov at "
        "least 75%, by uploaded document psc.txt): 50% or more"
    ) in packet.sanctions_result


def test_a_band_under_half_at_its_ceiling_does_not_block(make_runtime, make_state, documents):
    doc = attached(documents, "psc.txt", HEAD + "UBO: Dmitri Volkov (10-25%)\n")
    packet = run(make_runtime(), make_state(documents=[doc])).proposed_packet
    assert (
        "Owners with sanctions hits hold at most 25% of Acme Analytics Ltd (Dmitri Volkov at "
        "least 10% but not more than 25%, by uploaded document psc.txt): under 50%"
    ) in packet.sanctions_result


def test_the_holding_is_said_again_without_the_hits_a_reviewer_marks_false_positives(
    make_runtime, make_state, documents
):
    """Volkov's hits marked false positives leave Golden Gate Shipping's 25%: under half."""
    doc = attached(documents, "ubo.txt", TWO_LISTED_OWNERS)
    runtime = make_runtime()
    state = run(runtime, make_state(documents=[doc]))
    marks = {
        hit.evidence_id: "false_positive" if "Volkov" in hit.about else "confirmed_match"
        for hit in state.screening_matches()
    }
    state = signed_off(runtime, state, None, marks=marks)
    assert state.termination_reason == "packet_approved"
    result = state.proposed_packet.sanctions_result
    assert "hold 55%" not in result
    assert (
        "Owners with sanctions hits hold 25% of Acme Analytics Ltd (Golden Gate Shipping SA "
        "25%, by uploaded document ubo.txt): under 50%"
    ) in result


def test_every_owners_hit_marked_false_leaves_no_holding_to_speak_of(
    make_runtime, make_state, documents
):
    doc = attached(documents, "ubo.txt", HEAD + "UBO: Dmitri Volkov (60%); Jane Roe (40%)\n")
    runtime = make_runtime()
    state = run(runtime, make_state(documents=[doc]))
    state = signed_off(runtime, state, None, "false_positive")
    result = state.proposed_packet.sanctions_result
    assert "Owners with sanctions hits hold" not in result
    assert result.endswith(
        "The reviewer marked the sanctions hits on the company's owners false positives."
    )
