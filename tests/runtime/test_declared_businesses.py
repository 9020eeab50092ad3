"""The businesses a declared source of wealth or funds names are screened against the
sanctions lists and searched for in the news by name: money from a listed business is a
sanctions hit in the packet, and a business nobody researched rules out a low rating."""

from __future__ import annotations

import pytest
from runtime_helpers import events_of, playbook_skipping, run, signed_off, tool_arguments
from test_document_owners import HEAD, attached

from atlas.runtime.declared_businesses import (
    business_lookup_step,
    business_media_step,
    business_step,
)
from atlas.runtime.progress import pending_requirements
from atlas.runtime.state import Signal
from atlas.runtime.tools.business_names import businesses_declared, businesses_named

LISTED_SOURCE = (
    "Source of wealth: Dividends from Northern Star Trading FZE since 2016, and the 2018\n"
    "sale of her shares in Kestrel Foods Ltd.\n"
    "Source of funds: Savings from the salary above.\n"
)


@pytest.mark.parametrize(
    ("declared", "named"),
    [
        (
            "Dividends from Northern Star Trading FZE since 2016, and the sale of Kestrel Foods "
            "Ltd.",
            ["Northern Star Trading FZE", "Kestrel Foods Ltd"],
        ),
        # Spelled out, with an ampersand, with two legal-form words, in brackets or quotes.
        (
            "A loan from Smith & Sons Limited; salary at Silverline Fintech Pte Ltd",
            ["Smith & Sons Limited", "Silverline Fintech Pte Ltd"],
        ),
        (
            'Rent (Helios Solarwerke GmbH) and "Volga Petrochem Export JSC" royalties',
            ["Helios Solarwerke GmbH", "Volga Petrochem Export JSC"],
        ),
        (
            "Shares in Banco Andino S.A. and Lumen Health B.V.",
            ["Banco Andino S.A.", "Lumen Health B.V."],
        ),
        # A sentence's first word is capitalized too: the same business, once.
        ("Salary from Kestrel Foods Ltd. Also Kestrel Foods Ltd dividends.", ["Kestrel Foods Ltd"]),
        # A legal form in lower case is a word of the sentence; no legal form, no business.
        ("Salary as a minister and a family property portfolio inherited in 2015.", []),
        ("Savings at Example Bank, and an inheritance from AS Holding's founder", []),
        ("Ltd", []),
        # A word that opens a sentence is not a part of the name; nor is a year.
        (
            "From Kestrel Foods Ltd, and In 2019 Pinecrest Holdings Ltd",
            ["Kestrel Foods Ltd", "Pinecrest Holdings Ltd"],
        ),
        ("Royalties from 3M Co", ["3M Co"]),
        # A form that is a word too is one in capitals only, in a text in title case.
        ("Salary As Director, Dividends From Fjordline Seafood AS", ["Fjordline Seafood AS"]),
        ("Dividends From Smith And Sons Ltd", ["Smith And Sons Ltd"]),
    ],
)
def test_businesses_are_named_by_a_legal_form(declared, named):
    assert businesses_named(declared) == named


@pytest.mark.parametrize(
    ("declared", "named"),
    [
        # Without a legal form, a name is a business's by what is said of it.
        ("Dividends from Kestrel Foods since 2016", ["Kestrel Foods"]),
        ("Salary and share options at Acme Analytics.", ["Acme Analytics"]),
        ("A 40% shareholding in Helios Solar, held since 2011", ["Helios Solar"]),
        ("Her stake in The Kestrel Group", ["Kestrel Group"]),
        (
            "Founder of Pinecrest Holdings; salary at Example Bank",
            ["Pinecrest Holdings", "Example Bank"],
        ),
        ("Salary From Acme Analytics Since 2012", ["Acme Analytics"]),
        # With one, it is read as businesses_named reads it, once.
        (
            "Dividends from Northern Star Trading FZE, and shares in Kestrel Foods",
            ["Northern Star Trading FZE", "Kestrel Foods"],
        ),
        (
            "Shares in Banco Andino S.A. and Lumen Health B.V.",
            ["Banco Andino S.A.", "Lumen Health B.V."],
        ),
        # A person or a thing may follow other words; one word may be a place or a kind.
        ("Inheritance from John Smith, and the sale of Harbour View House", []),
        ("Salary from UK employers; savings from the salary above", []),
    ],
)
def test_a_declared_business_may_be_named_without_a_legal_form(declared, named):
    assert businesses_declared(declared) == named


def test_a_listed_business_named_without_its_legal_form_is_a_hit(
    make_runtime, make_state, store, documents
):
    declared = LISTED_SOURCE.replace("Trading FZE", "Trading").replace("Foods Ltd", "Foods")
    state = run(make_runtime(), okafor_declaring(make_state, documents, declared))
    assert {"name": "Northern Star Trading"} in tool_arguments(store, state, "screen_sanctions")
    (hit,) = [e for e in state.evidence if Signal.SANCTIONS_HIT in e.signals]
    assert hit.claim.startswith(
        "Sanctions hit on source-of-wealth business Northern Star Trading: 'Northern Star "
        "Trading' matches Northern Star Trading FZE on Synthetic OFAC SDN"
    )
    assert state.proposed_packet.risk_rating == "high"


def okafor_declaring(make_state, documents, text: str):
    doc = attached(documents, "declaration.txt", "CLIENT DECLARATION\nName: Amara Okafor\n" + text)
    return make_state("Amara Okafor", subject_type="person", jurisdiction=None, documents=[doc])


def test_a_listed_source_of_wealth_is_a_hit_and_rates_the_packet_high(
    make_runtime, make_state, store, documents
):
    state = run(make_runtime(), okafor_declaring(make_state, documents, LISTED_SOURCE))
    screened = tool_arguments(store, state, "screen_sanctions")
    searched = tool_arguments(store, state, "search_adverse_media")
    for business in ("Northern Star Trading FZE", "Kestrel Foods Ltd"):
        assert {"name": business} in screened
        assert {"query": business} in searched
        assert business_step(business) in state.completed_steps
        assert business_media_step(business) in state.completed_steps
    (hit,) = [e for e in state.evidence if Signal.SANCTIONS_HIT in e.signals]
    assert hit.about == "source-of-wealth business Northern Star Trading FZE"
    assert hit.claim.startswith(
        "Sanctions hit on source-of-wealth business Northern Star Trading FZE: "
        "'Northern Star Trading FZE' matches Northern Star Trading FZE on Synthetic OFAC SDN"
    )
    packet = state.proposed_packet
    assert packet.risk_rating == "high"
    assert packet.sanctions_result.startswith(
        "1 sanctions hit: on source-of-wealth business Northern Star Trading FZE "
        "(Synthetic OFAC SDN). No hits for the subject or source-of-wealth business Kestrel "
        "Foods Ltd."
    )
    assert hit.evidence_id in {e for finding in packet.findings for e in finding.evidence_ids}
    # Only one of the two is a company the registry knows.
    records = {e.about: e.claim for e in state.evidence if e.tool == "resolve_entity" and e.about}
    assert records == {
        "source-of-wealth business Northern Star Trading FZE": (
            "The registry has no company named like the source-of-wealth business Northern Star "
            "Trading FZE: that it exists is the document's word."
        ),
        "source-of-wealth business Kestrel Foods Ltd": (
            "Registry record of the source-of-wealth business Kestrel Foods Ltd: Kestrel Foods "
            "Ltd (IE, no. IE-612345), status active; directors: Aoife Byrne, Conor Walsh. It "
            "does not list Amara Okafor among its directors."
        ),
    }
    cited = {e for finding in packet.findings for e in finding.evidence_ids}
    assert {e.evidence_id for e in state.evidence if e.about in records} <= cited
    assert packet.open_gaps == [
        "The registry could not confirm the source-of-wealth business Northern Star Trading "
        "FZE (no company, or more than one, matches its name): check that it exists, and the "
        "subject's part in it."
    ]


def test_a_reviewer_may_clear_the_hit_as_a_false_positive(make_runtime, make_state, documents):
    runtime = make_runtime()
    state = run(runtime, okafor_declaring(make_state, documents, LISTED_SOURCE))
    (hit,) = [e for e in state.evidence if Signal.SANCTIONS_HIT in e.signals]
    marks = {match.evidence_id: "confirmed_match" for match in state.screening_matches()}
    marks[hit.evidence_id] = "false_positive"
    signed = signed_off(runtime, state, "medium", marks=marks)
    assert signed.status == "completed"
    assert signed.proposed_packet.risk_rating == "medium"


def test_a_source_of_funds_business_in_the_news_is_adverse_media(
    make_runtime, make_state, store, documents
):
    state = run(
        make_runtime(),
        okafor_declaring(
            make_state,
            documents,
            "Source of wealth: Salary as a minister.\n"
            "Source of funds: The 2021 sale of her stake in Crescent Minerals PLC.\n",
        ),
    )
    assert {"query": "Crescent Minerals PLC"} in tool_arguments(
        store, state, "search_adverse_media"
    )
    articles = [
        e
        for e in state.evidence
        if e.about == "source-of-funds business Crescent Minerals PLC" and e.url
    ]
    assert any("fraud investigation" in e.claim.lower() for e in articles)
    assert "(on source-of-funds business Crescent Minerals PLC)" in (
        state.proposed_packet.adverse_media_summary
    )


def test_unresearched_businesses_rule_out_low_and_are_named_in_the_packet(
    make_runtime, make_state, store, documents
):
    """A company subject's own form: its declared source of funds is the company's."""
    doc = attached(
        documents,
        "kyc.txt",
        HEAD + "Source of funds: A loan from Jane Roe Trading Ltd\n",
    )
    state = run(
        make_runtime(
            playbook_skipping(
                "businesses_to_screen", "businesses_to_search", "businesses_to_look_up"
            )
        ),
        make_state(documents=[doc]),
    )
    (rejected,) = events_of(store, state, "final_rejected")
    assert rejected.data["errors"] == [
        "Not every business a declared source of wealth or funds names has been screened "
        "against the sanctions lists, searched for adverse media and looked up in the registry "
        "(see businesses_to_screen, businesses_to_search and businesses_to_look_up): that "
        "rules out a low risk rating."
    ]
    packet = state.proposed_packet
    assert packet.risk_rating == "medium"
    assert packet.open_gaps == [
        "The source-of-funds business Jane Roe Trading Ltd was not screened against the "
        "sanctions lists.",
        "The source-of-funds business Jane Roe Trading Ltd was not searched for adverse media.",
        "The source-of-funds business Jane Roe Trading Ltd was not looked up in the registry.",
    ]
    assert pending_requirements(state)[-3:] == [
        business_step("Jane Roe Trading Ltd"),
        business_media_step("Jane Roe Trading Ltd"),
        business_lookup_step("Jane Roe Trading Ltd"),
    ]


def test_a_clean_business_researched_leaves_the_company_low(
    make_runtime, make_state, store, documents
):
    doc = attached(
        documents,
        "kyc.txt",
        HEAD + "Source of funds: A loan from Kestrel Foods Ltd\n",
    )
    state = run(make_runtime(), make_state(documents=[doc]))
    assert {"name": "Kestrel Foods Ltd"} in tool_arguments(store, state, "screen_sanctions")
    assert {"name": "Kestrel Foods Ltd"} in tool_arguments(store, state, "resolve_entity")
    assert state.proposed_packet.risk_rating == "low"
    assert not state.proposed_packet.open_gaps


def test_a_business_no_registry_company_matches_is_a_gap_not_a_higher_rating(
    make_runtime, make_state, documents
):
    doc = attached(
        documents,
        "kyc.txt",
        HEAD + "Source of funds: A loan from Jane Roe Trading Ltd\n",
    )
    packet = run(make_runtime(), make_state(documents=[doc])).proposed_packet
    assert packet.risk_rating == "low"
    assert packet.open_gaps == [
        "The registry could not confirm the source-of-funds business Jane Roe Trading Ltd (no "
        "company, or more than one, matches its name): check that it exists, and the "
        "subject's part in it."
    ]


def test_a_business_is_the_registry_company_of_its_legal_form(make_runtime, make_state, documents):
    """Northwind Trading has a Ltd in GB, a Pte Ltd in SG and an LLC in the US."""
    state = run(
        make_runtime(),
        okafor_declaring(
            make_state,
            documents,
            "Source of wealth: Dividends from Northwind Trading Ltd.\nSource of funds: Savings.\n",
        ),
    )
    (record,) = [e for e in state.evidence if e.tool == "resolve_entity" and e.about]
    assert record.source_id == "registry:co-northwind-gb"
    assert "Northwind Trading Ltd (GB, no." in record.claim


def test_several_companies_of_the_name_are_named_and_the_document_asked_about():
    from datetime import UTC, datetime

    from atlas.runtime.declared_businesses import lookup_evidence
    from atlas.runtime.state import Budgets, CaseBrief, new_state

    state = new_state(
        run_id="r", case_id="c", tenant_id="t", brief=CaseBrief(subject="Jo Roe"), budgets=Budgets()
    )
    found = [
        {
            "entity_id": f"co-harbor-{country.lower()}",
            "name": "Harbor Trading Ltd",
            "entity_type": "company",
            "jurisdiction": country,
            "registration_number": number,
            "score": 100.0,
        }
        for country, number in (("GB", "0101"), ("IE", "IE-0202"))
    ]
    item = lookup_evidence(
        state, "Harbor Trading Ltd", {"candidates": found}, 3, datetime(2026, 1, 1, tzinfo=UTC)
    )
    assert item.source_id.startswith("registry-search:")
    assert item.claim == (
        "The registry has 2 companies named like the source-of-wealth business Harbor Trading "
        "Ltd: Harbor Trading Ltd (GB, no. 0101), match score 100; Harbor Trading Ltd (IE, no. "
        "IE-0202), match score 100. Which one the document means, it does not say."
    )


def test_the_subject_and_the_companies_it_directs_are_not_researched_again(
    make_runtime, make_state, store, documents
):
    """Helen Carter directs Meridian Shipping Holdings: that company is screened by its
    registry record, as a company she directs."""
    doc = attached(
        documents,
        "declaration.txt",
        "Source of wealth: Salary from Meridian Shipping Holdings Ltd.\n"
        "Source of funds: Savings.\n",
    )
    state = run(
        make_runtime(),
        make_state("Helen Carter", subject_type="person", jurisdiction="GB", documents=[doc]),
    )
    assert not [
        args
        for args in tool_arguments(store, state, "screen_sanctions")
        if "Meridian" in args.get("name", "")
    ]
    assert not [e for e in state.evidence if e.about.startswith("source-of-wealth business")]


def test_only_the_first_three_businesses_are_researched(make_runtime, make_state, store, documents):
    state = run(
        make_runtime(),
        okafor_declaring(
            make_state,
            documents,
            "Source of wealth: Dividends from Alpha One Ltd, Beta Two Ltd, Gamma Three Ltd "
            "and Delta Four Ltd.\nSource of funds: Savings.\n",
        ),
    )
    screened = [args.get("name") for args in tool_arguments(store, state, "screen_sanctions")]
    assert {"Alpha One Ltd", "Beta Two Ltd", "Gamma Three Ltd"} <= set(screened)
    assert "Delta Four Ltd" not in screened
    assert (
        "The declarations also name Delta Four Ltd: not researched in this run, which "
        "researches the first 3 businesses declared; have each screened, searched for and "
        "looked up by hand."
    ) in state.proposed_packet.open_gaps


def test_a_business_the_screening_refuses_is_a_gap_of_a_medium_packet(
    make_runtime, make_state, store, documents
):
    """The subject and its two directors are screened first; the playbook gives up on the
    business's screen after two failures and proposes medium itself."""
    doc = attached(
        documents,
        "kyc.txt",
        HEAD + "Source of funds: A loan from Kestrel Foods Ltd\n",
    )
    faults = {"screen_sanctions": ["ok", "ok", "ok", "not_found", "not_found"]}
    state = run(make_runtime(), make_state(documents=[doc], faults=faults))
    assert not events_of(store, state, "final_rejected")
    assert state.proposed_packet.risk_rating == "medium"
    assert state.proposed_packet.open_gaps == [
        "The source-of-funds business Kestrel Foods Ltd was not screened against the "
        "sanctions lists."
    ]


def test_a_declared_business_that_owns_the_company_is_researched_once(
    make_runtime, make_state, store, documents
):
    doc = attached(
        documents,
        "kyc.txt",
        HEAD + "Beneficial owner: Jane Roe Holdings Ltd (100%)\n"
        "Source of funds: Capital from Jane Roe Holdings Ltd\n",
    )
    state = run(make_runtime(), make_state(documents=[doc]))
    screens = tool_arguments(store, state, "screen_sanctions")
    assert screens.count({"name": "Jane Roe Holdings Ltd"}) == 1
    assert state.status == "awaiting_review"
    assert state.proposed_packet.risk_rating == "low"
    assert not state.proposed_packet.open_gaps


def test_a_business_not_looked_up_rules_out_low(make_runtime, make_state, store, documents):
    doc = attached(
        documents,
        "kyc.txt",
        HEAD + "Source of funds: A loan from Kestrel Foods Ltd\n",
    )
    state = run(
        make_runtime(playbook_skipping("businesses_to_look_up")), make_state(documents=[doc])
    )
    assert len(events_of(store, state, "final_rejected")) == 1
    assert state.proposed_packet.risk_rating == "medium"
    assert state.proposed_packet.open_gaps == [
        "The source-of-funds business Kestrel Foods Ltd was not looked up in the registry."
    ]


def test_a_record_listing_a_person_subject_among_its_directors_says_so():
    from datetime import UTC, datetime

    from atlas.runtime.declared_businesses import lookup_evidence
    from atlas.runtime.state import Budgets, CaseBrief, new_state

    state = new_state(
        run_id="r",
        case_id="c",
        tenant_id="t",
        brief=CaseBrief(subject="AOIFE BYRNE", subject_type="person"),
        budgets=Budgets(),
    )
    kestrel = {
        "entity_id": "co-kestrel-foods-ie",
        "name": "Kestrel Foods Ltd",
        "entity_type": "company",
        "jurisdiction": "IE",
        "registration_number": "IE-612345",
        "status": "active",
        "directors": ["Aoife Byrne", "Conor Walsh"],
    }
    found = {"candidates": [{**kestrel, "score": 100.0, "record": kestrel}]}
    item = lookup_evidence(state, "Kestrel Foods Ltd", found, 3, datetime(2026, 1, 1, tzinfo=UTC))
    assert item.source_id == "registry:co-kestrel-foods-ie"
    assert item.claim.endswith("It lists AOIFE BYRNE among its directors.")
