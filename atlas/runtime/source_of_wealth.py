"""Enhanced due diligence on a politically exposed person: where their wealth, and the
money for this relationship, come from. A document read in the run that declares either
is evidence of its own, cited as the document's word; a packet about a politically
exposed subject, or a company one directs or owns, says which of the two no document
declares."""

from __future__ import annotations

from collections.abc import Collection

from atlas.runtime.directors import AS_DIRECTOR
from atlas.runtime.owners import AS_OWNER
from atlas.runtime.rating_floor import about_the_subject
from atlas.runtime.redaction import redact
from atlas.runtime.state import AtlasState, EvidenceItem, Signal, evidence_id_for
from atlas.runtime.tools.business_names import businesses_declared
from atlas.runtime.tools.document_declarations import DECLARED_FIELDS
from atlas.runtime.tools.gateway import fingerprint
from atlas.runtime.wording import fact_words, listed

# Whose source of wealth the subject's diligence needs: the subject's own, and that of
# the people who run or own a company subject (not of a person subject's co-directors).
IN_CONTROL = {AS_DIRECTOR: "a director of", AS_OWNER: "a beneficial owner of"}


def declaration_evidence(
    document: EvidenceItem, fields: dict[str, list[str]]
) -> list[EvidenceItem]:
    """An evidence item for each source the document `document` was read from declares,
    its personal data redacted."""
    items = []
    for field in DECLARED_FIELDS:
        declared = " ".join(str(value) for value in fields.get(field) or [])
        if not declared.strip():
            continue
        fp = fingerprint({"declares": field, "document": document.source_id, "text": declared})[:20]
        items.append(
            document.model_copy(
                update={
                    "evidence_id": evidence_id_for(fp),
                    "fingerprint": fp,
                    "claim": (
                        f"{document.source_label} declares the {fact_words(field)}: "
                        f"“{redact(declared).rstrip('.')}”. Declared by the document, and "
                        "not verified against another source."
                    ),
                    "declares": field,
                    "businesses": businesses_declared(declared),
                    "directors_unread": False,
                    "owners_unread": False,
                    "copies": [],
                }
            )
        )
    return items


def source_of_wealth_gap(s: AtlasState, set_aside: Collection[str] = ()) -> str:
    """The packet's gap when a politically exposed subject, director or owner's source of
    wealth or of funds is declared by no document read; "" when none is missing. Matches
    whose evidence ids are in `set_aside` (marked false positives) are none."""
    exposed = politically_exposed(s, set_aside)
    declared = {item.declares for item in s.evidence if item.declares}
    missing = [fact_words(field) for field in DECLARED_FIELDS if field not in declared]
    if not exposed or not missing:
        return ""
    exposed_words = (
        "is a politically exposed person"
        if len(exposed) == 1
        else "are politically exposed persons"
    )
    who = f"{listed(exposed, 'and')} {exposed_words}"
    needs = "the source of wealth and the source of funds"
    if len(missing) == len(DECLARED_FIELDS):
        return (
            f"{who}: enhanced due diligence needs {needs}, and no document read in this run "
            "declares either."
        )
    given = next(field for field in DECLARED_FIELDS if field in declared)
    return (
        f"{who}: enhanced due diligence needs {needs}; a document read in this run "
        f"declares the {fact_words(given)}, none the {missing[0]}."
    )


def politically_exposed(s: AtlasState, set_aside: Collection[str] = ()) -> list[str]:
    """Who the diligence is on that a source names politically exposed, once each: the
    subject by name, a director or owner of a company subject as "Jane Roe (a director of
    Acme Ltd)", a relative or associate of someone in office as "Jo Roe (as a close family
    member of one)"."""
    selected = s.selected_entity
    subject = selected.name if selected else s.brief.subject
    people = []
    for item in about_the_subject(s):
        if Signal.PEP not in item.signals or item.evidence_id in set_aside:
            continue
        related = f"a {item.pep_relation} of one" if item.pep_relation else ""
        if not item.about and selected and item.linked_entity_id not in ("", selected.entity_id):
            people.append(f"{subject} (if the register's match is not a namesake's)")
        elif not item.about:
            people.append(f"{subject} (as {related})" if related else subject)
        for role, words in IN_CONTROL.items():
            if item.about.startswith(role):
                also = f", and {related}" if related else ""
                people.append(f"{item.about.removeprefix(role)} ({words} {subject}{also})")
    if subject in people:
        people = [person for person in people if not person.startswith(f"{subject} (if ")]
    return list(dict.fromkeys(people))
