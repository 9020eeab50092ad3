"""The packet a reviewer sees when research stops early, and the conflicts every packet
carries."""

from __future__ import annotations

from atlas.runtime.adapters.playbook import draft_packet
from atlas.runtime.birth_year_disputes import birth_year_disputes, hits_born_in_other_years
from atlas.runtime.birth_years import namesake_gaps
from atlas.runtime.codirectors import (
    codirectors_of,
    registry_directors,
    unscreened_codirectors,
    unsearched_codirectors,
)
from atlas.runtime.context import project_state
from atlas.runtime.decisions import DueDiligencePacket, PacketConflict, PacketConflictValue
from atlas.runtime.declared_businesses import (
    MAX_RESEARCHED,
    as_declared_business,
    businesses_beyond_the_limit,
    unlooked_businesses,
    unregistered_businesses,
    unscreened_businesses,
    unsearched_businesses,
)
from atlas.runtime.directors import (
    SEPARATOR,
    director_key,
    unscreened_directors,
    unsearched_directors,
)
from atlas.runtime.directorships import (
    conflict_about,
    directed_by_the_subject,
    directorships,
    unscreened_directorships,
    unsearched_directorships,
)
from atlas.runtime.document_picks import namesake_company_answer
from atlas.runtime.documents_about_others import answer_about_document
from atlas.runtime.jurisdiction_risk import jurisdiction_gaps
from atlas.runtime.middle_name_disputes import hits_of_other_middle_names, middle_name_disputes
from atlas.runtime.namesake_disputes import dispute_sentence
from atlas.runtime.nationality_disputes import hits_of_other_nationalities, nationality_disputes
from atlas.runtime.owners import (
    documents_with_unread_owners,
    unscreened_owners,
    unsearched_owners,
)
from atlas.runtime.progress import pending_requirements
from atlas.runtime.shares import ownership_by_listed_owners
from atlas.runtime.source_of_wealth import source_of_wealth_gap
from atlas.runtime.state import AtlasState, EvidenceItem, Signal, user_status_for
from atlas.runtime.wording import listed, quoted_sentence, unresolved_conflict_gap
from atlas.runtime.world import SPELLED_AS_ITS_NAME, name_score

# Pending requirements (atlas.runtime.progress) as a reviewer reads them; the others
# (documents, directors, the subject's companies, conflicts) are named in gaps of their own.
STILL_TO_DO = {
    "select_entity": "match the subject to exactly one registry entity",
    "screen_sanctions": "sanctions screening",
    "search_adverse_media": "adverse media search",
    "answer": "the analyst's answer to the open question",
}


def partial_packet(s: AtlasState, reason: str, *, overspent: bool = False) -> DueDiligencePacket:
    projection = project_state(s)
    subject_name = s.selected_entity.name if s.selected_entity else s.brief.subject
    pending = pending_requirements(s)
    gaps = [
        f"Still to do: {STILL_TO_DO[kind]}."
        for kind in (item.split(":")[0] for item in pending)
        if kind in STILL_TO_DO
    ]
    gaps.append(stopped_early(reason, overspent=overspent))
    rejections = [o for o in s.observations if o.error_type == "packet_rejected"]
    if rejections:
        gaps.append(rejections[-1].error_message)
    packet = draft_packet(projection, subject_name, gaps)
    packet.partial = True
    # A hit is decisive; anything short of it is no rating until screening and media
    # search are done (a subject nobody screened is not "low risk").
    unresearched = {"screen_sanctions", "search_adverse_media"} & set(pending)
    if packet.risk_rating != "high" and unresearched:
        packet.risk_rating = "unrated"
    return with_open_issues(s, packet)


# Why the research stopped short, as a packet's gap says it to the reviewer reading it.
STOPPED_BECAUSE = {
    "max_iterations": "it reached its iteration limit",
    "token_budget": "its next step would have gone over its token budget",
    "cost_budget": "its next step would have gone over its cost budget",
    "deadline": "it reached its time limit",
    "repeated_action": "the agent kept repeating the same actions",
    "no_progress": "the agent stopped making progress",
    "policy_denied": "policy or a reviewer denied actions the agent proposed",
    "waiting_for_input": "a question to the analyst was still unanswered",
    "awaiting_approval": "an action was still waiting for a reviewer's approval",
}


def stopped_early(reason: str, *, overspent: bool = False) -> str:
    why = STOPPED_BECAUSE.get(reason)
    if overspent and reason in ("token_budget", "cost_budget"):
        budget = "token" if reason == "token_budget" else "cost"
        why = f"a model call reported more usage than was reserved for it, taking it over its {budget} budget"
    if why is None:
        return f"The research stopped early. {user_status_for('awaiting_review', reason)}"
    return f"The research stopped early: {why}."


def with_open_issues(s: AtlasState, packet: DueDiligencePacket) -> DueDiligencePacket:
    """What every packet carries, whatever the model wrote: the conflicts nobody resolved,
    with both sides; in its sanctions result, how much of the company owners with sanctions
    hits hold (OFAC's 50 Percent Rule); as open gaps, the directors and the subject's
    companies nobody screened or searched, and the businesses a declared source of wealth or
    funds names that nobody did, the attached documents the run did not read and
    those about another company, whatever keeps that holding from being told, and the
    source of wealth or of funds of a politically exposed person no document declares;
    and each time a reviewer sent a packet back, with the analyst's reply."""
    gaps = [
        *_unresearched_directors(s),
        *_unresearched_directorships(s),
        *_unresearched_owners(s),
        *_unread_documents(s),
        *_documents_about_others(s),
        *_documents_with_unread_directors(s),
        *_codirectors_unresearched(s),
        *_unresearched_businesses(s),
        *_denied_research(s),
    ]
    ownership, ownership_gap = ownership_by_listed_owners(s)
    gaps += [ownership_gap] if ownership_gap else []
    gaps += [diligence_gap] if (diligence_gap := source_of_wealth_gap(s)) else []
    gaps += jurisdiction_gaps(s)
    gaps += namesake_gaps(s) + namesake_match_gaps(s)
    packet = _with_conflicts(s, packet)
    open_gaps = list(packet.open_gaps)
    open_gaps += [line for line in dict.fromkeys(gaps) if line not in open_gaps]
    sanctions_result = packet.sanctions_result
    if ownership and ownership not in sanctions_result:
        sanctions_result = f"{sanctions_result} {ownership}".strip()
    return packet.model_copy(
        update={
            "open_gaps": open_gaps,
            "sanctions_result": sanctions_result,
            "review_history": list(s.packet_reviews),
        }
    )


def _unresearched_directors(s: AtlasState) -> list[str]:
    not_done = [(name, "screened against the sanctions lists") for name in unscreened_directors(s)]
    not_done += [(name, "searched for adverse media") for name in unsearched_directors(s)]
    return [f"Director {name} was not {what}." for name, what in not_done]


def _unresearched_owners(s: AtlasState) -> list[str]:
    not_done = [(name, "screened against the sanctions lists") for name in unscreened_owners(s)]
    not_done += [(name, "searched for adverse media") for name in unsearched_owners(s)]
    return [f"Beneficial owner {name} was not {what}." for name, what in not_done] + [
        f"{label} speaks of the company's beneficial owners, but names none that could be "
        "read: check who they are by hand, and have each screened."
        for label in documents_with_unread_owners(s)
    ]


def _unresearched_businesses(s: AtlasState) -> list[str]:
    not_done = [(name, "screened against the sanctions lists") for name in unscreened_businesses(s)]
    not_done += [(name, "searched for adverse media") for name in unsearched_businesses(s)]
    not_done += [(name, "looked up in the registry") for name in unlooked_businesses(s)]
    gaps = [f"The {as_declared_business(s, name)} was not {what}." for name, what in not_done]
    gaps += [
        f"The registry could not confirm the {about} (no company, or more than one, matches "
        "its name): check that it exists, and the subject's part in it."
        for about in unregistered_businesses(s)
    ]
    if beyond := businesses_beyond_the_limit(s):
        gaps.append(
            f"The declarations also name {listed(beyond, 'and')}: not researched in this run, "
            f"which researches the first {MAX_RESEARCHED} businesses declared; have each "
            "screened, searched for and looked up by hand."
        )
    return gaps


def _unresearched_directorships(s: AtlasState) -> list[str]:
    not_done = [(c, "screened against the sanctions lists") for c in unscreened_directorships(s)]
    not_done += [(c, "searched for adverse media") for c in unsearched_directorships(s)]
    return [f"{c.label()}, a company the subject directs, was not {what}." for c, what in not_done]


def _codirectors_unresearched(s: AtlasState) -> list[str]:
    """The other directors of each company the subject directs whom nobody screened or
    searched media on: those its registry record lists, while that is still to do, and
    those only an article or a document names. One of them may be listed."""
    subject = [s.brief.subject] + ([s.selected_entity.name] if s.selected_entity else [])
    gaps = []
    unscreened = {c.entity_id for c in unscreened_directorships(s)}
    not_done = (
        ("screened", {director_key(name) for name in unscreened_codirectors(s)}),
        ("searched for adverse media", {director_key(name) for name in unsearched_codirectors(s)}),
    )
    for company in directorships(s):
        listed_by_registry = registry_directors(s, company.entity_id)
        others = codirectors_of(s, company)
        about = directed_by_the_subject(company)
        for what, names in not_done:
            if left := [name for name in others if director_key(name) in names]:
                gaps.append(
                    f"The other directors of {about}, were not {what}: {listed(left, 'and')}."
                )
        if not listed_by_registry and company.entity_id not in unscreened:
            # Known from the subject's own record only: the company's was never read (a
            # company not screened at all has a gap of its own).
            gaps.append(
                f"The other directors of {about}, were not looked up, so none was screened."
            )
        gaps += _codirectors_named_elsewhere(
            s, company.entity_id, about, subject + others, registry_read=bool(listed_by_registry)
        )
    return gaps


def _codirectors_named_elsewhere(
    s: AtlasState, company_id: str, about: str, known: list[str], *, registry_read: bool
) -> list[str]:
    """Directors an article or a document gives the company beyond its registry record:
    nobody screened them either."""
    named_by: dict[str, list[str]] = {}
    for fact in s.facts:
        if (
            fact.entity_id != company_id
            or fact.fact != "directors"
            or fact.source_id == f"registry:{company_id}"
        ):
            continue
        for name in fact.display_value.split(SEPARATOR):
            if not any(name_score(name, seen) >= SPELLED_AS_ITS_NAME for seen in known):
                named_by.setdefault(fact.source_label or fact.source_id, []).append(name)
    gaps = []
    for source, names in named_by.items():
        who = listed(list(dict.fromkeys(names)), "and")
        role = "directors" if len(set(names)) > 1 else "a director"
        not_screened = f"{who} {'were' if len(set(names)) > 1 else 'was'} not screened"
        registry = "the registry record does not, and " if registry_read else ""
        gaps.append(f"{source} names {who} {role} of {about}; {registry}{not_screened}.")
    return gaps


# Research a denial left undone, as a gap names it (a document not read has a gap of its own).
_DENIED_RESEARCH = {
    "screen_sanctions": "Sanctions screening of {}",
    "search_adverse_media": "The adverse media search for {}",
    "resolve_entity": "The registry search for {}",
}


def _denied_research(s: AtlasState) -> list[str]:
    """Each screen or search that policy or a reviewer denied, and why."""
    gaps = []
    for denied in s.denied_actions:
        what = _DENIED_RESEARCH.get(denied["tool"])
        if what is None:
            continue
        target = _target_named(s, denied.get("arguments") or {})
        if denied.get("denied_by"):
            said = (denied.get("reviewer_reason") or "").strip()
            why = f"{denied['denied_by']} denied it" + (f" (“{said}”)" if said else "")
        else:
            why = str(denied.get("reason", "")).strip().rstrip(".") or "policy denied it"
        gaps.append(f"{what.format(target)} was not run: {why}.")
    return gaps


def _target_named(s: AtlasState, arguments: dict) -> str:
    entity_id = arguments.get("entity_id")
    for entity in [*s.entity_candidates, *([s.selected_entity] if s.selected_entity else [])]:
        if entity_id and entity.entity_id == entity_id:
            return entity.name
    return str(arguments.get("name") or arguments.get("query") or entity_id or s.brief.subject)


def _documents_with_unread_directors(s: AtlasState) -> list[str]:
    return [
        f"{item.source_label} speaks of the company's directors, but names none that could "
        "be read: check who they are by hand, and have any it names screened."
        for item in s.evidence
        if item.directors_unread
    ]


def _documents_about_others(s: AtlasState) -> list[str]:
    kinds = ((Signal.ANOTHER_COMPANY, "company"), (Signal.ANOTHER_PERSON, "person"))
    return [
        _namesake_company_gap(s, item)
        if item.namesake_company and signal is Signal.ANOTHER_COMPANY
        else _document_about_another_gap(s, item, kind)
        for item in s.evidence
        for signal, kind in kinds
        if signal in item.signals
    ]


def _document_about_another_gap(s: AtlasState, item: EvidenceItem, kind: str) -> str:
    answer = answer_about_document(s, item)
    if answer is None:
        return f"{item.source_label} is about another {kind}: explain why it was supplied."
    return (
        f"{item.source_label} is about another {kind}, {item.about_other_subject}: its facts "
        f"were not used. Asked why it was supplied, the analyst answered: {quoted_sentence(answer)}"
    )


def _namesake_company_gap(s: AtlasState, item: EvidenceItem) -> str:
    """The client may be the company of the subject's name that the document is about, not
    the one the case was matched to: then the case names the wrong one, which its analyst
    corrects once the packet is sent back to them."""
    entity = s.selected_entity
    matched = f"{entity.name} ({entity.jurisdiction})" if entity else "the company matched"
    said = f"{item.source_label} is about {item.namesake_company}: a company of the subject's "
    said += f"name, but not {matched}, the one the case was matched to. "
    answer = namesake_company_answer(s, item)
    if answer is not None:
        answered = quoted_sentence(answer)
        return said + f"Asked whether the client is that company, the analyst answered: {answered}"
    return said + (
        "If the client is that company, the case names the wrong one: send the packet back "
        "for the analyst to correct the subject's name or country; if not, ask why the "
        "document was supplied."
    )


def _unread_documents(s: AtlasState) -> list[str]:
    """Every document attached to the case that the run did not read (never asked for, or
    its file could not be read)."""
    return [
        f"Uploaded document “{document.name}” was not read."
        for document in s.brief.documents
        if f"extract:{document.document_id}" not in s.completed_steps
    ]


def _with_conflicts(s: AtlasState, packet: DueDiligencePacket) -> DueDiligencePacket:
    conflicts = [
        PacketConflict(
            conflict_id=c.conflict_id,
            fact=c.fact,
            status=c.status,
            values=[
                PacketConflictValue(
                    value=v.value,
                    source_id=v.source_id,
                    source_label=v.source_label,
                    retrieved_at=v.retrieved_at.isoformat(),
                    excerpt=v.excerpt,
                )
                for v in c.values
            ],
        )
        for c in s.conflicts
        if c.status != "resolved"
    ]
    gaps = list(packet.open_gaps)
    for c in s.conflicts:
        line = unresolved_conflict_gap(c.fact, conflict_about(s, c), c.status)
        if c.status != "resolved" and line not in gaps:
            gaps.append(line)
    return packet.model_copy(update={"unresolved_conflicts": conflicts, "open_gaps": gaps})


def namesake_reasons(s: AtlasState) -> dict[str, list[str]]:
    """evidence id -> why the screening match may be on a namesake, one sentence for each
    of the person's particulars the case gives otherwise (a year of birth, nationalities, a
    middle name), as the sign-off page shows them beside the match."""
    reasons: dict[str, list[str]] = {}
    by_id = {item.evidence_id: item for item in s.evidence}
    for disputes in (birth_year_disputes(s), nationality_disputes(s), middle_name_disputes(s)):
        for evidence_id, dispute in disputes.items():
            whom = by_id[evidence_id].about or "the subject"
            reasons.setdefault(evidence_id, []).append(dispute_sentence(s, dispute, whom))
    return reasons


def namesake_match_gaps(s: AtlasState) -> list[str]:
    """The gaps asking a reviewer to rule on the screening matches the case disputes by a
    person's particulars (a year of birth, nationalities, a middle name)."""
    return [
        *hits_born_in_other_years(s),
        *hits_of_other_nationalities(s),
        *hits_of_other_middle_names(s),
    ]
