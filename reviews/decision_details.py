"""A human decision's payload in words: what it added, chose or disposed of (the audit
trail and the case page's decisions show these beside the decision's reason)."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from atlas.runtime.money import budget_dollars

# Payload keys shown apart (the reason) or that only the runtime reads (ids of the
# question, action or conflict the decision is about).
NOT_DETAILS = {
    "reason",
    "text",
    "note",
    "decision",
    "action_id",
    "question_id",
    "conflict_id",
    "approved",  # the decision's own name says it
    "packet_step",
    "document_ids",
    "reasons_seen",  # the request's own reasons, shown on its page
}


def _many(count, noun: str) -> str:
    """ "1 iteration", "1,000 tokens"."""
    count = int(count)
    return f"{count:,} {noun if count == 1 else noun + 's'}"


BUDGET_UNITS: dict[str, Callable[[object], str]] = {
    "extra_iterations": lambda n: _many(n, "iteration"),
    "extra_tokens": lambda n: _many(n, "token"),
    # The payload keeps str(Decimal), "1E+1" for an amount typed as 1e1: "$10.00" here.
    "extra_cost_usd": budget_dollars,
    "extra_seconds": lambda s: f"{Decimal(str(s)).normalize():,f} s",
}


def decision_details(payload: dict) -> list[str]:
    """A decision's payload as a reviewer reads it: what was added, chosen or disposed of."""
    details = []
    added = [
        words(payload[key])
        for key, words in BUDGET_UNITS.items()
        if payload.get(key) and Decimal(str(payload[key]))
    ]
    if added:
        details.append("Budget added: " + ", ".join(f"+{a}" for a in added))
    if payload.get("value"):
        details.append(f"Value that stands: “{payload['value']}”")
    if payload.get("unresolvable"):
        details.append("Marked unresolvable")
    if dispositions := payload.get("hit_dispositions"):
        confirmed = sum(d == "confirmed_match" for d in dispositions.values())
        cleared = len(dispositions) - confirmed
        parts = (
            [f"{confirmed} confirmed match{'es' if confirmed != 1 else ''}"] if confirmed else []
        )
        parts += [f"{cleared} false positive{'s' if cleared != 1 else ''}"] if cleared else []
        details.append("Screening matches: " + ", ".join(parts))
    if notes := payload.get("hit_notes"):
        # A packet sent back keeps its notes in the decision only.
        where = "" if payload.get("approved") is False else ", in the packet"
        details.append(f"Notes on {len(notes)} match{'es' if len(notes) != 1 else ''}{where}")
    if payload.get("risk_rating"):
        details.append(f"Risk rating set to {payload['risk_rating']}")
    shown = (
        set(BUDGET_UNITS)
        | {"value", "unresolvable", "hit_dispositions", "hit_notes", "risk_rating"}
        | NOT_DETAILS
    )
    details += [
        f"{key.replace('_', ' ')}: {value}" for key, value in payload.items() if key not in shown
    ]
    return details
