"""What a packet's risk rating stands on, in words a reviewer reads beside the rating: on
the packet page, in the sign-off queue and on the sign-off item."""

from __future__ import annotations

from atlas.runtime.state import AtlasState, Signal
from atlas.runtime.wording import fact_words, listed

# The parts of a run's state the grounds are read from.
STATE_FIELDS = frozenset({"evidence", "conflicts", "selected_entity", "proposed_packet"})


def grounds_of(state: AtlasState) -> list[str]:
    """`rating_grounds` of a state as the runtime holds it."""
    return rating_grounds(state.model_dump(mode="json", include=STATE_FIELDS))


def rating_grounds(state: dict) -> list[str]:
    """What in the evidence the risk rating stands on: the signals the runtime's finish
    checks hold a rating to (a sanctions hit, adverse media, a PEP link, a source trying to
    instruct the agent) and open conflicts."""
    evidence = state.get("evidence") or []
    signals = [signal for item in evidence for signal in item.get("signals", [])]
    grounds = []
    for signal, one, many in (
        (Signal.SANCTIONS_HIT, "a sanctions hit", "{} sanctions hits"),
        (Signal.ADVERSE, "an adverse article", "{} adverse articles"),
        (
            Signal.PEP,
            "a politically exposed person",
            "a politically exposed person ({} sources)",
        ),
        (
            Signal.ANOTHER_COMPANY,
            "a document about another company",
            "{} documents about other companies",
        ),
        (
            Signal.INSTRUCTIONS,
            "a source written as instructions to an AI agent",
            "{} sources written as instructions to an AI agent",
        ),
    ):
        count = signals.count(signal)
        if not count:
            continue
        ground = (one if count == 1 else many.format(count)) + _whom(evidence, signal)
        with_signal = {item.get("evidence_id") for item in evidence if signal in item["signals"]}
        if dispositions := _dispositions_said(state, with_signal):
            ground += f", {dispositions}"
        grounds.append(ground)
    disputed = [c for c in state.get("conflicts") or [] if c.get("status") == "open"]
    if disputed:
        facts = ", ".join(fact_words(c.get("fact", "a fact")) for c in disputed)
        grounds.append(f"sources that disagree on {facts}")
    if not state.get("selected_entity"):
        grounds.append("a subject not matched to a registry entity, so screened by name only")
    return grounds


def _dispositions_said(state: dict, evidence_ids: set) -> str:
    """How the reviewer disposed of the screening matches among `evidence_ids`, once they
    have."""
    decided = [
        d
        for d in (state.get("proposed_packet") or {}).get("hit_dispositions") or []
        if d.get("evidence_id") in evidence_ids
    ]
    false_positives = sum(d.get("disposition") == "false_positive" for d in decided)
    if not decided:
        return ""
    if false_positives == len(decided):
        return (
            "marked false positive by the reviewer"
            if len(decided) == 1
            else ("all marked false positives by the reviewer")
        )
    if not false_positives:
        return "confirmed by the reviewer"
    return f"{false_positives} of {len(decided)} marked false positives by the reviewer"


def _whom(evidence: list[dict], signal: str) -> str:
    """Who the items with `signal` are about when some are not about the subject itself."""
    about = [item.get("about", "") for item in evidence if signal in item.get("signals", [])]
    others = list(dict.fromkeys(a for a in about if a))
    if not others:
        return ""
    on_subject = about.count("")
    return f" ({'on the subject and ' if on_subject else ''}on {listed(others)})"
