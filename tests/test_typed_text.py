"""What people type for a run (a subject's name, notes, answers, reasons): invisible marks
copied with the text are dropped; a direction override or a control character, which the
run refuses, is refused on the form with the text given back and nothing recorded."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils.html import escape

from reviews.actions import screening_matches_of
from reviews.models import HumanDecision, ReviewItem
from runs.actions import do_request_cancel
from runs.case_fields import clean_subject_name, clean_typed_text
from runs.models import Case, CaseEdit, Run
from tests.case_rows import waiting_for_answer
from tests.conftest import client_for
from tests.review_runs import (
    QUESTION_SUBJECT,
    advance,
    approval_item,
    budget_item,
    conflict_item,
    paused_run,
    question_item,
    sanctioned_escalation_item,
    sanctioned_signoff_item,
)

pytestmark = pytest.mark.django_db

OVERRIDE = "\u202e"  # right-to-left override: "Evil\u202eCorp" shows as "EvilproC"
OVERRIDE_MESSAGE = (
    "contains a right-to-left override (U+202E), an invisible character that makes text show "
    "in another order than it is written. Type it in rather than pasting it."
)
ARABIC_NAME = "شركة النور"


def new_case(client, **fields):
    data = {"subject_name": "Acme", "subject_type": "company", "jurisdiction": "", "notes": ""}
    return client.post(reverse("runs-case-new"), {**data, **fields})


def page_of(response) -> str:
    return response.content.decode()


# --- The subject's name and notes ---------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        (f"Evil{OVERRIDE}Corp Ltd", OVERRIDE_MESSAGE),
        ("\u202dAcme Widgets", "contains a left-to-right override (U+202D)"),
        ("Bell\u0007 Holdings", "contains the control character U+0007, which cannot be shown"),
        ("\u001b[31mAcme", "contains the control character U+001B"),
    ],
)
def test_a_subject_name_the_run_would_refuse_is_refused_and_kept(client, analyst, name, problem):
    response = new_case(client_for(client, analyst), subject_name=name, notes="From the KYC form")
    html = page_of(response)
    assert response.status_code == 400
    assert escape(f"The subject's name {problem}") in html
    assert "Nothing was saved. Fix the 1 problem below and submit again." in html
    assert f'value="{escape(name)}"' in html and "From the KYC form</textarea>" in html
    assert not Case.objects.exists() and not Run.objects.exists()


def test_isolates_and_zero_width_spaces_are_dropped_from_a_subject_name(client, analyst):
    client_for(client, analyst)
    # As copied from an Arabic source: the name wrapped in a right-to-left isolate.
    response = new_case(client, subject_name=f"\u2067{ARABIC_NAME}\u2069")
    assert response.status_code == 302
    assert Case.objects.get().subject_name == ARABIC_NAME
    response = new_case(client, subject_name="Northwind\u200b \u200bTrading\ufeff", open_another=1)
    assert response.status_code == 302
    assert Case.objects.latest("pk").subject_name == "Northwind Trading"
    # Persian and Indic spellings need their zero-width (non-)joiners: kept.
    assert clean_subject_name("می\u200cخواهم") == "می\u200cخواهم"


def test_a_run_of_a_name_copied_with_isolates_does_not_fail(tenant, analyst):
    name = clean_subject_name(f"\u2066{QUESTION_SUBJECT}\u2069")
    run = paused_run(tenant, analyst, name, jurisdiction="")
    assert run.status == Run.Status.WAITING_FOR_INPUT, run.last_error


@pytest.mark.parametrize("name", ["--", "\u200b\u200b", "- . -", "\u2066\u2069", "  ·  "])
def test_a_subject_name_without_a_letter_or_digit_is_refused_and_kept(client, analyst, name):
    response = new_case(client_for(client, analyst), subject_name=name)
    html = page_of(response)
    assert response.status_code == 400
    assert escape("Enter the subject's name: it needs at least one letter or digit.") in html
    assert f'value="{escape(name)}"' in html
    assert not Case.objects.exists() and not Run.objects.exists()


def test_a_one_letter_name_is_still_asked_for_two_characters(client, analyst):
    html = page_of(new_case(client_for(client, analyst), subject_name="A"))
    assert escape("Enter the subject's name (at least two characters).") in html


def test_notes_with_an_override_are_refused_and_kept(client, analyst):
    notes = f"Client says {OVERRIDE}gnirt{OVERRIDE}"
    response = new_case(client_for(client, analyst), subject_name="Acme Widgets", notes=notes)
    html = page_of(response)
    assert response.status_code == 400
    assert f"The notes {OVERRIDE_MESSAGE}" in html
    assert f"{notes}</textarea>" in html and 'value="Acme Widgets"' in html
    assert not Case.objects.exists()


def ended_run(tenant, analyst) -> Run:
    """Northwind without a jurisdiction matches three companies; the analyst cancels."""
    return do_request_cancel(
        paused_run(tenant, analyst, QUESTION_SUBJECT, jurisdiction=""), analyst
    )


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("subject_name", f"Northwind {OVERRIDE}gnidarT", f"The subject's name {OVERRIDE_MESSAGE}"),
        ("subject_name", "\u200b--", "it needs at least one letter or digit"),
        ("reason", f"Registry {OVERRIDE}tcartxe", f"The reason {OVERRIDE_MESSAGE}"),
    ],
)
def test_a_correction_the_run_would_refuse_saves_nothing_and_is_kept(
    client, tenant, analyst, field, value, message
):
    earlier = ended_run(tenant, analyst)
    fields = {
        "subject_name": "Northwind Trading Ltd",
        "subject_type": "company",
        "jurisdiction": "GB",
        "notes": "",
        "reason": "The registry extract names it so.",
        field: value,
    }
    response = client_for(client, analyst).post(
        reverse("runs-case-correct", args=[earlier.case_id]), {**fields, "run_again": "1"}
    )
    html = page_of(response)
    assert response.status_code == 400
    assert escape(message) in html and "Nothing was saved" in html
    assert escape(value) in html
    assert Case.objects.get(pk=earlier.case_id).subject_name == QUESTION_SUBJECT
    assert not CaseEdit.objects.exists() and Run.objects.count() == 1


def test_a_correction_copied_with_isolates_is_saved_without_them(client, tenant, analyst):
    earlier = ended_run(tenant, analyst)
    response = client_for(client, analyst).post(
        reverse("runs-case-correct", args=[earlier.case_id]),
        {
            "subject_name": f"\u2067{ARABIC_NAME}\u2069",
            "subject_type": "company",
            "jurisdiction": "",
            "notes": "",
            "reason": "\u2066The registry extract\u2069 names it so.",
        },
    )
    assert response.status_code == 302
    assert Case.objects.get(pk=earlier.case_id).subject_name == ARABIC_NAME
    assert CaseEdit.objects.get().reason == "The registry extract names it so."


# --- Answers to the agent's questions -------------------------------------------------------


@pytest.mark.parametrize("htmx", [False, True], ids=["plain", "htmx"])
def test_an_answer_with_an_override_is_refused_on_the_case_page_and_kept(
    client, analyst, case, htmx
):
    run = waiting_for_answer(case)
    answer = f"{OVERRIDE}which one"
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    response = client_for(client, analyst).post(
        reverse("runs-run-answer", args=[run.pk]), {"answer_text": answer}, **headers
    )
    html = page_of(response)
    assert response.status_code == (200 if htmx else 400)
    assert f"The answer {OVERRIDE_MESSAGE}" in html
    assert f'name="answer_text" value="{answer}"' in html
    assert not HumanDecision.objects.exists()
    run.refresh_from_db()
    assert run.status == Run.Status.WAITING_FOR_INPUT
    assert ReviewItem.objects.get(run=run).status == ReviewItem.Status.OPEN


def test_an_answer_with_a_control_character_is_refused_on_the_questions_page(
    client, tenant, analyst
):
    item = question_item(tenant, analyst)
    answer = "The Singapore one\u0007"
    response = client_for(client, analyst).post(
        reverse("reviews-answer", args=[item.pk]), {"answer_text": answer}
    )
    html = page_of(response)
    assert response.status_code == 400
    assert "The answer contains the control character U+0007" in html
    assert f'value="{answer}"' in html
    assert not HumanDecision.objects.exists()
    item.refresh_from_db()
    assert item.status == ReviewItem.Status.OPEN


def test_an_answer_copied_with_isolates_is_recorded_without_them_and_the_run_goes_on(
    client, tenant, analyst
):
    item = question_item(tenant, analyst)
    response = client_for(client, analyst).post(
        reverse("reviews-answer", args=[item.pk]),
        {"answer_text": "\u2066The one in the GB registry\u2069"},
    )
    assert response.status_code == 302
    decision = HumanDecision.objects.get(review_item=item)
    assert decision.payload["text"] == "The one in the GB registry"
    run = advance(item)
    assert run.status != Run.Status.FAILED, run.last_error


# --- Reviewers' reasons, notes and decisions -------------------------------------------------


def test_a_reason_with_an_override_is_refused_and_given_back(client, tenant, analyst, reviewer):
    item = approval_item(tenant, analyst)
    reason = f"Checked {OVERRIDE}sliated"
    response = client_for(client, reviewer).post(
        reverse("reviews-decide", args=[item.pk]),
        {
            "decision": "approve",
            "reason": reason,
            "reasons_seen": len(item.payload.get("reasons", [])),
        },
    )
    html = page_of(response)
    assert response.status_code == 400
    assert f"The reason {OVERRIDE_MESSAGE}" in html
    assert reason in html
    assert not HumanDecision.objects.exists()


def test_a_conflict_note_a_budget_reason_or_a_closing_decision_with_an_override_is_refused(
    client, tenant, analyst, reviewer
):
    conflict = conflict_item(tenant, analyst)
    stopped = budget_item(tenant, analyst)
    choice = conflict.payload["conflicts"][0]["values"][0]["value"]
    client_for(client, reviewer)
    typed = f"Registry {OVERRIDE}si reweN"
    for name, item, field, what, data in [
        (
            "reviews-resolve",
            conflict,
            "note",
            "The note",
            {"conflict_id": conflict.payload["conflicts"][0]["conflict_id"], "choice": choice},
        ),
        ("reviews-extend", stopped, "reason", "The reason", {"extra_iterations": "2"}),
        ("reviews-close", conflict, "decision", "The closing decision", {}),
    ]:
        refused = client.post(reverse(name, args=[item.pk]), {**data, field: typed})
        html = page_of(refused)
        assert refused.status_code == 400, name
        assert f"{what} {OVERRIDE_MESSAGE}" in html, name
        assert f"{typed}</textarea>" in html, name
    assert not HumanDecision.objects.exists()


def hit_note_fields(item: ReviewItem, note: str) -> dict[str, str]:
    """Every screening match marked a false positive, the first with `note`."""
    hits = [hit["evidence_id"] for hit in screening_matches_of(item)]
    return {f"hit-{hit}": "false_positive" for hit in hits} | {f"note-hit-{hits[0]}": note}


def test_a_note_on_a_screening_match_with_an_override_is_refused_and_kept(
    client, tenant, analyst, reviewer
):
    signoff = sanctioned_signoff_item(tenant, analyst)
    escalation = sanctioned_escalation_item(tenant, analyst)
    note = f"Date of birth {OVERRIDE}sreffid"
    client_for(client, reviewer)
    for name, item, decision in [
        ("reviews-decide", signoff, {"decision": "approve", "reason": "All cleared by phone."}),
        ("reviews-close", escalation, {"decision": "Cleared: the client is onboarded."}),
    ]:
        refused = client.post(
            reverse(name, args=[item.pk]), {**decision, **hit_note_fields(item, note)}
        )
        html = page_of(refused)
        assert refused.status_code == 400, name
        assert f"A note on a screening match {OVERRIDE_MESSAGE}" in html, name
        assert f'value="{note}"' in html, name
    assert not HumanDecision.objects.exists()


def test_a_note_on_a_screening_match_copied_with_isolates_is_recorded_without_them(
    client, tenant, analyst, reviewer
):
    item = sanctioned_escalation_item(tenant, analyst)
    fields = hit_note_fields(item, "\u2067Date of birth differs\u2069")
    response = client_for(client, reviewer).post(
        reverse("reviews-close", args=[item.pk]), {"decision": "Cleared: onboard.", **fields}
    )
    assert response.status_code == 302
    (note,) = HumanDecision.objects.get(review_item=item).payload["hit_notes"].values()
    assert note == "Date of birth differs"


def test_the_check_names_the_text_it_refuses():
    with pytest.raises(ValidationError) as refused:
        clean_typed_text("ok\u007f", "The note")
    assert refused.value.messages == [
        "The note contains the control character U+007F, which cannot be shown. Type it in "
        "rather than pasting it."
    ]
    assert clean_typed_text("a\tb\nc\u200ed", "The note") == "a\tb\nc\u200ed"
