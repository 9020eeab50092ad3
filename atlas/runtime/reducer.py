"""The deterministic reducer: tool results become evidence, facts, conflicts, selection.

`apply` is pure: it returns a new state and never mutates its input. Evidence ids are
content fingerprints, so results that say the same thing (a syndicated article at another
URL) collapse into one item.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from atlas.runtime.article_ages import age_given
from atlas.runtime.birth_years import FACT as BIRTH_YEAR_FACT
from atlas.runtime.birth_years import person_birth_year_fact, subject_birth_year_facts
from atlas.runtime.codirectors import (
    as_codirector,
    codirector_companies,
    codirector_media_step,
    codirector_step,
    screened_codirector,
    searched_codirector,
)
from atlas.runtime.context import clipped
from atlas.runtime.decisions import CallTool
from atlas.runtime.declared_businesses import (
    as_declared_business,
    business_lookup_step,
    business_media_step,
    business_step,
    looked_up_business,
    lookup_evidence,
    screened_business,
    searched_business,
)
from atlas.runtime.directors import (
    AS_DIRECTOR,
    director_key,
    director_media_step,
    director_step,
    screened_director,
    searched_director,
)
from atlas.runtime.directors import SEPARATOR as DIRECTORS_SEPARATOR
from atlas.runtime.directorships import (
    BY_NAME,
    directed_by_the_subject,
    directorship_media_step,
    directorship_named,
    directorship_step,
    directorships,
)
from atlas.runtime.document_picks import (
    COMPANY_NUMBER,
    DocumentPick,
    document_pick,
    matched_by_words,
    picked_by_document,
)
from atlas.runtime.document_quotes import quoted_lines
from atlas.runtime.injection import addresses_the_agent
from atlas.runtime.listed_namesakes import hit_note, register_note
from atlas.runtime.owners import (
    AS_OWNER,
    owner_media_step,
    owner_step,
    screened_owner,
    searched_owner,
)
from atlas.runtime.owners import FACT as OWNERS_FACT
from atlas.runtime.redaction import redacted_opening
from atlas.runtime.residences import FACT as RESIDENCE_FACT
from atlas.runtime.residences import (
    person_of_the_company,
    residence_fact,
    subject_residence_facts,
)
from atlas.runtime.result_words import company_record_words, listed_particulars, searched_for
from atlas.runtime.shares import FACT as SHARE_FACT
from atlas.runtime.shares import share_fact, shares_agree
from atlas.runtime.source_of_wealth import declaration_evidence
from atlas.runtime.state import (
    AtlasState,
    Conflict,
    ConflictValue,
    DocumentRead,
    EntityCandidate,
    EvidenceItem,
    Fact,
    HeldDirectorship,
    SameTextElsewhere,
    Signal,
    conflict_id_for,
    evidence_id_for,
)
from atlas.runtime.tools.builtin import AMBIGUITY_MARGIN, STRONG_MATCH, residence_line
from atlas.runtime.tools.document_birth_years import (
    living_born_in,
    read_birth_year_entry,
    year_of_birth,
)
from atlas.runtime.tools.document_directors import mentions_directors
from atlas.runtime.tools.document_nationalities import read_nationality_entry
from atlas.runtime.tools.document_owners import (
    is_share,
    mentions_owners,
    read_share_entry,
    share_written,
)
from atlas.runtime.tools.document_residences import read_residence_entry, residence_entry
from atlas.runtime.tools.gateway import fingerprint
from atlas.runtime.wording import counted, exposed_as, fact_words, listed
from atlas.runtime.world import name_score, words_it_lacks
from atlas.runtime.world.normalize import (
    fingerprint_text,
    is_registration_number,
    legal_forms,
    normalize_name,
    normalize_registration_number,
    normalize_text,
)

DOCUMENT_OPENING_CHARS = 240  # of an uploaded document's text, quoted in its evidence
REGISTRY_NAMES = {"company": "Company registry", "person": "Registry of persons"}


def apply(
    state: AtlasState,
    decision: CallTool,
    result: dict[str, Any],
    *,
    step: int,
    now: datetime,
    arguments: dict[str, Any] | None = None,
) -> AtlasState:
    """Fold one successful tool result into a copy of the state."""
    new = state.clone()
    apply_in_place(new, decision, result, step=step, now=now, arguments=arguments)
    return new


def apply_in_place(
    new: AtlasState,
    decision: CallTool,
    result: dict[str, Any],
    *,
    step: int,
    now: datetime,
    arguments: dict[str, Any] | None = None,
) -> None:
    """`apply` on a state the caller owns (the engine's private working copy)."""
    args = arguments if arguments is not None else decision.arguments
    tool = decision.tool_name
    if tool == "resolve_entity" and (business := looked_up_business(new, args)):
        _add_evidence(new, lookup_evidence(new, business, result, step, now))
        _complete(new, business_lookup_step(business))
    elif tool == "resolve_entity":
        args = _as_it_narrowed(args, result)
        _apply_resolve(new, result, step, now, args)
        if resolves_the_subject(new, args):
            _complete(new, "resolve_entity")
        if _screened_before_it_was_matched(new):
            _complete(new, "screen_sanctions")
    elif tool == "screen_sanctions":
        director = screened_director(new, args)
        company = directorship_named(new, args)
        owner = screened_owner(new, args)
        codirector = screened_codirector(new, args)
        business = screened_business(new, args)
        if director:
            board = [(new.selected_entity.entity_id, new.selected_entity.name)]
            _apply_sanctions(new, result, step, now, about=f"{AS_DIRECTOR}{director}", boards=board)
            _complete(new, director_step(director))
        elif owner:
            _apply_sanctions(new, result, step, now, about=f"{AS_OWNER}{owner}")
            _complete(new, owner_step(owner))
        elif codirector:
            boards = [(c.entity_id, c.name) for c in codirector_companies(new, codirector)]
            about = as_codirector(new, codirector)
            _apply_sanctions(new, result, step, now, about=about, boards=boards)
            _complete(new, codirector_step(codirector))
        elif company:
            _apply_sanctions(new, result, step, now, about=directed_by_the_subject(company))
            _complete(new, directorship_step(company.entity_id))
        elif business:
            _apply_sanctions(new, result, step, now, about=as_declared_business(new, business))
            _complete(new, business_step(business))
        else:
            _apply_sanctions(new, result, step, now, candidate_id=_screened_candidate(new, result))
            if screens_the_subject(new, args):
                _complete(new, "screen_sanctions")
                _offer_linked_entity(new, result)
    elif tool == "search_adverse_media":
        director = searched_director(new, args)
        owner = searched_owner(new, args)
        codirector = searched_codirector(new, args)
        company = directorship_named(new, args)
        business = searched_business(new, args)
        if director:
            _apply_media(new, result, step, now, about=f"{AS_DIRECTOR}{director}")
            _complete(new, director_media_step(director))
        elif owner:
            _apply_media(new, result, step, now, about=f"{AS_OWNER}{owner}")
            _complete(new, owner_media_step(owner))
        elif codirector:
            _apply_media(new, result, step, now, about=as_codirector(new, codirector))
            _complete(new, codirector_media_step(codirector))
        elif company:
            _apply_media(new, result, step, now, about=directed_by_the_subject(company))
            _complete(new, directorship_media_step(company.entity_id))
        elif business:
            _apply_media(new, result, step, now, about=as_declared_business(new, business))
            _complete(new, business_media_step(business))
        else:
            _apply_media(new, result, step, now)
            if searches_the_subject(new, args):
                _complete(new, "search_adverse_media")
    elif tool == "extract_uploaded_document":
        _apply_document(new, result, step, now)
        _complete(new, f"extract:{args.get('document_id', result.get('document_id'))}")
    _read_again_once_matched(new)
    _weigh_disputed_directorships(new)
    _weigh_subject_residence(new)
    _weigh_subject_birth_year(new)
    _detect_conflicts(new)


def screens_the_subject(state: AtlasState, arguments: dict[str, Any]) -> bool:
    """Whether a screen is of the subject: by the matched entity's id, or by a name that
    is the subject's (as the case gives it, or as the registry does). A screen of anyone
    else is kept as evidence but does not stand for the subject's screening."""
    name = arguments.get("name") or ""
    return _about_the_subject(state, arguments, lambda own: name_score(name, own) >= STRONG_MATCH)


def _screened_before_it_was_matched(state: AtlasState) -> bool:
    """Whether the entity just matched was screened by its id while it was still one of
    several candidates: that screen is the subject's."""
    entity = state.selected_entity
    return entity is not None and any(
        action["tool"] == "screen_sanctions"
        and action["arguments"].get("entity_id") == entity.entity_id
        for action in state.executed_actions
    )


def searches_the_subject(state: AtlasState, arguments: dict[str, Any]) -> bool:
    """Whether a media search is for the subject: by the matched entity's id, or by a
    query holding at least two thirds of the words of the subject's name (as the case
    gives it, or as the registry does), legal forms aside: "Meridian Shipping directors"
    searches Meridian Shipping Holdings Ltd. A search for anyone else is kept as
    evidence, but does not stand for the subject's."""
    query = set(normalize_text(arguments.get("query") or "").split())

    def holds_most_of(own: str) -> bool:
        words = set(normalize_name(own).split())
        return bool(words) and 3 * len(words & query) >= 2 * len(words)

    return _about_the_subject(state, arguments, holds_most_of)


def _about_the_subject(
    state: AtlasState, arguments: dict[str, Any], fits: Callable[[str], bool]
) -> bool:
    """A call is about the subject by the matched entity's id when it gives one, or else
    by a name that `fits` one of the subject's own (as the case gives it, or as the
    registry does)."""
    entity = state.selected_entity
    if arguments.get("entity_id"):
        return entity is not None and arguments["entity_id"] == entity.entity_id
    return any(fits(own) for own in [state.brief.subject, *([entity.name] if entity else [])])


def _complete(state: AtlasState, step_name: str) -> None:
    if step_name not in state.completed_steps:
        state.completed_steps.append(step_name)


def _add_evidence(state: AtlasState, item: EvidenceItem) -> bool:
    if any(existing.fingerprint == item.fingerprint for existing in state.evidence):
        return False
    state.evidence.append(item)
    return True


def _add_fact(state: AtlasState, fact: Fact) -> None:
    said = (fact.fact, fact.entity_id, fact.person, fact.source_id)
    for existing in state.facts:
        if (existing.fact, existing.entity_id, existing.person, existing.source_id) == said:
            return
    state.facts.append(fact)


def _directors_value(directors: list[str]) -> str:
    return "; ".join(sorted(director_key(d) for d in directors))


def resolves_the_subject(state: AtlasState, arguments: dict[str, Any]) -> bool:
    """Whether a resolution looked for the subject in the case's terms: under the subject's
    name and type, and in the case's jurisdiction or none. Narrowed to a jurisdiction the
    case does not give, only once the analyst has answered a question offering candidates.
    Anything else is kept as evidence but neither matches the subject nor stands for its
    resolution."""
    brief = state.brief
    picked = picked_candidate(state)
    if not _searches_the_subjects_name(state, arguments):
        return False
    if arguments.get("entity_type") not in (None, brief.subject_type):
        return False
    narrowed_to = arguments.get("jurisdiction")
    if not narrowed_to or narrowed_to == brief.jurisdiction:
        return True
    return picked is not None and narrowed_to == picked.jurisdiction


def _searches_the_subjects_name(state: AtlasState, arguments: dict[str, Any]) -> bool:
    """Whether a resolution searched under the subject's name: as the case names it, or as
    the candidate the analyst picked names it."""
    picked = picked_candidate(state)
    names = [state.brief.subject, *([picked.name] if picked else [])]
    searched = arguments.get("name") or ""
    return max(name_score(searched, name) for name in names) >= STRONG_MATCH


def _candidates_of(state: AtlasState, arguments: dict[str, Any]) -> bool:
    """Whether the entities a resolution found are candidates for the subject: found under
    its name (as the case, the analyst's pick or the matched entity names it), in whatever
    country or of whatever type the search was narrowed to."""
    entity = state.selected_entity
    searched = arguments.get("name") or ""
    matched = entity is not None and name_score(searched, entity.name) >= STRONG_MATCH
    return matched or _searches_the_subjects_name(state, arguments)


def _candidate_ids(state: AtlasState) -> set[str]:
    """The entity ids of every registry candidate for the subject found so far."""
    listed = {candidate.entity_id for candidate in state.entity_candidates}
    return listed | {item.candidate_id for item in state.evidence if item.candidate_id}


def picked_candidate(state: AtlasState) -> EntityCandidate | None:
    """The registry candidate the analyst's latest answer that named one picked, as the
    runtime read it (human_inputs): the model's own reading of an answer is never trusted
    to choose what the case is about. Before the analyst answered about the candidates,
    the one an attached document names by its company number (document_picks)."""
    for answered in reversed(state.answered_questions):
        if entity_id := answered.get("picked_entity_id"):
            return next((c for c in state.entity_candidates if c.entity_id == entity_id), None)
    return picked_by_document(state)


def linked_list_entry(candidate: dict[str, Any]) -> str:
    """The sanctions entry that offered the candidate, or "" for a candidate the registry
    offered."""
    return candidate.get("linked_by") or ""


def _offer_linked_entity(state: AtlasState, result: dict[str, Any]) -> None:
    """When the registry matched nothing to the subject but its screening hit a list entry
    linked to a registry entity of the subject's type, that entity becomes the subject's one
    candidate, for the analyst to confirm: an alias only the list knows leads to the
    registered entity behind it. Hits linked to several entities offer none (the analyst
    would be asked to pick among companies no registry search found), and none is offered
    once the analyst has answered a question: they are asked about the subject once."""
    if state.selected_entity is not None or state.entity_candidates or state.answered_questions:
        return
    linked = {
        hit["linked_entity"]["entity_id"]: hit
        for hit in result.get("hits", [])
        if hit.get("linked_entity")
        and hit["linked_entity"]["entity_type"] == state.brief.subject_type
    }
    if len(linked) != 1:
        return
    ((entity_id, hit),) = linked.items()
    entity = hit["linked_entity"]
    state.entity_candidates = [
        EntityCandidate(
            entity_id=entity_id,
            name=entity["name"],
            entity_type=entity["entity_type"],
            jurisdiction=entity["jurisdiction"],
            registration_number=entity.get("registration_number"),
            born_year=entity.get("born_year"),
            score=hit["score"],
            matched_on=hit.get("matched_query") or "",
            linked_by=f"sanctions:{hit['entry_id']}",
            listed_as=(hit.get("aliases_matched") or [hit.get("listed_name") or ""])[0],
        )
    ]


def _reopen_research_by_name(state: AtlasState, picked: EntityCandidate | None) -> None:
    """The subject matched, once the analyst confirmed it, to the entity a sanctions hit on
    its name linked: its screening and media search so far were by that name only, so they
    are done again by the entity (with the aliases the registry gives it, and the articles
    linked to it)."""
    selected = state.selected_entity
    if picked is None or selected is None or selected.entity_id != picked.entity_id:
        return
    if not linked_list_entry(picked.model_dump()):
        return
    state.completed_steps = [
        step
        for step in state.completed_steps
        if step not in ("screen_sanctions", "search_adverse_media")
    ]


def _as_it_narrowed(arguments: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    """The resolution's arguments, without a jurisdiction that excluded no candidate: a
    narrowing that changed nothing is no choice of the model's."""
    if arguments.get("jurisdiction") and not result.get("excluded_by_jurisdiction"):
        return {name: value for name, value in arguments.items() if name != "jurisdiction"}
    return arguments


def _unambiguous_candidate(
    state: AtlasState, candidates: list[EntityCandidate], picked: EntityCandidate | None
) -> EntityCandidate | None:
    """The candidate a resolution singles out: the best, when it scores STRONG_MATCH and
    leads the next by AMBIGUITY_MARGIN. When the case names a company with its legal form,
    it is the one strong candidate of that form ("Northwind Trading LLC" of three Northwind
    Tradings), and none of another form (an LLC is not a Ltd of the same name), unless the
    analyst picked it."""
    numbered = [
        c for c in candidates if is_registration_number(state.brief.subject, c.registration_number)
    ]
    if len(numbered) == 1 and picked is None:
        return numbered[0]  # given by its number ("Company number 08812345": no legal form)
    strong = [c for c in candidates if c.score >= STRONG_MATCH]
    if picked is None:
        # "Acme Analytics Holdings" scores high on Acme Analytics Ltd, whose name it holds,
        # yet is likely another company: the analyst says.
        strong = [c for c in strong if not lacks_words_of(state.brief.subject, c)]
    company = state.brief.subject_type == "company"
    typed_form = legal_forms(state.brief.subject) if company else frozenset()
    if typed_form and picked is None:
        of_the_form = [c for c in strong if legal_forms(c.name) == typed_form]
        return of_the_form[0] if len(of_the_form) == 1 else None
    if not strong or strong[0] is not candidates[0]:
        return None
    lead = candidates[0].score - (candidates[1].score if len(candidates) > 1 else 0)
    return candidates[0] if lead >= AMBIGUITY_MARGIN else None


def lacks_words_of(subject: str, candidate: EntityCandidate) -> bool:
    """The candidate's name, and the alias it matched on, lack words the subject has."""
    return all(
        words_it_lacks(subject, name)
        for name in {candidate.name, candidate.matched_on or ""}
        if name
    )


def _may_match_the_subject(
    state: AtlasState,
    arguments: dict[str, Any],
    candidate: EntityCandidate,
    picked: EntityCandidate | None,
) -> bool:
    """Whether a resolution of the subject (resolves_the_subject) may match it to
    `candidate` by itself: a candidate of the subject's type, under its name or an alias
    the registry gives it, in the case's jurisdiction; or the one the analyst picked from
    the subject's earlier listing."""
    brief = state.brief
    if candidate.entity_type != brief.subject_type:
        return False
    if picked is not None and candidate.entity_id == picked.entity_id:
        return True  # the analyst said it is the subject, whatever part of its name matched
    named = max(
        name_score(brief.subject, candidate.name),
        name_score(brief.subject, candidate.matched_on or ""),
        100.0 if is_registration_number(brief.subject, candidate.registration_number) else 0.0,
    )
    if named < STRONG_MATCH:
        return False
    if brief.jurisdiction:
        in_the_case = candidate.jurisdiction == brief.jurisdiction
    else:
        in_the_case = not arguments.get("jurisdiction")
    return in_the_case or (picked is not None and candidate.entity_id == picked.entity_id)


def _apply_resolve(
    state: AtlasState,
    result: dict[str, Any],
    step: int,
    now: datetime,
    arguments: dict[str, Any],
) -> None:
    found = result.get("candidates", [])
    details = _distinguishing_details([c.get("record") or {} for c in found])
    candidates = [
        EntityCandidate(
            entity_id=c["entity_id"],
            name=c["name"],
            entity_type=c["entity_type"],
            jurisdiction=c["jurisdiction"],
            score=c["score"],
            matched_on=c.get("matched_on", ""),
            registration_number=c.get("registration_number"),
            details=facts,
            born_year=(c.get("record") or {}).get("born_year"),
        )
        for c, facts in zip(found, details, strict=True)
    ]
    # Only the subject's own resolutions list its candidates: a detour (someone else, a
    # narrowing of the model's own) leaves the list the analyst may be asked to pick from.
    if state.selected_entity is None and resolves_the_subject(state, arguments):
        picked = picked_candidate(state)
        by_document = document_pick(state)
        offered = len(state.entity_candidates)
        state.entity_candidates = candidates
        state.other_type_matches = list(result.get("other_type_matches", []))
        state.candidates_registered_elsewhere = int(result.get("excluded_by_jurisdiction") or 0)
        best = _unambiguous_candidate(state, candidates, picked)
        if best is not None and _may_match_the_subject(state, arguments, best, picked):
            state.selected_entity = best
            if by_document and by_document.candidate.entity_id == best.entity_id:
                _matched_by_document(state, by_document, offered)
            _reopen_research_by_name(state, picked)
        if state.brief.subject_type == "person":
            state.directorships[BY_NAME] = [
                HeldDirectorship(
                    entity_id=listing["entity_id"],
                    name=listing["name"],
                    jurisdiction=listing["jurisdiction"],
                    listed_as=listing["listed_as"],
                )
                for listing in result.get("named_as_director", [])
            ]
    selected_id = state.selected_entity.entity_id if state.selected_entity else None
    of_the_subject = _candidates_of(state, arguments)
    # The records of the companies that list a director by a person subject's name, while
    # the subject matches no registry person: the evidence for what links them. Once it
    # matches one, those of the companies that person's record says they direct: who else
    # directs them.
    listed = {c.entity_id: c for c in directorships(state) if c.listed_as}
    listed |= _directed_by_the_match(state, result)
    listings = [
        listing for listing in result.get("named_as_director", []) if listing["entity_id"] in listed
    ]
    for candidate in [*result.get("candidates", []), *listings]:
        listing = listed.get(candidate["entity_id"]) if "listed_as" in candidate else None
        record = candidate["record"]
        fp = fingerprint({"registry": record})[:20]
        if record["entity_type"] == "company":
            claim = f"Registry record: {company_record_words(record)}"
        else:
            claim = f"Registry record: {record['name']} ({record['jurisdiction']})"
            if record.get("born_year"):
                claim += f", born {record['born_year']}"
            if record.get("pep"):
                claim += f"; {exposed_as(record.get('pep_relation'))}: "
                claim += record.get("role") or "public office"
            held = [HeldDirectorship.model_validate(d) for d in record.get("directorships", [])]
            if held:
                state.directorships[record["entity_id"]] = held
                claim += f"; director of {', '.join(c.label() for c in held)}"
            claim += "."
        if candidate["entity_id"] == selected_id:
            claim += _how_it_matched(arguments.get("name") or "", candidate)
        source_id = f"registry:{record['entity_id']}"
        item = EvidenceItem(
            evidence_id=evidence_id_for(fp),
            evidence_class="registry",
            source_id=source_id,
            source_label=f"{REGISTRY_NAMES[record['entity_type']]} ({record['jurisdiction']})",
            tool="resolve_entity",
            retrieved_at=now,
            fingerprint=fp,
            claim=claim,
            step=step,
            signals=[Signal.PEP] if record.get("pep") else [],
            pep_relation=record.get("pep_relation") or "",
            residences=record.get("director_residences") or {},
            nationalities_of=record.get("nationalities") or {},
            birth_years_of=record.get("director_birth_years") or {},
            candidate_id=record["entity_id"] if of_the_subject and listing is None else "",
            about=directed_by_the_subject(listing) if listing is not None else "",
        )
        _add_evidence(state, item)
        for name, code in item.residences.items():
            _add_fact(state, residence_fact(record["entity_id"], name, code, item, claim))
        for name, year in item.birth_years_of.items():
            _add_fact(state, person_birth_year_fact(record["entity_id"], name, year, item, claim))
        for name, band in (record.get("significant_control") or {}).items():
            if share := share_written(band):
                _add_fact(state, share_fact(record["entity_id"], name, share, item, claim))
        if record.get("directors"):
            _add_fact(
                state,
                Fact.said_by(
                    item,
                    fact="directors",
                    entity_id=record["entity_id"],
                    value=_directors_value(record["directors"]),
                    display_value=DIRECTORS_SEPARATOR.join(record["directors"]),
                    excerpt=claim,
                ),
            )
        if record.get("registration_number"):
            _add_fact(
                state,
                Fact.said_by(
                    item,
                    fact="registration_number",
                    entity_id=record["entity_id"],
                    value=normalize_registration_number(record["registration_number"]),
                    display_value=record["registration_number"],
                    excerpt=claim,
                ),
            )
    _attribute_listings(state)


def _matched_by_document(state: AtlasState, pick: DocumentPick, candidates: int) -> None:
    name = state.brief.document_names().get(pick.document_id, "")
    state.selected_entity = state.selected_entity.model_copy(
        update={
            "matched_by_document": pick.document_id,
            "matched_by": matched_by_words(pick, candidates, name),
        }
    )


def _directed_by_the_match(state: AtlasState, result: dict[str, Any]) -> dict[str, Any]:
    """The companies the matched registry person directs, by their record in `result` or
    found earlier, by id."""
    selected = state.selected_entity
    if selected is None or selected.entity_type != "person":
        return {}
    held = state.directorships.get(selected.entity_id)
    if held is None:
        record = next(
            (
                c["record"]
                for c in result.get("candidates", [])
                if c["entity_id"] == selected.entity_id
            ),
            {},
        )
        held = [HeldDirectorship.model_validate(d) for d in record.get("directorships", [])]
    return {company.entity_id: company for company in held}


def _attribute_listings(state: AtlasState) -> None:
    """A company record found because it lists a director by a person subject's name is
    about the registry person who directs it, once the run finds one: that person's
    candidacy decides whether it is the subject's."""
    listed = {company.entity_id for company in state.directorships.get(BY_NAME, [])}
    owners = {
        company.entity_id: person
        for person, held in state.directorships.items()
        if person != BY_NAME
        for company in held
        if company.entity_id in listed
    }
    for item in state.evidence:
        company_id = item.source_id.removeprefix("registry:")
        if item.evidence_class == "registry" and item.about and company_id in owners:
            item.candidate_id = owners[company_id]


def _how_it_matched(searched: str, candidate: dict[str, Any]) -> str:
    """Why the registry entity is the subject, when the name searched is not its registered
    name: a reviewer sees what an alias, a misspelling or a company number was matched on."""
    matched_on, score = candidate.get("matched_on") or "", candidate["score"]
    if matched_on and matched_on == candidate.get("registration_number"):
        return f" Found by its registration number, searched as '{searched}'."
    if matched_on and normalize_name(matched_on) != normalize_name(candidate["name"]):
        return (
            f" The name searched, '{searched}', matches an alias the registry gives it, "
            f"{matched_on} (score {score:g})."
        )
    if score < 100:
        return (
            f" The name searched, '{searched}', matches its registered name at score "
            f"{score:g} of 100."
        )
    return ""


def _apply_sanctions(
    state: AtlasState,
    result: dict[str, Any],
    step: int,
    now: datetime,
    *,
    about: str = "",
    candidate_id: str = "",
    boards: Sequence[tuple[str, str]] = (),
) -> None:
    """`boards`: the companies (entity id, name) whose registry records list the person
    screened by name as a director."""
    hits = result.get("hits", [])
    hit_label = f"Sanctions hit on {about}" if about else "Sanctions hit"
    subject = result.get("entity_id") or normalize_text(" ".join(result.get("screened_names", [])))
    for hit in hits:
        fp = fingerprint({"sanctions_hit": hit["entry_id"], "subject": subject})[:20]
        aliases = (
            f"; aliases matched: {', '.join(hit['aliases_matched'])}"
            if hit["aliases_matched"]
            else ""
        )
        particulars = "".join(f", {said}" for said in listed_particulars(hit))
        claim = (
            f"{hit_label}: '{hit['matched_query']}' matches {hit['listed_name']} on "
            f"{hit['list']} (score {hit['score']:g}{_scored_on_alias(hit)}, programs "
            f"{', '.join(hit['programs']) or 'n/a'}, listed {hit['listed_on']}{particulars}{aliases})."
        )
        note, namesake = hit_note(state, hit, about, boards)
        _add_evidence(
            state,
            EvidenceItem(
                evidence_id=evidence_id_for(fp),
                evidence_class="sanctions",
                source_id=f"sanctions:{hit['entry_id']}",
                source_label=hit["list"],
                tool="screen_sanctions",
                retrieved_at=now,
                fingerprint=fp,
                claim=claim + note,
                step=step,
                signals=[Signal.SANCTIONS_HIT],
                about=about,
                candidate_id=candidate_id,
                possible_namesake=namesake,
                linked_entity_id=(hit.get("linked_entity") or {}).get("entity_id", ""),
                linked_born_year=(hit.get("linked_entity") or {}).get("born_year"),
                listed_born_years=hit.get("born_years") or [],
                listed_nationalities=hit.get("nationalities") or [],
                listed_name=hit["listed_name"],
            ),
        )
    _apply_pep_matches(
        state, result, step, now, subject=subject, about=about, candidate_id=candidate_id
    )
    if not hits:
        fp = fingerprint({"sanctions_clear": subject})[:20]
        names = result.get("screened_names", [])
        screened = _as_subject(about) if about else ", ".join(names[:3])
        _add_evidence(
            state,
            EvidenceItem(
                evidence_id=evidence_id_for(fp),
                evidence_class="sanctions",
                source_id=f"sanctions-screen:{subject}",
                source_label=", ".join(result.get("lists_checked", [])),
                tool="screen_sanctions",
                retrieved_at=now,
                fingerprint=fp,
                claim=(
                    f"No sanctions hits for {screened} across "
                    f"{len(result.get('lists_checked', []))} lists (threshold "
                    f"{result.get('threshold', 0):g})."
                ),
                step=step,
                about=about,
                candidate_id=candidate_id,
            ),
        )
    if result.get("entity_id"):
        status = "listed" if hits else "not listed"
        _add_fact(
            state,
            Fact(
                fact="sanctions_status",
                entity_id=result["entity_id"],
                value=status,
                display_value=status,
                source_id="sanctions-screen",
                source_label="Sanctions screening",
                retrieved_at=now,
                excerpt=counted(len(hits), "hit"),
                evidence_id=state.evidence[-1].evidence_id,
            ),
        )


def _screened_candidate(state: AtlasState, result: dict[str, Any]) -> str:
    """The registry candidate for the subject a screen was by the id of, or "" for a
    screen by name or by anyone else's id."""
    entity_id = result.get("entity_id") or ""
    return entity_id if entity_id in _candidate_ids(state) else ""


def _scored_on_alias(hit: dict[str, Any]) -> str:
    """Which listed alias a hit's score is for, when the listed name itself scores less:
    "'Golden Gate Maritime' matches Golden Gate Shipping SA (score 100)" would read as if
    the listed name did."""
    query = hit["matched_query"]
    if name_score(query, hit["listed_name"]) >= hit["score"]:
        return ""
    alias = max(hit["aliases_matched"], key=lambda name: name_score(query, name), default="")
    return f" on the listed alias '{alias}'" if alias else ""


# Where a screen's matches with politically exposed persons come from, as sources say it.
PEP_REGISTER = "Register of politically exposed persons"


def _apply_pep_matches(
    state: AtlasState,
    result: dict[str, Any],
    step: int,
    now: datetime,
    *,
    subject: str,
    about: str,
    candidate_id: str,
) -> None:
    label = (
        f"Politically exposed person match on {about}"
        if about
        else ("Politically exposed person match")
    )
    # A director's or a company's screen is about them, whatever the register matched.
    candidate_ids = set() if about else _candidate_ids(state)
    for match in result.get("pep_matches", []):
        fp = fingerprint({"pep_match": match["entity_id"], "subject": subject})[:20]
        note, namesake = register_note(state, match, about)
        _add_evidence(
            state,
            EvidenceItem(
                evidence_id=evidence_id_for(fp),
                evidence_class="pep",
                source_id=f"pep:{match['entity_id']}",
                source_label=PEP_REGISTER,
                tool="screen_sanctions",
                retrieved_at=now,
                fingerprint=fp,
                claim=(
                    f"{label}: '{match['matched_query']}' matches {match['name']} "
                    f"({match['jurisdiction']}), {_role_words(match)} (score "
                    f"{match['score']:g}).{note}"
                ),
                step=step,
                signals=[Signal.PEP],
                about=about,
                candidate_id=_pep_match_candidate(match, candidate_ids, candidate_id),
                linked_entity_id=match["entity_id"],
                linked_born_year=match.get("born_year"),
                possible_namesake=namesake,
                pep_relation=match.get("relation") or "",
            ),
        )


def _role_words(match: dict[str, Any]) -> str:
    """ "Minister of Culture"; for a relative or associate on the register, "a close family
    member of a politically exposed person: spouse of ..."."""
    if not match.get("relation"):
        return match["role"]
    return f"a {exposed_as(match['relation'])}: {match['role']}"


def _pep_match_candidate(match: dict[str, Any], candidate_ids: set[str], screened: str) -> str:
    """The registry candidate for the subject a match on the register is about: the person
    on the register when they are one of the candidates (a screen by name, or by the id of
    their namesake, finds them by name), else the candidate `screened` by id, if any."""
    return match["entity_id"] if match["entity_id"] in candidate_ids else screened


def _note_copy(held: EvidenceItem, copy: EvidenceItem) -> None:
    """Keep where else `held`'s text ran, once per source."""
    if copy.source_id == held.source_id or any(
        known.source_id == copy.source_id for known in held.copies
    ):
        return
    held.copies.append(
        SameTextElsewhere(source_id=copy.source_id, source_label=copy.source_label, url=copy.url)
    )


def _apply_media(
    state: AtlasState, result: dict[str, Any], step: int, now: datetime, *, about: str = ""
) -> None:
    articles = result.get("articles", [])
    already_held, added = [], 0
    # Found by name, an article may be about a candidate for the subject, or about others.
    candidates = set() if about or result.get("entity_id") else _candidate_ids(state)
    for article in articles:
        fp = fingerprint_text(article["text"])
        item = EvidenceItem(
            evidence_id=evidence_id_for(fp),
            evidence_class="adverse_media",
            source_id=f"article:{article['article_id']}",
            source_label=article["outlet"],
            tool="search_adverse_media",
            url=article["url"],
            retrieved_at=now,
            fingerprint=fp,
            claim=f"{article['outlet']}, {article['date']}: {article['title']}",
            step=step,
            signals=sorted(
                set(article.get("signals", []))
                | ({Signal.INSTRUCTIONS} if addresses_the_agent(article["text"]) else set())
            ),
            about=about,
            found_by_name=not result.get("entity_id"),
            published=article.get("date", ""),
            candidate_id="" if about else _candidate_linked(candidates, result, article),
            about_another_entity=""
            if about
            else _another_entity(state, candidates, result, article),
        )
        if not _add_evidence(state, item):
            # The item held, under its own claim: a copy of an article at another address
            # is the same story, named once.
            held = next(e for e in state.evidence if e.fingerprint == item.fingerprint)
            _note_copy(held, item)
            if held.claim not in already_held:
                already_held.append(held.claim)
            continue  # same story as an item already held: no new facts either
        added += 1
        item.age_given = age_given(article["text"], result.get("query", ""))
        for entity_id, facts in (article.get("facts") or {}).items():
            directors = facts.get("directors")
            if directors:
                _add_fact(
                    state,
                    Fact.said_by(
                        item,
                        fact="directors",
                        entity_id=entity_id,
                        value=_directors_value(directors),
                        display_value=DIRECTORS_SEPARATOR.join(directors),
                        excerpt=article.get("snippet", "")[:240],
                    ),
                )
    key = result.get("entity_id") or normalize_text(result.get("query", ""))
    if not articles:
        claim = f"No adverse media found for {about or searched_for(result)}."
        _add_search_record(state, key, step, now, about, claim, {"no_media": key})
    elif about and not added:
        # A search on someone else than the subject (a director, say) that found only
        # articles already held still answers whether they were looked for.
        claim = (
            f"The media search for {_as_subject(about)} found only "
            f"{counted(len(already_held), 'article')} already held: {'; '.join(already_held)}."
        )
        seen = {"held_media": key, "claims": sorted(already_held)}
        _add_search_record(state, key, step, now, about, claim, seen)


def _candidate_linked(candidates: set[str], result: dict[str, Any], article: dict[str, Any]) -> str:
    """The one registry candidate for the subject (of `candidates`) an article found by the
    subject's name is about, if one: it is the subject's only if that candidate is."""
    if result.get("entity_id"):
        return ""
    linked = [e for e in article.get("entity_ids", []) if e in candidates]
    return linked[0] if len(linked) == 1 else ""


def _another_entity(
    state: AtlasState, candidates: set[str], result: dict[str, Any], article: dict[str, Any]
) -> str:
    """The registry entity an article found by the subject's name is about instead of the
    subject, in words: one it is linked to, when none of those is a candidate for the
    subject or its matched entity, none is named as the subject is, and the article never
    names the subject ("" otherwise, and for an article found by an entity's id)."""
    entities = article.get("entities") or {}
    if result.get("entity_id") or not entities:
        return ""
    ours = candidates | ({state.selected_entity.entity_id} if state.selected_entity else set())
    subject = state.brief.subject
    if ours & set(entities) or any(_named_as(subject, label) for label in entities.values()):
        return ""
    if _mentions(subject, article["title"], article["text"]):
        return ""
    return listed(list(entities.values()), "and")


# The same articles come back search after search: what they say of the subject is
# worked out once.
@functools.lru_cache(maxsize=1024)
def _named_as(subject: str, label: str) -> bool:
    """Whether the registry entity `label` ("Name (CC)") bears the subject's name."""
    return name_score(subject, label.rsplit(" (", 1)[0]) >= STRONG_MATCH


@functools.lru_cache(maxsize=1024)
def _mentions(subject: str, title: str, text: str) -> bool:
    return normalize_text(subject) in normalize_text(f"{title} {text}")


def _as_subject(about: str) -> str:
    """`about` before a verb: an aside ("X (RU), a company the subject directs") closes
    with a comma."""
    return about + "," if "," in about else about


def _add_search_record(
    state: AtlasState,
    key: str,
    step: int,
    now: datetime,
    about: str,
    claim: str,
    found: dict[str, Any],
) -> None:
    """Evidence of what the media search `key` (an entity id or a query) found when no
    article of it is new evidence; `found` is what its fingerprint is made of."""
    fp = fingerprint(found)[:20]
    _add_evidence(
        state,
        EvidenceItem(
            evidence_id=evidence_id_for(fp),
            evidence_class="adverse_media",
            source_id=f"media-search:{key}",
            source_label="News search",
            tool="search_adverse_media",
            retrieved_at=now,
            fingerprint=fp,
            claim=claim,
            step=step,
            about=about,
        ),
    )


def _document_called(state: AtlasState, result: dict[str, Any]) -> str:
    """A document's name, with its id when another of the case's documents has the same
    name: two "kyc.txt" giving different directors are told apart."""
    name = result.get("name", "")
    namesakes = [d for d in state.brief.documents if d.name == name]
    if len(namesakes) > 1:
        return f"{name} (document {result['document_id']})"
    return name


def _apply_document(state: AtlasState, result: dict[str, Any], step: int, now: datetime) -> None:
    fp = (
        fingerprint_text(result.get("text", "")) or fingerprint({"doc": result["document_id"]})[:20]
    )
    fields = result.get("fields", {})
    found = ", ".join(fact_words(name) for name in sorted(fields)) or "no structured fields"
    entity = state.selected_entity
    names = fields.get("company_names", [])
    other = _other_company_named(state, names, fields.get("registration_numbers", []))
    # A document that names no company was attached to this case, so it is read as about
    # the case's company: a false disagreement goes to a person, a missed one goes unseen.
    unnamed = entity is not None and entity.entity_type == "company" and not names
    about_entity = (
        entity is not None
        and other is None
        and (unnamed or any(name_score(n, entity.name) >= STRONG_MATCH for n in names))
    )
    signals = [Signal.INSTRUCTIONS] if addresses_the_agent(result.get("text", "")) else []
    # Said before the document's opening, which a reader (or a projection) may cut short.
    whose = namesake_company = about_other_subject = ""
    if entity is not None and entity.entity_type == "company" and not about_entity:
        signals.append(Signal.ANOTHER_COMPANY)
        about_other_subject = other or names[0]
        whose = f" It is about {about_other_subject}, not {entity.name}: its facts were not used."
        namesake_company = _namesake_company(state, about_other_subject, fields)
    elif someone_else := _another_person_named(state, fields):
        signals.append(Signal.ANOTHER_PERSON)
        about_other_subject = someone_else
        whose = f" It is about {someone_else}, not {state.brief.subject}: its facts were not used."
    elif company := _company_not_the_persons(state, fields):
        signals.append(Signal.ANOTHER_COMPANY)
        about_other_subject = company
        whose = (
            f" It is about {company}, which does not name {entity.name} and which they are not "
            "on record as directing: its facts were not used."
        )
    elif (
        unnamed
        and about_entity
        and (
            fields.get("directors") or fields.get("registration_numbers") or fields.get(OWNERS_FACT)
        )
    ):
        whose = (
            f" It gives no company in a “Company:” line: its facts were read as about "
            f"{entity.name}, the company the case was matched to."
        )
    # A reviewer reads what the document says, not only what fields it holds; personal data
    # is redacted here as it is for the model.
    # Redacted before its lines are joined: a table's rows read as one line hide its columns.
    shown = redacted_opening(result.get("text", ""), 4 * DOCUMENT_OPENING_CHARS)
    opening = clipped(" ".join(shown.split()), DOCUMENT_OPENING_CHARS)
    begins = f" It begins: “{opening}”" if opening else ""
    if entity is not None and entity.matched_by_document == result["document_id"]:
        whose += (
            f" The case was matched to {entity.name} ({entity.jurisdiction}) by its company number."
        )
    item = EvidenceItem(
        evidence_id=evidence_id_for(fp),
        evidence_class="document",
        source_id=f"document:{result['document_id']}",
        source_label=f"Uploaded document {_document_called(state, result)}",
        tool="extract_uploaded_document",
        document_id=result["document_id"],
        retrieved_at=now,
        fingerprint=fp,
        claim=(
            f"Uploaded document {_document_called(state, result)} "
            f"({counted(result.get('pages', 1), 'page')}) contains: {found}.{whose}{begins}"
        ),
        step=step,
        signals=signals,
        namesake_company=namesake_company,
        about_other_subject=about_other_subject,
        directors_unread=about_entity
        and not fields.get("directors")
        and mentions_directors(result.get("text", "")),
        owners_unread=about_entity
        and not fields.get(OWNERS_FACT)
        and mentions_owners(result.get("text", "")),
        residences=_residences_read(fields) if about_entity else {},
        nationalities_of=_nationalities_read(fields) if about_entity else {},
        birth_years_of=_birth_years_read(fields, now.year) if about_entity else {},
    )
    # A company's form declares where the company's money comes from, not a person's, nor
    # where they live; another company's or person's says nothing of the subject.
    company_form_for_a_person = state.brief.subject_type == "person" and bool(names)
    someone_elses = Signal.ANOTHER_COMPANY in signals or Signal.ANOTHER_PERSON in signals
    person_form = state.brief.subject_type == "person" and not names and not someone_elses
    if person_form and fields.get("residence"):
        item.residences = {state.brief.subject: fields["residence"][0]}
        item.residence_line = residence_line(result.get("text", ""))
    if person_form:
        item.full_name = (fields.get("person_names") or [""])[0]
        item.nationalities = fields.get("nationality") or []
        item.birth_year = year_of_birth(fields.get("dates_of_birth") or [], now.year)
    _said_of_its_person(item, fields, about_entity and not names, now.year)
    _add_evidence(state, item)
    # A person's paperwork of a company is only known to be another company's once the
    # person is matched, by the companies their record lists them as directing.
    if entity is None and (state.brief.subject_type == "company" or names):
        _keep_for_the_match(state, result, step, now)
    if not someone_elses and not company_form_for_a_person:
        for declared in declaration_evidence(item, fields):
            _add_evidence(state, declared)
    if not about_entity:
        return
    for name, code in item.residences.items():
        quoted = quoted_lines(result.get("text", ""), [name], residence_entry(name, code))
        _add_fact(state, residence_fact(entity.entity_id, name, code, item, quoted))
    for name, year in item.birth_years_of.items():
        # Not quoted: the document writes the date, which is redacted.
        said = f"{name}: a date of birth in {year} (the date itself is redacted)."
        _add_fact(state, person_birth_year_fact(entity.entity_id, name, year, item, said))
    if fields.get("directors"):
        _add_fact(
            state,
            Fact.said_by(
                item,
                fact="directors",
                entity_id=entity.entity_id,
                value=_directors_value(fields["directors"]),
                display_value=DIRECTORS_SEPARATOR.join(fields["directors"]),
                excerpt=quoted_lines(
                    result.get("text", ""),
                    fields["directors"],
                    "Directors: " + ", ".join(fields["directors"]),
                ),
            ),
        )
    if fields.get(OWNERS_FACT):
        _add_fact(
            state,
            Fact.said_by(
                item,
                fact=OWNERS_FACT,
                entity_id=entity.entity_id,
                value=_directors_value(fields[OWNERS_FACT]),
                display_value=DIRECTORS_SEPARATOR.join(fields[OWNERS_FACT]),
                excerpt=quoted_lines(
                    result.get("text", ""),
                    fields[OWNERS_FACT],
                    "Beneficial owners: " + ", ".join(fields[OWNERS_FACT]),
                ),
            ),
        )
    text = result.get("text", "")
    for name, share in _owner_shares(fields).items():
        excerpt = quoted_lines(text, [name], f"Beneficial owner: {name} ({share})")
        _add_fact(state, share_fact(entity.entity_id, name, share, item, excerpt))
    if fields.get("registration_numbers"):
        number = fields["registration_numbers"][0]
        _add_fact(
            state,
            Fact.said_by(
                item,
                fact="registration_number",
                entity_id=entity.entity_id,
                value=normalize_registration_number(number),
                display_value=number,
                excerpt=quoted_lines(result.get("text", ""), [number], f"Company number: {number}"),
            ),
        )


def _namesake_company(state: AtlasState, company: str, fields: dict[str, list[str]]) -> str:
    """The other company a document is about, with the number it gives it, when its name is
    the case's subject's ("Northwind Trading Pte Ltd" for "Northwind Trading"); else "".
    """
    if name_score(company, state.brief.subject) < STRONG_MATCH:
        return ""
    own = normalize_registration_number(state.selected_entity.registration_number or "")
    numbers = [
        number
        for number in fields.get("registration_numbers") or []
        if normalize_registration_number(number) != own
    ]
    return f"{company}{COMPANY_NUMBER}{numbers[0]}" if numbers else company


def _keep_for_the_match(
    state: AtlasState, result: dict[str, Any], step: int, now: datetime
) -> None:
    """A document read before any registry match whose company is known to be the
    subject's, or another's, only once one is matched (a company subject's, or a company's
    paperwork on a person's case): which of its facts count is decided then."""
    held = {read.result.get("document_id") for read in state.documents_read_before_match}
    if result.get("document_id") not in held:
        state.documents_read_before_match.append(
            DocumentRead(step=step, read_at=now, result=result)
        )


def _read_again_once_matched(state: AtlasState) -> None:
    """The documents read before the match, read again as about the entity matched: their
    facts are weighed against its record, or they are found to be another company's. Each
    keeps its place among the evidence."""
    if not state.documents_read_before_match or state.selected_entity is None:
        return
    reads, state.documents_read_before_match = state.documents_read_before_match, []
    for read in reads:
        # The document's item and those of what it declares: read again, they may be none.
        source = f"document:{read.result['document_id']}"
        first = next((n for n, e in enumerate(state.evidence) if e.source_id == source), None)
        state.evidence = [e for e in state.evidence if e.source_id != source]
        kept = len(state.evidence)
        _apply_document(state, read.result, read.step, read.read_at)
        if first is not None:
            again = state.evidence[kept:]
            del state.evidence[kept:]
            state.evidence[first:first] = again


def _another_person_named(state: AtlasState, fields: dict[str, list[str]]) -> str | None:
    """The name a person subject's form gives, when it is none of the subject's: a form
    with a company line is the company's, and one with no name line is taken as theirs."""
    given = fields.get("person_names") or []
    if state.brief.subject_type != "person" or fields.get("company_names") or not given:
        return None
    return None if _names_the_subject(state, given) else given[0]


def _company_not_the_persons(state: AtlasState, fields: dict[str, list[str]]) -> str | None:
    """The company a matched person subject's document is about, when it names none of the
    companies the registry lists them as directing and does not name them either (as a
    director, an owner or on a name line): another company's paperwork."""
    person = state.selected_entity
    companies = fields.get("company_names") or []
    if person is None or person.entity_type != "person" or not companies:
        return None
    held = [company.name for company in directorships(state)]
    if any(name_score(name, own) >= STRONG_MATCH for name in companies for own in held):
        return None
    people = [
        *fields.get("directors", []),
        *fields.get("beneficial_owners", []),
        *fields.get("person_names", []),
    ]
    return None if _names_the_subject(state, people) else companies[0]


def _names_the_subject(state: AtlasState, names: list[str]) -> bool:
    """Whether one of `names` is the subject's, as the case or the registry gives it."""
    return _about_the_subject(
        state, {}, lambda own: any(name_score(name, own) >= STRONG_MATCH for name in names)
    )


def _residences_read(fields: dict[str, list[str]]) -> dict[str, str]:
    """Where the people a document names live, name -> country code, as the extraction
    tool wrote it ("Farhad Rahimi: IR")."""
    residences: dict[str, str] = {}
    for entry in fields.get("residences") or []:
        name, code = read_residence_entry(str(entry))
        residences.setdefault(name, code)
    return residences


# The extraction tool's field for the shares a document gives ("Dmitri Volkov: 60%").
SHARE_FIELD = "ownership_shares"


def _said_of_its_person(
    item: EvidenceItem, fields: dict[str, list[str]], on_its_own: bool, this_year: int
) -> None:
    """On a company's case, a person's own document (a director's passport, an owner's
    proof of address: one naming a person and no company) says where its person lives,
    what they are a national of and when they were born, by name. Only what is said of the
    company's directors and owners is ever counted (jurisdiction_risk, birth_years)."""
    people = fields.get("person_names") or []
    if not on_its_own or len(people) != 1:
        return
    if born := year_of_birth(fields.get("dates_of_birth") or [], this_year):
        item.birth_years_of.setdefault(people[0], born)
    if nationality := fields.get("nationality"):
        item.nationalities_of.setdefault(people[0], nationality)
    if residence := fields.get("residence"):
        item.residences.setdefault(people[0], residence[0])


def _nationalities_read(fields: dict[str, list[str]]) -> dict[str, list[str]]:
    """The countries the people a document lists are nationals of, name -> codes, as the
    extraction tool wrote them ("Farhad Rahimi: IR, GB")."""
    nationals: dict[str, list[str]] = {}
    for entry in fields.get("nationalities") or []:
        name, codes = read_nationality_entry(str(entry))
        if name and codes:
            nationals.setdefault(name, codes)
    return nationals


def _birth_years_read(fields: dict[str, list[str]], this_year: int) -> dict[str, int]:
    """The years the people a document lists were born in, name -> year, as the extraction
    tool wrote them ("Dmitri Volkov: 1985"), where a living person could have been."""
    born: dict[str, int] = {}
    for entry in fields.get("birth_years") or []:
        name, year = read_birth_year_entry(str(entry))
        if name and year and living_born_in(year, this_year):
            born.setdefault(name, year)
    return born


def _owner_shares(fields: dict[str, list[str]]) -> dict[str, str]:
    """The shares a document gives its beneficial owners, name -> share ("60%"): those of
    the owners it names, as the extraction tool wrote them ("Dmitri Volkov: 60%")."""
    owners = set(fields.get(OWNERS_FACT) or [])
    shares: dict[str, str] = {}
    for entry in fields.get(SHARE_FIELD) or []:
        name, share = read_share_entry(str(entry))
        if name in owners and is_share(share):
            shares.setdefault(name, share)
    return shares


def _other_company_named(state: AtlasState, names: list[str], numbers: list[str]) -> str | None:
    """Another company than the matched entity, when a document names one: by another
    legal form than the entity's ("Northwind Trading Pte Ltd" is not "Northwind Trading
    Ltd"), or as another registry candidate, by its exact name or its registration
    number. Returns a description of it, or None."""
    entity = state.selected_entity
    if entity is not None:
        own_form = legal_forms(entity.name)
        for name in names:
            if own_form and legal_forms(name) and legal_forms(name) != own_form:
                return name
    given_names = {normalize_text(n) for n in names}
    given_numbers = {normalize_registration_number(n) for n in numbers}
    for candidate in state.entity_candidates:
        if entity is None or candidate.entity_id == entity.entity_id:
            continue
        if normalize_text(candidate.name) in given_names - {normalize_text(entity.name)}:
            return candidate.name
        if candidate.registration_number and (
            normalize_registration_number(candidate.registration_number) in given_numbers
        ):
            return candidate.name
    return None


def _weigh_disputed_directorships(state: AtlasState) -> None:
    """A source listing the directors of a company the subject person directs, by the
    registry's record of the person, without naming them disputes that directorship. The
    record's side then stands as a directors fact of the company, so the two are weighed
    as a conflict; it is dropped again once nothing disputes it, or once the company's own
    registry record lists its directors in full."""
    subject = state.selected_entity
    if subject is None or subject.entity_type != "person":
        return
    own_source = f"registry:{subject.entity_id}"
    record = next((e for e in state.evidence if e.source_id == own_source), None)
    held = {company.entity_id for company in directorships(state)}
    state.facts = [
        f
        for f in state.facts
        if not (f.fact == "directors" and f.source_id == own_source and f.entity_id in held)
    ]
    if record is None:
        return
    subject_key = director_key(subject.name)
    for company_id in held:
        listed = [f for f in state.facts if f.fact == "directors" and f.entity_id == company_id]
        if any(f.source_id == f"registry:{company_id}" for f in listed):
            continue
        if all(subject_key in f.value.split("; ") for f in listed):
            continue
        state.facts.append(
            Fact(
                fact="directors",
                entity_id=company_id,
                value=subject_key,
                display_value=f"{subject.name}, among others",
                source_id=own_source,
                source_label=record.source_label,
                retrieved_at=record.retrieved_at,
                excerpt=record.claim,
                evidence_id=record.evidence_id,
            )
        )


def _detect_conflicts(state: AtlasState) -> None:
    boards = _boards_naming_the_subject(state)
    for (entity_id, fact_name, person_key), facts in _fact_groups(state).items():
        if len({f.value for f in facts}) < 2:
            continue
        if fact_name == SHARE_FACT and shares_agree({f.value for f in facts}):
            continue
        conflict_id = conflict_id_for(entity_id, fact_name, person_key)
        existing = next((c for c in state.conflicts if c.conflict_id == conflict_id), None)
        if existing is None and fact_name == "directors" and entity_id in boards:
            subject = boards[entity_id]
            if all(subject & set(f.value.split("; ")) for f in facts):
                continue
        values = [
            ConflictValue(
                value=f.display_value,
                source_id=f.source_id,
                source_label=f.source_label,
                retrieved_at=f.retrieved_at,
                excerpt=f.excerpt,
            )
            for f in facts
        ]
        if existing is None:
            state.conflicts.append(
                Conflict(
                    conflict_id=conflict_id,
                    fact=fact_name,
                    entity_id=entity_id,
                    person=person_of_the_company(state, facts[0].person) if person_key else "",
                    values=values,
                )
            )
        else:
            if existing.status != "open" and _disputes_the_settlement(existing, facts):
                if existing.resolution is not None:
                    existing.earlier_resolutions.append(existing.resolution)
                existing.status, existing.resolution = "open", None
            existing.values = values


def _weigh_subject_residence(state: AtlasState) -> None:
    """A person subject's residence facts, derived afresh: sources that disagree on where
    they live are weighed as a conflict."""
    if state.brief.subject_type != "person":
        return
    others = [f for f in state.facts if not (f.fact == RESIDENCE_FACT and not f.person)]
    state.facts = others + subject_residence_facts(state)


def _weigh_subject_birth_year(state: AtlasState) -> None:
    """A person subject's year of birth as each source gives it, derived afresh: a form of
    theirs born in another year than the registry person they were matched to is weighed
    as a conflict."""
    if state.brief.subject_type != "person":
        return
    others = [f for f in state.facts if f.fact != BIRTH_YEAR_FACT]
    state.facts = others + subject_birth_year_facts(state)


def _fact_groups(state: AtlasState) -> dict[tuple[str, str, str], list[Fact]]:
    """The sources' facts by what each is of: the entity, the fact and, for a fact about
    one person of the entity, that person's director_key."""
    groups: dict[tuple[str, str, str], list[Fact]] = {}
    for fact in state.facts:
        person_key = director_key(fact.person) if fact.person else ""
        groups.setdefault((fact.entity_id, fact.fact, person_key), []).append(fact)
    return groups


def _boards_naming_the_subject(state: AtlasState) -> dict[str, set[str]]:
    """For a person subject, each company they direct with the keys the subject's names
    take in its directors' lists. Sources that all name the subject a director but disagree
    on who else is one do not dispute anything the research is about: the co-directors are
    a gap of the packet's own."""
    if state.brief.subject_type != "person":
        return {}
    names = [state.brief.subject]
    if state.selected_entity is not None:
        names.append(state.selected_entity.name)
    return {
        company.entity_id: {director_key(name) for name in [*names, company.listed_as] if name}
        for company in directorships(state)
    }


def _disputes_the_settlement(conflict: Conflict, facts: list[Fact]) -> bool:
    """Whether a source read since a reviewer settled `conflict` gives another value than
    the one they chose (any value, when they marked it unresolvable): they never weighed it,
    so the conflict is theirs to look at again. A source read again is not new."""
    weighed = {value.source_id for value in conflict.values}
    chosen = conflict.resolution.value if conflict.resolution else None
    standing = {fact.value for fact in facts if chosen is not None and fact.display_value == chosen}
    return any(fact.source_id not in weighed and fact.value not in standing for fact in facts)


def _distinguishing_details(records: list[dict[str, Any]]) -> list[str]:
    """For each registry record, the facts that tell it from the others found with it
    (born, role, incorporated, status); a fact they all share tells nothing apart."""
    facts = [_record_facts(record) for record in records]
    shared = set.intersection(*(set(f) for f in facts)) if facts else set()
    return [", ".join(fact for fact in own if fact not in shared) for own in facts]


def _record_facts(record: dict[str, Any]) -> list[str]:
    facts = []
    if record.get("born_year"):
        facts.append(f"born {record['born_year']}")
    if record.get("role"):
        facts.append(str(record["role"]))
    if record.get("incorporated"):
        facts.append(f"incorporated {record['incorporated']}")
    if record.get("status"):
        facts.append(str(record["status"]))
    return facts
