"""Registry candidates for the subject other than the entity it was matched to (a namesake):
which evidence is about one of them, and how a reviewer reads who they are. Works on
evidence and candidates as dicts, so a state, its dump and the model's projection of it
are read alike."""

from __future__ import annotations

import re
from typing import Any

# "Registry record: Maria Lindqvist (FI), born 1958; …", as the reducer writes a person's.
RECORD_NAME = re.compile(r"^Registry record: (?P<name>.+?) \((?P<country>[A-Z]{2})[,)]")
BORN = re.compile(r"\bborn (?P<year>\d{4})\b")
# A person's record gives their year right after their name and country; a company's may
# give its directors' further on.
RECORD_BORN = re.compile(r"^Registry record: [^\n]+? \([A-Z]{2}\), born (?P<year>\d{4})\b")


def turned_down(selected: dict[str, Any] | None, answered: list[dict[str, Any]]) -> bool:
    """Whether the analyst said the registry candidates offered for the subject are not it:
    unmatched after answering a question that listed them without picking one. Every
    candidate is then someone else."""
    return selected is None and any(
        q.get("candidates") and not q.get("picked_entity_id") and not q.get("unclear")
        for q in answered
    )


def other_candidate_id(
    evidence_item: dict[str, Any], selected: dict[str, Any] | None, declined: bool = False
) -> str:
    """The registry candidate `evidence_item` is about when the subject was matched to
    another entity, or when the analyst turned the candidates down (`declined`, see
    turned_down); "" when it is about the subject (or nothing was matched yet)."""
    candidate_id = evidence_item.get("candidate_id") or ""
    if selected is None:
        return candidate_id if declined else ""
    if candidate_id in ("", selected["entity_id"]):
        return ""
    return candidate_id


def about_the_subject(
    evidence: list[dict[str, Any]], selected: dict[str, Any] | None, declined: bool = False
):
    """`evidence` but what is about another candidate (rating_floor.about_the_subject, for
    evidence as dicts)."""
    return [
        item
        for item in evidence
        if not other_candidate_id(item, selected, declined) and not item.get("about_another_entity")
    ]


def candidate_words(
    candidate_id: str, candidates: list[dict[str, Any]], evidence: list[dict[str, Any]]
) -> str:
    """ "Maria Lindqvist (FI, born 1958)": a candidate's name, country and birth year when
    known, from its candidate entry or else its registry record; its id when neither is
    held."""
    candidate = next((c for c in candidates if c["entity_id"] == candidate_id), None)
    record = next(
        (e["claim"] for e in evidence if e.get("source_id") == f"registry:{candidate_id}"), ""
    )
    named = RECORD_NAME.match(record)
    if candidate is not None:
        name, country = candidate["name"], candidate["jurisdiction"]
    elif named:
        name, country = named["name"], named["country"]
    else:
        return candidate_id
    born = BORN.search((candidate or {}).get("details") or "") or RECORD_BORN.match(record)
    facts = [country, *([f"born {born['year']}"] if born else [])]
    return f"{name} ({', '.join(facts)})"
