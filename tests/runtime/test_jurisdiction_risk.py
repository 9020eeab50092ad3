"""Country risk: a subject, a company a person subject directs, or a business a declared
source of wealth names, registered in one of the tenant's high-risk jurisdictions, or a
director of the subject company living in one, is not rated low, and its packet asks for
enhanced due diligence. The list is the tenant's policy (FATF's call for action by
default)."""

from __future__ import annotations

from runtime_helpers import events_of, playbook_skipping, run
from test_document_owners import HEAD, attached

from atlas.runtime.context import project_state
from atlas.runtime.humans import ConflictResolution
from atlas.runtime.policy import HIGH_RISK_JURISDICTIONS, TenantPolicy

IRRAWADDY = "Irrawaddy Jade Trading"
# A GB company whose registry record says its director Farhad Rahimi lives in Iran.
GULFSTAR = "Gulfstar Marine Services"
RAHIMI_IN_IRAN = (
    "Director Farhad Rahimi (Iran, IR) lives in one of the tenant's high-risk jurisdictions: "
    "enhanced due diligence applies."
)


def test_a_company_in_a_high_risk_jurisdiction_is_not_low(make_runtime, make_state):
    state = run(make_runtime(), make_state(IRRAWADDY, jurisdiction="MM"))
    assert state.high_risk_jurisdictions == list(HIGH_RISK_JURISDICTIONS)
    packet = state.proposed_packet
    assert packet.risk_rating == "medium"
    assert packet.open_gaps == [
        "The subject (Myanmar, MM) is registered in one of the tenant's high-risk "
        "jurisdictions: enhanced due diligence applies."
    ]
    assert project_state(state)["in_high_risk_jurisdictions"] == ["the subject (Myanmar, MM)"]


def test_a_tenant_without_the_list_rates_it_on_its_evidence(make_runtime, make_state):
    runtime = make_runtime(tenant_policy=TenantPolicy(high_risk_jurisdictions=[]))
    packet = run(runtime, make_state(IRRAWADDY, jurisdiction="MM")).proposed_packet
    assert packet.risk_rating == "low"
    assert not packet.open_gaps


def test_a_tenants_own_list_counts(make_runtime, make_state):
    runtime = make_runtime(tenant_policy=TenantPolicy(high_risk_jurisdictions=["GB"]))
    packet = run(runtime, make_state()).proposed_packet
    assert packet.risk_rating == "medium"
    assert "The subject (United Kingdom, GB) is registered" in packet.open_gaps[0]


def test_a_low_rating_is_refused_while_it_applies(make_runtime, make_state, store):
    state = run(
        make_runtime(playbook_skipping("in_high_risk_jurisdictions")),
        make_state(IRRAWADDY, jurisdiction="MM"),
    )
    (rejected,) = events_of(store, state, "final_rejected")
    assert rejected.data["errors"] == [
        "The subject, a company it directs, or a business its declared source of wealth or "
        "funds names, is registered in one of the tenant's high-risk jurisdictions, or the "
        "subject, a director or a beneficial owner of it lives in one or, where the tenant's "
        "policy counts nationality, is a national of one (see in_high_risk_jurisdictions): "
        "that rules out a low risk rating."
    ]
    assert state.proposed_packet.risk_rating == "medium"


def test_a_company_a_person_subject_directs_counts(make_runtime, make_state):
    """No registry person is Aung Kyaw Min, but Irrawaddy Jade's record lists a director of
    that name."""
    state = run(
        make_runtime(), make_state("Aung Kyaw Min", subject_type="person", jurisdiction=None)
    )
    assert (
        "Irrawaddy Jade Trading Co Ltd (Myanmar, MM), a company the subject directs, is "
        "registered in one of the tenant's high-risk jurisdictions: enhanced due diligence "
        "applies."
    ) in state.proposed_packet.open_gaps
    assert state.high_risk_registrations == [
        "Irrawaddy Jade Trading Co Ltd (Myanmar, MM), a company the subject directs"
    ]


def test_a_policy_changed_mid_run_applies_from_the_next_step(make_runtime, make_state):
    state = make_runtime().start(make_state(IRRAWADDY, jurisdiction="MM"))
    assert state.high_risk_jurisdictions == list(HIGH_RISK_JURISDICTIONS)
    changed = make_runtime(tenant_policy=TenantPolicy(high_risk_jurisdictions=["IR"]))
    assert changed.step(state).high_risk_jurisdictions == ["IR"]


def test_the_rating_says_it_stands_on_the_registration(make_runtime, make_state):
    from runs.rating_grounds import grounds_of

    state = run(make_runtime(), make_state(IRRAWADDY, jurisdiction="MM"))
    assert state.high_risk_registrations == ["the subject (Myanmar, MM)"]
    assert grounds_of(state) == [
        "registration in a high-risk jurisdiction: the subject (Myanmar, MM)"
    ]


def test_a_declared_business_registered_there_counts(make_runtime, make_state, documents):
    doc = attached(
        documents,
        "kyc.txt",
        HEAD + "Source of funds: A loan from Irrawaddy Jade Trading Co Ltd\n",
    )
    state = run(make_runtime(), make_state(documents=[doc]))
    packet = state.proposed_packet
    assert packet.risk_rating == "medium"
    assert packet.open_gaps == [
        "The source-of-funds business Irrawaddy Jade Trading Co Ltd (Myanmar, MM) is "
        "registered in one of the tenant's high-risk jurisdictions: enhanced due diligence "
        "applies."
    ]


def test_a_director_living_in_a_high_risk_jurisdiction_counts(make_runtime, make_state):
    from runs.rating_grounds import grounds_of

    state = run(make_runtime(), make_state(GULFSTAR, jurisdiction="GB"))
    packet = state.proposed_packet
    assert (packet.risk_rating, packet.open_gaps) == ("medium", [RAHIMI_IN_IRAN])
    assert (state.high_risk_registrations, state.high_risk_residences) == (
        [],
        ["director Farhad Rahimi (Iran, IR)"],
    )
    assert project_state(state)["in_high_risk_jurisdictions"] == [
        "director Farhad Rahimi (Iran, IR)"
    ]
    assert grounds_of(state) == [
        "residence in a high-risk jurisdiction: director Farhad Rahimi (Iran, IR)"
    ]
    (record,) = [e for e in state.evidence if e.evidence_class == "registry"]
    assert record.claim.startswith(
        "Registry record: Gulfstar Marine Services Ltd (GB, no. 11847302), status active; "
        "directors: Daniel Mercer (lives in GB), Farhad Rahimi (lives in IR)."
    )


def test_a_director_living_elsewhere_does_not(make_runtime, make_state):
    runtime = make_runtime(tenant_policy=TenantPolicy(high_risk_jurisdictions=["KP", "MM"]))
    state = run(runtime, make_state(GULFSTAR, jurisdiction="GB"))
    assert (state.proposed_packet.risk_rating, state.proposed_packet.open_gaps) == ("low", [])
    assert state.high_risk_residences == []


def test_a_low_rating_is_refused_for_a_director_living_there(make_runtime, make_state, store):
    state = run(
        make_runtime(playbook_skipping("in_high_risk_jurisdictions")),
        make_state(GULFSTAR, jurisdiction="GB"),
    )
    (rejected,) = events_of(store, state, "final_rejected")
    assert "a director or a beneficial owner of it lives in one" in rejected.data["errors"][0]
    assert state.proposed_packet.risk_rating == "medium"


def test_registration_and_residence_each_have_their_gap(make_runtime, make_state):
    runtime = make_runtime(tenant_policy=TenantPolicy(high_risk_jurisdictions=["GB", "IR"]))
    packet = run(runtime, make_state(GULFSTAR, jurisdiction="GB")).proposed_packet
    assert packet.open_gaps == [
        "The subject (United Kingdom, GB) is registered in one of the tenant's high-risk "
        "jurisdictions: enhanced due diligence applies.",
        "Director Daniel Mercer (United Kingdom, GB) and director Farhad Rahimi (Iran, IR) "
        "live in the tenant's high-risk jurisdictions: enhanced due diligence applies.",
    ]


def test_a_director_a_reviewer_set_aside_no_longer_counts(make_runtime, make_state, documents):
    """The KYC form names other directors; the reviewer settles the conflict on the form's."""
    doc = attached(
        documents,
        "kyc.txt",
        "Company: Gulfstar Marine Services Ltd\nCompany number: 11847302\n"
        "Directors: Daniel Mercer, Priya Nair\n",
    )
    runtime = make_runtime()
    state = run(runtime, make_state(GULFSTAR, jurisdiction="GB", documents=[doc]))
    assert RAHIMI_IN_IRAN in state.proposed_packet.open_gaps
    (conflict,) = state.proposed_packet.unresolved_conflicts
    resolution = ConflictResolution(
        decision_id="d-1",
        actor="reviewer-rita",
        conflict_id=conflict.conflict_id,
        value="Daniel Mercer, Priya Nair",
        note="The KYC form is newer than the registry's filing.",
    )
    state = run(runtime, runtime.apply_human_input(state, resolution))
    assert state.high_risk_residences == []
    assert RAHIMI_IN_IRAN not in state.proposed_packet.open_gaps


def test_a_person_subject_a_company_record_says_lives_there_counts(make_runtime, make_state):
    """No registry person is Farhad Rahimi; Gulfstar's record lists a director of that name
    living in Iran. His fellow director living in GB is no tie of his."""
    state = run(
        make_runtime(), make_state("Farhad Rahimi", subject_type="person", jurisdiction=None)
    )
    assert state.high_risk_residences == [
        "the subject (Iran, IR, by Gulfstar Marine Services Ltd's registry record)"
    ]
    assert (
        "The subject (Iran, IR, by Gulfstar Marine Services Ltd's registry record) lives in one "
        "of the tenant's high-risk jurisdictions: enhanced due diligence applies."
    ) in state.proposed_packet.open_gaps
    mercer = run(
        make_runtime(), make_state("Daniel Mercer", subject_type="person", jurisdiction=None)
    )
    assert mercer.high_risk_residences == []
    assert not any("high-risk" in gap for gap in mercer.proposed_packet.open_gaps)


def test_a_source_saying_they_live_elsewhere_is_shown_beside_it(
    make_runtime, make_state, documents
):
    doc = attached(
        documents,
        "kyc.txt",
        "Company: Gulfstar Marine Services Ltd\n"
        "Directors: Daniel Mercer, Farhad Rahimi (resident in the United Kingdom)\n",
    )
    state = run(make_runtime(), make_state(GULFSTAR, jurisdiction="GB", documents=[doc]))
    assert state.high_risk_residences == [
        "director Farhad Rahimi (Iran, IR; another source says United Kingdom, GB)"
    ]
    assert state.proposed_packet.risk_rating == "medium"
