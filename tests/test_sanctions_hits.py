"""Signing off a packet with sanctions hits, or closing its case as it stands: each hit gets
the reviewer's disposition."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils.html import escape

from atlas.runtime.decisions import DISPOSE_OF_EVERY_HIT
from reviews.actions import screening_matches_of
from reviews.models import HumanDecision, ReviewItem
from tests.conftest import client_for
from tests.review_runs import (
    advance,
    open_item,
    paused_run,
    sanctioned_escalation_item,
    sanctioned_signoff_item,
)

pytestmark = pytest.mark.django_db


def decide(client, item: ReviewItem, **fields):
    return client.post(reverse("reviews-decide", args=[item.pk]), fields)


def hit_fields(item: ReviewItem) -> list[str]:
    return [f"hit-{hit['evidence_id']}" for hit in screening_matches_of(item)]


def hit_field(item: ReviewItem) -> str:
    return hit_fields(item)[0]


def every_hit(item: ReviewItem, disposition: str) -> dict[str, str]:
    return dict.fromkeys(hit_fields(item), disposition)


def close(client, item: ReviewItem, **fields):
    return client.post(reverse("reviews-close", args=[item.pk]), fields)


def test_the_signoff_page_asks_for_a_disposition_of_each_hit(client, tenant, analyst, reviewer):
    item = sanctioned_signoff_item(tenant, analyst)
    hits = item.payload["screening_matches"]
    assert len(item.payload["sanctions_hits"]) == 3, "the company's own listing, its director's two"
    assert len(hits) == 4, "and an adverse article found by the director's name"
    page = client_for(client, reviewer).get(reverse("reviews-item", args=[item.pk]))
    html = page.content.decode()
    for hit, field in zip(hits, hit_fields(item), strict=True):
        assert escape(hit["claim"]) in html
        assert f'name="{field}" value="confirmed_match"' in html
        assert f'name="{field}" value="false_positive"' in html
    # Findings cite evidence as the packet numbers it, linked to the entry there.
    packet = reverse("runs-packet", args=[item.run_id])
    assert f'<a class="cite" href="{packet}#ev-' in html and ">[1]</a>" in html
    assert "[?]" not in html
    # Grouped by whom they are on, the subject's first, each under the list's name.
    subject = html.index('On the subject <span class="muted">(1 match)</span>')
    director = html.index('On director Dmitri Volkov <span class="muted">(3 matches)</span>')
    assert subject < director
    assert (
        '<legend class="hit-list"><strong>Synthetic OFAC SDN</strong>: Volga Petrochem Export JSC'
        in html
    )


def test_a_sign_off_without_a_disposition_is_refused_and_nothing_is_recorded(
    client, tenant, analyst, reviewer
):
    item = sanctioned_signoff_item(tenant, analyst)
    response = decide(
        client_for(client, reviewer), item, decision="approve", reason="Looks fine to me"
    )
    html = response.content.decode()
    assert response.status_code == 409
    assert escape(DISPOSE_OF_EVERY_HIT) in html
    assert "Looks fine to me" in html, "the reason is given back"
    assert not HumanDecision.objects.filter(run_id=item.run_id).exists()
    item.refresh_from_db()
    assert item.status == ReviewItem.Status.OPEN


def test_a_chosen_disposition_is_kept_when_the_form_is_refused(client, tenant, analyst, reviewer):
    item = sanctioned_signoff_item(tenant, analyst)
    fields = {"decision": "approve", "reason": "", hit_field(item): "false_positive"}
    response = decide(client_for(client, reviewer), item, **fields)
    assert response.status_code == 400
    assert f'name="{hit_field(item)}" value="false_positive" checked' in response.content.decode()


def test_an_unknown_disposition_is_refused_in_plain_words(client, tenant, analyst, reviewer):
    item = sanctioned_signoff_item(tenant, analyst)
    fields = {"decision": "approve", "reason": "Cleared by phone", **every_hit(item, "cleared")}
    response = decide(client_for(client, reviewer), item, **fields)
    assert response.status_code == 409
    assert "This decision is not valid" in response.content.decode()
    assert not HumanDecision.objects.filter(run_id=item.run_id).exists()


@pytest.mark.parametrize("action", ["decide", "close"])
def test_a_disposition_of_something_that_is_no_hit_is_refused_before_anything_is_recorded(
    client, tenant, analyst, reviewer, action
):
    if action == "decide":
        item = sanctioned_signoff_item(tenant, analyst)
        fields = {"decision": "approve", "reason": "Cleared by phone"}
    else:
        item = sanctioned_escalation_item(tenant, analyst)
        fields = {"decision": "Closed as it stands."}
    fields.update(every_hit(item, "false_positive"))
    fields["hit-ev-bogus"] = "false_positive"
    post = decide if action == "decide" else close
    response = post(client_for(client, reviewer), item, **fields)
    assert "Not a screening match of this run: ev-bogus." in response.content.decode()
    assert not HumanDecision.objects.filter(run_id=item.run_id).exists()


def test_a_decision_the_run_refuses_opens_its_item_again(tenant, analyst, reviewer):
    item = sanctioned_signoff_item(tenant, analyst)
    refused = refused_sign_off(item, reviewer)
    run = advance(item)
    assert run.status == "awaiting_review"
    assert str(refused.pk) in run.state["rejected_decisions"]
    # The refused decision stays on its item (decisions are append-only); the request is
    # asked again as an item of its own.
    again = ReviewItem.objects.get(run=run, status=ReviewItem.Status.OPEN)
    assert (again.kind, again.key) == (item.kind, f"{item.key}~{refused.pk}")
    assert again.payload == item.payload
    refused.refresh_from_db()
    assert refused.review_item_id == item.pk
    from reviews.actions import do_sign_off

    do_sign_off(again, reviewer, True, "Cleared", every_hit_by_id(again, "false_positive"))
    assert advance(again).status == "completed"
    again.refresh_from_db()
    assert again.status == ReviewItem.Status.DECIDED


def refused_sign_off(item: ReviewItem, reviewer) -> HumanDecision:
    """A sign-off the run refuses (a disposition of no hit of it), stored as one was before
    the web checked dispositions as the run does, and its item closed by it."""
    decision = HumanDecision.objects.create(
        tenant=item.tenant,
        case=item.case,
        run=item.run,
        review_item=item,
        actor=reviewer,
        kind=HumanDecision.Kind.SIGN_OFF,
        reason="Cleared",
        state_version=item.run.state_version,
        payload={
            "approved": True,
            "reason": "Cleared",
            "packet_step": item.payload["step"],
            "hit_dispositions": {
                **every_hit_by_id(item, "false_positive"),
                "ev-bogus": "false_positive",
            },
        },
    )
    ReviewItem.objects.filter(pk=item.pk).update(status=ReviewItem.Status.DECIDED)
    return decision


def every_hit_by_id(item: ReviewItem, disposition: str) -> dict[str, str]:
    return {hit["evidence_id"]: disposition for hit in screening_matches_of(item)}


def test_the_signed_off_packet_records_each_disposition(client, tenant, analyst, reviewer):
    item = sanctioned_signoff_item(tenant, analyst)
    hits = item.payload["screening_matches"]
    fields = {
        "decision": "approve",
        "reason": "Same entity as the SDN listing: exit the relationship.",
        **every_hit(item, "confirmed_match"),
    }
    decide(client_for(client, reviewer), item, **fields)
    decision = HumanDecision.objects.get(review_item=item)
    assert decision.payload["hit_dispositions"] == {
        hit["evidence_id"]: "confirmed_match" for hit in hits
    }

    run = advance(item)
    assert (run.status, run.termination_reason) == ("completed", "packet_approved")
    assert not run.closed_by_reviewer
    recorded = run.state["proposed_packet"]["hit_dispositions"]
    assert [r["disposition"] for r in recorded] == ["confirmed_match"] * len(hits)
    assert {r["decided_by"] for r in recorded} == {reviewer.get_username()}
    packet_page = client.get(reverse("runs-packet", args=[run.pk])).content.decode()
    disposition = '<strong class="disposition-confirmed_match">confirmed match</strong>'
    assert f"Reviewer's disposition: {disposition}" in packet_page
    assert '<span class="muted small">by Reviewer</span>' in packet_page  # the name, not a login
    assert (
        "On the evidence of 3 sanctions hits (on the subject and on director Dmitri Volkov), "
        "all confirmed by the reviewer"
    ) in packet_page


def test_rejecting_the_packet_needs_no_disposition(client, tenant, analyst, reviewer):
    item = sanctioned_signoff_item(tenant, analyst)
    decide(client_for(client, reviewer), item, decision="deny", reason="Re-screen the aliases.")
    assert HumanDecision.objects.get(review_item=item).kind == HumanDecision.Kind.REJECT_PACKET


def test_a_sign_off_requested_before_items_listed_hits_still_asks_for_them(
    client, tenant, analyst, reviewer
):
    item = sanctioned_signoff_item(tenant, analyst)
    field = hit_field(item)
    del item.payload["sanctions_hits"], item.payload["screening_matches"]
    item.save(update_fields=["payload"])
    client_for(client, reviewer)
    page = client.get(reverse("reviews-item", args=[item.pk])).content.decode()
    assert f'name="{field}" value="false_positive"' in page
    response = decide(client, item, decision="approve", reason="Cleared by compliance")
    assert response.status_code == 409
    assert not HumanDecision.objects.filter(run_id=item.run_id).exists()


def test_the_close_form_of_an_escalation_asks_for_a_disposition_of_each_hit(
    client, tenant, analyst, reviewer
):
    item = sanctioned_escalation_item(tenant, analyst)
    (hit,) = screening_matches_of(item)
    page = client_for(client, reviewer).get(reverse("reviews-conflict", args=[item.pk]))
    html = page.content.decode()
    assert escape(hit["claim"]) in html
    assert f'name="{hit_field(item)}" value="confirmed_match"' in html


def test_closing_a_case_without_a_disposition_is_refused_and_nothing_is_recorded(
    client, tenant, analyst, reviewer
):
    item = sanctioned_escalation_item(tenant, analyst)
    response = close(client_for(client, reviewer), item, decision="Decline the client.")
    html = response.content.decode()
    assert response.status_code == 409
    assert escape(DISPOSE_OF_EVERY_HIT) in html
    assert "Decline the client." in html, "the closing decision is given back"
    assert not HumanDecision.objects.filter(run_id=item.run_id).exists()

    response = close(client, item, decision="", **{hit_field(item): "false_positive"})
    assert response.status_code == 400
    assert f'name="{hit_field(item)}" value="false_positive" checked' in response.content.decode()


def test_the_closed_packet_records_each_disposition(client, tenant, analyst, reviewer):
    item = sanctioned_escalation_item(tenant, analyst)
    fields = {"decision": "Confirmed SDN match: decline.", hit_field(item): "confirmed_match"}
    close(client_for(client, reviewer), item, **fields)
    decision = HumanDecision.objects.get(review_item=item)
    assert decision.kind == HumanDecision.Kind.CLOSE_CASE

    run = advance(item)
    assert (run.status, run.termination_reason) == ("completed", "packet_approved")
    packet = run.state["proposed_packet"]
    assert packet["closed_by_reviewer"]
    (recorded,) = packet["hit_dispositions"]
    assert (recorded["disposition"], recorded["decided_by"]) == (
        "confirmed_match",
        reviewer.get_username(),
    )
    packet_page = client.get(reverse("runs-packet", args=[run.pk])).content.decode()
    assert '<strong class="disposition-confirmed_match">confirmed match</strong>' in packet_page


def test_the_escalations_queue_flags_a_run_with_a_sanctions_hit(client, tenant, analyst, reviewer):
    item = sanctioned_escalation_item(tenant, analyst)
    assert [hit["claim"] for hit in item.payload["sanctions_hits"]]
    page = client_for(client, reviewer).get(reverse("reviews-escalations")).content.decode()
    row = page[page.index(f'id="review-item-{item.pk}"') :].split("</tr>")[0]
    assert "Sanctions hit</span>" in row


def test_an_escalation_raised_before_items_listed_hits_still_asks_for_them(
    client, tenant, analyst, reviewer
):
    item = sanctioned_escalation_item(tenant, analyst)
    field = hit_field(item)
    del item.payload["sanctions_hits"], item.payload["screening_matches"]
    item.save(update_fields=["payload"])
    response = close(client_for(client, reviewer), item, decision="Decline the client.")
    assert response.status_code == 409
    assert f'name="{field}" value="confirmed_match"' in response.content.decode()
    assert not HumanDecision.objects.filter(run_id=item.run_id).exists()


def test_a_request_asked_again_is_withdrawn_when_the_run_moves_on(tenant, analyst, reviewer):
    from runs.actions import do_request_cancel

    item = sanctioned_signoff_item(tenant, analyst)
    refused_sign_off(item, reviewer)
    run = advance(item)
    again = ReviewItem.objects.get(run=run, status=ReviewItem.Status.OPEN)
    assert do_request_cancel(run, analyst).status == "cancelled"
    again.refresh_from_db()
    assert again.status == ReviewItem.Status.WITHDRAWN


def test_a_pep_match_on_a_director_is_marked_like_a_hit_before_sign_off(
    client, tenant, analyst, reviewer
):
    """A medium packet whose director's name matches the register of politically exposed
    persons: not signed off from the queue row; the item asks for the match's disposition,
    and the signed packet records it."""
    item = open_item(paused_run(tenant, analyst, "Fjordline Seafood", jurisdiction="NO"), "signoff")
    assert item.payload["sanctions_hits"] == []
    (match,) = item.payload["screening_matches"]
    assert (match["list"], match["about"]) == (
        "Register of politically exposed persons",
        "director Henrik Solberg",
    )
    client_for(client, reviewer)
    queue = client.get(reverse("reviews-queue")).content.decode()
    row = queue[queue.index(f'id="review-item-{item.pk}"') :].split("</tr>")[0]
    assert "1 screening match to mark as a confirmed match or a false positive" in row
    assert "Sign off</button>" not in row
    page = client.get(reverse("reviews-item", args=[item.pk])).content.decode()
    assert f'name="{hit_field(item)}" value="false_positive"' in page
    assert "On director Henrik Solberg" in page

    refused = decide(client, item, decision="approve", reason="A namesake.")
    assert refused.status_code == 409
    decide(
        client, item, decision="approve", reason="A namesake.", **every_hit(item, "false_positive")
    )
    run = advance(item)
    assert (run.status, run.termination_reason) == ("completed", "packet_approved")
    (recorded,) = run.state["proposed_packet"]["hit_dispositions"]
    assert (recorded["evidence_id"], recorded["disposition"]) == (
        match["evidence_id"],
        "false_positive",
    )
    packet_page = client.get(reverse("runs-packet", args=[run.pk])).content.decode()
    assert '<span class="badge risk-medium">PEP</span>' in packet_page
    assert '<strong class="disposition-false_positive">false positive</strong>' in packet_page
    assert (
        "On the evidence of a politically exposed person (on director Henrik Solberg), marked "
        "false positive by the reviewer."
    ) in packet_page


def test_an_article_found_by_a_directors_name_is_marked_before_sign_off(
    client, tenant, analyst, reviewer
):
    """An adverse article found by a director's name alone may be about a namesake: the
    reviewer confirms it or marks it a false positive, with the article a click away, and
    the signed packet and its rating grounds say which."""
    item = open_item(
        paused_run(tenant, analyst, "Harrow Bay Freight", jurisdiction="GB"), "signoff"
    )
    (match,) = item.payload["screening_matches"]
    assert (match["kind"], match["list"], match["about"]) == (
        "adverse_media",
        "Example Business News",
        "director Colin Marsh",
    )
    assert match["url"].startswith("https://")
    client_for(client, reviewer)
    page = client.get(reverse("reviews-item", args=[item.pk])).content.decode()
    assert "an article found by the name alone: it may be about a namesake" in page
    assert f'href="{match["url"]}"' in page

    refused = decide(client, item, decision="approve", reason="Same man, per the article.")
    assert refused.status_code == 409
    assert "adverse article found by a name alone" in refused.content.decode()
    decide(
        client,
        item,
        decision="approve",
        reason="Same man, per the article.",
        **every_hit(item, "confirmed_match"),
    )
    run = advance(item)
    assert (run.status, run.termination_reason) == ("completed", "packet_approved")
    (recorded,) = run.state["proposed_packet"]["hit_dispositions"]
    assert (recorded["evidence_id"], recorded["disposition"]) == (
        match["evidence_id"],
        "confirmed_match",
    )
    packet_page = client.get(reverse("runs-packet", args=[run.pk])).content.decode()
    media = packet_page[packet_page.index("<h2>Adverse media</h2>") :].split("</section>")[0]
    assert ">Name match</span>" in media
    assert '<strong class="disposition-confirmed_match">confirmed match</strong>' in media
    assert (
        "On the evidence of an adverse article (on director Colin Marsh), confirmed by the "
        "reviewer."
    ) in packet_page


def test_an_article_found_through_the_matched_entity_needs_no_disposition(tenant, analyst):
    """The subject's own articles, found through its registry entity, are about it: nothing
    to mark."""
    item = open_item(
        paused_run(tenant, analyst, "Harrow Bay Freight", jurisdiction="GB"), "signoff"
    )
    state = item.run.state
    by_entity = [
        e for e in state["evidence"] if e["evidence_class"] == "adverse_media" and not e["about"]
    ]
    assert by_entity and not any(e["found_by_name"] for e in by_entity)


def test_a_hit_that_may_be_a_namesakes_is_badged_on_the_sign_off_page(
    client, tenant, analyst, reviewer
):
    item = open_item(
        paused_run(tenant, analyst, "Calder Print Works", jurisdiction="GB"), "signoff"
    )
    (match,) = item.payload["screening_matches"]
    assert match["possible_namesake"] is True
    client_for(client, reviewer)
    page = client.get(reverse("reviews-item", args=[item.pk])).content.decode()
    hit = page[page.index(f'id="hit-{match["evidence_id"]}"') :].split("</fieldset>")[0]
    assert "Possible namesake</span>" in hit
    assert "does not list Calder Print Works Ltd among the companies they direct" in hit


def test_a_hit_on_the_listed_person_itself_has_no_namesake_badge(client, tenant, analyst, reviewer):
    item = open_item(
        paused_run(tenant, analyst, "Amber Coast Freight", jurisdiction="LT"), "signoff"
    )
    assert item.payload["screening_matches"]
    assert not any(m["possible_namesake"] for m in item.payload["screening_matches"])
    client_for(client, reviewer)
    page = client.get(reverse("reviews-item", args=[item.pk])).content.decode()
    assert "Possible namesake" not in page
