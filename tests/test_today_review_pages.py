"""What a reviewer reads about today's research: a conflict on a company a person subject
directs names that company, an entity matched outside the case's country says so, a
candidate the analyst turned down is marked as such, and an answer shows its question."""

from __future__ import annotations

import pytest
from django.urls import reverse

from reviews.actions import do_answer_question
from reviews.models import ReviewItem
from tests.conftest import client_for
from tests.review_runs import advance, mark_unresolvable, open_item, paused_run

pytestmark = pytest.mark.django_db

COMPANY = "Meridian Shipping Holdings Ltd (GB), a company the subject directs"


def whitfield_escalation(tenant, analyst) -> ReviewItem:
    """James Whitfield: the registry names him a director of Meridian Shipping, an article
    names its board without him."""
    run = paused_run(tenant, analyst, "James Whitfield", jurisdiction="", subject_type="person")
    return open_item(run, ReviewItem.Kind.ESCALATION)


def amber_coast_answered(tenant, analyst, answer: str) -> ReviewItem:
    """Amber Coast Freight opened in GB: the registry has it in LT, and the analyst is asked."""
    run = paused_run(tenant, analyst, "Amber Coast Freight")
    question = open_item(run, ReviewItem.Kind.CLARIFICATION)
    do_answer_question(question, analyst, answer)
    return open_item(advance(question), ReviewItem.Kind.SIGNOFF)


def test_a_conflict_on_a_company_the_person_directs_names_it_on_every_review_page(
    client, tenant, analyst, reviewer
):
    item = whitfield_escalation(tenant, analyst)
    client_for(client, reviewer)
    page = client.get(reverse("reviews-conflict", args=[item.pk])).content.decode()
    assert f"Sources disagree on directors of {COMPANY}." in page
    assert f"Conflict: Directors of {COMPANY}</h2>" in page
    assert f"Which directors value stands for {COMPANY}?" in page
    queue = client.get(reverse("reviews-escalations")).content.decode()
    assert f"<strong>Directors</strong> of {COMPANY}: “" in queue
    packet = client.get(reverse("runs-packet", args=[item.run_id])).content.decode()
    assert f"<strong>Directors</strong> of {COMPANY} <span" in packet
    case_page = client.get(reverse("runs-case-detail", args=[item.case_id])).content.decode()
    assert f"The sources disagree on directors of {COMPANY}</h3>" in case_page


def test_a_conflict_on_the_subject_itself_names_no_other_company(client, tenant, analyst, reviewer):
    run = paused_run(tenant, analyst, "Meridian Shipping Holdings")
    item = open_item(run, ReviewItem.Kind.ESCALATION)
    client_for(client, reviewer)
    page = client.get(reverse("reviews-conflict", args=[item.pk])).content.decode()
    assert "Sources disagree on directors." in page and "Conflict: Directors</h2>" in page
    assert "a company the subject directs" not in page


def test_an_entity_matched_outside_the_cases_country_says_so_where_people_read_it(
    client, tenant, analyst, reviewer
):
    item = amber_coast_answered(tenant, analyst, "yes")
    differs = "registered in LT, not GB as the case says."
    client_for(client, reviewer)
    signoff = client.get(reverse("reviews-item", args=[item.pk])).content.decode()
    assert "Registered in LT, not GB as the case says." in signoff
    packet = client.get(reverse("runs-packet", args=[item.run_id])).content.decode()
    assert "matched Amber Coast Freight UAB (LT)" in packet
    assert f"The matched entity is {differs}" in packet
    case = client.get(reverse("runs-case-detail", args=[item.case_id])).content.decode()
    assert "Amber Coast Freight UAB (LT)" in case and "Registered in LT, not GB" in case


def test_a_candidate_the_analyst_turned_down_is_not_read_as_the_subjects_record(
    client, tenant, analyst, reviewer
):
    item = amber_coast_answered(tenant, analyst, "no")
    client_for(client, reviewer)
    packet = client.get(reverse("runs-packet", args=[item.run_id])).content.decode()
    # Not a finding of the packet; its record is kept in the evidence, and says whose it is.
    findings = packet[packet.index("Findings") : packet.index("Evidence")]
    assert "Registry record: Amber Coast Freight UAB" not in findings
    assert packet.count("About a registry candidate the analyst said is not the subject.") == 1
    signoff = client.get(reverse("reviews-item", args=[item.pk])).content.decode()
    assert "Registry record: Amber Coast Freight UAB" not in signoff


def test_an_answer_on_a_review_page_shows_the_question_it_answers(
    client, tenant, analyst, reviewer
):
    item = amber_coast_answered(tenant, analyst, "yes")
    client_for(client, reviewer)
    page = client.get(reverse("reviews-item", args=[item.pk])).content.decode()
    assert "Question: No registry entity in GB, the case&#x27;s country" in page
    assert page.index("Question: No registry entity") < page.index("“yes”")


def test_a_sign_off_carrying_a_directorship_ruled_unresolvable_names_the_company(
    client, tenant, analyst, reviewer
):
    escalation = whitfield_escalation(tenant, analyst)
    client_for(client, reviewer)
    mark_unresolvable(client, escalation, "The register is not yet updated.")
    signoff = open_item(advance(escalation), ReviewItem.Kind.SIGNOFF)
    page = client.get(reverse("reviews-item", args=[signoff.pk])).content.decode()
    assert f"<strong>Directors</strong> of {COMPANY}: “" in page


def test_a_company_naming_an_unmatched_person_a_director_is_not_called_a_candidate(
    client, tenant, analyst, reviewer
):
    run = paused_run(tenant, analyst, "Luis Herrera", jurisdiction="", subject_type="person")
    client_for(client, reviewer)
    packet = client.get(reverse("runs-packet", args=[run.pk])).content.decode()
    assert "Registry record: Golden Gate Shipping SA (PA" in packet
    assert "whose registry record lists a director named Luis Herrera" in packet
    assert "registry candidate" not in packet.replace("No registry person matches", "")
    signoff = open_item(run, ReviewItem.Kind.SIGNOFF)
    page = client.get(reverse("reviews-item", args=[signoff.pk])).content.decode()
    assert "Registry record: Golden Gate Shipping SA (PA" in page
    assert "A registry candidate&#x27;s record" not in page
