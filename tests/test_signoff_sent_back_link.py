"""A sent-back sign-off's page leads to what the packet's run waits on next: the analyst's
question, then the packet's next sign-off once they reply."""

from __future__ import annotations

import pytest
from django.urls import reverse

from reviews.models import ReviewItem
from tests.conftest import client_for
from tests.review_runs import advance, open_item, signoff_item

pytestmark = pytest.mark.django_db


def test_the_sent_back_item_links_to_the_question_then_to_the_next_sign_off(
    client, tenant, analyst, reviewer
):
    item = signoff_item(tenant, analyst)
    client_for(client, reviewer).post(
        reverse("reviews-decide", args=[item.pk]),
        {"decision": "deny", "reason": "Check the 2023 fine reported in the FT"},
    )
    run = advance(item)
    question = open_item(run, ReviewItem.Kind.CLARIFICATION)
    page = client.get(reverse("reviews-item", args=[item.pk])).content.decode()
    assert "Sent back" in page
    assert f'#review-item-{question.pk}">clarifying question #{question.pk}</a>' in page

    client_for(client, analyst).post(
        reverse("reviews-answer", args=[question.pk]), {"answer_text": "It was a namesake."}
    )
    run = advance(question)
    again = open_item(run, ReviewItem.Kind.SIGNOFF)
    page = client_for(client, reviewer).get(reverse("reviews-item", args=[item.pk]))
    html = page.content.decode()
    link = reverse("reviews-item", args=[again.pk])
    assert f'The packet came back for sign-off: <a href="{link}">sign-off #{again.pk}</a>.' in html
    assert f'<a href="{link}">Next: packet sign-off #{again.pk}</a>' in html


def test_the_sent_back_message_names_the_subject_once(client, tenant, analyst, reviewer):
    item = signoff_item(tenant, analyst)
    response = client_for(client, reviewer).post(
        reverse("reviews-decide", args=[item.pk]),
        {"decision": "deny", "reason": "Check the 2023 fine reported in the FT"},
    )
    html = client.get(response.url).content.decode()
    assert (
        f"Sent back the packet on {item.run.subject_name} to the analysts with your reason. "
        "It returns for sign-off once they reply."
    ) in html
    assert "rated" not in html.split("Sent back the packet on", 1)[1].split("</", 1)[0]


def test_people_read_send_back_and_the_stored_kind_stays(client, tenant, analyst, reviewer):
    item = signoff_item(tenant, analyst)
    html = client_for(client, reviewer).get(reverse("reviews-item", args=[item.pk])).content
    html = html.decode()
    assert ">Send back packet</button>" in html and "Reject" not in html
    queue = client.get(reverse("reviews-queue")).content.decode()
    assert ">Send back<span" in queue and ">Reject<" not in queue
    client.post(
        reverse("reviews-decide", args=[item.pk]),
        {"decision": "deny", "reason": "Check the 2023 fine reported in the FT"},
    )
    decision = item.decisions.get()
    assert (decision.kind, decision.get_kind_display()) == ("reject_packet", "Sent back")
    page = client.get(reverse("reviews-item", args=[item.pk])).content.decode()
    assert '<span class="badge badge-failed">Sent back</span>' in page
