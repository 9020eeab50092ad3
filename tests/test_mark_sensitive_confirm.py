"""Marking a document sensitive cannot be undone, so the case page's button asks first, on
a page of the server's, and says whether a run has already read the document."""

from __future__ import annotations

import pytest
from django.urls import reverse

from runs.actions import do_start_run
from runs.execution import run_inline
from runs.models import Document
from tests.case_rows import acme_case_with_document
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

STATEMENT = b"IBAN: GB29 NWBK 6016 1331 9268 19\n"


def mark_url(document: Document) -> str:
    return reverse("runs-document-mark-sensitive", args=[document.case_id, document.pk])


def confirm_url(document: Document) -> str:
    return reverse("runs-document-confirm-sensitive", args=[document.case_id, document.pk])


def test_the_first_press_asks_and_marks_nothing(client, tenant, analyst):
    """The question is a page of its own, reached by a link: Back from it, or from the case
    page after marking, is a plain page load, not a form sent again."""
    document = acme_case_with_document(tenant, analyst, "statement.txt", STATEMENT).documents.get()
    client_for(client, analyst)
    case_page = client.get(reverse("runs-case-detail", args=[document.case_id])).content.decode()
    assert f'href="{confirm_url(document)}"' in case_page and 'name="confirm"' not in case_page

    response = client.get(confirm_url(document))

    assert response.status_code == 200
    page = response.content.decode()
    assert "Mark “statement.txt” sensitive?" in page
    assert "This cannot be undone." in page
    assert "No run has read this document yet." in page
    assert 'name="confirm" value="yes"' in page
    document.refresh_from_db()
    assert not document.sensitive and document.sensitive_marked_by is None


def test_the_confirmed_press_marks_the_document(client, tenant, analyst):
    document = acme_case_with_document(tenant, analyst, "statement.txt", STATEMENT).documents.get()

    response = client_for(client, analyst).post(mark_url(document), {"confirm": "yes"})

    assert response.status_code == 302
    document.refresh_from_db()
    assert document.sensitive and document.sensitive_marked_by == analyst
    page = client.get(response["Location"]).content.decode()
    assert "“statement.txt” is marked sensitive: the runs to come need a reviewer" in page


def test_only_the_case_tenants_analyst_is_asked(client, tenant, analyst, reviewer, outsider):
    document = acme_case_with_document(tenant, analyst, "statement.txt", STATEMENT).documents.get()
    assert client_for(client, reviewer).post(mark_url(document)).status_code == 403
    assert client_for(client, outsider).post(mark_url(document)).status_code == 404
    assert client_for(client, outsider).post(
        mark_url(document), {"confirm": "yes"}
    ).status_code == (404)
    document.refresh_from_db()
    assert not document.sensitive


# The tool reads the document on a helper thread, through its own connection.
@pytest.mark.django_db(transaction=True)
def test_the_question_says_which_run_already_read_the_document(client, tenant, analyst):
    case = acme_case_with_document(tenant, analyst, "statement.txt", STATEMENT)
    run = run_inline(do_start_run(case, analyst, wake=False))
    document = case.documents.get()
    assert f"extract:{document.pk}" in run.state["completed_steps"]

    page = client_for(client, analyst).get(confirm_url(document)).content.decode()

    assert f"Already read: run {run.pk} extracted this document without an approval" in page
    assert "Marking it sensitive only protects future runs." in page
    assert "No run has read this document yet." not in page
    document.refresh_from_db()
    assert not document.sensitive


def test_the_question_says_a_run_under_way_is_held_too(client, tenant, analyst):
    case = acme_case_with_document(tenant, analyst, "statement.txt", STATEMENT)
    run = do_start_run(case, analyst, wake=False)  # not read yet: it has not started

    page = client_for(client, analyst).get(confirm_url(case.documents.get())).content.decode()

    assert f"needs a reviewer's approval first, run {run.pk} under way too." in page
    assert "No run has read this document yet." in page


def test_a_post_without_confirm_goes_to_the_question_and_a_marked_document_skips_it(
    client, tenant, analyst
):
    document = acme_case_with_document(tenant, analyst, "statement.txt", STATEMENT).documents.get()
    client_for(client, analyst)
    asked = client.post(mark_url(document))  # a case page from before the link
    assert (asked.status_code, asked["Location"]) == (302, confirm_url(document))
    client.post(mark_url(document), {"confirm": "yes"})
    # Back to the question once it is answered: the case page, which says it is marked.
    again = client.get(confirm_url(document))
    assert again["Location"] == reverse("runs-case-detail", args=[document.case_id])


def test_the_question_is_the_case_tenants_analysts_only(
    client, tenant, analyst, reviewer, outsider
):
    document = acme_case_with_document(tenant, analyst, "statement.txt", STATEMENT).documents.get()
    assert client_for(client, reviewer).get(confirm_url(document)).status_code == 403
    assert client_for(client, outsider).get(confirm_url(document)).status_code == 404
