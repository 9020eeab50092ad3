"""The businesses a declared source of wealth or of funds names ("dividends from Kestrel
Foods Ltd"): each is screened against the sanctions lists and searched for in the news by
name, as a beneficial owner is, and looked up in the company registry. Money from a listed
or notorious business is the subject's exposure to it, however the document describes it;
a business no registry knows is the document's word alone."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from atlas.runtime.directors import director_key, directors, named_in, named_step, not_done
from atlas.runtime.directorships import directorships
from atlas.runtime.owners import owners
from atlas.runtime.result_words import candidate_line, company_record_words
from atlas.runtime.state import AtlasState, EvidenceItem, evidence_id_for
from atlas.runtime.tools.builtin import STRONG_MATCH
from atlas.runtime.tools.document_declarations import SOURCE_OF_FUNDS, SOURCE_OF_WEALTH
from atlas.runtime.tools.gateway import fingerprint
from atlas.runtime.world.normalize import legal_forms, normalize_name

# How a business screened or searched for this is named in the evidence, by the first
# declaration that names it.
AS_SOURCE = {
    SOURCE_OF_WEALTH: "source-of-wealth business ",
    SOURCE_OF_FUNDS: "source-of-funds business ",
}
DECLARED_ROLES = tuple(AS_SOURCE.values())
# Each is three steps: more would let one form spend the research budget.
MAX_RESEARCHED = 3
# The source of a look-up that found no one company: the registry's search itself.
REGISTRY_SEARCH = "registry-search:"


def business_step(name: str) -> str:
    """The completed step for screening one declared business."""
    return named_step("screen_declared", name)


def business_media_step(name: str) -> str:
    """The completed step for searching adverse media on one declared business."""
    return named_step("search_declared", name)


def business_lookup_step(name: str) -> str:
    """The completed step for looking one declared business up in the registry."""
    return named_step("look_up_declared", name)


def named_businesses(state: AtlasState) -> dict[str, str]:
    """name -> the declared field first naming it, for every business the declarations
    read in the run name, each once, but the subject itself, the companies it is known to
    direct (researched as such, by their registry records), and the subject company's
    directors and owners (researched as such)."""
    named: dict[str, tuple[str, str]] = {}
    for item in state.evidence:
        for name in item.businesses if item.declares else ():
            named.setdefault(normalize_name(name), (name, item.declares))
    if not named:
        return {}
    covered = {normalize_name(state.brief.subject)}
    if state.selected_entity is not None:
        covered.add(normalize_name(state.selected_entity.name))
    covered |= {normalize_name(company.name) for company in directorships(state)}
    covered |= {normalize_name(name) for name in [*directors(state), *owners(state)]}
    named = {key: value for key, value in named.items() if key not in covered}
    return dict(named.values())


def declared_businesses(state: AtlasState) -> list[str]:
    """The declared businesses to research: the first MAX_RESEARCHED named."""
    return list(named_businesses(state))[:MAX_RESEARCHED]


def businesses_beyond_the_limit(state: AtlasState) -> list[str]:
    return list(named_businesses(state))[MAX_RESEARCHED:]


def as_declared_business(state: AtlasState, name: str) -> str:
    """`name` as the evidence about it names it: "source-of-wealth business Kestrel Foods
    Ltd"."""
    field = named_businesses(state).get(name, SOURCE_OF_WEALTH)
    return f"{AS_SOURCE[field]}{name}"


def unscreened_businesses(state: AtlasState) -> list[str]:
    return not_done(state, declared_businesses(state), business_step)


def unsearched_businesses(state: AtlasState) -> list[str]:
    return not_done(state, declared_businesses(state), business_media_step)


def unlooked_businesses(state: AtlasState) -> list[str]:
    return not_done(state, declared_businesses(state), business_lookup_step)


def unregistered_businesses(state: AtlasState) -> list[str]:
    """The declared businesses the registry found no one company for, as the evidence
    names them ("source-of-wealth business Northern Star Trading FZE")."""
    return [
        item.about
        for item in state.evidence
        if item.source_id.startswith(REGISTRY_SEARCH) and item.about
    ]


def looked_up_business(state: AtlasState, arguments: dict) -> str | None:
    """The declared business a registry look-up by name is for, if any."""
    if arguments.get("entity_type") == "person":
        return None
    return named_in(declared_businesses(state), arguments, "name")


def lookup_evidence(
    state: AtlasState, business: str, result: dict[str, Any], step: int, now: datetime
) -> EvidenceItem:
    """What the registry says of a declared business: its record, with whether it lists a
    person subject among its directors, when one company matches; else that none does, or
    that several do."""
    about = as_declared_business(state, business)
    companies = [c for c in result.get("candidates", []) if c["entity_type"] == "company"]
    strong = [c for c in companies if c["score"] >= STRONG_MATCH]
    # "Northwind Trading Ltd" is the Ltd, not the Pte Ltd or the LLC of that name.
    same_form = [c for c in strong if legal_forms(c["name"]) == legal_forms(business)]
    strong = same_form if len(same_form) == 1 else strong
    label, registered_in = "Company registry", ""
    if len(strong) == 1:
        record = strong[0]["record"]
        source_id = f"registry:{record['entity_id']}"
        registered_in = record["jurisdiction"]
        label = f"{label} ({registered_in})"
        claim = f"Registry record of the {about}: {company_record_words(record)}"
        claim += _subject_on_board(state, record)
    else:
        source_id = f"{REGISTRY_SEARCH}{normalize_name(business)}"
        claim = _not_one_company(about, strong, companies)
    fp = fingerprint({"declared_business": business, "registry": source_id})[:20]
    return EvidenceItem(
        evidence_id=evidence_id_for(fp),
        evidence_class="registry",
        source_id=source_id,
        source_label=label,
        tool="resolve_entity",
        retrieved_at=now,
        fingerprint=fp,
        claim=claim,
        step=step,
        about=about,
        registered_in=registered_in,
    )


def registered_businesses(state: AtlasState) -> list[tuple[str, str]]:
    """(as the evidence names it, country code) of each declared business the registry
    found one company for."""
    return [
        (item.about, item.registered_in)
        for item in state.evidence
        if item.registered_in and item.about.startswith(DECLARED_ROLES)
    ]


def _subject_on_board(state: AtlasState, record: dict[str, Any]) -> str:
    """For a person subject: whether the record lists them among its directors."""
    if state.brief.subject_type != "person":
        return ""
    subject = state.selected_entity.name if state.selected_entity else state.brief.subject
    listed = {director_key(name) for name in record.get("directors") or []}
    if director_key(subject) in listed:
        return f" It lists {subject} among its directors."
    return f" It does not list {subject} among its directors."


def _not_one_company(about: str, strong: list[dict], companies: list[dict]) -> str:
    if strong:
        named = "; ".join(candidate_line(c) for c in strong)
        return (
            f"The registry has {len(strong)} companies named like the {about}: {named}. "
            "Which one the document means, it does not say."
        )
    nearest = f" The nearest is {candidate_line(companies[0])}." if companies else ""
    return (
        f"The registry has no company named like the {about}: that it exists is the "
        f"document's word.{nearest}"
    )


def screened_business(state: AtlasState, arguments: dict) -> str | None:
    """The declared business a screen by name alone is for, if any."""
    return named_in(declared_businesses(state), arguments, "name")


def searched_business(state: AtlasState, arguments: dict) -> str | None:
    """The declared business a media search by query alone is for, if any."""
    return named_in(declared_businesses(state), arguments, "query")
