"""Loop health: the progress signature, cycle detection, no-progress detection."""

from __future__ import annotations

import hashlib
import json

from atlas.runtime.codirectors import (
    codirector_media_step,
    codirector_step,
    unscreened_codirectors,
    unsearched_codirectors,
)
from atlas.runtime.declared_businesses import (
    business_lookup_step,
    business_media_step,
    business_step,
    unlooked_businesses,
    unscreened_businesses,
    unsearched_businesses,
)
from atlas.runtime.directors import (
    director_media_step,
    director_step,
    unscreened_directors,
    unsearched_directors,
)
from atlas.runtime.directorships import (
    directorship_media_step,
    directorship_step,
    unscreened_directorships,
    unsearched_directorships,
)
from atlas.runtime.owners import owner_media_step, owner_step, unscreened_owners, unsearched_owners
from atlas.runtime.state import AtlasState

# A marker in decision_history that no cycle may span (a human decision, a resume).
HISTORY_BREAK = "|"


def pending_requirements(state: AtlasState) -> list[str]:
    """What the research still needs before a packet can be complete."""
    pending: list[str] = []
    if state.selected_entity is None:
        pending.append("select_entity")
    if "screen_sanctions" not in state.completed_steps:
        pending.append("screen_sanctions")
    if "search_adverse_media" not in state.completed_steps:
        pending.append("search_adverse_media")
    pending.extend(director_step(name) for name in unscreened_directors(state))
    pending.extend(director_media_step(name) for name in unsearched_directors(state))
    pending.extend(directorship_step(c.entity_id) for c in unscreened_directorships(state))
    pending.extend(directorship_media_step(c.entity_id) for c in unsearched_directorships(state))
    pending.extend(owner_step(name) for name in unscreened_owners(state))
    pending.extend(owner_media_step(name) for name in unsearched_owners(state))
    pending.extend(codirector_step(name) for name in unscreened_codirectors(state))
    pending.extend(codirector_media_step(name) for name in unsearched_codirectors(state))
    pending.extend(business_step(name) for name in unscreened_businesses(state))
    pending.extend(business_media_step(name) for name in unsearched_businesses(state))
    pending.extend(business_lookup_step(name) for name in unlooked_businesses(state))
    for document in state.brief.documents:
        if f"extract:{document.document_id}" not in state.completed_steps:
            pending.append(f"extract:{document.document_id}")
    if state.pending_question is not None:
        pending.append(f"answer:{state.pending_question.question_id}")
    for conflict in state.conflicts:
        if conflict.status == "open":
            pending.append(f"resolve_conflict:{conflict.conflict_id}")
    return pending


def progress_signature(state: AtlasState) -> str:
    """selected entity + evidence classes present + conflicts resolved + pending requirements.

    New items of a class already present do not change it, on purpose.
    """
    payload = {
        "entity": state.selected_entity.entity_id if state.selected_entity else None,
        "classes": state.evidence_classes(),
        "resolved": sorted(c.conflict_id for c in state.conflicts if c.status != "open"),
        "pending": sorted(pending_requirements(state)),
        "answers": len(state.answered_questions),
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


def detect_cycle(history: list[str], max_period: int = 3) -> int | None:
    """The period (1..max_period) of a cycle repeated three times at the end, or None."""
    for period in range(1, max_period + 1):
        if len(history) < 3 * period:
            break
        latest = history[-period:]
        previous = history[-2 * period : -period]
        earlier = history[-3 * period : -2 * period]
        if HISTORY_BREAK in latest + previous + earlier:
            continue
        if latest == previous == earlier:
            return period
    return None


def unchanged_for(history: list[str]) -> int:
    """How many iterations the last signature has stayed the same."""
    if not history:
        return 0
    last = history[-1]
    count = 0
    for signature in reversed(history[:-1]):
        if signature != last:
            break
        count += 1
    return count
