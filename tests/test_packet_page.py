"""The packet: a readable page with citations to the evidence, and a JSON download."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse
from django.utils.html import escape

from atlas.runtime.state import CONFLICT_AT_FINISH_USER_STATUS
from runs.actions import do_open_case, do_start_run
from runs.execution import run_inline
from runs.models import Run
from runs.rating_grounds import rating_grounds
from tests.case_rows import XSS, awaiting_signoff, decision_row, make_run
from tests.conftest import client_for
from tests.review_runs import CONFLICT_SUBJECT, paused_run

pytestmark = pytest.mark.django_db


def test_the_packet_page_links_findings_to_their_evidence(client, analyst, case):
    run = awaiting_signoff(case)
    html = client_for(client, analyst).get(reverse("runs-packet", args=[run.pk])).content.decode()
    assert "risk-medium" in html
    assert '<a class="cite" href="#ev-registry-1"' in html
    assert '<tr id="ev-registry-1">' in html
    assert "https://registry.example/GB-001" in html and "Companies registry" in html
    assert "ev-missing?" in html  # a citation to evidence the run does not have is flagged
    assert "No sanctions hits." in html and "One article alleging misconduct." in html
    assert "Beneficial owners not confirmed" in html


def test_the_packet_shows_resolved_and_unresolved_conflicts_with_sources(client, reviewer, case):
    run = awaiting_signoff(case)
    html = client_for(client, reviewer).get(reverse("runs-packet", args=[run.pk])).content.decode()
    assert "Directors" in html and "Unresolved" in html
    assert "Jane Roe" in html and "John Doe" in html and "Daily Ledger" in html
    assert "Resolved to <strong>0001</strong> by reviewer" in html
    assert "Registry is authoritative" in html


def test_the_packet_shows_who_decided_what_and_the_version_bundle(client, analyst, reviewer, case):
    run = awaiting_signoff(case)
    decision_row(run, reviewer, "Cost is fine", version=3)
    html = client_for(client, analyst).get(reverse("runs-packet", args=[run.pk])).content.decode()
    assert "Approved" in html and "Cost is fine" in html and "Reviewer" in html
    assert "atlas-prompt/1" in html and "atlas-policy/1" in html and "rule-based" in html


def test_world_data_with_a_prompt_injection_renders_as_text(client, analyst, case):
    run = awaiting_signoff(case, claim=f"Registered. {XSS}")
    html = client_for(client, analyst).get(reverse("runs-packet", args=[run.pk])).content.decode()
    assert "<script>alert" not in html and "<img src=x" not in html
    assert "Ignore previous instructions &lt;script&gt;" in html


def test_the_json_download_is_an_attachment_with_the_whole_packet(client, analyst, reviewer, case):
    run = awaiting_signoff(case)
    decision_row(run, reviewer, "ok")
    response = client_for(client, analyst).get(reverse("runs-packet-json", args=[run.pk]))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    assert (
        response["Content-Disposition"] == f'attachment; filename="atlas-packet-run-{run.pk}.json"'
    )
    body = json.loads(response.content)
    assert body["packet"]["risk_rating"] == "medium"
    assert [e["evidence_id"] for e in body["evidence"]] == ["ev-registry-1", "ev-media-1"]
    assert {c["conflict_id"] for c in body["conflicts"]} == {"c-directors", "c-regno"}
    assert body["decisions"][0]["actor"] == "reviewer" and body["decisions"][0]["kind"] == "approve"
    assert body["versions"]["policy"] == "atlas-policy/1"
    # What the rating stands on travels with the packet, as its page says it.
    assert body["rating_grounds"] and all(isinstance(g, str) for g in body["rating_grounds"])


def test_the_json_download_flags_a_finding_citing_a_source_written_as_instructions(
    client, analyst, case
):
    run = awaiting_signoff(case)
    run.state["evidence"][1]["signals"] = ["adverse", "instructions"]
    run.save(update_fields=["state"])
    response = client_for(client, analyst).get(reverse("runs-packet-json", args=[run.pk]))
    findings = json.loads(response.content)["packet"]["findings"]
    assert [f["cites_a_suspect_source"] for f in findings] == [False, True]
    assert findings[1]["suspect_sources"] == ["ev-media-1"]
    assert "suspect_sources" not in findings[0]


def test_another_tenants_packet_is_not_found(client, outsider, case):
    run = awaiting_signoff(case)
    client_for(client, outsider)
    assert client.get(reverse("runs-packet", args=[run.pk])).status_code == 404
    assert client.get(reverse("runs-packet-json", args=[run.pk])).status_code == 404


def test_a_run_without_a_packet_has_no_packet_page(client, analyst, case):
    run = make_run(case)
    client_for(client, analyst)
    assert client.get(reverse("runs-packet", args=[run.pk])).status_code == 404
    assert client.get(reverse("runs-packet-json", args=[run.pk])).status_code == 404


def test_the_case_page_links_the_packet_when_there_is_one(client, analyst, case):
    run = awaiting_signoff(case)
    html = (
        client_for(client, analyst)
        .get(reverse("runs-case-detail", args=[case.pk]))
        .content.decode()
    )
    assert reverse("runs-packet", args=[run.pk]) in html
    assert "The sources disagree on directors" in html  # its directors conflict is open


def test_a_conflicting_source_excerpt_with_markup_renders_as_text(client, reviewer, case):
    run = awaiting_signoff(case)
    state = run.state
    state["conflicts"][0]["values"][1]["excerpt"] = f"CEO {XSS}"
    Run.objects.filter(pk=run.pk).update(state=state)
    html = client_for(client, reviewer).get(reverse("runs-packet", args=[run.pk])).content.decode()
    assert "<script>alert" not in html and "<img src=x" not in html
    assert "<q>CEO &lt;script&gt;" in html


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(document.cookie)",
        " javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "https://news.example/a\tb",
    ],
)
def test_a_source_address_that_is_not_a_web_address_is_shown_but_not_linked(
    client, analyst, case, url
):
    run = awaiting_signoff(case)
    state = run.state
    state["evidence"][1]["url"] = url
    run.state = state
    run.save(update_fields=["state"])
    html = client_for(client, analyst).get(reverse("runs-packet", args=[run.pk])).content.decode()
    links = re.findall(r'href="([^"]*)"', html)
    assert "https://registry.example/GB-001" in links  # a web address still links
    assert not [href for href in links if href.startswith(("https://news", "java", "JaVa", " "))]
    assert not [href for href in links if href.startswith("data")]
    assert escape(url) in html  # the reader still sees what the source gave, as text


def test_a_reviewer_reading_the_packet_is_led_to_where_it_is_decided(
    client, tenant, analyst, reviewer
):
    from tests.review_runs import CONFLICT_SUBJECT, SIGNOFF_SUBJECT, open_item, paused_run

    clean = paused_run(tenant, analyst, SIGNOFF_SUBJECT)
    disputed = paused_run(tenant, analyst, CONFLICT_SUBJECT)
    client_for(client, reviewer)
    page = client.get(reverse("runs-packet", args=[clean.pk])).content.decode()
    signoff = open_item(clean, "signoff")
    assert f'href="{reverse("reviews-item", args=[signoff.pk])}">Sign off or send back' in page
    page = client.get(reverse("runs-packet", args=[disputed.pk])).content.decode()
    escalation = open_item(disputed, "escalation")
    assert (
        f'href="{reverse("reviews-conflict", args=[escalation.pk])}">Settle the escalation' in page
    )
    analyst_page = client_for(client, analyst).get(reverse("runs-packet", args=[clean.pk]))
    assert "Sign off or send back" not in analyst_page.content.decode()


def test_the_packet_says_what_its_risk_rating_stands_on(client, analyst, case, tenant):
    from runs.actions import do_open_case, do_start_run
    from runs.execution import run_inline
    from tests.review_runs import SIGNOFF_SUBJECT, paused_run

    volkov = do_open_case(
        tenant=tenant, user=analyst, subject_name="Dmitri Volkov", subject_type="person"
    )
    sanctioned = run_inline(do_start_run(volkov, analyst, wake=False))

    run = awaiting_signoff(case)
    html = client_for(client, analyst).get(reverse("runs-packet", args=[run.pk])).content.decode()
    assert "On the evidence of sources that disagree on directors." in html
    clean = paused_run(tenant, analyst, SIGNOFF_SUBJECT)
    html = client.get(reverse("runs-packet", args=[clean.pk])).content.decode()
    assert "The evidence holds no sanctions hit, adverse article, PEP link or disputed" in html
    html = client.get(reverse("runs-packet", args=[sanctioned.pk])).content.decode()
    assert "On the evidence of" in html and "sanctions hit" in html


def test_a_packet_of_research_stopped_early_says_what_is_not_rated_or_searched(
    client, tenant, analyst, reviewer
):
    from tests.review_runs import budget_item

    item = budget_item(tenant, analyst)  # stopped after two iterations: no media search
    html = client_for(client, reviewer).get(reverse("runs-packet", args=[item.run_id])).content
    page = html.decode()
    assert "Unrated" in page and "Not rated: the research stopped before" in page
    assert "Not searched." in page and "No adverse media found." not in page
    assert "Still to do: adverse media search." in page


def test_the_rating_of_an_unmatched_subject_says_it_was_screened_by_name_only():
    from runs.rating_grounds import rating_grounds

    assert "screened by name only" in " ".join(rating_grounds({"selected_entity": None}))
    matched = {"selected_entity": {"entity_id": "co-acme-analytics-gb"}}
    assert rating_grounds(matched) == []


def test_the_rating_names_a_source_written_as_instructions_to_the_agent():
    state = {
        "selected_entity": {"entity_id": "co-acme-analytics-gb"},
        "evidence": [{"signals": ["instructions"]}, {"signals": []}],
    }
    assert rating_grounds(state) == [
        "a source written as instructions to an AI agent, for a person to weigh"
    ]


def test_an_adverse_article_from_a_suspect_source_is_not_counted_as_one_relied_on():
    state = {
        "selected_entity": {"entity_id": "co-crescent-minerals-gb"},
        "evidence": [
            {"signals": ["adverse"], "evidence_id": "e1"},
            {"signals": ["adverse", "instructions"], "evidence_id": "e2"},
        ],
    }
    assert rating_grounds(state) == [
        "an adverse article",
        "a source written as instructions to an AI agent, for a person to weigh",
    ]


def test_a_list_entry_hit_twice_on_the_subject_counts_once_as_the_sanctions_result_does():
    hit = {"signals": ["sanctions_hit"], "source_id": "sanctions:un-3301", "about": ""}
    on_director = {**hit, "source_id": "sanctions:ofac-1", "about": "director Dmitri Volkov"}
    state = {
        "selected_entity": {"entity_id": "co-golden-gate-shipping-pa"},
        "evidence": [hit, dict(hit), on_director],  # by name, then as the registry entity
    }
    assert rating_grounds(state)[0].startswith("2 sanctions hits")


def test_hits_on_a_director_the_reviewer_set_aside_do_not_call_them_a_director():
    """The packet's findings already name such a person so; the rating's grounds did not."""
    on_director = {
        "signals": ["sanctions_hit"],
        "source_id": "sanctions:ofac-1",
        "about": "director Dmitri Volkov",
    }
    settled = {
        "fact": "directors",
        "status": "resolved",
        "values": [
            {"value": "Sarah Linden, Mark Evans", "source_id": "registry:co-acme-analytics-gb"},
            {"value": "Sarah Linden, Dmitri Volkov", "source_id": "document:7"},
        ],
        "resolution": {"value": "Sarah Linden, Mark Evans"},
    }
    state = {
        "selected_entity": {"entity_id": "co-acme-analytics-gb"},
        "evidence": [on_director],
        "conflicts": [settled],
    }
    assert rating_grounds(state) == [
        "a sanctions hit (on Dmitri Volkov, named a director only by a source the reviewer "
        "set aside)"
    ]
    state["conflicts"] = [{**settled, "resolution": {"value": "Sarah Linden, Dmitri Volkov"}}]
    assert rating_grounds(state) == ["a sanctions hit (on director Dmitri Volkov)"]


def test_a_packet_with_a_listed_director_says_whom_the_hits_are_on(client, tenant, analyst):
    run = paused_run(tenant, analyst, "Amber Coast Freight", jurisdiction="LT")
    assert run.matched_entity == "Amber Coast Freight UAB (LT)"  # mirrored for the lists
    client_for(client, analyst)
    packet = client.get(reverse("runs-packet", args=[run.pk])).content.decode()
    assert (
        "On the evidence of 2 sanctions hits (on director Dmitry Volkov); 2 adverse articles "
        "(on director Dmitry Volkov)." in packet
    )
    case_page = client.get(reverse("runs-case-detail", args=[run.case_id])).content.decode()
    # Searched by the entity's id, which reads no name: the step says so.
    assert (
        "Found no articles for &#x27;Amber Coast Freight UAB&#x27; (searched by the registry "
        "record co-amber-coast-freight-lt, not by name)." in case_page
    )


def test_an_article_found_by_a_directors_search_says_whose_search_found_it(client, tenant, analyst):
    """Harrow Bay Freight is in no article; its director Colin Marsh is. The article's title
    does not name the company, so its entries say whose search found it."""
    run = paused_run(tenant, analyst, "Harrow Bay Freight", jurisdiction="GB")
    packet = client_for(client, analyst).get(reverse("runs-packet", args=[run.pk])).content
    media = packet.decode().split("<h2>Adverse media</h2>")[1].split("</section>")[0]
    assert (
        'convicted of customs fraud <span class="muted">(on director Colin Marsh)</span>' in media
    )
    assert "Found by the search for director Colin Marsh.</div>" in packet.decode()
    # An entry whose claim names whom it is about already says nothing more.
    assert "No adverse media found for director Anita Rao." in media
    assert "Found by the search for director Anita Rao." not in packet.decode()


def test_a_packet_on_a_person_names_the_listed_companies_they_direct(client, tenant, analyst):
    run = paused_run(tenant, analyst, "Dmitri Volkov", subject_type="person", jurisdiction="")
    client_for(client, analyst)
    packet = client.get(reverse("runs-packet", args=[run.pk])).content.decode()
    assert (
        "On the evidence of 4 sanctions hits (on the subject; on Volga Petrochem Export JSC "
        "(RU), a company the subject directs; and on Golden Gate Shipping SA (PA), a company "
        "the subject directs); 2 adverse articles." in packet
    )


def test_a_packet_names_a_director_living_in_a_high_risk_jurisdiction(
    client, tenant, analyst, reviewer
):
    run = paused_run(tenant, analyst, "Gulfstar Marine Services", jurisdiction="GB")
    ground = "residence in a high-risk jurisdiction: director Farhad Rahimi (Iran, IR)"
    client_for(client, reviewer)
    packet = client.get(reverse("runs-packet", args=[run.pk])).content.decode()
    assert f"On the evidence of {ground}." in packet
    assert "Director Farhad Rahimi (Iran, IR) lives in one of the tenant&#x27;s high-risk" in packet
    queue = client.get(reverse("reviews-queue")).content.decode()
    assert "residence in a high-risk jurisdiction" in queue


def test_a_registry_candidate_that_is_not_the_match_is_marked_so(client, tenant, analyst):
    run = paused_run(tenant, analyst, "Acme Analytics", jurisdiction="")
    assert run.matched_entity == "Acme Analytics Ltd (GB)"
    client_for(client, analyst)
    packet = client.get(reverse("runs-packet", args=[run.pk])).content.decode()
    # Cedar Analytics Corp came back from the registry search too: not the match.
    cedar = packet[packet.index("Registry record: Cedar Analytics Corp") :].split("</td>")[0]
    assert "Another registry candidate with a similar name" in cedar
    acme = packet[packet.index("<td>Registry record: Acme Analytics Ltd") :].split("</td>")[0]
    assert "Another registry candidate" not in acme


def test_a_packet_held_by_a_conflict_says_the_reviewer_settles_it_first(client, tenant, analyst):
    run = paused_run(tenant, analyst, CONFLICT_SUBJECT)
    assert run.user_status == CONFLICT_AT_FINISH_USER_STATUS
    client_for(client, analyst)
    case_page = client.get(reverse("runs-case-detail", args=[run.case_id])).content.decode()
    assert "Handed to a reviewer: the sources disagree on a fact" in case_page
    assert "unresolved_conflict" not in case_page


def test_a_politically_exposed_person_is_named_once_and_from_a_registry_of_persons(
    client, tenant, analyst
):
    case = do_open_case(
        tenant=tenant, user=analyst, subject_name="Amara Okafor", subject_type="person"
    )
    run = run_inline(do_start_run(case, analyst, wake=False))
    packet = client_for(client, analyst).get(reverse("runs-packet", args=[run.pk])).content
    packet = packet.decode()
    assert "a politically exposed person" in packet
    assert "links to politically exposed people" not in packet
    assert "Registry of persons (NG)" in packet and "Company registry (NG)" not in packet


def test_a_packet_names_the_director_the_pep_register_matched(client, tenant, analyst):
    run = paused_run(tenant, analyst, "Fjordline Seafood", jurisdiction="NO")
    client_for(client, analyst)
    packet = client.get(reverse("runs-packet", args=[run.pk])).content.decode()
    assert "On the evidence of a politically exposed person (on director Henrik Solberg)." in (
        packet
    )
    assert "Register of politically exposed persons" in packet  # the evidence's source
    case_page = client.get(reverse("runs-case-detail", args=[run.case_id])).content.decode()
    assert "found 0 hits across 3 lists, and 1 politically exposed person match." in case_page


@pytest.mark.parametrize(
    ("dispositions", "said"),
    [
        ([], "3 sanctions hits"),
        (["false_positive"] * 3, "3 sanctions hits, all marked false positives by the reviewer"),
        (["confirmed_match"] * 3, "3 sanctions hits, all confirmed by the reviewer"),
        (
            ["confirmed_match", "false_positive", "false_positive"],
            "3 sanctions hits, 2 of 3 marked false positives and 1 confirmed by the reviewer",
        ),
        # Not every item with the signal is a match to mark (a registry record or an
        # article, say): the marks are said of the screening matches, not of all the items,
        # which would read as if the rest were left unmarked.
        (
            ["false_positive"],
            "3 sanctions hits, the screening match marked a false positive by the reviewer",
        ),
        (["confirmed_match"], "3 sanctions hits, the screening match confirmed by the reviewer"),
        (
            ["confirmed_match", "confirmed_match"],
            "3 sanctions hits, the 2 screening matches confirmed by the reviewer",
        ),
        (
            ["confirmed_match", "false_positive"],
            "3 sanctions hits, of the 2 screening matches 1 marked a false positive and 1 "
            "confirmed by the reviewer",
        ),
    ],
)
def test_the_rating_grounds_say_how_the_reviewer_disposed_of_the_hits(dispositions, said):
    hits = [
        {"evidence_id": f"ev-{n}", "signals": ["sanctions_hit"], "about": ""} for n in (1, 2, 3)
    ]
    decided = [{"evidence_id": f"ev-{n}", "disposition": d} for n, d in enumerate(dispositions, 1)]
    state = {
        "evidence": hits,
        "selected_entity": {"entity_id": "co-x"},
        "proposed_packet": {"hit_dispositions": decided},
    }
    assert rating_grounds(state) == [said]


def test_a_conflict_marked_unresolvable_stays_among_the_grounds_saying_so():
    """It still holds the rating at medium, so the rating must not read as standing on
    nothing."""
    state = {
        "evidence": [],
        "selected_entity": {"entity_id": "co-x"},
        "conflicts": [
            {"fact": "directors", "status": "unresolvable"},
            {"fact": "registration_number", "status": "resolved"},
        ],
    }
    assert rating_grounds(state) == [
        "sources that disagree on directors, marked unresolvable by a reviewer"
    ]


def test_each_ground_says_the_dispositions_of_its_own_matches():
    state = {
        "evidence": [
            {"evidence_id": "ev-hit", "signals": ["sanctions_hit"], "about": ""},
            {"evidence_id": "ev-pep", "signals": ["pep"], "about": "director Henrik Solberg"},
        ],
        "selected_entity": {"entity_id": "co-x"},
        "proposed_packet": {
            "hit_dispositions": [
                {"evidence_id": "ev-hit", "disposition": "confirmed_match"},
                {"evidence_id": "ev-pep", "disposition": "false_positive"},
            ]
        },
    }
    assert rating_grounds(state) == [
        "a sanctions hit, confirmed by the reviewer",
        "a politically exposed person (on director Henrik Solberg), marked false positive by "
        "the reviewer",
    ]


@pytest.mark.parametrize(
    ("status", "reason", "said"),
    [
        ("awaiting_review", "max_iterations", "before it was complete (iteration budget"),
        ("completed", "packet_approved", "before it was complete; its open gaps say why."),
    ],
)
def test_a_partial_packet_says_why_research_stopped_not_how_the_run_ended(
    client, reviewer, case, status, reason, said
):
    """A reviewer closing the case ends the run as packet_approved: that is not why the
    research stopped, and no packet was approved."""
    run = awaiting_signoff(case)
    run.state["proposed_packet"] |= {
        "partial": True,
        "closed_by_reviewer": reason != "max_iterations",
    }
    Run.objects.filter(pk=run.pk).update(state=run.state, status=status, termination_reason=reason)
    html = client_for(client, reviewer).get(reverse("runs-packet", args=[run.pk])).content.decode()
    assert f"Partial packet: the research stopped {said}" in html
    assert "(packet approved)" not in html


def test_an_article_on_another_registry_entity_says_whom_it_is_about(client, tenant, analyst):
    """Found by the name "Golden Gate Logistics", the article on Golden Gate Shipping SA is
    not the subject's, and its evidence entry says so."""
    run = paused_run(tenant, analyst, "Golden Gate Logistics", jurisdiction="")
    page = client_for(client, analyst).get(reverse("runs-packet", args=[run.pk])).content
    assert (
        "Found by the name alone, about Dmitri Volkov (RU) and Golden Gate Shipping SA (PA): "
        "linked only to other registry entities, not the subject."
    ) in page.decode()


def test_the_packet_address_of_a_run_without_one_says_so_and_where_to_follow_it(
    client, analyst, case
):
    run = make_run(case, status=Run.Status.RESEARCHING)
    run.user_status = "Screening the subject."
    run.save(update_fields=["user_status"])
    response = client_for(client, analyst).get(reverse("runs-packet", args=[run.pk]))
    assert response.status_code == 404
    html = response.content.decode()
    assert f"Run {run.pk} has no packet yet" in html and "Screening the subject." in html
    case_page = reverse("runs-case-detail", args=[case.pk])
    assert f'href="{case_page}?run={run.pk}"' in html


def test_the_packet_address_of_a_run_that_ended_without_one_says_it_ended(client, analyst, case):
    run = make_run(case, status=Run.Status.CANCELLED, reason=Run.Reason.CANCELLED)
    html = client_for(client, analyst).get(reverse("runs-packet", args=[run.pk])).content.decode()
    assert f"Run {run.pk} ended without a packet" in html and "no packet yet" not in html


def test_whom_a_source_written_as_instructions_is_about_comes_before_what_to_do_with_it():
    state = {
        "selected_entity": {"entity_id": "pe-arthur-pembroke"},
        "evidence": [{"signals": ["instructions"], "about": "Crescent Minerals PLC (GB)"}],
    }
    assert rating_grounds(state) == [
        "a source written as instructions to an AI agent (on Crescent Minerals PLC (GB)), "
        "for a person to weigh"
    ]


def test_a_match_the_analyst_confirmed_is_said_so_on_the_packet(client, tenant, analyst):
    from reviews.actions import do_answer_question
    from reviews.models import ReviewItem
    from tests.review_runs import advance, open_item

    run = paused_run(tenant, analyst, "Amber Coast Freight", jurisdiction="GB")
    assert run.status == "waiting_for_input"
    question = open_item(run, ReviewItem.Kind.CLARIFICATION)
    do_answer_question(question, analyst, "yes")
    run = advance(question)
    assert run.matched_entity == "Amber Coast Freight UAB (LT)"
    client_for(client, analyst)
    packet = client.get(reverse("runs-packet", args=[run.pk])).content.decode()
    assert (
        "Matched on the analyst's answer to the agent's question (“yes”), not by the "
        "name search alone." in packet
    )
    assert "The matched entity is registered in LT, not GB as the case says." in packet


def test_a_match_the_name_search_made_claims_no_answer(client, tenant, analyst):
    run = paused_run(tenant, analyst, "Acme Analytics Ltd")
    client_for(client, analyst)
    packet = client.get(reverse("runs-packet", args=[run.pk])).content.decode()
    assert "Matched on the analyst" not in packet


def test_an_article_copied_at_another_address_is_held_once_and_its_copy_named(
    client, tenant, analyst
):
    """Example Wire ran Example Business News's story on Meridian's board word for word: one
    evidence entry, and the packet says where else the same text was found."""
    run = paused_run(tenant, analyst, CONFLICT_SUBJECT)
    (story,) = [e for e in run.state["evidence"] if e["source_id"] == "article:art-meridian-001"]
    assert story["copies"] == [
        {
            "source_id": "article:art-meridian-002",
            "source_label": "Example Wire",
            "url": "https://wire.example.org/meridian-shipping-directors",
        }
    ]
    assert not any(e["source_id"] == "article:art-meridian-002" for e in run.state["evidence"])
    html = client_for(client, analyst).get(reverse("runs-packet", args=[run.pk])).content.decode()
    assert (
        'The same text was also found at Example Wire, <a href="https://wire.example.org/'
        'meridian-shipping-directors"' in html
    )
    body = client.get(reverse("runs-packet-json", args=[run.pk])).json()
    (exported,) = [e for e in body["evidence"] if e["source_id"] == "article:art-meridian-001"]
    assert exported["copies"] == story["copies"]


def test_the_record_of_a_company_the_subject_directs_is_not_called_a_namesake(
    client, tenant, analyst
):
    """Irina Sokolova's high rating rests on Volga Petrochem Export's listing: its registry
    record is a company she directs, not "another registry candidate"."""
    run = paused_run(tenant, analyst, "Irina Sokolova", subject_type="person", jurisdiction="")
    (volga,) = [
        e for e in run.state["evidence"] if e["source_id"] == "registry:co-volga-petrochem-ru"
    ]
    html = client_for(client, analyst).get(reverse("runs-packet", args=[run.pk])).content.decode()
    row = re.search(rf'<tr id="{volga["evidence_id"]}">(.*?)</tr>', html, re.S).group(1)
    assert "Volga Petrochem Export JSC" in row
    assert "Another registry candidate" not in row
    assert "not the entity the subject was matched to" not in html


def test_a_partial_packet_rated_above_low_without_risk_evidence_says_why(client, tenant, analyst):
    run = paused_run(tenant, analyst, "Acme Analytics Ltd", budgets={"max_iterations": 4})
    assert (run.termination_reason, run.risk_rating) == ("max_iterations", "medium")
    html = client_for(client, analyst).get(reverse("runs-packet", args=[run.pk])).content.decode()
    grounds = html.split('class="small rating-grounds">')[1].split("</div>")[0].strip()
    assert grounds == (
        "The evidence holds no sanctions hit, adverse article, PEP link or disputed fact; "
        "it is rated medium for what the research left undone (see the open gaps)."
    )
