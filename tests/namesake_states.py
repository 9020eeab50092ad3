"""Runs whose subject, Maria Lindqvist (SE), has a namesake candidate in Finland on the
register of politically exposed persons: states built step by step through the reducer,
for the tests of what the product says about the namesake's match."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from atlas.runtime import reducer
from atlas.runtime.decisions import CallTool
from atlas.runtime.state import AtlasState, Budgets, CaseBrief, new_state

NOW = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)
MINISTER = "Minister of Culture (synthetic)"
SWEDE = "pe-maria-lindqvist-se"
FINN = "pe-maria-lindqvist-fi"
BORN = {SWEDE: 1970, FINN: 1958}


def candidate(entity_id: str, score: float, *, pep: bool) -> dict[str, Any]:
    jurisdiction = entity_id[-2:].upper()
    record = {
        "entity_id": entity_id,
        "name": "Maria Lindqvist",
        "entity_type": "person",
        "jurisdiction": jurisdiction,
        "born_year": BORN[entity_id],
        "pep": pep,
        "role": MINISTER if pep else None,
    }
    return {
        "entity_id": entity_id,
        "name": "Maria Lindqvist",
        "entity_type": "person",
        "jurisdiction": jurisdiction,
        "score": score,
        "matched_on": "Maria Lindqvist",
        "record": record,
    }


def applied(state: AtlasState, tool: str, arguments: dict[str, Any], result: dict[str, Any]):
    decision = CallTool(tool_name=tool, arguments=arguments)
    return reducer.apply(state, decision, result, step=state.step + 1, now=NOW)


def resolved(*, swedish_pep: bool = False, finnish_score: float = 92) -> AtlasState:
    """Maria Lindqvist resolved: the Swede matched (unless the Finn scores as close), the
    Finn, a minister, found with her."""
    state = new_state(
        run_id="run-namesake",
        case_id="case-namesake",
        tenant_id="tenant-1",
        brief=CaseBrief(subject="Maria Lindqvist", subject_type="person", jurisdiction="SE"),
        budgets=Budgets(),
    )
    result = {
        "query": "Maria Lindqvist",
        "candidates": [
            candidate(SWEDE, 100, pep=swedish_pep),
            candidate(FINN, finnish_score, pep=True),
        ],
    }
    return applied(state, "resolve_entity", {"name": "Maria Lindqvist"}, result)


def pep_match(entity_id: str) -> dict[str, Any]:
    return {
        "entity_id": entity_id,
        "name": "Maria Lindqvist",
        "jurisdiction": entity_id[-2:].upper(),
        "role": MINISTER,
        "score": 100,
        "matched_query": "Maria Lindqvist",
    }


def screened(state: AtlasState, arguments: dict[str, Any], *matched: str) -> AtlasState:
    """`state` screened with `arguments`, the register matching the candidates `matched`."""
    result = {
        "entity_id": arguments.get("entity_id"),
        "screened_names": ["Maria Lindqvist"],
        "lists_checked": ["Synthetic UN Consolidated"],
        "threshold": 90,
        "hits": [],
        "pep_matches": [pep_match(entity_id) for entity_id in matched],
    }
    return applied(state, "screen_sanctions", arguments, result)


def researched(*, swedish_pep: bool = False) -> AtlasState:
    """The Swede matched and screened by her id, the register matching the Finn (and the
    Swede too, with `swedish_pep`); adverse media searched, nothing found."""
    state = resolved(swedish_pep=swedish_pep)
    on_the_register = [FINN, *([SWEDE] if swedish_pep else [])]
    state = screened(state, {"entity_id": SWEDE}, *on_the_register)
    state.completed_steps.append("search_adverse_media")
    return state


def register_matches(state: AtlasState) -> list:
    return [item for item in state.evidence if item.evidence_class == "pep"]
