"""The playbook searches the registry beyond the case's country only when that can find
something the search in the country could not: never the same search twice."""

from __future__ import annotations

import pytest

from atlas.runtime.adapters.playbook import Playbook
from atlas.runtime.context import project_state
from atlas.runtime.engine import Runtime
from atlas.runtime.humans import ClarificationAnswer
from atlas.runtime.memory import FakeClock, MemoryCancelSignal, MemoryDocumentSource, MemoryRunStore
from atlas.runtime.policy import TenantPolicy
from atlas.runtime.state import AtlasState, Budgets, CaseBrief, new_state
from atlas.runtime.world import sample_documents


@pytest.fixture
def store() -> MemoryRunStore:
    return MemoryRunStore()


@pytest.fixture
def runtime(store) -> Runtime:
    return Runtime(
        Playbook(),
        store=store,
        clock=FakeClock(),
        cancel=MemoryCancelSignal(),
        documents=MemoryDocumentSource(sample_documents()),
        tenant_policy=TenantPolicy(),
        retry_backoff_seconds=0.001,
    )


def opened(subject: str, subject_type: str, country: str) -> AtlasState:
    return new_state(
        run_id=f"run-{subject}-{country}",
        case_id="case-1",
        tenant_id="tenant-1",
        brief=CaseBrief(subject=subject, subject_type=subject_type, jurisdiction=country),
        budgets=Budgets(),
        opened_by="analyst-ann",
    )


def researched(runtime: Runtime, subject: str, subject_type: str, country: str) -> AtlasState:
    return runtime.run_until_pause(runtime.start(opened(subject, subject_type, country)))


def answered(runtime: Runtime, state: AtlasState, text: str) -> AtlasState:
    given = ClarificationAnswer(
        decision_id=f"d-{state.step}",
        actor="analyst-ann",
        question_id=state.pending_question.question_id,
        text=text,
    )
    return runtime.run_until_pause(runtime.apply_human_input(state, given))


def resolutions(store: MemoryRunStore, state: AtlasState) -> list[dict]:
    return [
        e.data["arguments"]
        for e in store.events[state.run_id]
        if e.type == "tool_started" and e.data["tool"] == "resolve_entity"
    ]


@pytest.mark.parametrize(
    ("subject", "subject_type", "country", "candidate"),
    [
        ("Volkov", "person", "RU", "pe-dmitri-volkov"),  # the only Volkov is Russian
        ("Acme", "company", "GB", "co-acme-analytics-gb"),  # the only Acme is British
    ],
)
def test_a_weak_match_in_the_country_is_asked_about_without_searching_again(
    runtime, store, subject, subject_type, country, candidate
):
    state = researched(runtime, subject, subject_type, country)

    assert resolutions(store, state) == [
        {"name": subject, "jurisdiction": country, "entity_type": subject_type}
    ]
    assert state.cost_usd == runtime.registry.get("resolve_entity").price_usd
    (label,) = state.pending_question.candidates
    assert label.endswith(f"[{candidate}]")
    assert state.pending_question.question.startswith(
        f"No registry entity matches '{subject}' closely; the nearest is"
    )

    state = answered(runtime, state, "yes")
    assert state.termination_reason == "finish_proposed"
    assert state.selected_entity.entity_id == candidate


def test_a_name_no_registry_knows_anywhere_is_searched_for_once(runtime, store):
    # Only the UN list knows the trading name: the screening goes on to ask about it.
    state = researched(runtime, "Golden Gate Maritime", "company", "PA")

    assert resolutions(store, state) == [
        {"name": "Golden Gate Maritime", "jurisdiction": "PA", "entity_type": "company"}
    ]
    assert state.pending_question.candidates[0].endswith("[co-golden-gate-shipping-pa]")


@pytest.mark.parametrize(
    ("subject", "subject_type", "country"),
    [
        ("Amber Coast Freight", "company", "GB"),  # registered in LT only
        ("Dmitri Volkov", "person", "GB"),  # registered in RU only
        ("Acme Analytics", "company", "US"),  # a weak US match; the exact name is in GB
    ],
)
def test_a_search_in_the_wrong_country_is_widened_to_every_country(
    runtime, store, subject, subject_type, country
):
    state = researched(runtime, subject, subject_type, country)

    assert resolutions(store, state) == [
        {"name": subject, "jurisdiction": country, "entity_type": subject_type},
        {"name": subject, "entity_type": subject_type},
    ]
    assert state.status == "waiting_for_input"


@pytest.mark.parametrize(
    ("subject", "subject_type", "country", "elsewhere"),
    [("Volkov", "person", "RU", 0), ("Dmitri Volkov", "person", "GB", 1)],
)
def test_the_model_is_shown_how_many_candidates_its_search_left_out_elsewhere(
    runtime, subject, subject_type, country, elsewhere
):
    state = runtime.start(opened(subject, subject_type, country))
    assert project_state(state)["candidates_registered_elsewhere"] is None

    state = runtime.step(state)  # the search in the case's country
    assert resolutions(runtime.store, state) == [
        {"name": subject, "jurisdiction": country, "entity_type": subject_type}
    ]
    assert project_state(state)["candidates_registered_elsewhere"] == elsewhere
