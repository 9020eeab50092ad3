"""What a reviewer reads on the queues and an admin on a run's trace, checked in the markup."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from reviews.actions import do_sign_off
from reviews.models import ReviewItem
from runs.models import Case
from tests.conftest import client_for
from tests.review_runs import (
    approval_item,
    conflict_item,
    question_item,
    signoff_item,
)

pytestmark = pytest.mark.django_db

WAITING = re.compile(r'<td class="age" data-label="Waiting"><time [^>]*>([^<]*)</time>')


def waiting_shown(html: str) -> list[str]:
    return [text.replace("\xa0", " ") for text in WAITING.findall(html)]


@pytest.mark.parametrize(
    ("make_item", "page"),
    [
        (approval_item, "reviews-queue"),
        (question_item, "reviews-clarifications"),
        (conflict_item, "reviews-escalations"),
    ],
)
def test_an_item_opened_seconds_ago_waits_under_a_minute_not_zero_minutes(
    client, tenant, analyst, reviewer, make_item, page
):
    item = make_item(tenant, analyst)
    viewer = analyst if page == "reviews-clarifications" else reviewer
    html = client_for(client, viewer).get(reverse(page)).content.decode()
    assert waiting_shown(html) == ["under a minute"]

    ReviewItem.objects.filter(pk=item.pk).update(
        requested_at=timezone.now() - timedelta(minutes=10, seconds=5)
    )
    html = client.get(reverse(page)).content.decode()
    assert waiting_shown(html) == ["10 minutes"]


def test_a_trace_names_people_as_every_other_page_does_and_gives_times_in_utc(
    client, tenant, analyst, admin_user
):
    item = question_item(tenant, analyst)
    analyst.last_name = "Lyst"
    analyst.save(update_fields=["last_name"])
    client_for(client, analyst).post(
        reverse("reviews-answer", args=[item.pk]), {"answer": item.payload["candidates"][0]}
    )
    html = client_for(client, admin_user).get(reverse("runs-trace", args=[item.run_id]))
    html = html.content.decode()
    started_by = re.search(r"<dt>Started by</dt><dd>(.*?)</dd>", html).group(1)
    assert started_by.startswith('Analyst Lyst <span class="muted small">analyst</span> · ')
    assert started_by.endswith(" UTC")
    assert '<th scope="col">When (UTC)</th>' in html
    assert '<td>Analyst Lyst <span class="muted small">analyst</span></td>' in html
    research = re.search(r"<dt>Research time</dt><dd>(.*?)</dd>", html).group(1)
    assert " of 120s" in research, research


def test_a_conflicting_source_quotes_its_excerpt_only_when_it_adds_to_what_it_says(
    client, tenant, analyst, reviewer
):
    item = conflict_item(tenant, analyst)
    html = client_for(client, reviewer).get(reverse("reviews-conflict", args=[item.pk]))
    html = html.content.decode()
    says = re.findall(r"<dt>Says</dt><dd>(.*?)</dd>", html)
    quoted = re.findall(r'<blockquote class="excerpt">(.*?)</blockquote>', html)
    assert len(says) == 2
    assert not set(says) & set(quoted)
    # The article's excerpt tells more than its headline, so it stays.
    assert any("stepped down" in excerpt for excerpt in quoted)


def test_a_sign_off_page_says_that_rejecting_sends_the_packet_back_to_the_analyst(
    client, tenant, analyst, reviewer
):
    item = signoff_item(tenant, analyst)
    html = client_for(client, reviewer).get(reverse("reviews-item", args=[item.pk]))
    html = html.content.decode()
    assert "Send back packet</button>" in html
    help_text = re.search(r'<p class="help" id="reject-help">(.*?)</p>', html).group(1)
    assert help_text.startswith(
        "Sending the packet back returns it to the analysts with your reason"
    )
    assert "The run waits for a reply" in help_text


def test_leaving_the_correction_form_is_not_called_cancel_beside_buttons_that_cancel_a_run(
    client, tenant, analyst
):
    waiting = question_item(tenant, analyst).run
    form = client_for(client, analyst).get(reverse("runs-case-correct", args=[waiting.case_id]))
    form = form.content.decode()
    assert f"Cancel run {waiting.pk} and save</button>" in form
    back = re.search(r'<a href="/cases/\d+/">([^<]*)</a>\s*</div>', form).group(1)
    assert back == f"Keep run {waiting.pk} waiting and go back"


def test_a_trace_writes_the_packets_risk_rating_as_the_packet_page_does(
    client, tenant, analyst, admin_user
):
    run = signoff_item(tenant, analyst).run
    client_for(client, admin_user)
    trace = client.get(reverse("runs-trace", args=[run.pk])).content.decode()
    packet = client.get(reverse("runs-packet", args=[run.pk])).content.decode()
    rating = run.state["proposed_packet"]["risk_rating"]
    assert f'risk-{rating}">{rating.capitalize()}</span>' in packet
    assert f'<span class="badge risk-{rating}">{rating.capitalize()}</span>' in trace


def test_every_time_a_reader_is_shown_says_it_is_utc(client, tenant, analyst, reviewer, admin_user):
    """A packet is a record read by people in several time zones: its times, and those of
    the lists beside it, say which zone they are in, as the audit page does."""
    item = signoff_item(tenant, analyst)
    do_sign_off(item, reviewer, False, "More sources, please.")
    packet = client_for(client, reviewer).get(reverse("runs-packet", args=[item.run_id]))
    html = packet.content.decode()
    assert '<th scope="col">Retrieved (UTC)</th>' in html
    assert '<th scope="col">When (UTC)</th>' in html
    cases = client_for(client, analyst).get(reverse("runs-case-list")).content.decode()
    assert '<th scope="col">Opened (UTC)</th>' in cases
    runs = client_for(client, admin_user).get(reverse("runs-trace-list")).content.decode()
    assert ">Started (UTC) ↓</a></th>" in runs


def test_a_trace_calls_its_active_time_research_time_not_duration(
    client, tenant, analyst, admin_user
):
    item = question_item(tenant, analyst)
    html = client_for(client, admin_user).get(reverse("runs-trace", args=[item.run_id]))
    html = html.content.decode()
    assert "<dt>Duration</dt>" not in html
    research = re.search(r"<dt>Research time</dt><dd>(.*?)</dd>", html).group(1)
    assert research.endswith(" of 120s (time waiting for people not counted)"), research


def test_the_analysts_case_notes_reach_the_reviewer_who_signs_off(
    client, tenant, analyst, reviewer
):
    """What the analyst knew when opening the case (a referral, a suspected link) is read
    beside the packet it explains, and kept in the packet's record."""
    notes = "Referral from the Riga branch;\npossible link to <b>Volga Petrochem</b>."
    item = signoff_item(tenant, analyst, notes=notes)
    # Notes corrected after the run are the next run's; this one was given the first.
    Case.objects.filter(pk=item.case_id).update(notes="Corrected later: something else.")
    signing = client_for(client, reviewer)
    page = signing.get(reverse("reviews-item", args=[item.pk])).content.decode()
    shown = "Referral from the Riga branch;<br>possible link to &lt;b&gt;Volga Petrochem&lt;/b&gt;."
    assert f'<dt>Case notes</dt><dd class="notes">{shown}</dd>' in page
    packet = signing.get(reverse("runs-packet", args=[item.run_id])).content.decode()
    assert shown in packet
    record = signing.get(reverse("runs-packet-json", args=[item.run_id])).json()
    assert record["case_notes"] == notes
    assert "Corrected later" not in page + packet
