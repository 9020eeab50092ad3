"""Open questions from every run of the tenant: analysts answer, the run resumes."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from reviews.models import HumanDecision, ReviewItem
from runs.models import Membership, TraceEvent
from tests.conftest import client_for
from tests.queue_pages import copies_of, link, shown_ids
from tests.review_runs import advance, question_item

pytestmark = pytest.mark.django_db

NORTHWIND_GB = "Northwind Trading Ltd (GB, no. 04512398) [co-northwind-gb]"


def answer_url(item: ReviewItem) -> str:
    return reverse("reviews-answer", args=[item.pk])


def test_analysts_see_open_questions_with_candidates_as_quick_choices(client, tenant, analyst):
    item = question_item(tenant, analyst)
    html = client_for(client, analyst).get(reverse("reviews-clarifications")).content.decode()
    assert "Several registry entities match" in html
    assert f'name="answer" value="{NORTHWIND_GB}"' in html
    assert 'name="answer_text"' in html
    assert f'id="review-item-{item.pk}"' in html


def test_reviewers_can_follow_questions_but_not_answer(client, tenant, analyst, reviewer):
    item = question_item(tenant, analyst)
    client_for(client, reviewer)
    html = client.get(reverse("reviews-clarifications")).content.decode()
    assert "Several registry entities match" in html and 'name="answer_text"' not in html
    assert "<kbd>Enter</kbd> answer" not in html and "Type an answer" not in html
    assert client.post(answer_url(item), {"answer": NORTHWIND_GB}).status_code == 403
    assert not HumanDecision.objects.exists()


def test_picking_a_candidate_records_the_answer_and_the_run_resumes(
    client, tenant, analyst, django_capture_on_commit_callbacks
):
    item = question_item(tenant, analyst)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client_for(client, analyst).post(answer_url(item), {"answer": NORTHWIND_GB})
    assert response.status_code == 302
    decision = HumanDecision.objects.get(review_item=item)
    assert decision.kind == HumanDecision.Kind.ANSWER and decision.actor == analyst
    assert decision.payload == {
        "question_id": item.key,
        "text": NORTHWIND_GB,
        "document_ids": [],
    }
    assert len(callbacks) == 1
    run = advance(item)
    assert TraceEvent.objects.filter(run=run, type="clarification_received").exists()
    assert run.state["selected_entity"]["entity_id"] == "co-northwind-gb"


def test_a_free_text_answer_by_htmx_replaces_the_row(client, tenant, analyst):
    item = question_item(tenant, analyst)
    response = client_for(client, analyst).post(
        answer_url(item), {"answer_text": "The Singapore one"}, HTTP_HX_REQUEST="true"
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert "<strong>Answered</strong> by Analyst" in html and "“The Singapore one”" in html
    assert HumanDecision.objects.get(review_item=item).payload["text"] == "The Singapore one"
    assert "Not one of the suggested answers: if the agent cannot tell" in html


def test_a_suggested_answer_needs_no_word_of_warning(client, tenant, analyst):
    item = question_item(tenant, analyst)
    row = client_for(client, analyst).post(
        answer_url(item), {"answer": NORTHWIND_GB}, HTTP_HX_REQUEST="true"
    )
    assert "Not one of the suggested answers" not in row.content.decode()


def test_an_empty_answer_is_refused_and_nothing_is_recorded(client, tenant, analyst):
    item = question_item(tenant, analyst)
    client_for(client, analyst)
    response = client.post(answer_url(item), {"answer_text": "  "})
    assert response.status_code == 400
    assert "Write an answer or pick one" in response.content.decode()
    assert not HumanDecision.objects.exists()


def test_a_second_answer_is_told_who_answered(client, tenant, analyst):
    from tests.conftest import _person

    other = _person("analyst2", tenant, "analyst")
    item = question_item(tenant, analyst)
    client_for(client, analyst).post(answer_url(item), {"answer": NORTHWIND_GB})
    response = client_for(client, other).post(answer_url(item), {"answer_text": "US one"})
    assert response.status_code == 409
    assert "Analyst already recorded “Answered”" in response.content.decode()
    assert HumanDecision.objects.filter(run_id=item.run_id).count() == 1


def test_a_second_answer_is_given_back_to_copy(client, tenant, analyst):
    from tests.conftest import _person

    other = _person("analyst2", tenant, "analyst")
    item = question_item(tenant, analyst)
    client_for(client, analyst).post(answer_url(item), {"answer": NORTHWIND_GB})
    response = client_for(client, other).post(
        answer_url(item), {"answer_text": "The <em>US</em> one"}, HTTP_HX_REQUEST="true"
    )
    page = response.content.decode()
    assert "Not saved. What you wrote, to copy:" in page
    assert "The &lt;em&gt;US&lt;/em&gt; one" in page


def test_another_tenants_question_is_not_found(client, other_tenant, outsider, analyst):
    item = question_item(other_tenant, outsider)
    client_for(client, analyst)
    assert client.post(answer_url(item), {"answer": "x"}).status_code == 404
    html = client.get(reverse("reviews-clarifications")).content.decode()
    assert f"review-item-{item.pk}" not in html


def test_an_answer_over_the_limit_is_given_back_whole(client, tenant, analyst):
    item = question_item(tenant, analyst)
    answer = "The one registered in Cardiff, not London. " * 50 + "End of my answer."
    response = client_for(client, analyst).post(answer_url(item), {"answer_text": answer})
    page = response.content.decode()
    assert response.status_code == 400 and "at most 2000 characters" in page
    assert "pick one of the suggested answers" not in page  # an answer was written
    assert f'value="{answer}"' in page
    assert not HumanDecision.objects.exists()


def test_a_two_letter_answer_is_recorded(client, tenant, analyst):
    item = question_item(tenant, analyst)
    client_for(client, analyst).post(answer_url(item), {"answer_text": "GB"})
    assert HumanDecision.objects.get(review_item=item).payload["text"] == "GB"


def test_the_keyboard_help_of_the_questions_queue_says_how_to_answer(client, tenant, analyst):
    question_item(tenant, analyst)
    page = client_for(client, analyst).get(reverse("reviews-clarifications")).content.decode()
    help_box = page[page.index('id="keys-help"') :]
    assert "Type an answer to the selected question" in help_box
    assert "Approve the selected item" not in help_box
    # An analyst answers here: nothing about reasons or decisions.
    assert "Leave the answer field" in help_box
    assert "reason" not in help_box and "decision" not in help_box


def test_a_second_different_answer_is_refused_and_given_back(client, tenant, analyst):
    item = question_item(tenant, analyst)
    client_for(client, analyst)
    assert client.post(answer_url(item), {"answer": NORTHWIND_GB}).status_code == 302
    again = client.post(answer_url(item), {"answer": NORTHWIND_GB})  # a double submit
    assert again.status_code == 302
    other = client.post(answer_url(item), {"answer_text": "Actually the Singapore one"})
    html = other.content.decode()
    assert other.status_code == 409
    assert f"You already answered this question: “{NORTHWIND_GB}”" in html
    assert "Not saved. What you wrote, to copy:" in html and "Actually the Singapore one" in html
    assert HumanDecision.objects.filter(review_item=item).count() == 1


def test_an_htmx_answer_updates_the_count_in_the_header(client, tenant, analyst):
    item = question_item(tenant, analyst)
    response = client_for(client, analyst).post(
        answer_url(item),
        {"answer": NORTHWIND_GB},
        HTTP_HX_REQUEST="true",
        HTTP_HX_CURRENT_URL=f"http://testserver{reverse('reviews-clarifications')}",
    )
    html = response.content.decode()
    assert 'id="questions-open-count" hx-swap-oob="true">0 open questions from the agent' in html


def test_a_refused_second_answer_does_not_count_its_question_as_open(client, tenant, analyst):
    item = question_item(tenant, analyst)
    client_for(client, analyst)
    client.post(answer_url(item), {"answer": NORTHWIND_GB})
    refused = client.post(answer_url(item), {"answer_text": "Actually the Singapore one"})
    assert refused.status_code == 409
    assert 'id="questions-open-count">0 open questions' in refused.content.decode()


def test_an_answer_to_a_question_of_a_cancelled_run_says_it_was_cancelled(client, tenant, analyst):
    from runs.actions import do_request_cancel

    item = question_item(tenant, analyst)
    do_request_cancel(item.run, analyst)
    client_for(client, analyst)
    row = client.post(
        reverse("reviews-answer", args=[item.pk]),
        {"answer_text": "The UK one"},
        headers={"HX-Request": "true"},
    ).content.decode()
    assert "Withdrawn: the run was cancelled." in row


def test_every_open_question_is_counted_and_reached_page_by_page(client, tenant, analyst):
    first = question_item(tenant, analyst)
    ids = [first.pk, *(item.pk for item in copies_of(first, 335))]
    client_for(client, analyst)
    url = reverse("reviews-clarifications")
    html = client.get(url, {"q": "Northwind"}).content.decode()
    assert 'id="questions-open-count">336 open questions from the agent matching' in html
    assert "1–50 of 336" in html
    seen = shown_ids(html)
    while query := link(html, "next"):
        assert "q=Northwind" in query
        html = client.get(f"{url}?{query}").content.decode()
        seen += shown_ids(html)
    assert seen == ids and "301–336 of 336" in html


def test_answering_on_a_page_never_moves_unseen_questions_past_its_newer_link(
    client, tenant, analyst
):
    first = question_item(tenant, analyst)
    ids = [first.pk, *(item.pk for item in copies_of(first, 60))]
    client_for(client, analyst)
    url = reverse("reviews-clarifications")
    page_one = client.get(url).content.decode()
    for item_id in shown_ids(page_one)[:5]:
        response = client.post(
            reverse("reviews-answer", args=[item_id]),
            {"answer": NORTHWIND_GB},
            HTTP_HX_REQUEST="true",
            HTTP_HX_CURRENT_URL=f"http://testserver{url}",
        )
        assert "hx-swap-oob" in response.content.decode()
    page_two = client.get(f"{url}?{link(page_one, 'next')}").content.decode()
    assert shown_ids(page_two) == ids[50:] and "46–56 of 56" in page_two
    older = client.get(f"{url}?{link(page_two, 'prev')}").content.decode()
    assert shown_ids(older) == shown_ids(page_one)[5:]


@pytest.fixture
def colleague(tenant):
    """A second analyst at Demo Bank, who opens cases of their own."""
    user = get_user_model().objects.create_user(username="colleague", first_name="Colleague")
    Membership.objects.create(user=user, tenant=tenant, role=Membership.Role.ANALYST)
    return user


def test_an_analyst_can_list_only_the_questions_of_cases_they_opened(
    client, tenant, analyst, colleague, reviewer
):
    mine = question_item(tenant, analyst)
    theirs = question_item(tenant, colleague)
    client_for(client, analyst)
    url = reverse("reviews-clarifications")
    assert shown_ids(client.get(url).content.decode()) == [mine.pk, theirs.pk]
    html = client.get(url, {"mine": "1"}).content.decode()
    assert shown_ids(html) == [mine.pk]
    assert 'name="mine" value="1" checked' in html
    assert "1 open question from the agent matching the filter" in html
    client_for(client, colleague)
    assert shown_ids(client.get(url, {"mine": "1"}).content.decode()) == [theirs.pk]
    # Reviewers open no cases: they are offered no such filter, and one in the address
    # is ignored rather than emptying the page.
    client_for(client, reviewer)
    followed = client.get(url, {"mine": "1"}).content.decode()
    assert shown_ids(followed) == [mine.pk, theirs.pk] and 'name="mine"' not in followed


def test_an_answer_counts_the_questions_left_of_the_cases_one_opened(
    client, tenant, analyst, colleague
):
    mine = question_item(tenant, analyst)
    question_item(tenant, colleague)
    response = client_for(client, analyst).post(
        answer_url(mine),
        {"answer": NORTHWIND_GB},
        HTTP_HX_REQUEST="true",
        HTTP_HX_CURRENT_URL=f"http://testserver{reverse('reviews-clarifications')}?mine=1",
    )
    assert 'hx-swap-oob="true">0 open questions from the agent matching the filter' in (
        response.content.decode()
    )


@pytest.mark.parametrize("typed", ["{}", "case {}", "Case {}", "#{}", "Case #{}"])
def test_a_question_is_found_by_its_case_number_as_the_rows_write_it(
    client, tenant, analyst, colleague, typed
):
    question_item(tenant, analyst)
    theirs = question_item(tenant, colleague)
    client_for(client, analyst)
    url = reverse("reviews-clarifications")
    html = client.get(url, {"q": typed.format(theirs.case_id)}).content.decode()
    assert shown_ids(html) == [theirs.pk]
    assert shown_ids(client.get(url, {"q": "case 9999"}).content.decode()) == []


def test_saying_none_of_the_candidates_is_the_subject_is_one_click_too(client, tenant, analyst):
    item = question_item(tenant, analyst)
    client_for(client, analyst)
    html = client.get(reverse("reviews-clarifications")).content.decode()
    assert 'name="answer" value="None of them is the subject"' in html
    case_page = client.get(
        reverse("runs-case-detail", args=[item.case_id]) + f"?run={item.run_id}"
    ).content.decode()
    assert 'name="answer" value="None of them is the subject"' in case_page
    client.post(answer_url(item), {"answer": "None of them is the subject"})
    run = advance(item)
    assert run.state["selected_entity"] is None
    assert run.status == "awaiting_review"  # researched by name, not asked again
