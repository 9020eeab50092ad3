"""The default decision maker: a deterministic, honestly rule-based playbook.

It decides from the same bounded projection a language model would see and never reads
tool text as instructions: resolve the entity (ask the analyst when several candidates
fit), screen sanctions, search adverse media, screen each director by name, screen and
search media on each company a person directs by its id, extract each attached document,
then finish with a packet that cites every finding and carries open conflicts.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from atlas.runtime.adapters.answers import candidate_from_answer
from atlas.runtime.adapters.base import ModelReply
from atlas.runtime.birth_years import FACT as BIRTH_YEAR_FACT
from atlas.runtime.budgets import estimate_tokens
from atlas.runtime.codirectors import AS_CODIRECTOR
from atlas.runtime.context import ModelContext, clipped
from atlas.runtime.countries import country_words
from atlas.runtime.decisions import (
    UNSAFE_CHARACTERS,
    AskHuman,
    CallTool,
    DueDiligencePacket,
    Finding,
    Finish,
    PacketConflict,
    PacketConflictValue,
    Usage,
)
from atlas.runtime.declared_businesses import DECLARED_ROLES
from atlas.runtime.directors import AS_DIRECTOR, as_settled_by, screenable, searchable
from atlas.runtime.directorships import directed_by_the_subject
from atlas.runtime.listed_namesakes import FOR_A_REVIEWER
from atlas.runtime.namesakes import candidate_words, other_candidate_id, turned_down
from atlas.runtime.owners import AS_OWNER
from atlas.runtime.reducer import linked_list_entry
from atlas.runtime.result_words import SUSPECT_SOURCE
from atlas.runtime.state import HeldDirectorship, Signal, candidate_label
from atlas.runtime.tools.builtin import STRONG_MATCH
from atlas.runtime.tools.schemas import other_entity_type
from atlas.runtime.wording import counted, listed, unresolved_conflict_gap
from atlas.runtime.world import words_it_lacks
from atlas.runtime.world.normalize import is_registration_number, legal_forms

# Of what people wrote (an answer, a reviewer's reason), as much as a question quotes: a
# reason is shown to the playbook as long as this already.
MAX_QUOTED = 500


class Playbook:
    name = "playbook"
    kind = "rule-based"
    waits_on_network = False

    def price_per_1k_tokens(self) -> Decimal | None:
        return Decimal("0")

    def decide(self, context: ModelContext) -> ModelReply:
        offered = frozenset(tool["name"] for tool in context.tools)
        action = self.next_action(context.projection, offered)
        # No model is paid for, but the context it read and the action it wrote are counted
        # like a model's, so token budgets and meters mean the same thing for every adapter.
        usage = Usage(
            input_tokens=estimate_tokens(context.text()),
            output_tokens=estimate_tokens(action.model_dump_json()),
        )
        return ModelReply(action=action, usage=usage)

    def next_action(
        self, p: dict[str, Any], offered: frozenset[str] | None = None
    ) -> CallTool | AskHuman | Finish:
        """The next step for the case record `p`, using only the tools `offered` (all of
        them when None)."""
        case = p["case"]
        done = set(p["completed_steps"])
        selected = p["selected_entity"]
        candidates = p["entity_candidates"]
        failures = _failure_counts(p)
        gaps: list[str] = []

        if selected is None:
            if "resolve_entity" not in done and failures.get("resolve_entity", 0) < 2:
                return _call(
                    "resolve_entity",
                    _subject_resolution(case),
                    "Identify the subject in the registry first.",
                )
            if wider := _resolution_beyond_the_case_country(p, candidates, failures):
                return wider
            chosen = candidate_from_answer(p, candidates)
            if chosen is not None and (
                resolving := _resolution_of(p, chosen, "the analyst picked")
            ):
                return resolving
            # A date of birth in a person subject's own documents, or a company number in a
            # company subject's, may tell them apart (or confirm a company's one candidate):
            # all of them are read, as two may differ.
            company = case["subject_type"] == "company"
            undecided = len(candidates) > 1 or (company and candidates)
            if undecided and (reading := _next_document(p, failures)):
                return reading
            if chosen is None and (chosen := _named_by_documents(p, candidates)):
                number = p["candidate_named_by_documents"]["registration_number"]
                why = f"whose company number ({number}) an attached document gives"
                if resolving := _resolution_of(p, chosen, why):
                    return resolving
            # Asked again after every answer that fits no candidate, until the runtime hands
            # the run to a reviewer (questions.MAX_SAME_QUESTION_ANSWERED); a packet for an
            # unmatched name is refused anyway. An
            # answer that none of them is the subject leaves the run none (human_inputs): the
            # research goes on by name, as after a no to a single candidate.
            if len(candidates) > 1:
                labels = [_labelled_for_the_analyst(p, c) for c in candidates]
                elsewhere = _none_closely_in(case, candidates)
                correctable = "name or country" if elsewhere else "name"
                unmatched = ""
                if p["answered_questions"]:
                    answer = _quoted(p["answered_questions"][-1].get("answer", ""))
                    unmatched = (
                        f"Your answer '{answer}' did not point to exactly one of them: give "
                        "the registry number, the entity id, the country or its place in the "
                        "list ('the second'). "
                    )
                return AskHuman(
                    question=(
                        f"{unmatched}Several registry entities match "
                        f"'{_quoted(case['subject'])}'{elsewhere}. Which one is the subject? "
                        "Candidates: "
                        + "; ".join(f"{n}. {label}" for n, label in enumerate(labels, start=1))
                        + "."
                        + _born_as_documents_say(p, candidates)
                        + _living_where_documents_say(p, candidates)
                        + _numbered_as_documents_say(p, candidates)
                        + _attach_a_certificate(candidates)
                        + " If none of them is, say 'none of them': the research goes on "
                        f"without a registry match. If the subject's {correctable} is wrong, "
                        "correct it with 'Correct the subject' on the case page."
                    ),
                    blocking=True,
                    candidates=labels,
                )
            answered = p["answered_questions"]
            if len(candidates) == 1 and (not answered or answered[-1].get("unclear")):
                # Only a part of the name matched, or only outside the case's country, or
                # only a sanctions list links the name to it: the analyst confirms it, asked
                # again after an answer that says neither yes nor no.
                linked = linked_list_entry(candidates[0])
                unclear = ""
                if answered:
                    answer = _quoted(answered[-1].get("answer", ""))
                    unclear = f"Your answer '{answer}' said neither yes nor no. "
                return AskHuman(
                    question=unclear
                    + (
                        _linked_question(p, candidates[0], linked)
                        if linked
                        else _nearest_question(case, candidates[0], _listed_by_name(p))
                    )
                    + _numbered_as_documents_say(p, candidates),
                    blocking=True,
                    candidates=[candidate_label(candidates[0])],
                )
            other_type_matches = p.get("other_type_matches") or []
            if not candidates and other_type_matches and not p["answered_questions"]:
                # The case's subject type may be wrong: only the analyst can correct it.
                return AskHuman(question=_other_type_question(case, other_type_matches))
            gaps.append(
                _unmatched_gap(case, other_type_matches, p["answered_questions"], candidates)
            )

        entity_id = selected["entity_id"] if selected else None
        subject_name = selected["name"] if selected else case["subject"]
        args = {"entity_id": entity_id} if entity_id else {"name": subject_name}
        if (
            "screen_sanctions" not in done
            and failures.get("screen_sanctions", 0) < 2
            and not _denied(p, "screen_sanctions", args)
        ):
            return _call("screen_sanctions", args, "Screen the subject and its aliases.")
        if "screen_sanctions" not in done:
            gaps.append("Sanctions screening could not be completed.")
        args = _without_none(query=subject_name, entity_id=entity_id)
        if (
            "search_adverse_media" not in done
            and failures.get("search_adverse_media", 0) < 2
            and not _denied(p, "search_adverse_media", args)
        ):
            return _call("search_adverse_media", args, "Look for adverse media about the subject.")
        if "search_adverse_media" not in done:
            gaps.append("Adverse media search could not be completed.")
        elif by_name := _person_name_search(p, selected, subject_name, offered, failures):
            return by_name
        if by_name := _by_name(p, DIRECTOR_STEPS, offered, failures):
            return by_name
        for company_key, tool, arguments, why in COMPANY_STEPS:
            for company in p.get(company_key, []):
                args = arguments(company)
                if _ruled_out(p, offered, failures, tool, args):
                    continue  # the runtime names each company left out in the packet's gaps
                held = HeldDirectorship.model_validate(company)
                return _call(tool, args, why.format(directed_by_the_subject(held)))
        if reading := _next_document(p, failures):
            return reading
        if wider := _namesakes_born_when_documents_say(p, failures):
            return wider
        if by_name := _by_name(p, DECLARED_BUSINESS_STEPS, offered, failures):
            return by_name
        if by_name := _by_name(p, CODIRECTOR_STEPS, offered, failures):
            return by_name
        if p.get("documents_about_namesake_companies") and selected:
            return AskHuman(question=_namesake_company_question(p, selected), blocking=True)
        if p.get("documents_about_others"):
            question = _document_about_another_question(p, selected, subject_name)
            return AskHuman(question=question, blocking=True)
        reviews = p.get("packet_reviews", [])
        if reviews and not reviews[-1]["reply"]:
            # This question takes an iteration; reading a document and finishing, two more.
            left = p["remaining"]["iterations"] - 1
            question = _sent_back_question(reviews[-1]["reason"], left)
            return AskHuman(question=question, blocking=True)
        return Finish(packet=draft_packet(p, subject_name, gaps))


def _next_document(p: dict[str, Any], failures: dict[str, int]) -> CallTool | None:
    """The extraction of the next attached document nobody read, denied or failed twice
    to read (the runtime names every unread document in the packet's gaps)."""
    done = set(p["completed_steps"])
    for document in p["case"]["documents"]:
        if f"extract:{document['document_id']}" in done:
            continue
        blocked = _denied(p, "extract_uploaded_document", {"document_id": document["document_id"]})
        if blocked or failures.get("extract_uploaded_document", 0) >= 2:
            continue
        return _call(
            "extract_uploaded_document",
            {"document_id": document["document_id"]},
            f"Read the attached document {document['name']}.",
        )
    return None


def _resolution_of(p: dict[str, Any], candidate: dict[str, Any], why: str) -> CallTool | None:
    """The resolution of a candidate by its name, country and type, unless already run."""
    args = _without_none(
        name=candidate["name"],
        jurisdiction=candidate["jurisdiction"],
        entity_type=candidate["entity_type"],
    )
    if _already_tried(p, "resolve_entity", args):
        return None
    return _call("resolve_entity", args, f"Resolve the candidate {why}.")


def _namesake_company_question(p: dict[str, Any], selected: dict[str, Any]) -> str:
    """Whether the client is the other company of the subject's name that a document is
    about: only the analyst can correct the case, and only before it is signed off."""
    document = p["documents_about_namesake_companies"][0]
    label = _quoted(document["source_label"])
    return (
        f"The case was matched to {candidate_label(selected)}, but the "
        f"{label[:1].lower()}{label[1:]} is about {_quoted(document['company'])}: "
        "another company of the subject's name. If the client is that company, correct the "
        "subject's name or country with 'Correct the subject' on the case page (this run is "
        "cancelled and a new one researches it). If not, say why the document was supplied: "
        "your answer goes into the packet."
    )


def _document_about_another_question(
    p: dict[str, Any], selected: dict[str, Any] | None, subject_name: str
) -> str:
    """Why a document about another company or person was supplied: only the analyst who
    attached it knows (a parent company's, the wrong file), and a reviewer needs the reason
    to sign off."""
    document = p["documents_about_others"][0]
    label = _quoted(document["source_label"])
    about = _quoted(document["about"])
    subject_kind = "person" if selected and selected.get("entity_type") == "person" else "company"
    if not selected:
        whose, example = f"not {_quoted(subject_name)}, the case's subject", "a relative's"
    elif subject_kind == "person" and document["kind"] == "company":
        whose = (
            f"a company that does not name {candidate_label(selected)} and that they are not "
            "on record as directing"
        )
        example = "a company they have a stake in"
    else:
        whose = f"not {candidate_label(selected)}, the {subject_kind} the case was matched to"
        example = "a related company's" if subject_kind == "company" else "a relative's"
    return (
        f"The {label[:1].lower()}{label[1:]} is about {about}, {whose}, so none of its facts "
        f"were used. Say why it was supplied ({example}, say, or the wrong file): your answer "
        f"goes into the packet. If the client is {about}, correct the subject with 'Correct "
        "the subject' on the case page instead (this run is cancelled and a new one "
        "researches it)."
    )


def _named_by_documents(
    p: dict[str, Any], candidates: list[dict[str, Any]]
) -> dict[str, Any] | None:
    named = p.get("candidate_named_by_documents") or {}
    return next((c for c in candidates if c["entity_id"] == named.get("entity_id")), None)


def _attach_a_certificate(candidates: list[dict[str, Any]]) -> str:
    """For companies, how the analyst's own paperwork can answer: its company number (a
    registry person has none)."""
    if not any(c.get("registration_number") for c in candidates):
        return ""
    return (
        " Or attach a document giving the client's company number (a certificate or a "
        "registry extract) on the case page and say so here: the number tells them apart."
    )


def _given_by(names: list[str], several: str) -> str:
    """ "The uploaded document “kyc.txt” gives", or `several` when more than one does."""
    return f"The uploaded document “{_quoted(names[0])}” gives" if len(names) == 1 else several


def _of_candidates(numbers: list[str], none: str, one: str, several: str) -> str:
    """The words for the candidates `numbers` (their places in the question's list)."""
    if not numbers:
        return none
    return one.format(numbers[0]) if len(numbers) == 1 else several.format(listed(numbers, "and"))


def _born_as_documents_say(p: dict[str, Any], candidates: list[dict[str, Any]]) -> str:
    """Which of the numbered `candidates` was born in the year the subject's own documents
    give, when they give one."""
    return _as_documents_say(
        p.get("birth_years_in_documents") or {},
        candidates,
        "The subject's own documents give",
        lambda year: f"a date of birth in {year}",
        lambda candidate, year: str(candidate.get("born_year")) == year,
        ("none of them was", "only candidate {} was", "candidates {} were"),
        "born that year",
    )


def _living_where_documents_say(p: dict[str, Any], candidates: list[dict[str, Any]]) -> str:
    """Which of the numbered `candidates` is on record in the country the subject's own
    documents say they live in, when they give one."""
    return _as_documents_say(
        p.get("home_countries_in_documents") or {},
        candidates,
        "The uploaded documents give",
        lambda code: f"the subject's country of residence as {country_words(code)}",
        lambda candidate, code: candidate.get("jurisdiction") == code,
        ("none of them is", "only candidate {} is", "candidates {} are"),
        "on record there",
    )


def _as_documents_say(
    said: dict[str, list[str]],
    candidates: list[dict[str, Any]],
    several: str,
    gives: Callable[[str], str],
    fits: Callable[[dict[str, Any], str], bool],
    whom: tuple[str, str, str],
    what: str,
) -> str:
    """A sentence on which of the numbered `candidates` fit the one value the subject's own
    documents give (`said`: value -> the documents' names), when they agree on one."""
    if len(said) != 1:
        return ""  # none, or they disagree: a conflict once the subject is matched
    ((value, names),) = said.items()
    fitting = [str(n) for n, c in enumerate(candidates, start=1) if fits(c, value)]
    then = _of_candidates(fitting, *(f"{words} {what}" for words in whom))
    return f" {_given_by(names, several)} {gives(value)}: {then}."


MAX_OTHER_NUMBERS_SAID = 3  # company numbers in documents that are no candidate's


def _numbered_as_documents_say(p: dict[str, Any], candidates: list[dict[str, Any]]) -> str:
    """Whose of the numbered `candidates` each company number the documents read give is,
    when no one candidate is named by them (else the run resolved it without asking). A
    group's chart may list dozens: those that are no candidate's are said together."""
    none_of_them = "which is not its" if len(candidates) == 1 else "which is none of theirs"
    sentences, of_none = [], []
    for number, names in (p.get("company_numbers_in_documents") or {}).items():
        theirs = [
            str(n)
            for n, c in enumerate(candidates, start=1)
            if is_registration_number(number, c.get("registration_number"))
        ]
        if not theirs:
            of_none.append((number, names))
            continue
        whose = "which is its" if len(candidates) == 1 else None
        whose = whose or _of_candidates(theirs, "", "that of candidate {}", "that of candidates {}")
        given = _given_by(names, "The uploaded documents give")
        sentences.append(f" {given} company number {_quoted(number)}, {whose}.")
    if len(of_none) == 1:
        ((number, names),) = of_none
        given = _given_by(names, "The uploaded documents give")
        sentences.append(f" {given} company number {_quoted(number)}, {none_of_them}.")
    elif of_none:
        numbers = [_quoted(number) for number, _ in of_none[:MAX_OTHER_NUMBERS_SAID]]
        if more := len(of_none) - len(numbers):
            numbers.append(f"{more} more")
        which = "not its" if len(candidates) == 1 else "none of theirs"
        also = " also" if sentences else ""
        sentences.append(
            f" The uploaded documents{also} give company numbers {listed(numbers, 'and')}, {which}."
        )
    return "".join(sentences)


def _person_name_search(
    p: dict[str, Any],
    selected: dict[str, Any] | None,
    name: str,
    offered: frozenset[str] | None,
    failures: dict[str, int],
) -> CallTool | None:
    """A person matched to a registry record is searched by name too: a search by the
    record's id finds only the articles linked to it, not one naming them that is linked to
    a company they direct (or to nothing)."""
    if selected is None or selected.get("entity_type") != "person":
        return None
    args = {"query": name}
    if _already_tried(p, "search_adverse_media", args) or _ruled_out(
        p, offered, failures, "search_adverse_media", args
    ):
        return None
    return _call(
        "search_adverse_media",
        args,
        "Look for adverse media naming the subject, beyond the articles linked to their "
        "registry record.",
    )


# What is done for each director of a company subject, by name: (projection key, tool, the
# argument the name goes in, whether the tool takes the name, why).
DIRECTOR_STEPS = (
    (
        "directors_to_screen",
        "screen_sanctions",
        "name",
        screenable,
        "Screen {}, a director of the subject, by name.",
    ),
    (
        "directors_to_search",
        "search_adverse_media",
        "query",
        searchable,
        "Look for adverse media about {}, a director of the subject.",
    ),
    (
        "owners_to_screen",
        "screen_sanctions",
        "name",
        screenable,
        "Screen {}, a beneficial owner of the subject, by name.",
    ),
    (
        "owners_to_search",
        "search_adverse_media",
        "query",
        searchable,
        "Look for adverse media about {}, a beneficial owner of the subject.",
    ),
)

# Once the documents are read: the businesses their declared sources of wealth or funds
# name, by name.
DECLARED_BUSINESS_STEPS = (
    (
        "businesses_to_screen",
        "screen_sanctions",
        "name",
        screenable,
        "Screen {}, a business the subject's declared source of wealth or funds names.",
    ),
    (
        "businesses_to_search",
        "search_adverse_media",
        "query",
        searchable,
        "Look for adverse media about {}, a business the subject's declared source of "
        "wealth or funds names.",
    ),
    (
        "businesses_to_look_up",
        "resolve_entity",
        "name",
        screenable,
        "Look up {}, a business the subject's declared source of wealth or funds names, in "
        "the company registry.",
    ),
)

# Last of all, once the subject's own companies and documents are researched: the other
# directors of the companies a person subject directs, by name.
CODIRECTOR_STEPS = (
    (
        "codirectors_to_screen",
        "screen_sanctions",
        "name",
        screenable,
        "Screen {}, who sits on the board of a company the subject directs, by name.",
    ),
    (
        "codirectors_to_search",
        "search_adverse_media",
        "query",
        searchable,
        "Look for adverse media about {}, who sits on the board of a company the subject directs.",
    ),
)

# What is done for each company a person subject directs: (projection key, tool, its
# arguments for the company, why).
COMPANY_STEPS = (
    (
        "companies_to_screen",
        "screen_sanctions",
        lambda company: {"entity_id": company["entity_id"]},
        "Screen {}.",
    ),
    (
        "companies_to_search",
        "search_adverse_media",
        lambda company: {"query": company["name"], "entity_id": company["entity_id"]},
        "Look for adverse media about {}.",
    ),
)


def _sent_back_question(reason: str, iterations_left: int) -> str:
    """A rule-based procedure cannot act on a reviewer's written request: every check it has
    is done, so the analyst answers the reviewer (and attaches what was asked for)."""
    reason = _quoted(reason)
    said = f"“{reason}”" if reason.strip() else "no reason given"
    question = (
        f"A reviewer sent the packet back ({said}). The playbook has run every check it has "
        "for this case and cannot act on a written request. If the reviewer asked for a "
        "document, attach it to the case first; then reply here for the reviewer. The "
        "packet goes back to them with your reply. If the subject itself is wrong (another "
        "entity, name or country), use 'Correct the subject' on the case page instead: it "
        "cancels this run and researches the corrected subject afresh."
    )
    if iterations_left == 1:
        question += (
            " Note: the run has one iteration left, enough to send the packet back but not to "
            "read a document first: a document needs a reviewer to extend the run's budget."
        )
    elif iterations_left <= 0:
        question += (
            " Note: the run has no iterations left: after your reply it stops for a reviewer "
            "to extend its budget before the packet can go back."
        )
    return question


def _resolution_beyond_the_case_country(
    p: dict[str, Any], candidates: list[dict[str, Any]], failures: dict[str, int]
) -> CallTool | None:
    """When nothing registered in the case's country matches the subject closely, the
    subject resolved again anywhere: a case opened with the wrong country is then asked
    about with the entity registered elsewhere, instead of researched as unknown (and its
    directors or the companies it directs never looked at). Not when the search in the
    case's country left out no candidate registered elsewhere: searching everywhere would
    find the very same candidates."""
    case = p["case"]
    if not case["jurisdiction"] or p["answered_questions"]:
        return None
    if any(c["score"] >= STRONG_MATCH for c in candidates):
        return None
    if p.get("candidates_registered_elsewhere") == 0:
        return None
    args = _without_none(name=case["subject"], entity_type=case["subject_type"])
    if _already_tried(p, "resolve_entity", args) or failures.get("resolve_entity", 0) >= 2:
        return None
    return _call(
        "resolve_entity",
        args,
        f"Nothing registered in {case['jurisdiction']} matches the subject closely: look "
        "for it in other countries.",
    )


def _namesakes_born_when_documents_say(
    p: dict[str, Any], failures: dict[str, int]
) -> CallTool | None:
    """When the subject's own documents give another year of birth than the registry
    person they were matched to in the case's country, the subject's name resolved in every
    country: the packet then names the namesakes born in that year (birth_years). Not when
    the search in the case's country left out no one registered elsewhere."""
    case = p["case"]
    if case["subject_type"] != "person" or not case["jurisdiction"]:
        return None
    if p.get("candidates_registered_elsewhere") == 0:
        return None
    if not any(c["fact"] == BIRTH_YEAR_FACT and c["status"] == "open" for c in p["conflicts"]):
        return None
    args = _without_none(name=case["subject"], entity_type="person")
    if _already_tried(p, "resolve_entity", args) or failures.get("resolve_entity", 0) >= 2:
        return None
    return _call(
        "resolve_entity",
        args,
        "The subject's documents give another year of birth than the registry person they "
        "were matched to: look for namesakes registered in other countries.",
    )


def _subject_resolution(case: dict[str, Any]) -> dict[str, Any]:
    """The arguments of the first search for the subject: in the case's terms."""
    return _without_none(
        name=case["subject"], jurisdiction=case["jurisdiction"], entity_type=case["subject_type"]
    )


def _none_closely_in(case: dict[str, Any], candidates: list[dict[str, Any]]) -> str:
    """What a question on several candidates adds when none registered in the case's
    country matches closely: the analyst may have given the case the wrong country."""
    country = case["jurisdiction"]
    if not country or any(
        c["jurisdiction"] == country and c["score"] >= STRONG_MATCH for c in candidates
    ):
        return ""
    return f", but none registered in {country}, the case's country, matches closely"


def _listed_by_name(p: dict[str, Any]) -> list[str]:
    """The companies whose records list a director by a person subject's name, while it
    matches no registry person ("Harrow Bay Freight Ltd (GB)")."""
    return [
        f"{c['name']} ({c['jurisdiction']})"
        for c in p.get("companies_to_screen", [])
        if c.get("listed_as")
    ]


def _nearest_question(
    case: dict[str, Any], nearest: dict[str, Any], listed_by_name: list[str] = ()
) -> str:
    """Whether the one candidate found, matching only partly, outside the case's country
    or with another legal form than the case gives, is the subject: the analyst confirms
    it, once. `listed_by_name`: companies whose records list a director of the subject's
    very name, which the research takes up if the candidate is not the subject."""
    subject = _quoted(case["subject"])
    country = case["jurisdiction"]
    correctable = "name or country" if country and nearest["jurisdiction"] != country else "name"
    if country and nearest["jurisdiction"] != country:
        outside = "the registry has" if nearest["score"] >= STRONG_MATCH else "the nearest is"
        found = (
            f"No registry entity in {country}, the case's country, matches '{subject}' "
            f"closely; outside it, {outside} {candidate_label(nearest)}."
        )
    elif nearest["score"] >= STRONG_MATCH and (
        lacking := min(
            (
                words_it_lacks(case["subject"], name)
                for name in (nearest["name"], nearest.get("matched_on"))
                if name
            ),
            key=len,
        )
    ):
        words = listed([f"'{_quoted(word)}'" for word in lacking], "and")
        found = (
            f"No registry entity is named '{subject}'; the nearest is "
            f"{candidate_label(nearest)}, which lacks {words}."
        )
    elif nearest["score"] >= STRONG_MATCH and legal_forms(case["subject"]):
        found = (
            f"No registry entity is named '{subject}' with that legal form; the nearest is "
            f"{candidate_label(nearest)}."
        )
    else:
        found = (
            f"No registry entity matches '{subject}' closely; the nearest is "
            f"{candidate_label(nearest)}."
        )
    taken_up = ""
    if listed_by_name:
        which = (
            "the company whose record lists"
            if len(listed_by_name) == 1
            else "the companies whose records list"
        )
        taken_up = (
            f", taking up {which} a director named '{subject}': {listed(listed_by_name, 'and')}"
        )
    return (
        f"{found} Is it the subject? If it is not, say so: the research goes on without a "
        f"registry match{taken_up}. If the subject's {correctable} is wrong, correct it with "
        "'Correct the subject' on the case page."
    )


def _linked_question(p: dict[str, Any], linked: dict[str, Any], list_entry: str) -> str:
    """Whether the registry entity a sanctions hit on the subject's name is linked to is
    the subject, when the registry matched nothing to the name: the analyst confirms it,
    once."""
    subject = _quoted(p["case"]["subject"])
    alias = _quoted(linked.get("listed_as") or p["case"]["subject"])
    listed_as = (
        f"'{alias}'"
        if linked["score"] >= 100
        else f"'{alias}', a name matching '{subject}' (score {linked['score']:g} of 100),"
    )
    return (
        f"No registry entity matches '{subject}', but {_sanctions_list(p, list_entry)} gives "
        f"{listed_as} as an alias of its entry {list_entry.removeprefix('sanctions:')}, "
        f"which it links to the registry's {candidate_label(linked)}. Is that "
        f"{linked['entity_type']} the subject? If it is, the research goes on with it, its "
        "directors included. If it is not, say so: the research goes on by name, without a "
        "registry match. If the subject's name is wrong, correct it with 'Correct the "
        "subject' on the case page."
    )


def _sanctions_list(p: dict[str, Any], list_entry: str) -> str:
    """The list a hit on the subject came from, as its evidence names it."""
    labels = [
        e["source_label"]
        for e in p["evidence"]
        if e["source_id"] == list_entry and not e.get("about") and e["source_label"]
    ]
    return f"the sanctions list {labels[0]}" if labels else "a sanctions list"


def _other_type_question(case: dict[str, Any], other_type_matches: list[str]) -> str:
    other = other_entity_type(case.get("subject_type"))
    return (
        f"No {case.get('subject_type') or 'entity'} named '{_quoted(case['subject'])}' is in the "
        f"registry, but a {other} is: {'; '.join(other_type_matches)}. If the case is about "
        f"a {other}, correct the case's subject type and research it again. Otherwise answer "
        "here, and the research goes on without a registry match."
    )


def _unmatched_gap(
    case: dict[str, Any],
    other_type_matches: list[str],
    answered: list[dict[str, Any]],
    candidates: list[dict[str, Any]],
) -> str:
    turned_down = [
        qa
        for qa in answered
        if qa.get("candidates") and not qa.get("picked_entity_id") and not qa.get("unclear")
    ]
    linked = [c for c in candidates if linked_list_entry(c)]
    if turned_down and linked and turned_down[-1]["candidates"] == candidate_label(linked[0]):
        alias = _quoted(linked[0].get("listed_as") or case["subject"])
        return (
            f"The analyst said the registry entity a sanctions list links its alias "
            f"'{alias}' to, {candidate_label(linked[0])}, is not the subject: the subject was "
            "researched by name only."
        )
    if turned_down:
        offered = turned_down[-1]["candidates"]
        which = (
            "none of the registry candidates offered is"
            if "; " in offered
            else f"the registry candidate offered, {offered}, is not"
        )
        return f"The analyst said {which} the subject: the subject was researched by name only."
    if candidates:
        gap = "The subject could not be matched to exactly one registry entity."
    else:
        kind = case.get("subject_type") or "company"
        gap = (
            f"No registry {kind} matches '{_quoted(case['subject'])}': the subject was "
            "researched by name only, and who it is was not confirmed."
        )
    if not other_type_matches:
        return gap
    other = other_entity_type(case.get("subject_type"))
    return (
        f"{gap} The registry has a {other} of that name: {'; '.join(other_type_matches)}. "
        f"If the case is about a {other}, correct its subject type and run it again."
    )


def _quoted(text: str) -> str:
    """What people wrote, as a question quotes it: without the characters a decision may
    not hold (a bidirectional override would make the question unusable), and bounded."""
    return clipped(UNSAFE_CHARACTERS.sub("", text), MAX_QUOTED)


def _by_name(
    p: dict[str, Any], steps: tuple, offered: frozenset[str] | None, failures: dict[str, int]
) -> CallTool | None:
    """The first of `steps` still to do for someone by name (a director, an owner)."""
    for names_key, tool, field, usable, why in steps:
        for name in p.get(names_key, []):
            args = {field: name}
            if not usable(name) or _ruled_out(p, offered, failures, tool, args):
                continue  # the runtime names each one left out in the packet's gaps
            return _call(tool, args, why.format(name))
    return None


def _call(tool: str, arguments: dict[str, Any], why: str) -> CallTool:
    return CallTool(tool_name=tool, arguments=arguments, rationale_summary=why)


def _without_none(**kwargs: Any) -> dict[str, Any]:
    return {k: v for k, v in kwargs.items() if v is not None}


def _failure_counts(p: dict[str, Any]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for o in p["last_observations"]:
        if o["error_type"] == "policy_denied":
            continue  # denied actions are tracked exactly, by arguments, in denied_actions
        if not o["ok"] and (
            o["source"] in ("tool", "runtime") or o["error_type"] == "approval_denied"
        ):
            counts[o["name"]] = counts.get(o["name"], 0) + 1
    return counts


def _ruled_out(
    p: dict[str, Any],
    offered: frozenset[str] | None,
    failures: dict[str, int],
    tool: str,
    args: dict[str, Any],
) -> bool:
    """Whether a call is not worth proposing: its tool is not offered now, the same call
    was denied, or the tool has failed twice."""
    return (
        (offered is not None and tool not in offered)
        or _denied(p, tool, args)
        or failures.get(tool, 0) >= 2
    )


def _denied(p: dict[str, Any], tool: str, args: dict[str, Any]) -> bool:
    return any(d["tool"] == tool and d["arguments"] == args for d in p.get("denied_actions", []))


def _already_tried(p: dict[str, Any], tool: str, args: dict[str, Any]) -> bool:
    return any(a["tool"] == tool and a["arguments"] == args for a in p.get("executed_actions", []))


ON_THE_REGISTER = "on the register of politically exposed persons"


def _labelled_for_the_analyst(p: dict[str, Any], candidate: dict[str, Any]) -> str:
    """`candidate_label`, saying when the candidate is on the register of politically
    exposed persons (its registry record or a screen says so): an analyst choosing between
    namesakes knows which one a pick makes the subject."""
    if not _on_the_register(p, candidate["entity_id"]):
        return candidate_label(candidate)
    details = ", ".join(filter(None, [candidate.get("details"), ON_THE_REGISTER]))
    return candidate_label({**candidate, "details": details})


def _on_the_register(p: dict[str, Any], entity_id: str) -> bool:
    sources = (f"registry:{entity_id}", f"pep:{entity_id}")
    return any(e["source_id"] in sources and Signal.PEP in e["signals"] for e in p["evidence"])


def _claim(e: dict[str, Any], namesake: str = "", declined: bool = False) -> str:
    """An evidence item's claim, naming whom an article is about when it was found on
    someone other than the subject (the other claims name it themselves), and the
    `namesake` candidate it is about instead of the subject, if one (`declined`: one the
    analyst turned down)."""
    if namesake:
        return f"{e['claim']} (about {namesake}, {_not_the_subject(declined)})"
    if e.get("about") and e["source_id"].startswith("article:"):
        return f"{e['claim']} (on {e['about']})"
    return e["claim"]


def _as_settled(p: dict[str, Any]) -> Callable[[str], str]:
    """The packet's texts reworded for the directors conflicts: nobody only a set-aside
    source names is called a director, nor anyone only some sources of an open conflict
    name."""
    conflicts = (
        ([v["value"] for v in c["values"]], c.get("resolution"), c["status"])
        for c in p["conflicts"]
        if c["fact"] == "directors"
    )
    return as_settled_by(conflicts, (e.get("about") or "" for e in p["evidence"]))


# How the packet names a registry entity an article found by the subject's name is about.
ANOTHER_ENTITY = "linked only to other registry entities, not the subject"
# How the packet names a registry candidate for the subject other than its matched entity.
NOT_THE_SUBJECT = "another registry candidate of the same name, not the subject"
OTHERS_NOT_THE_SUBJECT = "other registry candidates of the same name, none of them the subject"


def _not_the_subject(declined: bool, many: bool = False) -> str:
    """How the packet says a candidate is not the subject: matched to another entity, or
    turned down by the analyst (whose answer is all that says so)."""
    if declined:
        if many:
            return "registry candidates the analyst said are not the subject"
        return "a registry candidate the analyst said is not the subject"
    return OTHERS_NOT_THE_SUBJECT if many else NOT_THE_SUBJECT


def _declined(p: dict[str, Any]) -> bool:
    """Whether the analyst said the registry candidates offered are not the subject."""
    return turned_down(p["selected_entity"], p["answered_questions"])


def _namesake_candidates(p: dict[str, Any]) -> dict[str, str]:
    """Evidence id -> the namesake candidate (in words) each register match about a
    registry candidate other than the subject's matched entity is about."""
    selected = p["selected_entity"]
    declined = _declined(p)
    if selected is None and not declined:
        return {}
    known = {c["entity_id"] for c in p["entity_candidates"]}
    namesakes = {}
    for e in p["evidence"]:
        if e["class"] not in ("pep", "adverse_media") or e.get("about"):
            continue
        if "candidate_id" in e:
            candidate_id = other_candidate_id(e, selected, declined)
        elif selected is None:
            continue
        else:
            # A projection without candidate ids: the register names its person by id.
            person = e["source_id"].removeprefix("pep:")
            candidate_id = person if person in known - {selected["entity_id"]} else ""
        if candidate_id:
            words = candidate_words(candidate_id, p["entity_candidates"], p["evidence"])
            namesakes[e["evidence_id"]] = words
    return namesakes


def _hits_linked_to_the_declined(p: dict[str, Any], hits: list[dict[str, Any]]) -> str:
    """Said of name-level hits whose lists link their entries to a registry candidate the
    analyst turned down: they stand until a reviewer marks them, and the reviewer should
    know what the list says."""
    if not _declined(p):
        return ""
    turned_down = {c["entity_id"] for c in p["entity_candidates"]} | {
        e["candidate_id"] for e in p["evidence"] if e.get("candidate_id")
    }
    linked = [h for h in hits if h.get("linked_entity_id") in turned_down]
    if not linked:
        return ""
    names = list(
        dict.fromkeys(
            candidate_words(h["linked_entity_id"], p["entity_candidates"], p["evidence"])
            for h in linked
        )
    )
    one = len({h["source_id"] for h in linked}) == 1
    return (
        f" The lists link the {'entry' if one else 'entries'} hit to {listed(names, 'and')}, "
        f"{_not_the_subject(True, len(names) > 1)}: a reviewer marks "
        f"{'it' if one else 'each'} as a confirmed match or a false positive."
    )


def _hits_linked_elsewhere(p: dict[str, Any], hits: list[dict[str, Any]]) -> str:
    """Said of hits on the subject whose lists link their entries to another registry
    entity than the one the subject was matched to: possibly a namesake's."""
    return _subject_matches_elsewhere(
        p,
        hits,
        lambda one: (
            f"The list{'' if one else 's'} link{'s' if one else ''} the "
            f"{'entry' if one else 'entries'} hit to"
        ),
    )


def _register_match_elsewhere(
    p: dict[str, Any], relevant: list[dict[str, Any]], namesakes: dict[str, str]
) -> str:
    """Said of matches on the register of politically exposed persons about the subject
    whose person is another registry entity than the subject's match (and no candidate
    for the subject: those are named as namesakes already)."""
    matches = [e for e in relevant if e["class"] == "pep" and e["evidence_id"] not in namesakes]
    return _subject_matches_elsewhere(
        p,
        matches,
        lambda one: (
            f"The register's {'entry' if one else 'entries'} matched {'is' if one else 'are'}"
        ),
    )


def _subject_matches_elsewhere(
    p: dict[str, Any], matches: list[dict[str, Any]], opening: Callable[[bool], str]
) -> str:
    """The sentence on those of `matches` on the subject that name another registry entity
    than the subject's match, `opening(one)` naming what they are; "" for none."""
    selected = p["selected_entity"]
    elsewhere = [e for e in matches if not e.get("about") and e.get("possible_namesake")]
    if selected is None or not elsewhere:
        return ""
    ids = listed(list(dict.fromkeys(e["linked_entity_id"] for e in elsewhere)), "and")
    matched = candidate_words(selected["entity_id"], p["entity_candidates"], p["evidence"])
    one = len(elsewhere) == 1
    return (
        f" {opening(one)} another registry entity ({ids}) than {matched}, the one the subject "
        f"was matched to: {'it' if one else 'each'} may be a namesake's, {FOR_A_REVIEWER}."
    )


def _director_hits_elsewhere(p: dict[str, Any], hits: list[dict[str, Any]]) -> str:
    """Said of hits on directors of the subject company, or co-directors of a person
    subject, whose listed person's registry record does not list the company among those
    they direct: possibly a namesake's."""
    flagged = [h for h in hits if h.get("about") and h.get("possible_namesake")]
    if not flagged:
        return ""
    whom = listed(list(dict.fromkeys(h["about"] for h in flagged)), "and")
    selected = p["selected_entity"]
    # A co-director's hit names the company; a director's is the subject company's.
    board = "that company"
    if selected is not None and selected["entity_type"] == "company":
        board = selected["name"]
    return (
        f" The person the list means by the {'hit' if len(flagged) == 1 else 'hits'} on "
        f"{whom} is not recorded as a director of {board}: it may be a namesake's, "
        f"{FOR_A_REVIEWER}."
    )


def _register_matches(
    relevant: list[dict[str, Any]], namesakes: dict[str, str], declined: bool = False
) -> str:
    """What the register of politically exposed persons matched, said after the sanctions
    result: whom among the subject and the people screened with it, then any namesake
    candidate, named as not the subject."""
    matches = [e for e in relevant if e["class"] == "pep"]
    own = [e for e in matches if e["evidence_id"] not in namesakes]
    others = list(dict.fromkeys(namesakes[e["evidence_id"]] for e in matches if e not in own))
    said = ""
    if pep_matched := list(dict.fromkeys(e.get("about") or "the subject" for e in own)):
        said = f" The register of politically exposed persons matches {listed(pep_matched)}."
    elif not others and any(e["class"] == "sanctions" for e in relevant):
        # Every screening also checks that register: an analyst signs for both.
        said = " Nobody screened is on the register of politically exposed persons."
    if others:
        also = "It also matches" if own else "The register of politically exposed persons matches"
        said += f" {also} {listed(others)}, {_not_the_subject(declined, len(others) > 1)}."
    return said


def sanctions_summary(screenings: list[dict[str, Any]], by_name: bool = False) -> str:
    """Who was screened and whom any hit is on, in a sentence or two; each hit's detail is
    in its finding. `by_name`: no registry record identifies the subject, so a hit on it is
    on its name."""
    if not screenings:
        return "Not screened."
    # Whom -> the list entries hit, each once: a subject screened by name and then by its
    # registry entity hits the same entry twice.
    hits: dict[str, dict[str, str]] = {}
    cleared: list[str] = []
    for e in screenings:
        whom = e.get("about") or "the subject"
        if Signal.SANCTIONS_HIT in e["signals"]:
            hits.setdefault(whom, {})[e["source_id"]] = e.get("source_label") or e["source_id"]
        elif whom not in cleared:
            cleared.append(whom)
    if not hits:
        summary = screenings[0]["claim"]
        directors = [
            whom for whom in cleared if whom.startswith((AS_DIRECTOR, AS_OWNER, AS_CODIRECTOR))
        ]
        companies = [whom for whom in cleared if whom not in directors and whom != "the subject"]
        if directors:
            summary += f" No hits either for {listed(directors, 'or')}, screened by name."
        if companies:
            summary += f" No hits either for {listed(companies, 'or')}."
        return summary
    count = sum(len(lists) for lists in hits.values())
    summary = f"{counted(count, 'sanctions hit')}: " + "; ".join(
        f"on {_the_subjects_name(whom, by_name)} ({', '.join(lists.values())})"
        for whom, lists in hits.items()
    )
    cleared = [_the_subjects_name(whom, by_name) for whom in cleared if whom not in hits]
    return summary + (f". No hits for {listed(cleared, 'or')}." if cleared else ".")


def _the_subjects_name(whom: str, by_name: bool) -> str:
    return "the subject's name" if by_name and whom == "the subject" else whom


def draft_packet(p: dict[str, Any], subject_name: str, gaps: list[str]) -> DueDiligencePacket:
    """A cited packet drafted from a state projection (also the runtime's partial packet)."""
    evidence = p["evidence"]
    selected = p["selected_entity"]
    entity_id = selected["entity_id"] if selected else None
    relevant = [
        e
        for e in evidence
        if e["class"] != "registry"
        or (entity_id is None and not other_candidate_id(e, selected, _declined(p)))
        or e["source_id"] == f"registry:{entity_id}"
        # What the registry says of a business the subject's money is declared to come from.
        or e.get("about", "").startswith(DECLARED_ROLES)
    ]
    namesakes = _namesake_candidates(p)
    # Articles found by the name about another registry entity: named so, not the subject's.
    elsewhere = {
        e["evidence_id"]: e["about_another_entity"]
        for e in relevant
        if e.get("about_another_entity")
    }
    hits = [e for e in relevant if Signal.SANCTIONS_HIT in e["signals"]]
    adverse = [
        e
        for e in relevant
        if e["class"] == "adverse_media"
        and Signal.ADVERSE in e["signals"]
        and e["evidence_id"] not in namesakes
        and e["evidence_id"] not in elsewhere
    ]
    pep = [e for e in relevant if Signal.PEP in e["signals"] and e["evidence_id"] not in namesakes]
    open_conflicts = [c for c in p["conflicts"] if c["status"] != "resolved"]
    if hits:
        risk = "high"
    elif (
        adverse
        or pep
        or any(Signal.ANOTHER_COMPANY in e["signals"] for e in relevant)
        or any(Signal.ANOTHER_PERSON in e["signals"] for e in relevant)
        # Text trying to instruct the agent wants this very packet approved: a person weighs it.
        or any(Signal.INSTRUCTIONS in e["signals"] for e in evidence)
        or open_conflicts
        or selected is None
        or p.get("directors_to_screen")
        or p.get("directors_to_search")
        or p.get("companies_to_screen")
        or p.get("companies_to_search")
        or p.get("owners_to_screen")
        or p.get("owners_to_search")
        or p.get("codirectors_to_screen")
        or p.get("codirectors_to_search")
        or p.get("businesses_to_screen")
        or p.get("businesses_to_search")
        or p.get("businesses_to_look_up")
        or p.get("in_high_risk_jurisdictions")
        or p.get("documents_with_unread_owners")
        or "search_adverse_media" not in p["completed_steps"]
    ):
        # Unmatched, the subject was screened by name only; with a director unresearched, not
        # everyone was screened; with no media search, nobody looked: none is enough to
        # call it low.
        risk = "medium"
    else:
        risk = "low"
    findings = [
        Finding(
            # A source written as instructions to an AI agent says so wherever it is cited.
            claim=(SUSPECT_SOURCE if Signal.INSTRUCTIONS in e["signals"] else "")
            + (
                f"{e['claim']} (about {elsewhere[e['evidence_id']]}: {ANOTHER_ENTITY})"
                if e["evidence_id"] in elsewhere
                else _claim(e, namesakes.get(e["evidence_id"], ""), _declined(p))
            ),
            evidence_ids=[e["evidence_id"]],
        )
        for e in relevant
    ]
    sanctions_result = sanctions_summary(
        [e for e in relevant if e["class"] == "sanctions"], by_name=selected is None
    )
    sanctions_result += _hits_linked_to_the_declined(p, hits)
    sanctions_result += _hits_linked_elsewhere(p, hits)
    sanctions_result += _director_hits_elsewhere(p, hits)
    sanctions_result += _register_matches(relevant, namesakes, _declined(p))
    sanctions_result += _register_match_elsewhere(p, relevant, namesakes)
    articles = [e for e in relevant if e["source_id"].startswith("article:")]
    media = [e for e in articles if e["evidence_id"] not in namesakes | elsewhere.keys()]
    # A source written as instructions to an AI agent is named apart: it is weighed by a
    # person, not relied on like the others.
    suspect = [e for e in adverse if Signal.INSTRUCTIONS in e["signals"]]
    relied_on = [e for e in adverse if e not in suspect]
    if adverse:
        media_summary = (
            f"{counted(len(relied_on), 'adverse article')}: "
            + "; ".join(_claim(e) for e in relied_on)
            + "."
            if relied_on
            else "No adverse article from a source relied on."
        )
        if suspect:
            media_summary += (
                f" Also {counted(len(suspect), 'adverse article')} from a suspect source, "
                "written as instructions to an AI agent (not followed; weigh it "
                "accordingly): " + "; ".join(_claim(e) for e in suspect) + "."
            )
    elif media:
        media_summary = f"{counted(len(media), 'article')} found, none adverse."
    elif "search_adverse_media" in p["completed_steps"]:
        media_summary = "No adverse media found."
    else:
        media_summary = "Not searched."
    if others := [e for e in articles if e["evidence_id"] in namesakes]:
        names = list(dict.fromkeys(namesakes[e["evidence_id"]] for e in others))
        which = _not_the_subject(_declined(p), len(names) > 1)
        if media_summary == "No adverse media found.":
            media_summary = "No adverse media found about the subject."
        media_summary += (
            f" {counted(len(others), 'article')} found {'is' if len(others) == 1 else 'are'} "
            f"about {listed(names, 'and')}, {which}."
        )
    if away := [e for e in articles if e["evidence_id"] in elsewhere]:
        if media_summary == "No adverse media found.":
            media_summary = "No adverse media found about the subject."
        names = list(dict.fromkeys(elsewhere[e["evidence_id"]] for e in away))
        media_summary += (
            f" {counted(len(away), 'article')} found by the name alone "
            f"{'is' if len(away) == 1 else 'are'} about {listed(names, 'and')}: "
            f"{ANOTHER_ENTITY}."
        )
    settled = _as_settled(p)
    return DueDiligencePacket(
        subject=p["case"]["subject"],
        selected_entity=f"{selected['name']} [{entity_id}]" if selected else None,
        risk_rating=risk,
        findings=[Finding(claim=settled(f.claim), evidence_ids=f.evidence_ids) for f in findings],
        sanctions_result=settled(sanctions_result),
        adverse_media_summary=settled(media_summary),
        unresolved_conflicts=[
            PacketConflict(
                conflict_id=c["conflict_id"],
                fact=c["fact"],
                status=c["status"],
                values=[
                    PacketConflictValue(value=v["value"], source_id=v["source_id"])
                    for v in c["values"]
                ],
            )
            for c in open_conflicts
        ],
        open_gaps=gaps
        + [
            unresolved_conflict_gap(c["fact"], c.get("about", ""), c["status"])
            for c in open_conflicts
        ],
    )
