"""Once the analyst says the registry candidates offered are not the subject, what is about
them is someone else's: their records are not the subject's findings, and articles linked
to them are named as about them, not counted as the subject's adverse media."""

from __future__ import annotations

from runtime_helpers import answer, run

from atlas.runtime.rating_floor import about_the_subject
from reviews.sync import matches_payload
from runs.rating_grounds import grounds_of

VOLKOV = "Dmitri Volkov (RU, born 1968), a registry candidate the analyst said is not the subject"


def test_a_declined_persons_record_and_companies_are_not_the_subjects_findings(
    make_runtime, make_state
):
    runtime = make_runtime()
    state = run(runtime, make_state("Dmitri Volkov", subject_type="person", jurisdiction="GB"))
    state = answer(runtime, state, "no")
    packet = state.proposed_packet
    claims = [f.claim for f in packet.findings]
    assert not any(claim.startswith("Registry record") for claim in claims)
    # The name itself is listed: a name-level hit stands until a reviewer marks it.
    assert packet.risk_rating == "high"
    assert sum(claim.startswith("Sanctions hit: 'Dmitri Volkov'") for claim in claims) == 2
    # ...on the subject's name, not on a subject no registry record identifies, and the
    # packet says whom the lists link the entries to.
    assert packet.sanctions_result.startswith("2 sanctions hits: on the subject's name (")
    assert (
        f"The lists link the entries hit to {VOLKOV}: a reviewer marks each as a confirmed "
        "match or a false positive." in packet.sanctions_result
    )
    articles = [claim for claim in claims if claim.startswith("Example")]
    assert len(articles) == 2 and all(claim.endswith(f"(about {VOLKOV})") for claim in articles)
    assert packet.adverse_media_summary == (
        f"No adverse media found about the subject. 2 articles found are about {VOLKOV}."
    )
    assert not any(item.source_id.startswith("article:") for item in about_the_subject(state))
    assert not any("adverse article" in ground for ground in grounds_of(state))
    # A reviewer marking the screening matches sees whom the articles are about.
    whom = {m["kind"]: m["candidate"] for m in matches_payload(state)}
    assert whom == {"sanctions": "", "adverse_media": "Dmitri Volkov (RU, born 1968)"}


def test_articles_on_candidates_none_of_which_is_the_subject_do_not_rate_it(
    make_runtime, make_state
):
    runtime = make_runtime()
    state = run(runtime, make_state("Northwind Trading", jurisdiction=None))
    state = answer(runtime, state, "none of them")
    packet = state.proposed_packet
    assert packet.risk_rating == "medium"  # researched by name only
    assert not any(f.claim.startswith("Registry record") for f in packet.findings)
    assert packet.adverse_media_summary.startswith(
        "No adverse media found about the subject. 2 articles found are about "
    )
    assert packet.adverse_media_summary.endswith(
        "registry candidates the analyst said are not the subject."
    )


def test_before_the_analyst_answers_every_candidate_may_be_the_subject(make_runtime, make_state):
    state = run(make_runtime(), make_state("Northwind Trading", jurisdiction=None))
    assert state.status == "waiting_for_input"
    assert about_the_subject(state) == state.evidence


def test_a_list_entry_linked_to_the_company_turned_down_is_said_so(make_runtime, make_state):
    runtime = make_runtime()
    state = run(runtime, make_state("Golden Gate Maritime", jurisdiction=None))
    state = answer(runtime, state, "no")
    packet = state.proposed_packet
    assert packet.risk_rating == "high"  # the trading name itself is listed
    assert (
        "The lists link the entry hit to Golden Gate Shipping SA (PA), a registry candidate the "
        "analyst said is not the subject: a reviewer marks it as a confirmed match or a false "
        "positive." in packet.sanctions_result
    )
