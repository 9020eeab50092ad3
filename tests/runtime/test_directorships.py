"""Each company the subject person directs is screened against the sanctions lists and
searched for adverse media."""

from __future__ import annotations

import pytest
from runtime_helpers import FnModel, events_of, playbook_skipping, run, tool_arguments

from atlas.runtime.adapters.base import ModelReply
from atlas.runtime.adapters.playbook import Playbook
from atlas.runtime.context import FENCE_OPEN, build_context
from atlas.runtime.directorships import directorship_step, unscreened_directorships
from atlas.runtime.finish import validate_finish
from atlas.runtime.policy import TenantPolicy
from atlas.runtime.tools.registry import default_registry
from atlas.runtime.world import default_world, name_score


def test_a_person_who_directs_a_listed_company_gets_a_high_risk_packet_naming_it(
    make_runtime, make_state, store
):
    """Irina Sokolova is on no list, but the registry names her a director of Volga
    Petrochem Export JSC, which is."""
    state = run(
        make_runtime(), make_state("Irina Sokolova", subject_type="person", jurisdiction=None)
    )
    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    # The company, then the other director its record lists.
    assert tool_arguments(store, state, "screen_sanctions") == [
        {"entity_id": "pe-irina-sokolova"},
        {"entity_id": "co-volga-petrochem-ru"},
        {"name": "Dmitri Volkov"},
    ]
    assert unscreened_directorships(state) == []
    packet = state.proposed_packet
    assert packet.risk_rating == "high"
    assert packet.sanctions_result == (
        "3 sanctions hits: on Volga Petrochem Export JSC (RU), a company the subject directs "
        "(Synthetic OFAC SDN); on co-director Dmitri Volkov at Volga Petrochem Export JSC (RU) "
        "(Synthetic OFAC SDN, Synthetic UK HMT Consolidated). No hits for the subject."
        " Nobody screened is on the register of politically exposed persons."
    )
    claims = [f.claim for f in packet.findings]
    assert (
        "Registry record: Irina Sokolova (RU), born 1973; director of Volga Petrochem Export "
        "JSC (RU)." in claims
    )
    assert any(
        c.startswith("Sanctions hit on Volga Petrochem Export JSC (RU), a company the subject")
        for c in claims
    )
    # The company's own record came with her resolution: it names who else directs it, the
    # sanctioned Dmitri Volkov, whom the research screened by name.
    (record,) = [e for e in state.evidence if e.source_id == "registry:co-volga-petrochem-ru"]
    assert record.claim.endswith("directors: Dmitri Volkov, Irina Sokolova.")
    assert any(c.startswith("Sanctions hit on co-director Dmitri Volkov at Volga") for c in claims)
    assert packet.open_gaps == []


def test_a_companys_search_finding_only_held_articles_is_said_in_one_sentence(
    make_runtime, make_state
):
    """Dmitri Volkov's own search already found the article on Volga Petrochem."""
    state = run(
        make_runtime(), make_state("Dmitri Volkov", subject_type="person", jurisdiction=None)
    )
    assert any(
        f.claim.startswith(
            "The media search for Volga Petrochem Export JSC (RU), a company the subject "
            "directs, found only 1 article already held:"
        )
        for f in state.proposed_packet.findings
    )


def test_every_company_is_screened_and_a_clear_one_is_said_to_be_clear(
    make_runtime, make_state, store
):
    state = run(
        make_runtime(), make_state("Dmitri Volkov", subject_type="person", jurisdiction=None)
    )
    # Each company, then, last, the other directors their records list.
    assert tool_arguments(store, state, "screen_sanctions")[1:] == [
        {"entity_id": "co-volga-petrochem-ru"},
        {"entity_id": "co-golden-gate-shipping-pa"},
        {"entity_id": "co-amber-coast-freight-lt"},
        {"name": "Irina Sokolova"},
        {"name": "Luis Herrera"},
        {"name": "Ieva Petraitytė"},
    ]
    packet = state.proposed_packet
    assert packet.sanctions_result.endswith(
        "; on Volga Petrochem Export JSC (RU), a company the subject directs (Synthetic OFAC "
        "SDN); on Golden Gate Shipping SA (PA), a company the subject directs (Synthetic UN "
        "Consolidated). No hits for Amber Coast Freight UAB (LT), a company the subject "
        "directs; co-director Irina Sokolova at Volga Petrochem Export JSC (RU); co-director "
        "Luis Herrera at Golden Gate Shipping SA (PA); or co-director Ieva Petraitytė at Amber "
        "Coast Freight UAB (LT). Nobody screened is on the register of politically exposed "
        "persons."
    )
    claims = [f.claim for f in packet.findings]
    assert (
        "No sanctions hits for Amber Coast Freight UAB (LT), a company the subject directs, "
        "across 3 lists (threshold 90)." in claims
    )
    assert (
        "No adverse media found for Amber Coast Freight UAB (LT), a company the subject directs."
        in claims
    )


def test_adverse_media_on_a_company_the_person_directs_rules_out_low_risk(
    make_runtime, make_state, store
):
    """Arthur Pembroke is named in no article, but Crescent Minerals, which he directs, is
    under a fraud investigation."""
    state = run(make_runtime(), make_state("Arthur Pembroke", subject_type="person"))
    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    assert tool_arguments(store, state, "search_adverse_media") == [
        {"query": "Arthur Pembroke", "entity_id": "pe-arthur-pembroke"},
        # By name too: an article naming him may be linked to a company, or to nothing.
        {"query": "Arthur Pembroke"},
        {"query": "Crescent Minerals PLC", "entity_id": "co-crescent-minerals-gb"},
        # And the other director its record lists.
        {"query": "Lucy Fenwick"},
    ]
    packet = state.proposed_packet
    assert packet.risk_rating == "medium"
    # The blog written as instructions to an AI agent is named apart, not relied on.
    assert packet.adverse_media_summary == (
        "1 adverse article: Example Business News, 2024-06-03: Crescent Minerals under fraud "
        "investigation (on Crescent Minerals PLC (GB), a company the subject directs). Also 1 "
        "adverse article from a suspect source, written as instructions to an AI agent (not "
        "followed; weigh it accordingly): Example Blog, 2024-06-10: What Crescent Minerals is "
        "not telling you (on Crescent Minerals PLC (GB), a company the subject directs)."
    )
    # Each article's finding names the company too, not only the summary.
    article_findings = [f.claim for f in packet.findings if "Example Business News" in f.claim]
    assert article_findings and all(
        f.endswith("(on Crescent Minerals PLC (GB), a company the subject directs)")
        for f in article_findings
    )
    low = packet.model_copy(update={"risk_rating": "low"})
    assert "Adverse media rules out a low risk rating." in validate_finish(state, low)


def test_a_clean_person_with_clean_companies_stays_low_risk(make_runtime, make_state):
    state = run(make_runtime(), make_state("Sarah Linden", subject_type="person"))
    packet = state.proposed_packet
    assert packet.risk_rating == "low"
    assert directorship_step("co-acme-analytics-gb") in state.completed_steps
    assert packet.sanctions_result.endswith(
        " No hits either for Acme Analytics Ltd (GB), a company the subject directs."
        " Nobody screened is on the register of politically exposed persons."
    )


def test_unscreened_companies_rule_out_low_risk_and_are_named_in_the_packet(
    make_runtime, make_state, store
):
    state = run(
        make_runtime(playbook_skipping("companies_to_screen", "companies_to_search")),
        make_state("Sarah Linden", subject_type="person"),
    )
    (rejected,) = events_of(store, state, "final_rejected")
    assert rejected.data["errors"] == [
        "Not every company the subject directs has been screened against the sanctions lists "
        "(see companies_to_screen): that rules out a low risk rating.",
        "Adverse media has not been searched on every company the subject directs (see "
        "companies_to_search): that rules out a low risk rating.",
    ]
    assert state.termination_reason == "finish_proposed"
    assert state.proposed_packet.open_gaps == [
        "Acme Analytics Ltd (GB), a company the subject directs, was not screened against "
        "the sanctions lists.",
        "Acme Analytics Ltd (GB), a company the subject directs, was not searched for adverse "
        "media.",
    ]


def test_a_company_the_person_does_not_direct_is_not_taken_for_one_of_theirs(
    make_runtime, make_state
):
    """Screening some other company by id is evidence, but neither the subject's screening
    nor one of its companies'."""

    def screens_crescent_first(context):
        p = context.projection
        if p["selected_entity"] and not any(
            a["arguments"].get("entity_id") == "co-crescent-minerals-gb"
            for a in p["executed_actions"]
        ):
            return ModelReply(
                action={
                    "kind": "call_tool",
                    "tool_name": "screen_sanctions",
                    "arguments": {"entity_id": "co-crescent-minerals-gb"},
                }
            )
        return ModelReply(action=Playbook().next_action(p))

    runtime = make_runtime(FnModel(screens_crescent_first))
    state = run(runtime, make_state("Sarah Linden", subject_type="person"))
    assert state.completed_steps[:2] == ["resolve_entity", "screen_sanctions"]
    crescent = [e for e in state.evidence if "Crescent" in e.claim and e.tool == "screen_sanctions"]
    assert crescent and all(e.about == "" for e in crescent)
    assert state.termination_reason == "finish_proposed"


def test_companies_to_screen_reach_the_model_inside_the_fence_only(make_runtime, make_state):
    state = run(
        make_runtime(),
        make_state("Irina Sokolova", subject_type="person", jurisdiction=None, max_iterations=2),
    )
    context = build_context(state, default_registry(), TenantPolicy())
    trusted, fenced = context.messages[1]["content"].split(FENCE_OPEN, 1)
    assert directorship_step("co-volga-petrochem-ru") in trusted
    assert "Volga" not in trusted
    volga = (
        '[{"entity_id": "co-volga-petrochem-ru", "name": "Volga Petrochem Export JSC", '
        '"jurisdiction": "RU"}]'
    )
    assert f'"companies_to_screen": {volga}' in fenced
    assert f'"companies_to_search": {volga}' in fenced


@pytest.mark.parametrize(
    "person",
    [e for e in default_world().entities if e.get("directorships")],
    ids=lambda e: e["entity_id"],
)
def test_each_directorship_in_the_world_is_a_company_naming_the_person_a_director(person):
    world = default_world()
    names = [person["name"], *person.get("aliases", [])]
    for company_id in person["directorships"]:
        company = world.entities_by_id[company_id]
        assert company["entity_type"] == "company"
        assert any(
            name_score(director, name) >= 90 for director in company["directors"] for name in names
        ), (person["name"], company["name"])


def test_a_person_found_abroad_who_directs_three_companies_is_researched_within_the_defaults():
    """Dmitri Volkov, opened as GB: the analyst confirms the Russian record, and the run
    screens and searches him and his three companies on the default budgets."""
    from atlas.runtime.engine import run_scenario
    from atlas.runtime.scenario import parse_scenario

    scenario = parse_scenario(
        {
            "case": {"subject": "Dmitri Volkov", "subject_type": "person", "jurisdiction": "GB"},
            "human": {"answers": ["yes"]},
        }
    )
    state, _ = run_scenario(scenario)
    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    assert state.selected_entity.entity_id == "pe-dmitri-volkov"
    assert unscreened_directorships(state) == []
    assert state.proposed_packet.risk_rating == "high"


def test_a_codirector_only_an_article_names_is_a_gap_of_its_own(make_runtime, make_state):
    """The registry gives Meridian Shipping Helen Carter and James Whitfield; an article
    says Viktor Petrenko replaced Whitfield. Whitfield, whom the registry lists, is
    screened; Petrenko is not, and the packet says who names him."""
    state = run(make_runtime(), make_state("Helen Carter", subject_type="person"))
    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    about = "Meridian Shipping Holdings Ltd (GB), a company the subject directs"
    assert (
        "No hits either for co-director James Whitfield at Meridian Shipping Holdings Ltd (GB), screened by name."
        in (state.proposed_packet.sanctions_result)
    )
    assert state.proposed_packet.open_gaps == [
        f"Example Business News names Viktor Petrenko a director of {about}; the registry "
        "record does not, and Viktor Petrenko was not screened.",
    ]
