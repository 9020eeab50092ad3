"""Headless runs from a scenario file: its documents, its starting state, the run record."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from atlas.runtime.memory import MemoryDocumentSource
from atlas.runtime.ports import StoredDocument, TraceEventRecord
from atlas.runtime.scenario import Scenario
from atlas.runtime.state import AtlasState, AttachedDocument, Budgets, CaseBrief, new_state


def scenario_documents(scenario: Scenario) -> tuple[MemoryDocumentSource, list[AttachedDocument]]:
    """Read a scenario's documents from disk into an in-memory source."""
    source = MemoryDocumentSource()
    attached: list[AttachedDocument] = []
    for document in scenario.case.documents:
        path = scenario.document_path(document)
        content = Path(path).read_bytes()
        document_id = "doc-" + hashlib.sha256(content).hexdigest()[:12]
        name = document.name or Path(path).name
        content_type = "application/pdf" if name.lower().endswith(".pdf") else "text/plain"
        source.add(
            StoredDocument(
                document_id=document_id, name=name, content_type=content_type, content=content
            )
        )
        attached.append(
            AttachedDocument(document_id=document_id, name=name, sensitive=document.sensitive)
        )
    return source, attached


def state_for_scenario(
    scenario: Scenario,
    *,
    run_id: str,
    case_id: str = "case-1",
    tenant_id: str = "tenant-1",
    documents: Sequence[AttachedDocument] = (),
    opened_by: str | None = None,
    budget_overrides: dict[str, Any] | None = None,
) -> AtlasState:
    budgets = Budgets(**{**scenario.budgets.overrides(), **(budget_overrides or {})})
    brief = CaseBrief(
        subject=scenario.case.subject,
        subject_type=scenario.case.subject_type,
        jurisdiction=scenario.case.jurisdiction,
        notes=scenario.case.notes,
        documents=list(documents),
    )
    return new_state(
        run_id=run_id,
        case_id=case_id,
        tenant_id=tenant_id,
        brief=brief,
        budgets=budgets,
        fault_plan=scenario.tool_faults,
        opened_by=opened_by,
    )


def run_record(state: AtlasState, events: Sequence[TraceEventRecord]) -> dict[str, Any]:
    """The run record DESIGN.md's `run_case --json` prints."""
    return {
        "run_id": state.run_id,
        "status": state.status,
        "termination_reason": state.termination_reason,
        "user_status": state.user_status,
        "iterations": state.iteration,
        "tokens": state.tokens,
        "cost_usd": str(state.cost_usd),
        "packet": state.proposed_packet.model_dump(mode="json") if state.proposed_packet else None,
        "conflicts": [c.model_dump(mode="json") for c in state.conflicts],
        "trace": [{"seq": e.seq, "type": e.type, "step": e.step, "data": e.data} for e in events],
    }
