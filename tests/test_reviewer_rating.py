"""A reviewer signs a packet off at the proposed rating or at another the evidence allows,
the screening matches they marked false positives set aside."""

from __future__ import annotations

import pytest
from django.template.loader import render_to_string
from django.urls import reverse

from reviews.actions import screening_matches_of
from reviews.earlier_marks import earlier_marks
from reviews.models import HumanDecision, ReviewItem
from runs.actions import do_start_run
from runs.execution import run_inline
from runs.models import Run
from tests.conftest import client_for
from tests.review_runs import advance, open_item, paused_run, sanctioned_escalation_item

pytestmark = pytest.mark.django_db


@pytest.fixture
def harrow_bay(tenant, analyst) -> ReviewItem:
    """Rated medium on one article found by a director's name alone."""
    return open_item(
        paused_run(tenant, analyst, "Harrow Bay Freight", jurisdiction="GB"), "signoff"
    )


def sign_off(client, item: ReviewItem, disposition: str, rating: str, note: str = ""):
    fields = {f"hit-{m['evidence_id']}": disposition for m in screening_matches_of(item)}
    fields |= {f"note-hit-{m['evidence_id']}": note for m in screening_matches_of(item)}
    return client.post(
        reverse("reviews-decide", args=[item.pk]),
        {"decision": "approve", "reason": "Weighed the article.", "risk_rating": rating, **fields},
    )


def test_the_signoff_page_offers_the_proposed_rating_and_the_others(client, reviewer, harrow_bay):
    page = client_for(client, reviewer).get(reverse("reviews-item", args=[harrow_bay.pk]))
    html = page.content.decode()
    assert '<option value="" selected>As proposed: medium</option>' in html
    for rating in ("low", "medium", "high"):
        assert f'<option value="{rating}">' in html


def test_a_namesake_marked_false_positive_lets_the_rating_come_down(client, reviewer, harrow_bay):
    response = sign_off(client_for(client, reviewer), harrow_bay, "false_positive", "low")
    assert response.status_code == 302
    queue = client.get(response.url).content.decode()
    assert (
        "Signed off packet on Harrow Bay Freight at low risk, your rating (the agent proposed "
        "medium)." in queue
    )
    decision = HumanDecision.objects.get(review_item=harrow_bay)
    assert decision.payload["risk_rating"] == "low"
    run = advance(harrow_bay)
    assert (run.status, run.risk_rating) == ("completed", "low")
    assert run.state["proposed_packet"]["proposed_risk_rating"] == "medium"
    packet_page = client.get(reverse("runs-packet", args=[run.pk])).content.decode()
    assert "Rated low by the reviewer; the run proposed medium." in packet_page
    assert "marked false positive by the reviewer" in packet_page
    assert "Signed off packet, rated low" in packet_page
    case_page = client.get(reverse("runs-case-detail", args=[run.case_id])).content.decode()
    assert (
        'Rated <span class="badge risk-low">Low risk</span> by the reviewer; the run proposed '
        "medium risk."
    ) in case_page


def test_a_rating_the_evidence_rules_out_is_refused_and_nothing_is_recorded(
    client, reviewer, harrow_bay
):
    response = sign_off(client_for(client, reviewer), harrow_bay, "confirmed_match", "low")
    html = response.content.decode()
    assert response.status_code == 409
    assert (
        "A low rating is ruled out by adverse media: an article [6] found by the name alone "
        "is adverse media about director Colin Marsh, which marking it a false positive would "
        "set aside."
    ) in html
    assert not HumanDecision.objects.filter(review_item=harrow_bay).exists()
    # The form comes back as it was sent, the rating marked as the field at fault.
    assert '<option value="low" selected>Low</option>' in html
    assert 'aria-describedby="risk-rating-help decision-rating-error" aria-invalid="true"' in html
    assert 'value="confirmed_match" checked' in html


def test_an_unknown_rating_is_refused_in_plain_words(client, reviewer, harrow_bay):
    response = sign_off(client_for(client, reviewer), harrow_bay, "false_positive", "none")
    assert response.status_code == 400
    assert "Choose a rating of low, medium or high." in response.content.decode()
    assert not HumanDecision.objects.filter(review_item=harrow_bay).exists()


def test_the_proposed_rating_chosen_by_name_records_no_other(client, reviewer, harrow_bay):
    sign_off(client_for(client, reviewer), harrow_bay, "confirmed_match", "medium")
    assert "risk_rating" not in HumanDecision.objects.get(review_item=harrow_bay).payload
    run = advance(harrow_bay)
    assert (run.risk_rating, run.state["proposed_packet"]["proposed_risk_rating"]) == (
        "medium",
        None,
    )


def close(client, item: ReviewItem, disposition: str, rating: str):
    fields = {f"hit-{m['evidence_id']}": disposition for m in screening_matches_of(item)}
    return client.post(
        reverse("reviews-close", args=[item.pk]),
        {"decision": "Decline the client.", "risk_rating": rating, **fields},
    )


def test_a_case_closed_as_it_stands_may_be_rated_as_far_as_its_research_went(
    client, tenant, analyst, reviewer
):
    """Volga Petrochem stopped right after its screening hit: with the hit marked a false
    positive the case may close at medium, not low, for nobody searched the media."""
    item = sanctioned_escalation_item(tenant, analyst)
    client_for(client, reviewer)
    page = client.get(reverse("reviews-conflict", args=[item.pk])).content.decode()
    assert '<option value="" selected>As proposed: high</option>' in page

    refused = close(client, item, "false_positive", "low")
    assert refused.status_code == 409
    assert "A low rating is ruled out by adverse media not searched" in refused.content.decode()
    assert not HumanDecision.objects.filter(review_item=item).exists()

    close(client, item, "false_positive", "medium")
    run = advance(item)
    assert (run.status, run.closed_by_reviewer, run.risk_rating) == ("completed", True, "medium")
    packet_page = client.get(reverse("runs-packet", args=[run.pk])).content.decode()
    assert "Rated medium by the reviewer; the run proposed high." in packet_page


def test_an_unrated_case_closed_by_a_reviewer_gets_their_rating(client, tenant, analyst, reviewer):
    run = paused_run(
        tenant, analyst, "Acme Analytics", jurisdiction="GB", budgets={"max_iterations": 1}
    )
    item = open_item(run, ReviewItem.Kind.ESCALATION)
    assert run.risk_rating == "unrated"
    client_for(client, reviewer)
    page = client.get(reverse("reviews-conflict", args=[item.pk])).content.decode()
    assert '<option value="" selected>As it stands: not rated</option>' in page
    refused = close(client, item, "confirmed_match", "low")
    assert "a subject not screened against the sanctions lists" in refused.content.decode()
    close(client, item, "confirmed_match", "medium")
    run = advance(item)
    assert run.risk_rating == "medium"
    packet_page = client.get(reverse("runs-packet", args=[run.pk])).content.decode()
    assert "Rated medium by the reviewer; the run left it unrated." in packet_page


def test_a_case_closed_with_its_sources_still_disagreeing_cannot_be_rated_low(
    client, tenant, analyst, reviewer
):
    run = paused_run(tenant, analyst, "Meridian Shipping Holdings", jurisdiction="GB")
    item = open_item(run, ReviewItem.Kind.ESCALATION)
    refused = close(client_for(client, reviewer), item, "confirmed_match", "low")
    assert refused.status_code == 409
    page = refused.content.decode()
    assert "A low rating is ruled out by sources that disagree on a fact nobody settled" in page
    # Beside the rating chosen, in the closing form far down the page, not atop it.
    assert '<div class="error" role="alert" id="escalation-error">A low rating' in page
    assert 'class="banner banner-bad" role="alert" id="escalation-error"' not in page
    assert '<option value="low" selected>' in page


def test_a_match_marked_on_an_earlier_run_of_the_case_shows_that_mark(
    client, analyst, reviewer, harrow_bay
):
    """Run again, the case finds the same article: the reviewer sees how it was marked last
    time, with the run to read, and still marks it themselves."""
    sign_off(client_for(client, reviewer), harrow_bay, "false_positive", "low", "Born 1958.")
    first = advance(harrow_bay)
    again = run_inline(do_start_run(first.case, analyst, wake=False, driven_here=True))
    item = open_item(again, ReviewItem.Kind.SIGNOFF)
    # The same article is the same evidence id on every run that finds it.
    assert screening_matches_of(item) == screening_matches_of(harrow_bay)
    page = client.get(reverse("reviews-item", args=[item.pk])).content.decode()
    assert (
        f'Marked a false positive by Reviewer on <a href="/runs/{first.pk}/packet/">run '
        f"{first.pk}</a>"
    ) in page
    assert 'value="false_positive" checked' not in page
    assert f"run {first.pk}</a> (" in page and "): “Born 1958.” Weigh it again" in page
    response = sign_off(client, item, "confirmed_match", "")
    assert response.status_code == 302


def test_a_mark_carries_the_reviewers_note_into_the_packet(client, reviewer, harrow_bay):
    (match,) = screening_matches_of(harrow_bay)
    note_field = f"note-hit-{match['evidence_id']}"
    client_for(client, reviewer)
    refused = client.post(
        reverse("reviews-decide", args=[harrow_bay.pk]),
        {"decision": "approve", "reason": "", note_field: "Born 1958; the director is 41."},
    )
    # Refused for the missing reason and mark, the note comes back as typed.
    assert refused.status_code == 400
    assert 'value="Born 1958; the director is 41."' in refused.content.decode()

    response = client.post(
        reverse("reviews-decide", args=[harrow_bay.pk]),
        {
            "decision": "approve",
            "reason": "A namesake.",
            f"hit-{match['evidence_id']}": "false_positive",
            note_field: "  Born 1958; the director is 41.  ",
        },
    )
    assert response.status_code == 302
    decision = HumanDecision.objects.get(review_item=harrow_bay)
    assert decision.payload["hit_notes"] == {match["evidence_id"]: "Born 1958; the director is 41."}
    run = advance(harrow_bay)
    (recorded,) = run.state["proposed_packet"]["hit_dispositions"]
    assert recorded["note"] == "Born 1958; the director is 41."
    packet_page = client.get(reverse("runs-packet", args=[run.pk])).content.decode()
    assert (
        '<div class="small disposition-note">“Born 1958; the director is 41.”</div>' in packet_page
    )


@pytest.mark.parametrize(
    ("field", "note", "refusal"),
    [
        ("match", "x" * 501, "Keep each note on a match under 500 characters"),
        ("other", "A note on nothing.", "Not a screening match of this run: ev-nothing"),
    ],
)
def test_a_note_that_cannot_be_kept_is_refused_and_nothing_is_recorded(
    client, reviewer, harrow_bay, field, note, refusal
):
    (match,) = screening_matches_of(harrow_bay)
    evidence_id = match["evidence_id"] if field == "match" else "ev-nothing"
    response = client_for(client, reviewer).post(
        reverse("reviews-decide", args=[harrow_bay.pk]),
        {
            "decision": "approve",
            "reason": "A namesake.",
            f"hit-{match['evidence_id']}": "false_positive",
            f"note-hit-{evidence_id}": note,
        },
    )
    assert response.status_code == 409
    assert refusal in response.content.decode()
    assert not HumanDecision.objects.filter(review_item=harrow_bay).exists()


@pytest.mark.parametrize(
    ("note", "sentence"),
    [
        ("", "run 7</a>. Weigh it again"),
        ("Born 1958", "“Born 1958”. Weigh it again"),
        ("Born 1958?", "“Born 1958?” Weigh it again"),
    ],
)
def test_an_earlier_mark_ends_its_sentence_once(note, sentence):
    hit = {"evidence_id": "ev-1", "about": None, "list": "News", "claim": "An article."}
    hit["earlier"] = {"disposition": "false_positive", "decided_by": "Rita", "run_id": 7}
    hit["earlier"]["note"] = note
    row = {"hits": [hit], "hits_to_mark": [hit]}
    page = render_to_string("reviews/_hit_dispositions.html", {"row": row})
    assert sentence in page


def test_marks_made_sending_a_packet_back_are_kept_and_shown_when_it_returns(
    client, analyst, reviewer, harrow_bay
):
    """Sending back is not signing off, so nothing needs marking; what was marked is kept
    in the audit and shown beside the same match on the packet that comes back."""
    (match,) = screening_matches_of(harrow_bay)
    client_for(client, reviewer).post(
        reverse("reviews-decide", args=[harrow_bay.pk]),
        {
            "decision": "deny",
            "reason": "Check the director's date of birth.",
            f"hit-{match['evidence_id']}": "false_positive",
            f"note-hit-{match['evidence_id']}": "Born 1958; the director is 41.",
        },
    )
    decision = HumanDecision.objects.get(review_item=harrow_bay)
    assert decision.kind == HumanDecision.Kind.REJECT_PACKET
    assert decision.payload["hit_dispositions"] == {match["evidence_id"]: "false_positive"}
    assert decision.payload["hit_notes"] == {match["evidence_id"]: "Born 1958; the director is 41."}

    run = advance(harrow_bay)
    question = open_item(run, ReviewItem.Kind.CLARIFICATION)
    client_for(client, analyst).post(
        reverse("runs-run-answer", args=[run.pk]),
        {"question_item": str(question.pk), "answer_text": "The registry gives 1958."},
    )
    returned = open_item(advance(question), ReviewItem.Kind.SIGNOFF)
    page = client_for(client, reviewer).get(reverse("reviews-item", args=[returned.pk]))
    html = page.content.decode()
    assert (
        f'Marked a false positive by Reviewer sending back the packet of <a href="/runs/'
        f'{run.pk}/packet/">run {run.pk}</a>'
    ) in html
    assert "“Born 1958; the director is 41.” Weigh it again" in html
    assert 'value="false_positive" checked' not in html  # still theirs to mark
    first = client.get(reverse("reviews-item", args=[harrow_bay.pk])).content.decode()
    assert '<span class="badge badge-failed">Sent back</span>' in first
    audit = client.get(reverse("reviews-audit")).content.decode()
    assert "Screening matches: 1 false positive" in audit
    assert "Notes on 1 match" in audit and "in the packet" not in audit


def test_marks_sent_back_are_refused_on_anything_but_the_runs_matches(client, reviewer, harrow_bay):
    response = client_for(client, reviewer).post(
        reverse("reviews-decide", args=[harrow_bay.pk]),
        {"decision": "deny", "reason": "Check it again.", "hit-ev-nothing": "false_positive"},
    )
    assert response.status_code == 409
    assert not HumanDecision.objects.exists()


def test_a_mark_on_another_case_on_the_same_entity_is_shown_in_its_tenant_only(
    client, tenant, other_tenant, analyst, outsider, reviewer, harrow_bay
):
    """A customer screened again, on a case of its own: the reviewer sees how the same match
    was marked on the earlier case, and which case that was."""
    sign_off(client_for(client, reviewer), harrow_bay, "false_positive", "low", "Born 1958.")
    first = advance(harrow_bay)
    again = paused_run(tenant, analyst, "Harrow Bay Freight", jurisdiction="GB")
    assert again.case_id != first.case_id
    item = open_item(again, ReviewItem.Kind.SIGNOFF)
    page = client.get(reverse("reviews-item", args=[item.pk])).content.decode()
    assert (
        f'by Reviewer on <a href="/runs/{first.pk}/packet/">run {first.pk}</a> of case '
        f"{first.case_id}, another case on the same registry entity ("
    ) in page
    # Another tenant's case on the same entity knows nothing of it.
    elsewhere = paused_run(other_tenant, outsider, "Harrow Bay Freight", jurisdiction="GB")
    assert earlier_marks(open_item(elsewhere, ReviewItem.Kind.SIGNOFF)) == {}


def test_a_mark_on_a_namesake_entity_of_the_same_name_and_country_is_not_shown(
    client, tenant, analyst, reviewer, harrow_bay
):
    sign_off(client_for(client, reviewer), harrow_bay, "false_positive", "low", "Born 1958.")
    first = advance(harrow_bay)
    # Another company registered under the same name in the same country.
    first.state["selected_entity"]["entity_id"] = "co-another-harrow-bay-freight-gb"
    Run.objects.filter(pk=first.pk).update(state=first.state)
    again = paused_run(tenant, analyst, "Harrow Bay Freight", jurisdiction="GB")
    assert earlier_marks(open_item(again, ReviewItem.Kind.SIGNOFF)) == {}
