"""An article found by the subject's name that is linked only to other registry entities,
and never names the subject, is about them: "Golden Gate Logistics" found the article on
Golden Gate Shipping SA, a listed company, and the packet reported it as the subject's
adverse media."""

from __future__ import annotations

from runtime_helpers import run

from atlas.runtime.rating_floor import about_the_subject

ABOUT_OTHERS = "linked only to other registry entities, not the subject"


def test_an_article_on_another_registry_entity_is_not_the_subjects_adverse_media(
    make_runtime, make_state
):
    state = run(make_runtime(), make_state("Golden Gate Logistics", jurisdiction=None))
    (article,) = [e for e in state.evidence if e.evidence_class == "adverse_media"]
    assert "Golden Gate Shipping SA (PA)" in article.about_another_entity
    assert article not in about_the_subject(state)

    packet = state.proposed_packet
    assert packet.adverse_media_summary.startswith("No adverse media found about the subject.")
    assert "1 article found by the name alone is about" in packet.adverse_media_summary
    assert ABOUT_OTHERS in packet.adverse_media_summary
    (finding,) = [f for f in packet.findings if article.evidence_id in f.evidence_ids]
    assert finding.claim.endswith(f": {ABOUT_OTHERS})")
    # Medium for the name-only match alone, not for the shadow-tanker article.
    assert packet.risk_rating == "medium"


def test_an_article_that_names_the_subject_stays_its_own(make_runtime, make_state):
    """Viktor Petrenko has no registry record; the article on Meridian's board names him."""
    state = run(
        make_runtime(), make_state("Viktor Petrenko", subject_type="person", jurisdiction=None)
    )
    articles = [e for e in state.evidence if e.evidence_class == "adverse_media"]
    assert all(not e.about_another_entity for e in articles)


def test_articles_on_the_subjects_own_entity_are_its_own(make_runtime, make_state):
    state = run(make_runtime(), make_state("Crescent Minerals", jurisdiction="GB"))
    articles = [e for e in state.evidence if e.evidence_class == "adverse_media"]
    assert articles and all(not e.about_another_entity for e in articles)
    assert "adverse article" in state.proposed_packet.adverse_media_summary


def test_a_search_by_an_entitys_id_is_not_said_to_be_a_search_by_name(make_runtime, make_state):
    """It returns only the articles linked to the record: the board article naming Viktor
    Petrenko is linked to Meridian, so "no adverse media found for 'Viktor Petrenko'" was
    a name search never made."""
    state = run(
        make_runtime(), make_state("Viktor Petrenko", subject_type="person", jurisdiction=None)
    )
    claims = [f.claim for f in state.proposed_packet.findings]
    assert (
        "No adverse media found for 'Viktor Petrenko' (searched by the registry record "
        "pe-viktor-petrenko, not by name)."
    ) in claims


def test_a_person_matched_to_a_record_is_searched_by_name_too_and_found_where_named(
    make_runtime, make_state, store
):
    """Sarah Linden's registry record links no article to her, and the company she directs
    none on her; an article linked to another company, naming her in its text, was never
    looked at."""
    from runtime_helpers import tool_arguments

    from atlas.runtime.world import World, default_world

    world = default_world()
    fined = {
        "article_id": "art-linden-fine",
        "url": "https://news.example.com/markets/linden-fined",
        "title": "Regulator fines former Northwind executive",
        "outlet": "Example Business News",
        "date": "2025-02-11",
        "text": "The regulator fined Sarah Linden for misleading investors while she sat on "
        "the board of Northwind Trading Pte Ltd.",
        "entity_ids": ["co-northwind-sg"],
        "signals": ["adverse"],
    }
    runtime = make_runtime(world=World(world.entities, world.sanctions, [*world.articles, fined]))
    state = run(runtime, make_state("Sarah Linden", subject_type="person"))
    assert state.selected_entity.entity_id == "pe-sarah-linden"
    searches = tool_arguments(store, state, "search_adverse_media")
    assert searches[:2] == [
        {"query": "Sarah Linden", "entity_id": "pe-sarah-linden"},
        {"query": "Sarah Linden"},
    ]
    (article,) = [e for e in state.evidence if e.source_id == "article:art-linden-fine"]
    assert not article.about_another_entity and article in about_the_subject(state)
    packet = state.proposed_packet
    assert packet.adverse_media_summary.startswith("1 adverse article: Example Business News")
    assert packet.risk_rating == "medium"
