"""Fixtures for runtime tests: no database, an in-memory store, a fake clock."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest
from runtime_helpers import ScriptThenPlaybook

from atlas.runtime.adapters.playbook import Playbook
from atlas.runtime.engine import Runtime
from atlas.runtime.memory import FakeClock, MemoryCancelSignal, MemoryDocumentSource, MemoryRunStore
from atlas.runtime.policy import TenantPolicy
from atlas.runtime.state import AtlasState, AttachedDocument, Budgets, CaseBrief, new_state
from atlas.runtime.tools.base import ToolContext
from atlas.runtime.world import default_world, sample_documents


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def store() -> MemoryRunStore:
    return MemoryRunStore()


@pytest.fixture
def cancel() -> MemoryCancelSignal:
    return MemoryCancelSignal()


@pytest.fixture
def documents() -> MemoryDocumentSource:
    return MemoryDocumentSource(sample_documents())


@pytest.fixture
def make_runtime(store, clock, cancel, documents) -> Callable[..., Runtime]:
    def factory(model: Any = None, turns: Sequence[Any] | None = None, **kwargs: Any) -> Runtime:
        if model is None:
            model = ScriptThenPlaybook(turns) if turns is not None else Playbook()
        kwargs.setdefault("store", store)
        kwargs.setdefault("clock", clock)
        kwargs.setdefault("cancel", cancel)
        kwargs.setdefault("documents", documents)
        kwargs.setdefault("tenant_policy", TenantPolicy())
        kwargs.setdefault("retry_backoff_seconds", 0.001)
        return Runtime(model, **kwargs)

    return factory


@pytest.fixture
def make_state() -> Callable[..., AtlasState]:
    counter = {"n": 0}

    def factory(
        subject: str = "Acme Analytics",
        *,
        subject_type: str = "company",
        jurisdiction: str | None = "GB",
        documents: Sequence[AttachedDocument] = (),
        faults: dict[str, list[str]] | None = None,
        opened_by: str | None = "analyst-ann",
        **budgets: Any,
    ) -> AtlasState:
        counter["n"] += 1
        return new_state(
            run_id=f"run-{counter['n']}",
            case_id="case-1",
            tenant_id="tenant-1",
            brief=CaseBrief(
                subject=subject,
                subject_type=subject_type,
                jurisdiction=jurisdiction,
                documents=list(documents),
            ),
            budgets=Budgets(**budgets),
            fault_plan=faults,
            opened_by=opened_by,
        )

    return factory


@pytest.fixture
def world_tool_context(make_state) -> ToolContext:
    """What a tool is called with: a case's brief, no documents, the synthetic world."""
    return ToolContext(
        brief=make_state().brief, documents=MemoryDocumentSource([]), world=default_world()
    )
