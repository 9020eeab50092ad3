"""What a successful tool call found, in words for people: one sentence, and a few lines
naming what came back (registry candidates, sanctions hits and politically exposed
persons, articles, document fields), so an analyst watching a run sees who was hit on which
list without opening the packet.

Both are tool output and go to pages only, which escape them; the model reads the
observation instead. Of a document, the facts it states are named (company, number,
directors); its personal data is only counted, as the model is shown it redacted.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from atlas.runtime.countries import country_words
from atlas.runtime.injection import addresses_the_agent
from atlas.runtime.redaction import PERSONAL_DATA_NAMES
from atlas.runtime.wording import counted, exposed_as, fact_words, listed
from atlas.runtime.world.normalize import fingerprint_text

MAX_LINES = 5
MAX_LINE_CHARS = 200


def result_summary(tool: str, result: dict[str, Any], held: Collection[str] = ()) -> str:
    """`held`: the fingerprints of the evidence the run held before the call, by which a
    media search's sentence counts its new articles (a search that finds only articles
    already held adds a record of the search, not an article)."""
    if tool == "resolve_entity":
        count = len(result.get("candidates", []))
        summary = f"Found {counted(count, 'registry candidate')} for '{result.get('query', '')}'"
        if listings := result.get("named_as_director", []):
            companies = "; ".join(f"{c['name']} ({c['jurisdiction']})" for c in listings)
            summary += (
                f"; {counted(len(listings), 'company record lists', 'company records list')} "
                f"a director of that name: {companies}"
            )
        return summary + "."
    if tool == "screen_sanctions":
        hits = len(result.get("hits", []))
        lists = len(result.get("lists_checked", []))
        summary = (
            f"Sanctions screening found {counted(hits, 'hit')} across {counted(lists, 'list')}"
        )
        if peps := len(result.get("pep_matches", [])):
            summary += f", and {counted(peps, 'politically exposed person match', 'politically exposed person matches')}"
        return summary + "."
    if tool == "search_adverse_media":
        return _media_summary(result, held)
    if tool == "extract_uploaded_document":
        found = [kind for kind, values in result.get("fields", {}).items() if values]
        personal = sum(kind in PERSONAL_DATA_NAMES for kind in found)
        summary = f"Extracted {counted(len(found) - personal, 'kind')} of fact"
        summary += f" from {result.get('name', 'the document')}"
        if personal:
            summary += f", and {counted(personal, 'kind')} of personal data, redacted for the model"
        return summary + "."
    return f"{tool} succeeded."


def searched_for(result: dict[str, Any]) -> str:
    """What a media search looked for, as a packet says it: the query, or, for a search by
    an entity's id (which returns the articles linked to it and reads no name), that."""
    query = f"'{result.get('query', '')}'"
    if entity_id := result.get("entity_id"):
        return f"{query} (searched by the registry record {entity_id}, not by name)"
    return query


def _media_summary(result: dict[str, Any], held: Collection[str]) -> str:
    articles = result.get("articles", [])
    if not articles:
        return f"Found no articles for {searched_for(result)}."
    found = f"Found {counted(len(articles), 'article')} for {searched_for(result)}"
    fingerprints = [fingerprint_text(a.get("text", "")) for a in articles]
    already_held = sum(fp in held for fp in fingerprints)
    new_articles = len({fp for fp in fingerprints if fp not in held})
    if not new_articles:
        return f"{found}, {'already held' if already_held == 1 else 'all already held'}."
    copies = len(articles) - new_articles - already_held  # the same article twice in it
    repeats = [
        *([f"{already_held} already held"] if already_held else []),
        *([f"{copies} {'a copy' if copies == 1 else 'copies'} of another here"] if copies else []),
    ]
    said = f" ({', '.join(repeats)})" if repeats else ""
    return f"{found}, {new_articles} new{said}."


def result_lines(tool: str, result: dict[str, Any]) -> list[str]:
    """At most MAX_LINES lines, the last saying how many more there were."""
    try:
        lines = _lines(tool, result)
    except (KeyError, TypeError, ValueError, AttributeError):
        # A result in another shape than the built-in tool's (a test's registry, say)
        # gets no lines: they are a courtesy to readers, never a reason to fail a step.
        return []
    lines = [_shortened(str(line)) for line in lines]
    if len(lines) > MAX_LINES:
        more = len(lines) - (MAX_LINES - 1)
        lines = [*lines[: MAX_LINES - 1], f"and {more} more"]
    return lines


def _lines(tool: str, result: dict[str, Any]) -> list[str]:
    if tool == "resolve_entity":
        return [candidate_line(c) for c in result.get("candidates", [])] + [
            f"a {result.get('other_type') or 'registry entity'} of that name, not searched for: "
            f"{match}"
            for match in result.get("other_type_matches", [])
        ]
    if tool == "screen_sanctions":
        return [_hit_line(h) for h in result.get("hits", [])] + [
            f"{m['name']} ({_born_in(m)}), {_exposed(m)}: {m['role']}, match score "
            f"{m['score']:g} (screened as '{m['matched_query']}')"
            for m in result.get("pep_matches", [])
        ]
    if tool == "search_adverse_media":
        return [_article_line(a) for a in result.get("articles", [])]
    if tool == "extract_uploaded_document":
        return _document_lines(result.get("fields", {}))
    return []


# Ahead of the article, so shortening a long title never cuts it off.
SUSPECT_SOURCE = "Suspect source, written as instructions to an AI agent (not followed): "


def _article_line(article: dict[str, Any]) -> str:
    line = f"{article['outlet']}, {article['date']}: {article['title']}"
    suspect = addresses_the_agent(article.get("text", ""))
    return SUSPECT_SOURCE + line if suspect else line


def candidate_line(candidate: dict[str, Any]) -> str:
    number = candidate.get("registration_number")
    where = _born_in({**candidate, **(candidate.get("record") or {})})
    where += f", no. {number}" if number else ""
    return f"{candidate['name']} ({where}), match score {candidate['score']:g}"


def _born_in(match: dict[str, Any]) -> str:
    """ "CL, born 1966": a registry person's country, and the year they were born in where
    the registry gives it."""
    born = match.get("born_year")
    return f"{match['jurisdiction']}, born {born}" if born else match["jurisdiction"]


def listed_particulars(hit: dict[str, Any]) -> list[str]:
    """What a sanctions hit's entry says of its person: ["born 1959 or 1960", "national of
    RU"], as far as it says."""
    years = [str(year) for year in hit.get("born_years") or []]
    said = [f"born {listed(years, 'or')}"] if years else []
    if nationals := hit.get("nationalities"):
        said.append(f"national of {', '.join(nationals)}")
    return said


def _hit_line(hit: dict[str, Any]) -> str:
    said = listed_particulars(hit)
    particulars = f" ({'; '.join(said)})" if said else ""
    return (
        f"{hit['listed_name']}{particulars} on {hit['list']}, match score {hit['score']:g}"
        f" (screened as '{hit['matched_query']}')"
    )


# Document fields whose values are country codes, shown with the country's name.
COUNTRY_FIELDS = frozenset({"residence", "nationality"})


def _document_lines(fields: dict[str, list[str]]) -> list[str]:
    facts = [
        f"{fact_words(kind)}: {'; '.join(map(country_words, values))}"
        if kind in COUNTRY_FIELDS
        else f"{fact_words(kind)}: {', '.join(values)}"
        for kind, values in fields.items()
        if kind not in PERSONAL_DATA_NAMES
    ]
    personal = [
        f"{name} ×{len(fields[kind])}"
        for kind, name in PERSONAL_DATA_NAMES.items()
        if fields.get(kind)
    ]
    if personal:
        facts.append("personal data, redacted for the model: " + ", ".join(personal))
    return facts


def _shortened(line: str) -> str:
    line = " ".join(line.split())
    return line if len(line) <= MAX_LINE_CHARS else line[: MAX_LINE_CHARS - 1] + "…"


def _exposed(match: dict[str, Any]) -> str:
    """ "politically exposed", or how a relative or associate on the register is."""
    return exposed_as(match["relation"]) if match.get("relation") else "politically exposed"


def company_record_words(record: dict[str, Any]) -> str:
    """A company's registry record in a sentence: "Acme Ltd (GB, no. 0881), status
    active; directors: Jane Roe, Omar Li (lives in SG); persons with significant control:
    Jane Roe (75% or more)."."""
    number = f", no. {record['registration_number']}" if record.get("registration_number") else ""
    lives_in = record.get("director_residences") or {}
    nationals = record.get("nationalities") or {}
    born = record.get("director_birth_years") or {}

    def person(name: str, *said: str) -> str:
        said += (f"born {born[name]}",) if name in born else ()
        said += (f"lives in {lives_in[name]}",) if name in lives_in else ()
        said += (f"national of {', '.join(nationals[name])}",) if nationals.get(name) else ()
        return f"{name} ({'; '.join(said)})" if said else name

    board = ", ".join(person(name) for name in record.get("directors") or []) or "none listed"
    bands = record.get("significant_control") or {}
    held = [person(name, band) for name, band in bands.items()]
    control = f"; persons with significant control: {', '.join(held)}" if held else ""
    return (
        f"{record['name']} ({record['jurisdiction']}{number}), status "
        f"{record.get('status') or 'unknown'}; directors: {board}{control}."
    )
