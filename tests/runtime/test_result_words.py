"""The words a successful tool call is shown in on the case page."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from atlas.runtime.result_words import (
    MAX_LINE_CHARS,
    MAX_LINES,
    SUSPECT_SOURCE,
    result_lines,
    result_summary,
)
from atlas.runtime.tools.builtin import resolve_entity, screen_sanctions, search_adverse_media
from atlas.runtime.tools.schemas import (
    ResolveEntityArgs,
    ScreenSanctionsArgs,
    SearchAdverseMediaArgs,
)
from atlas.runtime.world.normalize import fingerprint_text


def article(n: int, title: str = "") -> dict:
    return {"outlet": "Example Wire", "date": f"2024-01-{n:02d}", "title": title or f"Story {n}"}


def test_many_articles_are_cut_to_a_few_lines_and_a_count_of_the_rest():
    lines = result_lines("search_adverse_media", {"articles": [article(n) for n in range(1, 9)]})
    assert len(lines) == MAX_LINES
    assert lines[0] == "Example Wire, 2024-01-01: Story 1"
    assert lines[-1] == f"and {8 - (MAX_LINES - 1)} more"


def test_a_long_or_multi_line_title_is_shortened_to_one_line():
    (line,) = result_lines("search_adverse_media", {"articles": [article(1, "A\nB " * 200)]})
    assert "\n" not in line and len(line) == 200 and line.endswith("…")


def test_an_article_written_as_instructions_to_the_agent_is_flagged_ahead_of_its_title(
    world_tool_context,
):
    result = search_adverse_media(
        SearchAdverseMediaArgs(query="Crescent Minerals"), world_tool_context
    )
    lines = result_lines("search_adverse_media", result.model_dump(mode="json"))
    flagged = [line for line in lines if line.startswith(SUSPECT_SOURCE)]
    assert len(flagged) == 1
    assert "What Crescent Minerals is not telling you" in flagged[0]
    assert len(lines) == len(result.articles) > 1  # the others are not flagged


def test_a_documents_facts_are_named_and_its_personal_data_only_counted():
    result = {
        "fields": {
            "emails": ["ann@example.com"],
            "passport_numbers": ["P4821907", "P1234567"],
            "directors": ["Ann Lee", "Bo Chan"],
            "registration_numbers": ["08812345"],
        }
    }
    lines = result_lines("extract_uploaded_document", result)
    assert lines == [
        "directors: Ann Lee, Bo Chan",
        "registration numbers: 08812345",
        "personal data, redacted for the model: e-mail address ×1, passport number ×2",
    ]
    assert not any("P4821907" in line or "ann@" in line for line in lines)


def test_registry_candidates_name_their_jurisdiction_number_and_score():
    candidate = {
        "name": "Northwind Trading Ltd",
        "jurisdiction": "GB",
        "registration_number": "04512398",
        "score": 96.5,
    }
    unnumbered = {**candidate, "registration_number": None, "jurisdiction": "US", "score": 90.0}
    assert result_lines("resolve_entity", {"candidates": [candidate, unnumbered]}) == [
        "Northwind Trading Ltd (GB, no. 04512398), match score 96.5",
        "Northwind Trading Ltd (US), match score 90",
    ]


def test_a_screening_without_hits_has_no_lines():
    assert result_lines("screen_sanctions", {"hits": [], "lists_checked": ["a", "b"]}) == []


def test_a_result_in_another_shape_gets_no_lines_rather_than_an_error():
    assert result_lines("screen_sanctions", {"hits": [{"list": "X"}]}) == []
    assert result_lines("search_adverse_media", {"articles": "not a list"}) == []


json_values = st.recursive(
    st.none() | st.booleans() | st.floats(allow_nan=True) | st.text(max_size=300),
    lambda children: (
        st.lists(children, max_size=8) | st.dictionaries(st.text(max_size=20), children, max_size=8)
    ),
    max_leaves=40,
)
TOOL_NAMES = [
    "resolve_entity",
    "screen_sanctions",
    "search_adverse_media",
    "extract_uploaded_document",
]


@settings(deadline=None)  # what it checks is the words, not their speed on a busy machine
@given(
    tool=st.sampled_from(TOOL_NAMES),
    result=st.dictionaries(
        st.sampled_from(["candidates", "hits", "articles", "fields", "query"]), json_values
    ),
)
def test_any_result_gives_a_few_short_lines_and_never_an_error(tool, result):
    lines = result_lines(tool, result)
    assert len(lines) <= MAX_LINES
    assert all(isinstance(line, str) and len(line) <= MAX_LINE_CHARS for line in lines)


def test_summaries_count_in_words_one_or_many():
    one_hit = {"hits": [{"name": "X"}], "lists_checked": ["Synthetic OFAC SDN"]}
    assert result_summary("screen_sanctions", one_hit) == (
        "Sanctions screening found 1 hit across 1 list."
    )
    no_hits = {"hits": [], "lists_checked": ["a", "b", "c"]}
    assert result_summary("screen_sanctions", no_hits) == (
        "Sanctions screening found 0 hits across 3 lists."
    )
    two = {"query": "Northwind", "candidates": [{}, {}]}
    assert result_summary("resolve_entity", two) == "Found 2 registry candidates for 'Northwind'."
    one = {"query": "Acme", "articles": [{}]}
    assert result_summary("search_adverse_media", one) == "Found 1 article for 'Acme', 1 new."


def test_an_article_found_twice_in_one_search_is_not_said_to_be_already_held():
    """A syndicated copy at another address is one piece of evidence: on a first search it
    is a copy of another article in the result, not something the run held before."""
    first, copy, other = (
        {"text": "Crescent fined."},
        {"text": "CRESCENT  fined"},
        {"text": "Crescent sued."},
    )
    result = {"query": "Crescent", "articles": [first, copy, other]}
    assert result_summary("search_adverse_media", result) == (
        "Found 3 articles for 'Crescent', 2 new (1 a copy of another here)."
    )
    held = {fingerprint_text("Crescent fined.")}
    assert result_summary("search_adverse_media", result, held) == (
        "Found 3 articles for 'Crescent', 1 new (2 already held)."
    )
    result["articles"].append({"text": "Crescent sued!"})
    assert result_summary("search_adverse_media", result, held) == (
        "Found 4 articles for 'Crescent', 1 new (2 already held, 1 a copy of another here)."
    )


def test_a_documents_summary_counts_its_facts_apart_from_its_personal_data():
    result = {
        "name": "kyc.txt",
        "fields": {
            "company_name": ["Meridian Shipping Holdings Ltd"],
            "directors": ["Helen Carter", "James Whitfield"],
            "registration_number": [],
            "passport_numbers": ["[redacted]"],
            "ibans": ["[redacted]", "[redacted]"],
        },
    }
    assert result_summary("extract_uploaded_document", result) == (
        "Extracted 2 kinds of fact from kyc.txt, and 2 kinds of personal data, redacted for "
        "the model."
    )
    result["fields"] = {"directors": ["Helen Carter"]}
    assert result_summary("extract_uploaded_document", result) == (
        "Extracted 1 kind of fact from kyc.txt."
    )


def test_a_persons_year_of_birth_is_shown_beside_their_candidate_and_their_hits(
    world_tool_context,
):
    found = resolve_entity(
        ResolveEntityArgs(name="Oleg Danilov", entity_type="person"), world_tool_context
    )
    assert result_lines("resolve_entity", found.model_dump()) == [
        "Oleg Danilov (GB, born 1987), match score 100"
    ]
    screened = screen_sanctions(ScreenSanctionsArgs(name="Oleg Danilov"), world_tool_context)
    assert result_lines("screen_sanctions", screened.model_dump()) == [
        "DANILOV, Oleg Petrovich (born 1959 or 1960; national of RU) on Synthetic UK HMT Consolidated, match "
        "score 100 (screened as 'Oleg Danilov')"
    ]
