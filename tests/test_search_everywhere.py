"""Every list with a search box finds a case the same way: by its subject, by the entity its
runs matched, and by the query transliterated as the research tools compare names
(Волков is Volkov); never another tenant's case."""

from __future__ import annotations

import pytest
from django.urls import reverse

from reviews.models import ReviewItem
from runs.models import Case, Run
from tests.case_rows import decision_row, make_run
from tests.conftest import client_for
from tests.queue_pages import shown_ids
from tests.review_runs import (
    approval_item,
    conflict_item,
    open_item,
    paused_run,
    question_item,
)

pytestmark = pytest.mark.django_db

SUBJECT = "Dmitry Wolkow"
MATCHED = "Dmitri Volkov"  # the sanctioned registry entity its run matched

# Each finds the case by its matched entity or its subject only in transliteration.
ONLY_THE_MATCHED_ENTITY = "Volkov"
CYRILLIC = "Волков"
GREEK = "Βολκοβ"
ACCENTED = "Wołków"
QUERIES = [ONLY_THE_MATCHED_ENTITY, CYRILLIC, GREEK, ACCENTED]

QUEUES = [
    ("reviews-queue", approval_item),
    ("reviews-clarifications", question_item),
    ("reviews-escalations", conflict_item),
]


def as_the_wolkow_case(item: ReviewItem) -> ReviewItem:
    """The item's case is on Dmitry Wolkow, and its run matched Dmitri Volkov."""
    Case.objects.filter(pk=item.case_id).update(subject_name=SUBJECT)
    Run.objects.filter(pk=item.run_id).update(matched_entity=MATCHED)
    return item


def wolkow_case(tenant, opened_by) -> tuple[Case, Run]:
    case = Case.objects.create(
        tenant=tenant, subject_name=SUBJECT, subject_type="person", created_by=opened_by
    )
    run = make_run(case, status="completed", reason="packet_approved", matched_entity=MATCHED)
    return case, run


def case_links(html: str, *cases: Case) -> list[bool]:
    return [f'href="{reverse("runs-case-detail", args=[case.pk])}"' in html for case in cases]


@pytest.mark.parametrize("query", QUERIES)
def test_the_case_list_finds_a_case_by_its_matched_entity_in_any_script(
    client, tenant, analyst, case, query
):
    wolkow, _ = wolkow_case(tenant, analyst)
    html = client_for(client, analyst).get(reverse("runs-case-list"), {"q": query})
    assert case_links(html.content.decode(), wolkow, case) == [True, False]


def test_the_case_list_finds_a_case_by_the_entity_an_earlier_run_matched(client, tenant, analyst):
    wolkow, _ = wolkow_case(tenant, analyst)
    make_run(wolkow, status="failed", reason="tool_failure")
    html = client_for(client, analyst).get(reverse("runs-case-list"), {"q": CYRILLIC})
    assert case_links(html.content.decode(), wolkow) == [True]


def test_the_case_list_does_not_find_another_tenants_case(
    client, tenant, other_tenant, analyst, outsider
):
    ours, _ = wolkow_case(tenant, analyst)
    theirs, _ = wolkow_case(other_tenant, outsider)
    for query in QUERIES:
        html = client_for(client, analyst).get(reverse("runs-case-list"), {"q": query})
        assert case_links(html.content.decode(), ours, theirs) == [True, False], query


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize(("page", "make_item"), QUEUES)
def test_each_queue_finds_an_item_by_its_cases_matched_entity_in_any_script(
    client, tenant, analyst, reviewer, page, make_item, query
):
    other = make_item(tenant, analyst)
    wolkow = as_the_wolkow_case(make_item(tenant, analyst))
    html = client_for(client, reviewer).get(reverse(page), {"q": query}).content.decode()
    assert shown_ids(html) == [wolkow.pk], (other.pk, wolkow.pk)


@pytest.mark.parametrize(("page", "make_item"), QUEUES)
def test_each_queue_still_finds_an_item_by_its_subject_and_case_number(
    client, tenant, analyst, reviewer, page, make_item
):
    make_item(tenant, analyst)
    wolkow = as_the_wolkow_case(make_item(tenant, analyst))
    client_for(client, reviewer)
    for query in ("wolkow", f"case {wolkow.case_id}"):
        html = client.get(reverse(page), {"q": query}).content.decode()
        assert shown_ids(html) == [wolkow.pk], query


@pytest.mark.parametrize(("page", "make_item"), QUEUES)
def test_each_queue_does_not_find_another_tenants_item(
    client, tenant, other_tenant, analyst, reviewer, outsider, page, make_item
):
    theirs = as_the_wolkow_case(make_item(other_tenant, outsider))
    ours = as_the_wolkow_case(make_item(tenant, analyst))
    client_for(client, reviewer)
    for query in QUERIES:
        html = client.get(reverse(page), {"q": query}).content.decode()
        assert shown_ids(html) == [ours.pk], (query, theirs.pk)


@pytest.mark.parametrize(
    ("queue", "make_item"),
    [("approvals", approval_item), ("questions", question_item), ("escalations", conflict_item)],
)
def test_the_new_items_notice_counts_what_the_queues_search_finds(
    client, tenant, other_tenant, analyst, reviewer, outsider, queue, make_item
):
    make_item(tenant, analyst)
    as_the_wolkow_case(make_item(other_tenant, outsider))
    as_the_wolkow_case(make_item(tenant, analyst))
    url = reverse("reviews-new-items", args=[queue])
    response = client_for(client, reviewer).get(url, {"q": CYRILLIC, "after": 0})
    assert response.context["count"] == 1


def test_the_run_list_finds_runs_by_matched_entity_and_case_in_any_script(
    client, tenant, other_tenant, admin_user, analyst, outsider, case
):
    wolkow, matched = wolkow_case(tenant, analyst)
    unmatched = make_run(wolkow, status="failed", reason="tool_failure")
    elsewhere = make_run(case, status="completed", reason="packet_approved")
    _, theirs = wolkow_case(other_tenant, outsider)
    client_for(client, admin_user)
    runs = [matched, unmatched, elsewhere, theirs]
    for query, found in [
        (ONLY_THE_MATCHED_ENTITY, [True, False, False, False]),
        (CYRILLIC, [True, False, False, False]),
        (ACCENTED, [True, True, False, False]),  # the case's subject, on both its runs
    ]:
        html = client.get(reverse("runs-trace-list"), {"subject": query}).content.decode()
        shown = [f'href="{reverse("runs-trace", args=[run.pk])}"' in html for run in runs]
        assert shown == found, query


def test_the_audit_finds_decisions_on_a_case_by_its_matched_entity_in_any_script(
    client, tenant, other_tenant, reviewer, analyst, outsider, case
):
    _, run = wolkow_case(tenant, analyst)
    ours = decision_row(run, reviewer, "Cleared")
    elsewhere = decision_row(make_run(case), reviewer, "Cleared")
    theirs = decision_row(wolkow_case(other_tenant, outsider)[1], outsider, "Cleared")
    client_for(client, reviewer)
    for query in QUERIES:
        html = client.get(reverse("reviews-audit"), {"case": query}).content.decode()
        shown = [f'id="decision-{d.pk}"' in html for d in (ours, elsewhere, theirs)]
        assert shown == [True, False, False], query


def test_a_country_code_in_capitals_finds_cases_there_and_names_with_it_as_a_word(
    client, tenant, analyst
):
    def opened(subject: str, jurisdiction: str) -> Case:
        return Case.objects.create(
            tenant=tenant,
            subject_name=subject,
            subject_type="company",
            jurisdiction=jurisdiction,
            created_by=analyst,
        )

    lithuanian = opened("Amber Coast Freight UAB", "LT")
    named_with_it = opened("Baltic LT Holdings", "")
    limited = opened("Acme Analytics Ltd", "GB")
    mayfield = opened("Mayfield Components", "GB")
    client_for(client, analyst)
    html = client.get(reverse("runs-case-list"), {"q": "LT"}).content.decode()
    assert case_links(html, lithuanian, named_with_it, limited) == [True, True, False]
    # Typed in lower or mixed case, two letters are the start of a name as well: "lt" finds
    # the Lithuanian cases and "Ltd", "Ma" Morocco's and Mayfield.
    html = client.get(reverse("runs-case-list"), {"q": "lt"}).content.decode()
    assert case_links(html, lithuanian, named_with_it, limited) == [True, True, True]
    html = client.get(reverse("runs-case-list"), {"q": "Ma"}).content.decode()
    assert case_links(html, mayfield, limited) == [True, False]
    # A word that is not a country code still finds names that contain it.
    html = client.get(reverse("runs-case-list"), {"q": "Ltd"}).content.decode()
    assert case_links(html, lithuanian, named_with_it, limited) == [False, False, True]


def test_the_lists_find_a_case_by_the_registration_number_its_run_matched(
    client, tenant, analyst, reviewer, admin_user
):
    run = paused_run(tenant, analyst, "Amber Coast Freight", jurisdiction="LT")
    assert run.matched_registration == "305512874"  # the registry's, as searches compare it
    other = paused_run(tenant, analyst, "Acme Analytics Ltd")
    client_for(client, reviewer)
    for query in ("305512874", "305 512 874", "3055-12874", "512874"):
        html = client.get(reverse("runs-case-list"), {"q": query}).content.decode()
        assert case_links(html, run.case, other.case) == [True, False], query
        html = client.get(reverse("reviews-queue"), {"q": query}).content.decode()
        assert shown_ids(html) == [open_item(run, ReviewItem.Kind.SIGNOFF).pk], query
    client_for(client, admin_user)
    html = client.get(reverse("runs-trace-list"), {"subject": "305 512 874"}).content.decode()
    traces = [f'href="{reverse("runs-trace", args=[r.pk])}"' in html for r in (run, other)]
    assert traces == [True, False]
    # Too short to be taken for a registration number: no case is found by "874".
    html = client.get(reverse("runs-case-list"), {"q": "874"}).content.decode()
    assert case_links(html, run.case, other.case) == [False, False]


def test_runs_matched_before_the_registration_column_get_theirs_from_their_state(tenant, case):
    from importlib import import_module

    from django.apps import apps

    migration = import_module("runs.migrations.0020_run_matched_registration")
    entity = {"name": "Acme Ltd", "jurisdiction": "GB", "registration_number": "0771 2233"}
    matched = make_run(case, state={"selected_entity": entity}, matched_entity="Acme Ltd (GB)")
    unmatched = make_run(case, state={"selected_entity": None})
    migration.fill_matched_registration(apps, None)
    matched.refresh_from_db()
    unmatched.refresh_from_db()
    assert (matched.matched_registration, unmatched.matched_registration) == ("07712233", "")
