"""What a packet's risk rating stands on, in words a reviewer reads beside the rating: on
the packet page, in the sign-off queue and on the sign-off item."""

from __future__ import annotations

from atlas.runtime.directors import as_settled_in
from atlas.runtime.namesakes import about_the_subject, turned_down
from atlas.runtime.state import AtlasState, Signal
from atlas.runtime.wording import fact_about, listed

# The parts of a run's state the grounds are read from.
STATE_FIELDS = frozenset(
    {
        "evidence",
        "conflicts",
        "selected_entity",
        "proposed_packet",
        "answered_questions",
        "high_risk_registrations",
        "high_risk_residences",
        "high_risk_nationalities",
    }
)


def grounds_of(state: AtlasState) -> list[str]:
    """`rating_grounds` of a state as the runtime holds it."""
    return rating_grounds(state.model_dump(mode="json", include=STATE_FIELDS))


def rating_grounds(state: dict) -> list[str]:
    """What in the evidence the risk rating stands on: the signals the runtime's finish
    checks hold a rating to (a sanctions hit, adverse media, a PEP link, a source trying to
    instruct the agent), conflicts nobody settled, and registration in one of the tenant's
    high-risk jurisdictions or residence in one. Only the evidence about the subject
    counts: a namesake candidate's record or register match is about someone else."""
    selected = state.get("selected_entity")
    declined = turned_down(selected, state.get("answered_questions") or [])
    evidence = about_the_subject(state.get("evidence") or [], selected, declined)
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
            Signal.ANOTHER_PERSON,
            "a document about another person",
            "{} documents about other people",
        ),
        (
            Signal.INSTRUCTIONS,
            "a source written as instructions to an AI agent",
            "{} sources written as instructions to an AI agent",
        ),
    ):
        # An adverse article from a source written as instructions to an AI agent is not
        # relied on as one: it is named once, as such a source.
        pool = (
            [item for item in evidence if Signal.INSTRUCTIONS not in item.get("signals", [])]
            if signal == Signal.ADVERSE
            else evidence
        )
        count = _counted(pool, signal)
        if not count:
            continue
        ground = (one if count == 1 else many.format(count)) + _whom(pool, signal)
        with_signal = {
            item.get("evidence_id") for item in pool if signal in item.get("signals", [])
        }
        if dispositions := _dispositions_said(state, with_signal):
            ground += f", {dispositions}"
        if signal == Signal.INSTRUCTIONS:
            # Not risk in itself: what rules out a low rating until a person weighs it.
            ground += ", for a person to weigh"
        grounds.append(ground)
    conflicts = state.get("conflicts") or []
    for status, said in (("open", ""), ("unresolvable", ", marked unresolvable by a reviewer")):
        if facts := [
            fact_about(c.get("fact", "a fact"), c.get("person") or "")
            for c in conflicts
            if c.get("status") == status
        ]:
            grounds.append(f"sources that disagree on {', '.join(facts)}{said}")
    if not state.get("selected_entity"):
        grounds.append("a subject not matched to a registry entity, so screened by name only")
    if registered := state.get("high_risk_registrations"):
        grounds.append(f"registration in a high-risk jurisdiction: {listed(registered, 'and')}")
    if residing := state.get("high_risk_residences"):
        grounds.append(f"residence in a high-risk jurisdiction: {listed(residing, 'and')}")
    if nationals := state.get("high_risk_nationalities"):
        grounds.append(f"nationality of a high-risk jurisdiction: {listed(nationals, 'and')}")
    # A director a reviewer set aside is not called one.
    settled = as_settled_in(state)
    return [settled(ground) for ground in grounds]


def _counted(evidence: list[dict], signal: str) -> int:
    """How many of `signal` the evidence holds, a list entry hit on one person or company
    counted once: a subject screened by name and then as its registry entity hits it twice,
    as the packet's sanctions result counts it."""
    with_signal = [item for item in evidence if signal in item.get("signals", [])]
    if signal != Signal.SANCTIONS_HIT:
        return len(with_signal)
    entries = {
        (item.get("about") or "", item.get("source_id") or item.get("evidence_id") or id(item))
        for item in with_signal
    }
    return len(entries)


def _dispositions_said(state: dict, evidence_ids: set) -> str:
    """How the reviewer disposed of the screening matches among `evidence_ids`, once they
    have. Not every item is a match to mark (a registry record, an article): when some are
    not, the marks are said of the screening matches alone."""
    decided = [
        d
        for d in (state.get("proposed_packet") or {}).get("hit_dispositions") or []
        if d.get("evidence_id") in evidence_ids
    ]
    if not decided:
        return ""
    false_positives = sum(d.get("disposition") == "false_positive" for d in decided)
    confirmed = len(decided) - false_positives
    total = len(evidence_ids)
    if len(decided) == total:
        if not confirmed:
            return (
                "marked false positive by the reviewer"
                if total == 1
                else "all marked false positives by the reviewer"
            )
        if not false_positives:
            return "confirmed by the reviewer" if total == 1 else "all confirmed by the reviewer"
        # Mixed: "2 of 3 marked false positives and 1 confirmed by the reviewer".
        return _marks_counted(false_positives, confirmed, f"of {total} ")
    if len(decided) == 1:
        words = "confirmed" if confirmed else "marked a false positive"
        return f"the screening match {words} by the reviewer"
    if not false_positives:
        return f"the {len(decided)} screening matches confirmed by the reviewer"
    if not confirmed:
        return f"the {len(decided)} screening matches marked false positives by the reviewer"
    return f"of the {len(decided)} screening matches " + _marks_counted(false_positives, confirmed)


def _marks_counted(false_positives: int, confirmed: int, first_of: str = "") -> str:
    said = []
    for count, words in (
        (
            false_positives,
            "marked a false positive" if false_positives == 1 else "marked false positives",
        ),
        (confirmed, "confirmed"),
    ):
        if count:
            said.append(f"{count} {'' if said else first_of}{words}")
    return " and ".join(said) + " by the reviewer"


def _whom(evidence: list[dict], signal: str) -> str:
    """Who the items with `signal` are about when some are not about the subject itself."""
    about = [item.get("about", "") for item in evidence if signal in item.get("signals", [])]
    others = list(dict.fromkeys(a for a in about if a))
    if not others:
        return ""
    whom = (["the subject"] if "" in about else []) + others
    # Each named with "on", so a company's aside ("…, a company the subject directs") does
    # not read as the start of another list.
    return f" ({listed([f'on {who}' for who in whom], 'and')})"
