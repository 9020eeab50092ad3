"""Errors and help are tied to their fields: each field's aria-describedby names elements
the page has (Django's own `<auto_id>_helptext` / `_error` ids), and a refused field says
it is invalid, so a screen reader reads the error with the field."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from tests.case_rows import waiting_for_answer
from tests.conftest import client_for
from tests.review_runs import (
    approval_item,
    conflict_item,
    question_item,
    sanctioned_escalation_item,
    sanctioned_signoff_item,
)

pytestmark = pytest.mark.django_db


class Elements(HTMLParser):
    """Every element's attributes, and those with an id by id."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.all: list[dict] = []
        self.feed(html)
        self.by_id = {attrs["id"]: attrs for attrs in self.all if attrs.get("id")}

    def handle_starttag(self, tag, attrs):
        self.all.append({"tag": tag, **{name: value or "" for name, value in attrs}})


def described(html: str, **match: str) -> tuple[dict, list[str]]:
    """The one element with these attributes, and the ids its aria-describedby names, each
    of which must be on the page."""
    page = Elements(html)
    found = [el for el in page.all if all(el.get(k) == v for k, v in match.items())]
    assert len(found) == 1, (match, found)
    ids = found[0].get("aria-describedby", "").split()
    missing = [name for name in ids if name not in page.by_id]
    assert not missing, f"aria-describedby names ids the page lacks: {missing}"
    return found[0], ids


def every_description_exists(html: str) -> None:
    page = Elements(html)
    for el in page.all:
        for name in el.get("aria-describedby", "").split():
            assert name in page.by_id, (el, name)


def test_a_new_case_with_errors_ties_each_error_and_help_to_its_field(client, analyst):
    client_for(client, analyst)
    blank = client.get(reverse("runs-case-new")).content.decode()
    every_description_exists(blank)
    _, ids = described(blank, name="jurisdiction")
    assert ids == ["id_jurisdiction_helptext"]
    _, ids = described(blank, name="document_sensitive")
    assert ids == ["id_document_sensitive_helptext"]
    refused = client.post(
        reverse("runs-case-new"),
        {
            "subject_name": "",
            "subject_type": "company",
            "jurisdiction": "XQ",
            "document": SimpleUploadedFile("evil.pdf", b"MZ\x00\x01binary", "application/pdf"),
        },
    ).content.decode()
    every_description_exists(refused)
    field, ids = described(refused, name="subject_name")
    assert field["aria-invalid"] == "true" and "id_subject_name_error" in ids
    field, ids = described(refused, name="jurisdiction")
    assert field["aria-invalid"] == "true"
    assert ids == ["id_jurisdiction_helptext", "id_jurisdiction_error"]
    field, ids = described(refused, name="document")
    assert field["aria-invalid"] == "true" and "id_document_error" in ids
    # The summary takes focus when no one field does (forms.js).
    assert 'tabindex="-1" data-error-summary' in refused


def test_a_refused_subject_correction_ties_its_errors(client, tenant, analyst):
    from runs.actions import do_request_cancel
    from tests.review_runs import QUESTION_SUBJECT, paused_run

    run = do_request_cancel(paused_run(tenant, analyst, QUESTION_SUBJECT, jurisdiction=""), analyst)
    client_for(client, analyst)
    refused = client.post(
        reverse("runs-case-correct", args=[run.case_id]),
        {"subject_name": QUESTION_SUBJECT, "subject_type": "company", "reason": ""},
    ).content.decode()
    every_description_exists(refused)
    field, ids = described(refused, name="reason")
    assert field["aria-invalid"] == "true" and "id_reason_error" in ids


def test_a_refused_attachment_ties_its_error_and_help(client, case, analyst):
    client_for(client, analyst)
    refused = client.post(reverse("runs-case-attach-document", args=[case.pk]), {}).content.decode()
    every_description_exists(refused)
    field, ids = described(refused, name="document")
    assert field["aria-invalid"] == "true"
    assert ids == ["id_document_helptext", "id_document_error"]


def test_a_refused_reason_in_the_queue_is_tied_to_its_box(client, tenant, analyst, reviewer):
    item = approval_item(tenant, analyst)
    client_for(client, reviewer)
    row = client.post(
        reverse("reviews-decide", args=[item.pk]),
        {"decision": "deny", "reason": ""},
        HTTP_HX_REQUEST="true",
    ).content.decode()
    field, ids = described(row, name="reason")
    assert field["aria-invalid"] == "true" and ids == [f"review-item-{item.pk}-error"]
    assert "A reason is required" in row


def test_a_refused_answer_is_tied_to_its_field_in_the_queue_and_on_the_case_page(
    client, tenant, analyst, case
):
    item = question_item(tenant, analyst)
    client_for(client, analyst)
    row = client.post(
        reverse("reviews-answer", args=[item.pk]), {"answer_text": " "}, HTTP_HX_REQUEST="true"
    ).content.decode()
    field, ids = described(row, name="answer_text")
    assert field["aria-invalid"] == "true" and ids == [f"review-item-{item.pk}-error"]
    run = waiting_for_answer(case)
    regions = client.post(
        reverse("runs-run-answer", args=[run.pk]), {"answer_text": "  "}, HTTP_HX_REQUEST="true"
    ).content.decode()
    field, ids = described(regions, name="answer_text")
    assert field["aria-invalid"] == "true" and ids == [f"run-{run.pk}-answer-error"]


def test_an_answer_too_long_is_refused_in_the_apps_words_and_kept(client, tenant, analyst):
    item = question_item(tenant, analyst)
    client_for(client, analyst)
    answer = "The one in Singapore. " * 100  # 2,200 characters, past the field's 2,000
    row = client.post(
        reverse("reviews-answer", args=[item.pk]), {"answer_text": answer}, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "The answer is too long: at most 2000 characters, and it has 2199." in row
    assert "Ensure this value" not in row
    assert "The one in Singapore. The one in Singapore." in row  # given back to shorten


def test_refused_conflict_note_and_closing_decision_are_tied_to_their_fields(
    client, tenant, analyst, reviewer
):
    item = conflict_item(tenant, analyst)
    conflict = item.payload["conflicts"][0]["conflict_id"]
    client_for(client, reviewer)
    refused = client.post(
        reverse("reviews-resolve", args=[item.pk]),
        {"conflict_id": conflict, "choice": "__unresolvable__", "note": ""},
    ).content.decode()
    every_description_exists(refused)
    field, ids = described(refused, name="note")
    assert field["aria-invalid"] == "true" and ids == [f"conflict-{conflict}-error"]
    closing = client.post(
        reverse("reviews-close", args=[item.pk]), {"decision": ""}
    ).content.decode()
    every_description_exists(closing)
    field, ids = described(closing, tag="textarea", name="decision")
    assert field["aria-invalid"] == "true" and ids == ["id_decision_error"]


def test_each_sanctions_hit_is_a_group_named_by_its_list_and_the_name_it_matched(
    client, tenant, analyst, reviewer
):
    item = sanctioned_signoff_item(tenant, analyst)
    hits = item.payload["sanctions_hits"]
    client_for(client, reviewer)
    html = client.get(reverse("reviews-item", args=[item.pk])).content.decode()
    every_description_exists(html)
    page = Elements(html)
    for hit in hits:
        group = page.by_id[f"hit-{hit['evidence_id']}"]
        assert (group["tag"], group["role"]) == ("fieldset", "radiogroup")
        claim = f"hit-{hit['evidence_id']}-claim"
        _, ids = described(html, name=f"hit-{hit['evidence_id']}", value="confirmed_match")
        assert ids == [claim]
        # Marking a false positive is also described by what that mark sets aside.
        _, ids = described(html, name=f"hit-{hit['evidence_id']}", value="false_positive")
        assert ids == [claim, "false-positive-help"]
    assert (
        '<legend class="hit-list"><strong>Synthetic UK HMT Consolidated</strong>: '
        "VOLKOV, Dmitri Sergeyevich</legend>" in html
    )


def test_unmarked_hits_are_tied_to_the_refusal_on_the_item_and_escalation_pages(
    client, tenant, analyst, reviewer
):
    item = sanctioned_signoff_item(tenant, analyst)
    first, *others = item.payload["sanctions_hits"]
    client_for(client, reviewer)
    refused = client.post(
        reverse("reviews-decide", args=[item.pk]),
        {
            "decision": "approve",
            "reason": "All three are the same people",
            f"hit-{first['evidence_id']}": "false_positive",
        },
    ).content.decode()
    assert "Mark each screening match" in refused
    every_description_exists(refused)
    page = Elements(refused)
    assert "aria-invalid" not in page.by_id[f"hit-{first['evidence_id']}"]
    for hit in others:
        group = page.by_id[f"hit-{hit['evidence_id']}"]
        assert (
            group["aria-invalid"] == "true" and group["aria-describedby"] == "decision-hits-error"
        )
    reason, _ = described(refused, name="reason")
    assert "aria-invalid" not in reason, "the reason was not what was refused"

    escalation = sanctioned_escalation_item(tenant, analyst)
    (hit,) = escalation.payload["sanctions_hits"]
    closing = client.post(
        reverse("reviews-close", args=[escalation.pk]), {"decision": "Decline the client."}
    ).content.decode()
    every_description_exists(closing)
    group = Elements(closing).by_id[f"hit-{hit['evidence_id']}"]
    assert group["aria-invalid"] == "true" and group["aria-describedby"] == "escalation-error"
