"""The default playbook on the synthetic world's subjects."""

from __future__ import annotations

import pytest
from runtime_helpers import answer, events_of, run

from atlas.runtime.state import AttachedDocument


def assert_every_finding_is_cited(state):
    evidence = state.evidence_by_id()
    assert state.proposed_packet.findings
    for finding in state.proposed_packet.findings:
        assert finding.evidence_ids
        assert all(eid in evidence for eid in finding.evidence_ids)


def test_a_clean_company_gets_a_cited_low_risk_packet(make_runtime, make_state):
    state = run(make_runtime(), make_state("Acme Analytics", jurisdiction="GB"))
    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    packet = state.proposed_packet
    assert packet.risk_rating == "low"
    assert packet.selected_entity == "Acme Analytics Ltd [co-acme-analytics-gb]"
    assert packet.sanctions_result.startswith("No sanctions hits")
    assert not packet.unresolved_conflicts
    assert_every_finding_is_cited(state)
    assert state.versions.model_kind == "rule-based"


@pytest.mark.parametrize(
    ("subject", "subject_type", "hint"),
    [
        ("Sarah Linden", "company", "a person of that name: Sarah Linden (GB)."),
        ("Acme Analytics", "person", "a company of that name: Acme Analytics Ltd (GB)."),
    ],
)
def test_a_subject_of_the_wrong_type_is_asked_about_then_named_in_the_gaps(
    make_runtime, make_state, subject, subject_type, hint
):
    runtime = make_runtime()
    state = run(runtime, make_state(subject, jurisdiction="GB", subject_type=subject_type))
    assert state.status == "waiting_for_input"
    question = state.pending_question.question
    assert f"No {subject_type} named '{subject}' is in the registry" in question
    assert "correct the case's subject type" in question

    state = answer(runtime, state, "It is right as it is: go on")
    assert (state.termination_reason, state.selected_entity) == ("finish_proposed", None)
    assert state.proposed_packet.risk_rating == "medium"
    (gap,) = [g for g in state.proposed_packet.open_gaps if "by name only" in g]
    assert f"The registry has {hint}" in gap


@pytest.mark.parametrize(
    ("subject", "subject_type", "jurisdiction", "nearest", "lacks"),
    [
        ("Acme Analytics Holdings", "company", "GB", "Acme Analytics Ltd", "'Holdings'"),
        ("Chidi Amara Okafor", "person", None, "Amara Okafor", "'Chidi'"),
        ("Irina Sokolova-Petrova", "person", None, "Irina Sokolova", "'Petrova'"),
    ],
)
def test_a_name_with_words_the_registry_name_lacks_is_asked_about_not_matched(
    make_runtime, make_state, subject, subject_type, jurisdiction, nearest, lacks
):
    """A holding company is not its namesake operating company, nor is every Amara Okafor
    the minister: a name the registry's lacks words of is put to the analyst, not matched
    and researched as the other entity."""
    runtime = make_runtime()
    state = run(runtime, make_state(subject, jurisdiction=jurisdiction, subject_type=subject_type))
    assert (state.status, state.selected_entity) == ("waiting_for_input", None)
    question = state.pending_question.question
    assert f"No registry entity is named '{subject}'; the nearest is {nearest} (" in question
    assert f"which lacks {lacks}" in question

    state = answer(runtime, state, "yes")
    assert state.selected_entity is not None and state.selected_entity.name == nearest


@pytest.mark.parametrize(
    ("subject", "subject_type", "jurisdiction"),
    [
        ("Dmitry Volkov", "person", "RU"),
        ("Volkov Dmitri", "person", "RU"),
        ("Henrik Solbergh", "person", "NO"),
        ("Acme Analytics Limited", "company", "GB"),
        ("The Acme Analytics Ltd", "company", "GB"),
        ("Volga Petrochem Export PJSC", "company", "RU"),
        ("Golden Gate Shipping Sociedad Anonima", "company", "PA"),
        ("Zenith Motors K.K.", "company", "JP"),
        ("Silver Line Fintech", "company", "SG"),
        ("Fjordline Sea Food", "company", "NO"),
        ("Helios Solar Werke", "company", "DE"),
        ("Acme Analytics (UK) Ltd", "company", "GB"),
        ("Colin D. Marsh", "person", "GB"),
        ("Sarah Linden MBE", "person", "GB"),
    ],
)
def test_spellings_legal_forms_and_initials_are_not_words_a_name_lacks(
    make_runtime, make_state, subject, subject_type, jurisdiction
):
    state = run(
        make_runtime(), make_state(subject, jurisdiction=jurisdiction, subject_type=subject_type)
    )
    assert state.selected_entity is not None, state.pending_question


def test_a_subject_no_registry_knows_is_not_rated_low(make_runtime, make_state):
    state = run(make_runtime(), make_state("Quillfeather Biscuit Works", jurisdiction="GB"))
    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    packet = state.proposed_packet
    assert state.selected_entity is None
    assert packet.risk_rating == "medium"
    assert (
        "No registry company matches 'Quillfeather Biscuit Works': the subject was researched "
        "by name only, and who it is was not confirmed." in packet.open_gaps
    )
    assert packet.adverse_media_summary.startswith("No adverse media found")


def test_a_finish_rating_an_unmatched_subject_low_is_rejected(make_runtime, make_state):
    from atlas.runtime.finish import validate_finish

    state = run(make_runtime(), make_state("Quillfeather Biscuit Works", jurisdiction="GB"))
    low = state.proposed_packet.model_copy(update={"risk_rating": "low"})
    assert any("screened by name only" in error for error in validate_finish(state, low))


def test_an_ambiguous_name_makes_the_playbook_ask_the_analyst(make_runtime, make_state, store):
    state = run(make_runtime(), make_state("Northwind Trading", jurisdiction=None))
    assert (state.status, state.termination_reason) == ("waiting_for_input", "waiting_for_input")
    question = state.pending_question
    for entity_id in ("co-northwind-gb", "co-northwind-us", "co-northwind-sg"):
        assert any(entity_id in c for c in question.candidates)
        assert entity_id in question.question
    assert state.selected_entity is None


@pytest.mark.parametrize("confirmed", [True, False])
def test_a_name_that_only_partly_matches_is_confirmed_by_the_analyst_once(
    make_runtime, make_state, confirmed
):
    runtime = make_runtime()
    state = run(runtime, make_state("Acme", jurisdiction="GB"))
    assert (state.status, state.selected_entity) == ("waiting_for_input", None)
    question = state.pending_question
    assert "No registry entity matches 'Acme' closely" in question.question
    (label,) = question.candidates
    assert label.startswith("Acme Analytics Ltd (GB")

    state = answer(runtime, state, label if confirmed else "No, a different company")
    assert state.termination_reason == "finish_proposed"
    if confirmed:
        assert state.selected_entity.entity_id == "co-acme-analytics-gb"
    else:
        assert state.selected_entity is None
        assert any(
            gap.startswith("The analyst said the registry candidate offered, Acme")
            and gap.endswith("is not the subject: the subject was researched by name only.")
            for gap in state.proposed_packet.open_gaps
        )


def test_same_name_people_are_told_apart_by_their_facts_and_an_answer_by_one_is_taken(
    make_runtime, make_state
):
    runtime = make_runtime()
    state = run(runtime, make_state("John Smith", jurisdiction=None, subject_type="person"))
    assert state.termination_reason == "waiting_for_input"
    question = state.pending_question.question
    # Numbered, so that "the second one" is an answer too.
    assert (
        "Candidates: 1. John Smith (GB, born 1965) [pe-john-smith-gb]; "
        "2. John Smith (US, born 1990) [pe-john-smith-us]" in question
    )
    state = answer(runtime, state, "The one born 1965, he lives in Manchester")
    assert state.selected_entity.entity_id == "pe-john-smith-gb"


@pytest.mark.parametrize(
    ("text", "entity_id"),
    [
        ("the Singapore one", "co-northwind-sg"),
        ("The one in the United States", "co-northwind-us"),
        ("the UK one", "co-northwind-gb"),
        ("USA", "co-northwind-us"),
        ("the American one", "co-northwind-us"),
        ("British", "co-northwind-gb"),
        ("co-northwind-gb", "co-northwind-gb"),
        # Ordinary words are not country codes, and a country ruled out is not picked.
        ("Please check the Singapore one for us", "co-northwind-sg"),
        ("Not the UK one, the Singapore one", "co-northwind-sg"),
        ("SG, not GB", "co-northwind-sg"),
        ("It isn't the American one; it is the British one", "co-northwind-gb"),
        ("No, the UK one", "co-northwind-gb"),
        ("No. It's the British one", "co-northwind-gb"),
        ("Not sure - the UK one I think", "co-northwind-gb"),
        ("not sure, the UK one I think", "co-northwind-gb"),
        ("not the US one or the UK one", "co-northwind-sg"),
        ("not the US or UK one", "co-northwind-sg"),
        ("Not UK but SG", "co-northwind-sg"),
        ("sg", "co-northwind-sg"),
        # An id or registration number ruled out is not the one picked.
        ("not co-northwind-gb, co-northwind-sg", "co-northwind-sg"),
        ("Not 04512398 but 201534871K", "co-northwind-sg"),
        ("(DE-7731002)", "co-northwind-us"),
        # A number written another way than the registry's.
        ("4512398", "co-northwind-gb"),
        ("DE7731002", "co-northwind-us"),
        # A legal form: the one candidate that has it, written out or not.
        ("the LLC", "co-northwind-us"),
        ("the Pte. Ltd. one", "co-northwind-sg"),
        ("Northwind Trading Limited", "co-northwind-gb"),
        ("not the LLC nor the Pte Ltd", "co-northwind-gb"),
        # A US company by its state, whose registry it is in.
        ("the Delaware one", "co-northwind-us"),
        ("the one in New York", "co-northwind-us"),
        # Its place in the question's list.
        ("it's the first one", "co-northwind-gb"),
        ("the second one", "co-northwind-sg"),
        ("#3", "co-northwind-us"),
        ("The last.", "co-northwind-us"),
    ],
)
def test_an_answer_in_the_analysts_words_picks_the_candidate(
    make_runtime, make_state, text, entity_id
):
    runtime = make_runtime()
    state = answer(runtime, run(runtime, make_state("Northwind Trading", jurisdiction=None)), text)
    assert state.termination_reason == "finish_proposed"
    assert state.selected_entity.entity_id == entity_id


@pytest.mark.parametrize(
    "text",
    [
        "not GB",
        "SG or US, not sure",
        "not the UK one",
        "Northwind Trading",
        "Trading",
        "not co-northwind-gb",
        "not 04512398",
        "not the LLC",
        "not the Delaware one",
        "the company, as I said",
        "not the first one",
        "the fourth one",
        # All three were incorporated the same day.
        "the oldest",
    ],
)
def test_an_answer_that_only_rules_out_some_of_three_is_asked_again(make_runtime, make_state, text):
    runtime = make_runtime()
    state = answer(runtime, run(runtime, make_state("Northwind Trading", jurisdiction=None)), text)
    assert state.status == "waiting_for_input"
    assert state.selected_entity is None


def test_a_bare_no_to_several_candidates_researches_the_subject_by_name(make_runtime, make_state):
    runtime = make_runtime()
    state = answer(runtime, run(runtime, make_state("Northwind Trading", jurisdiction=None)), "No")
    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    assert state.selected_entity is None
    assert state.proposed_packet.risk_rating == "medium"
    assert len(state.answered_questions) == 1


@pytest.mark.parametrize(
    ("text", "entity_id"),
    [
        ("Let us go with the one born 1965", "pe-john-smith-gb"),
        ("the one who is not 1990", "pe-john-smith-gb"),
        ("not the one born 1965", "pe-john-smith-us"),
        ("not the US one", "pe-john-smith-gb"),
        ("Not GB", "pe-john-smith-us"),
        ("not pe-john-smith-gb", "pe-john-smith-us"),
        ("the older one", "pe-john-smith-gb"),
        ("The younger", "pe-john-smith-us"),
        ("not the older one", "pe-john-smith-us"),
        ("not the first one", "pe-john-smith-us"),
    ],
)
def test_an_answer_about_same_name_people_picks_the_one_it_means(
    make_runtime, make_state, text, entity_id
):
    runtime = make_runtime()
    state = run(runtime, make_state("John Smith", jurisdiction=None, subject_type="person"))
    state = answer(runtime, state, text)
    assert state.selected_entity.entity_id == entity_id


def test_a_place_in_the_list_is_read_in_the_order_the_question_gave():
    from atlas.runtime.adapters.answers import candidate_picked_by

    gb = {"entity_id": "pe-john-smith-gb", "name": "John Smith", "jurisdiction": "GB"}
    us = {"entity_id": "pe-john-smith-us", "name": "John Smith", "jurisdiction": "US"}
    # A model may list them in another order than the registry gave them.
    listed = ["John Smith (US, born 1990) [pe-john-smith-us]", "John Smith (GB) [pe-john-smith-gb]"]
    assert candidate_picked_by("the first one", [gb, us], listed) is us
    assert candidate_picked_by("the second", [gb, us], listed) is gb
    assert candidate_picked_by("the first one", [gb, us]) is gb
    assert candidate_picked_by("I will tell you later", [gb, us], listed) is None


def test_the_playbook_acts_on_the_runtimes_reading_of_an_answer():
    from atlas.runtime.adapters.answers import candidate_from_answer

    candidates = [
        {"entity_id": "co-northwind-gb", "jurisdiction": "GB", "name": "Northwind Trading"},
        {"entity_id": "co-northwind-sg", "jurisdiction": "SG", "name": "Northwind Trading"},
    ]

    def answered(**entry):
        return {"answered_questions": [{"answer": "the UK one", **entry}]}

    assert (
        candidate_from_answer(answered(picked_entity_id="co-northwind-sg"), candidates)
        == (candidates[1])
    )
    # The runtime read no pick: the playbook does not find one of its own.
    assert candidate_from_answer(answered(picked_entity_id=""), candidates) is None
    # A run recorded before the runtime read answers: the playbook reads it itself.
    assert candidate_from_answer(answered(), candidates) == candidates[0]


def test_an_answer_that_fits_no_candidate_is_asked_again_saying_why(make_runtime, make_state):
    runtime = make_runtime()
    state = run(runtime, make_state("Northwind Trading", jurisdiction=None))
    state = answer(runtime, state, "the big one")
    assert state.status == "waiting_for_input"
    assert state.pending_question.question.startswith(
        "Your answer 'the big one' did not point to exactly one of them"
    )
    assert len(state.pending_question.candidates) == 3
    # However often an answer fits none, the analyst is asked again; the budget bounds it.
    for text in ("no idea", "the old one"):
        state = answer(runtime, state, text)
        assert state.status == "waiting_for_input"
        assert f"Your answer '{text}' did not point" in state.pending_question.question
    state = answer(runtime, state, "the UK one")
    assert state.selected_entity.entity_id == "co-northwind-gb"
    assert state.termination_reason == "finish_proposed"


def test_a_jurisdiction_disambiguates_the_same_name(make_runtime, make_state):
    state = run(make_runtime(), make_state("Northwind Trading", jurisdiction="US"))
    assert state.termination_reason == "finish_proposed"
    assert state.selected_entity.entity_id == "co-northwind-us"


@pytest.mark.parametrize(
    ("subject", "subject_type", "entry"),
    [
        ("Дмитрий Волков", "person", "sdn-10452"),
        ("Dmitry Wolkow", "person", "sdn-10452"),
        ("Volga Petrokhim Eksport", "company", "sdn-10451"),
    ],
)
def test_a_sanctioned_alias_gives_a_high_risk_packet_with_the_hit(
    make_runtime, make_state, subject, subject_type, entry
):
    state = run(make_runtime(), make_state(subject, subject_type=subject_type, jurisdiction=None))
    assert state.termination_reason == "finish_proposed"
    packet = state.proposed_packet
    assert packet.risk_rating == "high"
    hits = [e for e in state.evidence if "sanctions_hit" in e.signals]
    assert any(e.source_id == f"sanctions:{entry}" for e in hits)
    cited = {eid for f in packet.findings for eid in f.evidence_ids}
    assert {e.evidence_id for e in hits} <= cited
    assert "sanctions hit" in packet.sanctions_result.lower()


def test_a_screening_names_each_hit_for_the_people_watching(make_runtime, make_state, store):
    runtime = make_runtime()
    # Registered in RU, not GB: the analyst says the one found there is not the subject,
    # so the name as typed is screened.
    state = run(runtime, make_state("Dmitry Wolkow", subject_type="person"))
    state = answer(runtime, state, "no")
    (screening,) = [
        e.data
        for e in events_of(store, state, "tool_succeeded")
        if e.data["tool"] == "screen_sanctions"
    ]
    assert screening["summary"] == "Sanctions screening found 2 hits across 3 lists."
    assert screening["found"] == [
        "Dmitri Volkov (born 1968; national of RU) on Synthetic OFAC SDN, match score 100 (screened as 'Dmitry Wolkow')",
        "VOLKOV, Dmitri Sergeyevich (born 1968; national of RU) on Synthetic UK HMT Consolidated, match score 98"
        " (screened as 'Dmitry Wolkow')",
    ]


def test_conflicting_directors_end_in_review_with_the_conflict_in_the_packet(
    make_runtime, make_state, store
):
    state = run(make_runtime(), make_state("Meridian Shipping Holdings", jurisdiction="GB"))
    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    (conflict,) = state.proposed_packet.unresolved_conflicts
    assert conflict.fact == "directors"
    assert len(conflict.values) == 2
    assert state.proposed_packet.risk_rating == "medium"
    assert events_of(store, state, "escalated")[0].data["reason"] == "unresolved_conflict"
    detected = events_of(store, state, "conflict_detected")[0].data
    assert {v["value"] for v in detected["values"]} == {
        "Helen Carter, James Whitfield",
        "Helen Carter, Viktor Petrenko",
    }


def test_a_politically_exposed_person_is_at_least_medium_risk(make_runtime, make_state):
    state = run(
        make_runtime(), make_state("Amara Okafor", subject_type="person", jurisdiction=None)
    )
    assert state.proposed_packet.risk_rating == "medium"
    assert any("politically exposed" in f.claim for f in state.proposed_packet.findings)


def test_near_duplicate_articles_collapse_into_one_piece_of_evidence(make_runtime, make_state):
    state = run(make_runtime(), make_state("Crescent Minerals", jurisdiction=None))
    media = [e for e in state.evidence if e.source_id.startswith("article:")]
    # Three articles came back; two are the same story at different URLs.
    assert len(media) == 2
    assert {e.source_id for e in media} == {"article:art-crescent-001", "article:art-crescent-003"}


def test_a_finding_citing_a_source_written_as_instructions_says_so(make_runtime, make_state):
    """A reviewer reading the findings alone must not take it for plain adverse evidence:
    the finding is marked as the media summary and the rating grounds mark it."""
    state = run(make_runtime(), make_state("Crescent Minerals", jurisdiction=None))
    evidence = state.evidence_by_id()
    suspect = [
        f
        for f in state.proposed_packet.findings
        if any("instructions" in evidence[i].signals for i in f.evidence_ids)
    ]
    assert suspect
    for finding in suspect:
        assert finding.claim.startswith(
            "Suspect source, written as instructions to an AI agent (not followed): "
        ), finding.claim


def test_the_playbook_extracts_attached_documents_and_redacts_what_the_model_sees(
    make_runtime, make_state, store
):
    doc = AttachedDocument(document_id="doc-meridian-kyc", name="meridian_kyc_form.txt")
    state = run(make_runtime(), make_state("Meridian Shipping Holdings", documents=[doc]))
    assert "extract:doc-meridian-kyc" in state.completed_steps
    observation = next(
        o for o in store.observations[state.run_id] if o.name == "extract_uploaded_document"
    )
    assert "533401882" in observation.data["text"]  # stored whole
    for secret in ("533401882", "GB29 NWBK", "41926837", "helen.carter@", "14/03/1975"):
        assert secret not in observation.model_view
    assert "[REDACTED PASSPORT]" in observation.model_view
    (document,) = [e for e in state.evidence if e.evidence_class == "document"]
    # The evidence quotes how the document begins, for the reviewer, redacted as well.
    assert "It begins: “KNOW-YOUR-CUSTOMER FORM (synthetic sample) Company:" in document.claim
    assert document.claim.endswith("…”")
    for secret in ("533401882", "GB29 NWBK", "41926837", "helen.carter@", "14/03/1975"):
        assert secret not in document.claim


def test_an_answer_names_countries_as_the_case_form_reads_them():
    from atlas.runtime.adapters.answers import country_mentions

    assert country_mentions("the one in Russia, not the Scottish one", {"RU", "GB"}) == (
        {"RU"},
        set(),
    )
    assert country_mentions("not the one in Scotland", {"RU", "GB"}) == (set(), {"GB"})


def test_a_beneficial_owner_a_document_names_is_screened_and_a_hit_rates_the_packet_high(
    make_runtime, make_state
):
    """An ownership declaration naming a sanctioned ultimate beneficial owner: the owner is
    screened by name, and the hit is the packet's, as a director's would be."""
    doc = AttachedDocument(
        document_id="doc-harrow-ownership", name="harrow_ownership_declaration.txt"
    )
    state = run(make_runtime(), make_state("Harrow Bay Freight", documents=[doc]))
    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    packet = state.proposed_packet
    assert packet.risk_rating == "high"
    assert "on beneficial owner Dmitri Volkov" in packet.sanctions_result
    assert not packet.open_gaps
    assert_every_finding_is_cited(state)
    screens = [a["arguments"] for a in state.executed_actions if a["tool"] == "screen_sanctions"]
    assert {"name": "Dmitri Volkov"} in screens
