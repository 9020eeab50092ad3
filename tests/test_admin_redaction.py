"""The Django admin shows what documents, tools and answers put into a row with personal
data redacted, as the trace page does, to every admin, and a search for personal data
finds no row by it."""

from __future__ import annotations

import pytest

from reviews.models import HumanDecision, ReviewItem
from runs.models import Observation, Run, ToolCall, TraceEvent
from tests.admin_pages import admin_url
from tests.run_rows import T0, add_events, add_observation, add_tool_call, make_run

pytestmark = pytest.mark.django_db

PASSPORT = "K7654321"
IBAN = "GB82 WEST 1234 5698 7654 32"
EMAIL = "colin.marsh@harrow-bay.example"
NATIONAL_INSURANCE = "QQ 12 34 56 C"
BIRTH = "02/11/1968"
PERSONAL_DATA = (PASSPORT, IBAN, EMAIL, NATIONAL_INSURANCE, BIRTH)
FORM = (
    "ONBOARDING FORM\nCompany: Harrow Bay Freight Ltd\n"
    f"Date of birth: {BIRTH}\nPassport number: {PASSPORT}\n"
    f"National Insurance number: {NATIONAL_INSURANCE}\nEmail: {EMAIL}\nIBAN: {IBAN}\n"
)
EXTRACTION = {
    "document_id": "1",
    "name": "harrow_onboarding.txt",
    "text": FORM,
    "fields": {"passport_numbers": [PASSPORT], "emails": [EMAIL], "ibans": [IBAN]},
}
NOTE = "Personal data redacted on this page"


@pytest.fixture
def run(case, reviewer) -> Run:
    run = make_run(
        case,
        started_at=T0,
        last_error=f"ValueError: cannot read passport number {PASSPORT}",
        scenario={"human": {"answers": [f"Her e-mail is {EMAIL}"]}},
    )
    add_events(run, [[("tool_succeeded", {"tool": "extract_uploaded_document", **EXTRACTION})]])
    add_observation(run, 1, data=EXTRACTION, model_view=FORM, name="extract_uploaded_document")
    Observation.objects.filter(run=run).update(error_message=f"IBAN: {IBAN}")
    call = add_tool_call(run, 1, "extract_uploaded_document")
    ToolCall.objects.filter(pk=call.pk).update(
        result=EXTRACTION, arguments={"query": f"passport number {PASSPORT}"}
    )
    item = ReviewItem.objects.create(
        tenant=case.tenant,
        case=case,
        run=run,
        kind="approval",
        key="2:act:8",
        summary=f"Harrow Bay Freight: check passport number {PASSPORT}",
        payload={"arguments": {"query": FORM}, "reasons": [f"IBAN: {IBAN}"]},
        requested_at=T0,
    )
    HumanDecision.objects.create(
        tenant=case.tenant,
        case=case,
        run=run,
        review_item=item,
        actor=reviewer,
        kind="approve",
        reason=f"Matches passport number {PASSPORT} on file",
        payload={"reason": f"Matches passport number {PASSPORT} on file", "email": EMAIL},
        state_version=1,
    )
    return run


def pages_of(run: Run) -> list[str]:
    item = ReviewItem.objects.get(run=run)
    return [
        admin_url(ToolCall, "change", ToolCall.objects.get(run=run).pk),
        admin_url(Observation, "change", Observation.objects.get(run=run).pk),
        admin_url(TraceEvent, "change", TraceEvent.objects.get(run=run).pk),
        admin_url(Run, "change", run.pk),
        admin_url(ReviewItem, "change", item.pk),
        admin_url(ReviewItem, "history", item.pk),
        admin_url(ReviewItem, "changelist"),
        admin_url(HumanDecision, "change", HumanDecision.objects.get(run=run).pk),
        admin_url(HumanDecision, "changelist"),
    ]


def assert_redacted(page: str, url: str) -> None:
    for value in PERSONAL_DATA:
        assert value not in page, (value, url)


@pytest.mark.parametrize("who", ["admin_user", "root"])
def test_every_admin_sees_tool_results_observations_events_and_decisions_redacted(
    client, run, who, request
):
    client.force_login(request.getfixturevalue(who))
    for url in pages_of(run):
        response = client.get(url)
        assert response.status_code == 200, url
        page = response.content.decode()
        assert_redacted(page, url)
        if "history" not in url:
            assert NOTE in page, url
    tool_call = client.get(pages_of(run)[0]).content.decode()
    assert "[REDACTED PASSPORT]" in tool_call and "Harrow Bay Freight Ltd" in tool_call


def test_the_admin_still_reads_only(client, root, run):
    client.force_login(root)
    for url in pages_of(run):
        assert b'name="_save"' not in client.get(url).content, url


@pytest.mark.parametrize("term", [PASSPORT, IBAN, EMAIL, "K765"])
def test_searching_for_personal_data_finds_no_row_by_it(client, admin_user, run, term):
    client.force_login(admin_user)
    item = ReviewItem.objects.get(run=run)
    decision = HumanDecision.objects.get(run=run)
    found = {
        admin_url(ReviewItem, "change", item.pk): admin_url(ReviewItem, "changelist"),
        admin_url(HumanDecision, "change", decision.pk): admin_url(HumanDecision, "changelist"),
        admin_url(Run, "change", run.pk): admin_url(Run, "changelist"),
    }
    for row, changelist in found.items():
        page = client.get(changelist, {"q": term}).content.decode()
        assert row not in page, (changelist, term)


def test_searching_for_words_still_looks_in_summaries_and_reasons(client, admin_user, run):
    client.force_login(admin_user)
    item = ReviewItem.objects.get(run=run)
    decision = HumanDecision.objects.get(run=run)
    items = client.get(admin_url(ReviewItem, "changelist"), {"q": "check passport"})
    assert admin_url(ReviewItem, "change", item.pk) in items.content.decode()
    decisions = client.get(admin_url(HumanDecision, "changelist"), {"q": "on file"})
    assert admin_url(HumanDecision, "change", decision.pk) in decisions.content.decode()


def test_a_long_document_is_shown_redacted_as_far_as_it_is_shown(client, admin_user, run):
    long_text = FORM + "x" * 100_000 + f"\nPassport number: {PASSPORT}\n"
    call = ToolCall.objects.get(run=run)
    ToolCall.objects.filter(pk=call.pk).update(result={"text": long_text})
    client.force_login(admin_user)
    page = client.get(admin_url(ToolCall, "change", call.pk)).content.decode()
    assert_redacted(page, "long result")
    assert "[REDACTED PASSPORT]" in page
    assert "characters stored; the first" in page
