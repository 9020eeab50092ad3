"""A sanctions hit, or a match on the register of politically exposed persons, on the
subject whose entry is another registry entity than the one the subject was matched to:
the match is kept, and the packet says whom the entry means, so a reviewer can weigh it as
a possible namesake."""

from __future__ import annotations

from runtime_helpers import run, signed_off

from atlas.runtime.listed_namesakes import hit_note

NAMESAKE = (
    "The list links this entry to Sergei Markov (RU, born 1961) [pe-sergei-markov-ru], not "
    "to Sergei Markov (GB, born 1990) [pe-sergei-markov-gb], the registry entity the subject "
    "was matched to: the match may be on a namesake, for a reviewer to confirm or mark a false "
    "positive."
)


def _hits(state):
    return [item for item in state.evidence if item.evidence_class == "sanctions" and item.signals]


def test_a_hit_the_list_links_to_another_person_says_so(make_runtime, make_state):
    state = run(make_runtime(), make_state("Sergei Markov", subject_type="person"))
    (hit,) = _hits(state)
    assert hit.claim.endswith(NAMESAKE)
    packet = state.proposed_packet
    # A hit is for a person to rule on: it still rates the packet high.
    assert packet.risk_rating == "high"
    assert any(NAMESAKE in finding.claim for finding in packet.findings)
    assert (
        "The list links the entry hit to another registry entity (pe-sergei-markov-ru) than "
        "Sergei Markov (GB, born 1990), the one the subject was matched to: it may be a "
        "namesake's"
    ) in packet.sanctions_result


def test_a_hit_on_the_listed_person_itself_says_nothing_of_namesakes(make_runtime, make_state):
    state = run(
        make_runtime(), make_state("Sergei Markov", subject_type="person", jurisdiction="RU")
    )
    (hit,) = _hits(state)
    assert "namesake" not in hit.claim
    assert "namesake" not in state.proposed_packet.sanctions_result
    assert state.proposed_packet.risk_rating == "high"


def test_a_reviewer_who_marks_the_namesake_a_false_positive_may_rate_it_low(
    make_runtime, make_state
):
    runtime = make_runtime()
    state = run(runtime, make_state("Sergei Markov", subject_type="person"))
    state = signed_off(runtime, state, "low", "false_positive")
    assert state.status == "completed"
    assert state.proposed_packet.risk_rating == "low"
    assert state.proposed_packet.proposed_risk_rating == "high"


REGISTER_NAMESAKE = (
    "The register's entry is Mateo Rojas (CL, born 1966) [pe-mateo-rojas-cl], not Mateo Rojas "
    "(US, born 1988) [pe-mateo-rojas-us], the registry entity the subject was matched to: the "
    "match may be on a namesake, for a reviewer to confirm or mark a false positive."
)


def test_a_register_match_on_another_person_says_so(make_runtime, make_state):
    state = run(make_runtime(), make_state("Mateo Rojas", subject_type="person", jurisdiction="US"))
    (match,) = [item for item in state.evidence if item.evidence_class == "pep"]
    assert match.claim.endswith(REGISTER_NAMESAKE)
    packet = state.proposed_packet
    assert packet.risk_rating == "medium"
    assert (
        "The register's entry matched is another registry entity (pe-mateo-rojas-cl) than "
        "Mateo Rojas (US, born 1988), the one the subject was matched to: it may be a "
        "namesake's"
    ) in packet.sanctions_result
    assert (
        "Mateo Rojas (if the register's match is not a namesake's) is a politically exposed "
        "person: enhanced due diligence needs the source of wealth and the source of funds"
    ) in packet.open_gaps[0]


def test_a_register_match_on_the_subject_itself_is_no_namesake(make_runtime, make_state):
    state = run(make_runtime(), make_state("Mateo Rojas", subject_type="person", jurisdiction="CL"))
    packet = state.proposed_packet
    assert "namesake" not in str(packet.model_dump())
    assert packet.open_gaps[0].startswith("Mateo Rojas is a politically exposed person:")


def test_marking_the_register_namesake_a_false_positive_clears_it(make_runtime, make_state):
    runtime = make_runtime()
    state = run(runtime, make_state("Mateo Rojas", subject_type="person", jurisdiction="US"))
    state = signed_off(runtime, state, "low", "false_positive")
    assert state.status == "completed"
    assert state.proposed_packet.risk_rating == "low"
    assert not [gap for gap in state.proposed_packet.open_gaps if "source of wealth" in gap]


def test_a_director_hit_on_a_person_who_directs_another_company_may_be_a_namesake(
    make_runtime, make_state
):
    """Calder Print Works' director Sergei Markov is the GB one; the list means the RU one,
    whose registry record directs no such company."""
    state = run(make_runtime(), make_state("Calder Print Works"))
    (hit,) = _hits(state)
    assert hit.possible_namesake
    assert hit.claim.endswith(
        "The list links this entry to Sergei Markov (RU, born 1961) [pe-sergei-markov-ru], "
        "whose registry record does not list Calder Print Works Ltd among the companies they "
        "direct: the hit may be on a namesake, for a reviewer to confirm or mark a false "
        "positive."
    )
    packet = state.proposed_packet
    assert packet.risk_rating == "high"
    assert (
        "The person the list means by the hit on director Sergei Markov is not recorded as a "
        "director of Calder Print Works Ltd: it may be a namesake's"
    ) in packet.sanctions_result


def test_a_director_hit_on_the_listed_person_who_directs_the_company_says_so(
    make_runtime, make_state
):
    state = run(make_runtime(), make_state("Amber Coast Freight", jurisdiction="LT"))
    hits = _hits(state)
    assert hits and not any(hit.possible_namesake for hit in hits)
    assert all(
        "whose registry record lists Amber Coast Freight UAB among the companies they direct: "
        "the same person" in hit.claim
        for hit in hits
    )
    assert "namesake" not in state.proposed_packet.sanctions_result


def test_a_stored_hit_without_the_listed_persons_companies_says_nothing_of_them(
    make_runtime, make_state
):
    state = run(make_runtime(), make_state("Calder Print Works"))
    (hit,) = _hits(state)
    old = {
        "entity_id": "pe-sergei-markov-ru",
        "name": "Sergei Markov",
        "entity_type": "person",
        "jurisdiction": "RU",
    }
    board = [("co-calder-print-works-gb", "Calder Print Works Ltd")]
    assert hit_note(state, {"linked_entity": old}, "director Sergei Markov", board) == ("", False)
    assert hit_note(
        state, {"linked_entity": old | {"directs": []}}, "director Sergei Markov", board
    )[1]


def test_a_codirector_hit_on_the_listed_person_who_directs_the_company_says_so(
    make_runtime, make_state
):
    state = run(
        make_runtime(), make_state("Ieva Petraityte", subject_type="person", jurisdiction=None)
    )
    hits = [hit for hit in _hits(state) if hit.about.startswith("co-director")]
    assert hits and not any(hit.possible_namesake for hit in hits)
    assert all(
        "whose registry record lists Amber Coast Freight UAB among the companies they direct"
        in hit.claim
        for hit in hits
    )


def test_a_codirector_hit_on_a_person_who_directs_no_such_company_may_be_a_namesake(
    make_runtime, make_state
):
    """Emma Hale sits on Calder Print Works' board beside the GB Sergei Markov."""
    state = run(make_runtime(), make_state("Emma Hale", subject_type="person", jurisdiction=None))
    (hit,) = _hits(state)
    assert hit.about == "co-director Sergei Markov at Calder Print Works Ltd (GB)"
    assert hit.possible_namesake
    packet = state.proposed_packet
    assert packet.risk_rating == "high"
    assert (
        "The person the list means by the hit on co-director Sergei Markov at Calder Print "
        "Works Ltd (GB) is not recorded as a director of that company: it may be a namesake's"
    ) in packet.sanctions_result
