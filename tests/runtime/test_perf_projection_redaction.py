"""The case record shown to the model is redacted on every iteration, and the same text is
not redacted again on the next one."""

from __future__ import annotations

from datetime import UTC, datetime
from uuid import uuid4

import pytest

from atlas.runtime import redaction
from atlas.runtime.context import build_context
from atlas.runtime.policy import TenantPolicy
from atlas.runtime.state import EvidenceItem
from atlas.runtime.tools.registry import default_registry

PASSPORT_CLAIM = "The director's passport number: K7654321 was seized in the raid"
EMAIL_LABEL = "Tip from cfo@acme.example"


@pytest.fixture
def texts():
    """A claim and a label no other test has shown the model yet (letters only: no digits
    that could read as a number to redact)."""
    case = uuid4().hex[:8].translate(str.maketrans("0123456789", "ghijklmnop"))
    return f"{PASSPORT_CLAIM} (case {case}).", f"{EMAIL_LABEL}, case {case}"


@pytest.fixture
def state_with_evidence(make_state, texts):
    claim, label = texts
    state = make_state("Acme Analytics")
    state.evidence = [
        EvidenceItem(
            evidence_id=f"ev-{number}",
            evidence_class="adverse_media",
            source_id=f"article-{number}",
            source_label=label if number == 0 else f"Daily Ledger, issue {number}",
            tool="search_adverse_media",
            retrieved_at=datetime(2025, 1, 6, 9, 0, tzinfo=UTC),
            fingerprint=f"fp-{number}",
            claim=claim if number == 0 else f"Article {number} about the company.",
            step=1,
        )
        for number in range(30)
    ]
    return state


def _build(state):
    return build_context(state, default_registry(), TenantPolicy())


def test_the_case_record_shown_to_the_model_stays_redacted_step_after_step(
    state_with_evidence, texts
):
    claim, label = texts
    first, second = _build(state_with_evidence), _build(state_with_evidence)

    for built in (first, second):
        shown = built.projection["evidence"][0]
        assert shown["claim"] == claim.replace("K7654321", "[REDACTED PASSPORT]")
        assert shown["source_label"] == label.replace("cfo@acme.example", "[REDACTED EMAIL]")
        user_message = built.messages[1]["content"]
        assert "K7654321" not in user_message and "cfo@acme.example" not in user_message
    assert first.projection == second.projection
    assert first.messages == second.messages


def test_a_text_already_redacted_is_not_redacted_again_on_the_next_step(
    state_with_evidence, texts, monkeypatch
):
    claim, label = texts
    redacted: list[str] = []
    real_redact = redaction._redacted

    def counting_redact(text: str) -> str:
        redacted.append(text)
        return real_redact(text)

    monkeypatch.setattr(redaction, "_redacted", counting_redact)

    _build(state_with_evidence)
    after_first_step = len(redacted)
    _build(state_with_evidence)

    assert redacted.count(claim) == 1
    assert redacted.count(label) == 1
    assert len(redacted) == after_first_step
