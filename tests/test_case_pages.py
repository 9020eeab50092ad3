"""Case list, new-case form and case page, as analysts, reviewers and outsiders see them."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from reviews.models import HumanDecision
from runs.models import Case, Document, Membership, Run
from tests.case_rows import XSS, add_events, make_run, tool_step, waiting_for_answer
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def case_page(client, user, case_id: int) -> str:
    """The case page's HTML as `user` sees it."""
    return (
        client_for(client, user).get(reverse("runs-case-detail", args=[case_id])).content.decode()
    )


# --- List --------------------------------------------------------------------


def test_case_list_shows_newest_first_with_latest_run_status(client, analyst, tenant, case):
    older = Case.objects.create(
        tenant=tenant, subject_name="Borealis Shipping", subject_type="company", created_by=analyst
    )
    Case.objects.filter(pk=older.pk).update(created_at=case.created_at.replace(year=2020))
    make_run(case, status="failed", reason="tool_failure")
    make_run(case, status="awaiting_review", reason="no_progress")
    html = client_for(client, analyst).get(reverse("runs-case-list")).content.decode()
    assert html.index("Acme Widgets Ltd") < html.index("Borealis Shipping")
    assert "badge-awaiting_review" in html
    assert "stopped making progress" in html
    assert "badge-failed" not in html  # only the latest run of a case counts
    assert "No run yet" in html
    assert f'<td class="num mono">{older.pk}</td>' in html  # two cases on one name tell apart


def test_case_list_filters_by_subject_status_and_reason(client, analyst, tenant, case):
    other = Case.objects.create(
        tenant=tenant, subject_name="Borealis Shipping", subject_type="company", created_by=analyst
    )
    make_run(case, status="awaiting_review", reason="no_progress")
    make_run(other, status="failed", reason="tool_failure")
    client_for(client, analyst)
    url = reverse("runs-case-list")
    assert "Borealis" not in client.get(url, {"q": "acme"}).content.decode()
    by_status = client.get(url, {"status": "failed"}).content.decode()
    assert "Borealis" in by_status and "Acme Widgets" not in by_status
    by_reason = client.get(url, {"reason": "no_progress"}).content.decode()
    assert "Acme Widgets" in by_reason and "Borealis" not in by_reason
    assert "No cases match" in client.get(url, {"q": "zzz"}).content.decode()


def test_same_name_cases_show_their_matched_entity_and_are_found_by_it_or_by_number(
    client, analyst, tenant
):
    northwinds = [
        Case.objects.create(
            tenant=tenant,
            subject_name="Northwind Trading",
            subject_type="company",
            created_by=analyst,
        )
        for _ in range(2)
    ]
    make_run(northwinds[0], matched_entity="Northwind Trading Pte Ltd (SG)")
    make_run(northwinds[1], matched_entity="Northwind Trading Inc (US)")
    client_for(client, analyst)
    url = reverse("runs-case-list")
    listed = client.get(url).content.decode()
    assert "Matched: Northwind Trading Pte Ltd (SG)" in listed
    assert "Matched: Northwind Trading Inc (US)" in listed
    by_entity = client.get(url, {"q": "Pte Ltd"}).content.decode()
    assert "(SG)" in by_entity and "(US)" not in by_entity
    by_number = client.get(url, {"q": str(northwinds[1].pk)}).content.decode()
    assert "(US)" in by_number and "(SG)" not in by_number


@pytest.mark.parametrize("typed", ["{}", "case {}", "Case {}", "#{}", "case #{}", " CASE  {} "])
def test_a_case_is_found_by_its_number_as_the_pages_write_it(client, analyst, tenant, typed):
    acme, northwind = (
        Case.objects.create(
            tenant=tenant, subject_name=name, subject_type="company", created_by=analyst
        )
        for name in ("Acme Widgets", "Northwind Trading")
    )
    client_for(client, analyst)
    page = client.get(reverse("runs-case-list"), {"q": typed.format(northwind.pk)}).content
    assert b">Northwind Trading</a>" in page and b">Acme Widgets</a>" not in page
    assert b"No cases match" in client.get(reverse("runs-case-list"), {"q": "case 9999"}).content


def test_a_search_with_extra_spaces_finds_the_case(client, analyst, tenant):
    Case.objects.create(
        tenant=tenant, subject_name="Northwind Trading", subject_type="company", created_by=analyst
    )
    client_for(client, analyst)
    page = client.get(reverse("runs-case-list"), {"q": "  northwind    trading "}).content
    assert b">Northwind Trading</a>" in page


def thirty_cases(tenant, analyst) -> None:
    """More than one page of the case list holds."""
    Case.objects.bulk_create(
        Case(
            tenant=tenant,
            subject_name=f"Subject {n:02}",
            subject_type="company",
            created_by=analyst,
        )
        for n in range(30)
    )


def test_case_list_paginates(client, analyst, tenant):
    thirty_cases(tenant, analyst)
    client_for(client, analyst)
    first = client.get(reverse("runs-case-list")).content.decode()
    assert "Page 1 of 2" in first
    second = client.get(reverse("runs-case-list"), {"page": 2}).content.decode()
    assert second.count('class="subject"') == 5


def _opened_on(case: Case, day: str) -> Case:
    Case.objects.filter(pk=case.pk).update(created_at=dt.datetime.fromisoformat(f"{day}T12:00Z"))
    return case


def test_case_list_filters_by_the_days_cases_were_opened(client, analyst, tenant):
    def opened(name: str, day: str) -> Case:
        case = Case.objects.create(
            tenant=tenant, subject_name=name, subject_type="company", created_by=analyst
        )
        return _opened_on(case, day)

    opened("January Co", "2026-01-10")
    opened("February Co", "2026-02-15")
    opened("March Co", "2026-03-20")
    client_for(client, analyst)
    url = reverse("runs-case-list")
    february = client.get(url, {"date_from": "2026-02-01", "date_to": "2026-02-15"}).content
    assert b"February Co" in february  # the To day is included
    assert b"January Co" not in february and b"March Co" not in february
    assert b'name="date_from" value="2026-02-01"' in february
    since = client.get(url, {"date_from": "2026-02-16"}).content.decode()
    assert "March Co" in since and "February Co" not in since
    reversed_days = client.get(url, {"date_from": "2026-03-01", "date_to": "2026-02-01"})
    html = reversed_days.content.decode()
    assert (
        "The From date (2026-03-01) is after the To date (2026-02-01); no case can match: "
        "swap them." in html
    )
    assert "No cases match these filters" in html
    bad = client.get(url, {"date_from": "31/02/2026"}).content.decode()
    assert "&#x27;31/02/2026&#x27; is not a date (use YYYY-MM-DD); it was ignored." in bad
    assert "January Co" in bad and "March Co" in bad


def test_an_analyst_can_list_only_the_cases_they_opened(client, analyst, reviewer, tenant, case):
    colleague = get_user_model().objects.create_user(username="colleague")
    Membership.objects.create(user=colleague, tenant=tenant, role=Membership.Role.ANALYST)
    Case.objects.create(
        tenant=tenant,
        subject_name="Borealis Shipping",
        subject_type="company",
        created_by=colleague,
    )
    client_for(client, analyst)
    url = reverse("runs-case-list")
    mine = client.get(url, {"mine": "1"}).content.decode()
    assert "Acme Widgets" in mine and "Borealis" not in mine
    assert 'name="mine" value="1" checked' in mine
    # Reviewers open no cases: no such filter for them, and one in the address is ignored.
    followed = client_for(client, reviewer).get(url, {"mine": "1"}).content.decode()
    assert "Acme Widgets" in followed and "Borealis" in followed
    assert 'name="mine"' not in followed


def test_the_case_list_pages_keep_the_new_filters(client, analyst, tenant):
    thirty_cases(tenant, analyst)
    client_for(client, analyst)
    query = {"mine": "1", "date_from": "2000-01-01"}
    first = client.get(reverse("runs-case-list"), query).content.decode()
    assert "Page 1 of 2" in first
    assert 'href="?mine=1&amp;date_from=2000-01-01&amp;page=2" rel="next"' in first


def test_case_list_hides_other_tenants_cases(client, outsider, case, outsider_case):
    html = client_for(client, outsider).get(reverse("runs-case-list")).content.decode()
    assert "Harbor Holdings" in html
    assert "Acme Widgets" not in html


def test_reviewers_and_admins_may_read_the_case_list(client, reviewer, admin_user, case):
    for user in (reviewer, admin_user):
        response = client_for(client, user).get(reverse("runs-case-list"))
        assert response.status_code == 200
        assert "New case" not in response.content.decode()


def test_anonymous_visitors_are_sent_to_login(client):
    response = client.get(reverse("runs-case-list"))
    assert response.status_code == 302
    assert "/login/" in response["Location"]


def test_a_subject_name_with_markup_shows_as_text(client, analyst, tenant):
    Case.objects.create(tenant=tenant, subject_name=XSS, subject_type="person", created_by=analyst)
    html = client_for(client, analyst).get(reverse("runs-case-list")).content.decode()
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;" in html


# --- New case ----------------------------------------------------------------


def test_an_analyst_opens_a_case_with_a_document_and_a_run_starts(client, analyst):
    client_for(client, analyst)
    response = client.post(
        reverse("runs-case-new"),
        {
            "subject_name": "  Acme   Widgets Ltd ",
            "subject_type": "company",
            "jurisdiction": "gb",
            "notes": "Onboarding",
            "document": SimpleUploadedFile("filing.txt", b"Director: Jane Roe\n", "text/plain"),
        },
    )
    case = Case.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("runs-case-detail", args=[case.pk])
    assert (case.subject_name, case.jurisdiction, case.created_by) == (
        "Acme Widgets Ltd",
        "GB",
        analyst,
    )
    assert case.documents.get().original_name == "filing.txt"
    run = Run.objects.get(case=case)
    assert run.status == "queued" and run.created_by == analyst


def test_the_document_fields_state_the_configured_size_limit_once(client, analyst, case, settings):
    settings.ATLAS_UPLOAD_MAX_BYTES = 2 * 1024 * 1024
    client_for(client, analyst)
    for url in (reverse("runs-case-new"), reverse("runs-case-detail", args=[case.pk])):
        text = re.sub(r"\s+", " ", client.get(url).content.decode())  # \s takes in the nbsp
        assert text.count("up to 2.0 MB") == 1, url
        assert "upload limit" not in text and "Limit:" not in text


def test_a_form_sent_again_leads_to_the_case_it_opened_instead_of_a_second_one(client, analyst):
    client_for(client, analyst)
    page = client.get(reverse("runs-case-new")).content.decode()
    token = re.search(r'name="form_token" value="([^"]+)"', page).group(1)
    fields = {
        "subject_name": "Baltic Amber Ltd",
        "subject_type": "company",
        "jurisdiction": "",
        "notes": "",
        "form_token": token,
    }
    first = client.post(reverse("runs-case-new"), fields)
    again = client.post(reverse("runs-case-new"), fields, follow=True)  # Back, then Send
    case = Case.objects.get()
    assert (
        again.redirect_chain[-1][0]
        == first["Location"]
        == reverse("runs-case-detail", args=[case.pk])
    )
    assert "This form was sent before and opened this case" in again.content.decode()
    assert Run.objects.filter(case=case).count() == 1
    # A new form is a new case.
    fresh = client.get(reverse("runs-case-new")).content.decode()
    assert token not in fresh
    client.post(reverse("runs-case-new"), {**fields, "form_token": "new", "open_another": "1"})
    assert Case.objects.count() == 2


def test_the_same_case_sent_again_from_a_fresh_form_asks_first(client, analyst):
    # The Back button reloads the form (a new token) and the browser refills its fields.
    client_for(client, analyst)
    fields = {"subject_name": "Crescent Minerals", "subject_type": "company", "notes": "x"}
    client.post(reverse("runs-case-new"), {**fields, "form_token": "first"})
    again = client.post(reverse("runs-case-new"), {**fields, "form_token": "second"})
    assert again.status_code == 409
    page = again.content.decode()
    case = Case.objects.get()
    assert f"You opened a case on Crescent Minerals just now (case {case.pk})." in page
    assert 'name="open_another"' in page
    deliberate = {**fields, "form_token": "third", "open_another": "1"}
    assert client.post(reverse("runs-case-new"), deliberate).status_code == 302
    assert Case.objects.count() == 2


def test_a_case_opened_a_minute_ago_is_named_so_and_no_problem_below_is_counted(client, analyst):
    client_for(client, analyst)
    fields = {"subject_name": "Crescent Minerals", "subject_type": "company", "notes": "x"}
    client.post(reverse("runs-case-new"), {**fields, "form_token": "first"})
    case = Case.objects.get()
    Case.objects.filter(pk=case.pk).update(created_at=case.created_at - dt.timedelta(seconds=70))
    again = client.post(reverse("runs-case-new"), {**fields, "form_token": "second"})
    page = again.content.decode()
    assert again.status_code == 409
    assert f"You opened a case on Crescent Minerals 1\xa0minute ago (case {case.pk})." in page
    # The message is the summary: no field is at fault, so there is no problem below.
    assert "the form again. Nothing was saved.</div>" in page
    assert "problem" not in page and page.count("data-error-summary") == 1
    assert 'value="Crescent Minerals"' in page and "\nx</textarea>" in page
    assert Case.objects.count() == 1


@pytest.mark.parametrize("url", ["runs-case-new", "runs-case-attach-document"])
def test_an_empty_file_is_refused_in_the_same_words_on_both_forms(client, analyst, case, url):
    client_for(client, analyst)
    address = reverse(url, args=[case.pk] if url == "runs-case-attach-document" else [])
    response = client.post(
        address,
        {
            "subject_name": "Acme Widgets",
            "subject_type": "company",
            "document": SimpleUploadedFile("blank.txt", b"", "text/plain"),
        },
        follow=True,
    )
    page = response.content.decode()
    assert "The file you chose is empty: choose the one with the document in it." in page
    assert "The submitted file is empty." not in page
    assert not Document.objects.exists() and Case.objects.count() == 1


def test_a_bad_upload_is_refused_clearly_and_nothing_is_stored(client, analyst, settings):
    settings.ATLAS_UPLOAD_MAX_BYTES = 100
    client_for(client, analyst)
    too_big = client.post(
        reverse("runs-case-new"),
        {
            "subject_name": "Acme",
            "subject_type": "company",
            "document": SimpleUploadedFile("big.txt", b"x" * 500, "text/plain"),
        },
    )
    wrong_type = client.post(
        reverse("runs-case-new"),
        {
            "subject_name": "Acme",
            "subject_type": "company",
            "document": SimpleUploadedFile("evil.pdf", b"MZ\x00\x01binary", "application/pdf"),
        },
    )
    assert too_big.status_code == wrong_type.status_code == 400
    assert "the limit is 100 bytes" in too_big.content.decode()
    assert "is not a PDF or plain-text file" in wrong_type.content.decode()
    assert "Nothing was saved" in wrong_type.content.decode()
    assert 'value="Acme"' in wrong_type.content.decode()  # what was typed is kept
    assert not Case.objects.exists() and not Document.objects.exists() and not Run.objects.exists()


def test_a_subject_longer_than_the_tools_take_or_long_notes_are_refused_and_kept(client, analyst):
    client_for(client, analyst)
    name = "Acme " + "Holdings " * 30  # 275 characters: the tools take 200
    notes = "n" * 4001
    response = client.post(
        reverse("runs-case-new"),
        {"subject_name": name, "subject_type": "company", "notes": notes},
    )
    html = response.content.decode()
    assert response.status_code == 400
    assert "at most 200 characters (this one has 274)" in html
    assert "Keep the notes to 4000 characters (these have 4001)" in html
    assert notes in html, "the notes typed are given back"
    assert not Case.objects.exists() and not Run.objects.exists()


def test_the_form_explains_a_bad_jurisdiction(client, analyst):
    response = client_for(client, analyst).post(
        reverse("runs-case-new"),
        {"subject_name": "Acme", "subject_type": "company", "jurisdiction": "G1"},
    )
    assert response.status_code == 400
    assert (
        "Use a two-letter country code such as GB, US or SG, or leave it blank."
        in response.content.decode()
    )
    assert not Case.objects.exists()


@pytest.mark.parametrize("jurisdiction", ["ßx", "ß", "ÄÖ", "G1"])
def test_the_form_takes_only_two_ascii_letters_as_a_jurisdiction(client, analyst, jurisdiction):
    response = client_for(client, analyst).post(
        reverse("runs-case-new"),
        {"subject_name": "Acme", "subject_type": "company", "jurisdiction": jurisdiction},
    )
    assert response.status_code == 400
    assert "two-letter country code" in response.content.decode()
    assert not Case.objects.exists()


def test_a_code_that_is_no_country_is_refused_and_a_lower_case_one_is_kept(client, analyst):
    client_for(client, analyst)
    data = {"subject_name": "Acme", "subject_type": "company"}
    refused = client.post(reverse("runs-case-new"), {**data, "jurisdiction": "XQ"})
    assert refused.status_code == 400
    assert "XQ is not an ISO country code" in refused.content.decode()
    assert client.post(reverse("runs-case-new"), {**data, "jurisdiction": "sg"}).status_code == 302
    assert Case.objects.get().jurisdiction == "SG"


def test_a_reviewer_may_not_open_a_case(client, reviewer):
    client_for(client, reviewer)
    assert client.get(reverse("runs-case-new")).status_code == 403
    response = client.post(
        reverse("runs-case-new"), {"subject_name": "Acme", "subject_type": "company"}
    )
    assert response.status_code == 403
    assert not Case.objects.exists()


# --- Case page -----------------------------------------------------------------


def test_the_case_page_shows_the_run_steps_meters_and_status(client, analyst, case):
    run = make_run(case, iterations=3, tokens=1500)
    add_events(
        run,
        ("run_started", 0, {}),
        *tool_step(
            1,
            "resolve_entity",
            {"name": "Acme Widgets Ltd"},
            "2 candidates",
            rationale="Find the company",
        ),
        (
            "tool_started",
            2,
            {"tool": "screen_sanctions", "arguments": {"entity_id": "GB-1"}, "attempt": 1},
        ),
    )
    html = case_page(client, analyst, case.pk)
    assert f'id="run-{run.pk}-steps"' in html
    assert f'id="run-{run.pk}-step-1"' in html
    assert "Find the company" in html and "2 candidates" in html
    assert "460 tok" in html and "$0.0121" in html and "42 ms" in html
    # The stream starts after what the page shows: its last step, and no decision yet.
    assert f'ws-connect="/ws/runs/{run.pk}/?after=5&amp;decision=0"' in html
    assert f'id="run-{run.pk}-cursor" data-last-seq="5"' in html
    assert "1,500" in html and "3 / 12" in html.replace('<span class="muted">', "")
    assert "The agent is researching the subject." in html
    assert f'action="/runs/{run.pk}/cancel/"' in html


def test_the_case_page_offers_the_question_inline_when_the_run_waits(client, analyst, case):
    run = waiting_for_answer(case)
    html = case_page(client, analyst, case.pk)
    assert "Which Acme do you mean?" in html
    assert f'action="/runs/{run.pk}/answer/"' in html
    assert 'value="Acme Widgets Inc (US)"' in html


def test_a_finished_case_offers_run_again_and_lists_previous_runs(client, analyst, case):
    first = make_run(case, status="failed", reason="tool_failure")
    latest = make_run(case, status="cancelled", reason="cancelled")
    client_for(client, analyst)
    html = client.get(reverse("runs-case-detail", args=[case.pk])).content.decode()
    assert "Run again" in html and "ws-connect" not in html
    assert f"?run={first.pk}" in html and f"Run {latest.pk}" in html
    earlier = client.get(
        reverse("runs-case-detail", args=[case.pk]), {"run": first.pk}
    ).content.decode()
    assert "earlier run" in earlier and "Run again" not in earlier


def test_the_case_page_shows_the_audit_trail_of_human_decisions(client, analyst, reviewer, case):
    run = make_run(case, status="cancelled", reason="cancelled")
    decision = HumanDecision.objects.create(
        tenant=case.tenant,
        case=case,
        run=run,
        actor=reviewer,
        kind="cancel",
        reason=f"Duplicate case {XSS}",
        state_version=0,
    )
    html = case_page(client, analyst, case.pk)
    assert "Cancelled run" in html and "Reviewer" in html
    assert "Duplicate case &lt;script&gt;" in html and "<script>alert" not in html
    assert f'id="case-{case.pk}-decisions" data-newest-decision="{decision.pk}"' in html


def test_a_sign_off_on_the_case_page_says_how_its_sanctions_hits_were_marked(
    client, analyst, reviewer, case
):
    run = make_run(case, status="completed", reason="packet_approved")
    HumanDecision.objects.create(
        tenant=case.tenant,
        case=case,
        run=run,
        actor=reviewer,
        kind="sign_off",
        reason="Exit the relationship.",
        payload={
            "approved": True,
            "hit_dispositions": {"ev-1": "confirmed_match", "ev-2": "false_positive"},
        },
        state_version=4,
    )
    html = case_page(client, analyst, case.pk)
    assert "Screening matches: 1 confirmed match, 1 false positive" in html


def test_tool_data_on_the_case_page_is_escaped(client, analyst, case):
    run = make_run(case)
    add_events(
        run, *tool_step(1, "search_adverse_media", {"query": XSS}, f"Article: {XSS}", rationale=XSS)
    )
    html = case_page(client, analyst, case.pk)
    assert "<script>alert" not in html and "<img src=x" not in html
    assert "&lt;script&gt;" in html


def test_a_step_lists_what_its_tool_found_escaped(client, analyst, case):
    run = make_run(case)
    (decision, started, succeeded) = tool_step(
        1, "screen_sanctions", {"name": "Dmitry Wolkow"}, "Sanctions screening found 2 hits."
    )
    succeeded[2]["found"] = ["Dmitri Volkov on Synthetic OFAC SDN, match score 100", XSS]
    add_events(run, decision, started, succeeded)
    html = case_page(client, analyst, case.pk)
    assert "<li>Dmitri Volkov on Synthetic OFAC SDN, match score 100</li>" in html
    assert "<script>alert" not in html and "&lt;script&gt;" in html


def test_another_tenants_case_is_not_found(client, outsider, case):
    client_for(client, outsider)
    assert client.get(reverse("runs-case-detail", args=[case.pk])).status_code == 404


def test_a_run_of_another_case_cannot_be_shown_on_this_case(client, analyst, tenant, case):
    other = Case.objects.create(
        tenant=tenant, subject_name="Other", subject_type="company", created_by=analyst
    )
    foreign = make_run(other)
    response = client_for(client, analyst).get(
        reverse("runs-case-detail", args=[case.pk]), {"run": foreign.pk}
    )
    assert response.status_code == 404


def test_a_reviewer_can_read_a_case_page_but_not_cancel_from_it(client, reviewer, case):
    make_run(case)
    response = client_for(client, reviewer).get(reverse("runs-case-detail", args=[case.pk]))
    assert response.status_code == 200
    assert "Cancel run" not in response.content.decode()


def test_a_subject_name_with_markup_shows_as_text_on_the_case_page(client, analyst, tenant):
    case = Case.objects.create(
        tenant=tenant, subject_name=XSS, subject_type="person", created_by=analyst
    )
    html = case_page(client, analyst, case.pk)
    assert "<script>alert" not in html and "<img src=x" not in html
    assert '<h1 class="subject-name">&lt;script&gt;alert(&quot;pwned&quot;)' in html


def test_a_step_note_with_markup_on_the_case_page_is_escaped(client, analyst, case):
    run = make_run(case)
    add_events(
        run,
        ("policy_denied", 1, {"tool": "extract_uploaded_document", "arguments": {}, "reason": XSS}),
    )
    html = case_page(client, analyst, case.pk)
    assert "<script>alert" not in html and "<img src=x" not in html
    assert "Denied by policy: &lt;script&gt;" in html


def test_a_form_shown_again_names_the_document_to_choose_again(client, analyst):
    response = client_for(client, analyst).post(
        reverse("runs-case-new"),
        {
            "subject_name": "Acme",
            "subject_type": "company",
            "jurisdiction": "G1",
            "document": SimpleUploadedFile("Acme <filing>.txt", b"Director: Jane Roe\n"),
        },
    )
    page = response.content.decode()
    assert response.status_code == 400 and "two-letter country code" in page
    assert "The document “Acme &lt;filing&gt;.txt” is kept" in page
    assert 'name="kept_document"' in page
    assert not Case.objects.exists() and not Document.objects.exists()


def test_a_refused_document_is_named_and_a_form_without_one_does_not_mention_it(
    client, analyst, settings
):
    settings.ATLAS_UPLOAD_MAX_BYTES = 100
    client_for(client, analyst)
    data = {"subject_name": "Acme", "subject_type": "company"}
    refused = client.post(
        reverse("runs-case-new"),
        {**data, "document": SimpleUploadedFile("big.txt", b"x" * 500, "text/plain")},
    ).content.decode()
    assert "The document “big.txt” was refused: choose another one, or none." in refused
    without = client.post(reverse("runs-case-new"), {**data, "jurisdiction": "G1"})
    assert "two-letter country code" in without.content.decode()
    assert "The document" not in without.content.decode()


def test_a_packet_held_by_disagreeing_sources_says_so_on_the_case_page(client, analyst, tenant):
    from tests.review_runs import CONFLICT_SUBJECT, paused_run

    run = paused_run(tenant, analyst, CONFLICT_SUBJECT)
    assert run.termination_reason == "finish_proposed"
    page = case_page(client, analyst, run.case_id)
    assert "The sources disagree on directors" in page
    assert "The packet waits for sign-off" not in page


def test_a_settled_conflict_says_on_its_step_which_value_stands(client, analyst, case):
    run = make_run(case)
    add_events(
        run,
        ("conflict_resolved", 7, {"fact": "directors", "status": "resolved", "value": XSS}),
        ("conflict_resolved", 7, {"fact": "registration_number", "status": "unresolvable"}),
    )
    html = case_page(client, analyst, case.pk)
    assert "A reviewer settled the directors: “&lt;script&gt;" in html
    assert "A reviewer recorded the registration number as unresolvable" in html


def test_only_a_resume_after_a_crash_is_noted_on_the_case_page(client, analyst, case):
    run = make_run(case)
    add_events(
        run,
        ("run_started", 0, {}),
        ("clarification_received", 2, {"answer": "The GB one"}),
        ("run_resumed", 2, {"cause": "human_input", "paused_as": "waiting_for_input"}),
        ("run_resumed", 3, {"cause": "recovery", "status": "researching", "in_flight": None}),
    )
    html = case_page(client, analyst, case.pk)
    assert html.count("Run resumed from its last committed step") == 1


def test_a_run_taken_over_from_a_stopped_worker_says_how_long_it_waited(client, analyst, case):
    run = make_run(case)
    add_events(
        run,
        ("run_started", 0, {}),
        ("run_resumed", 3, {"cause": "recovery", "in_flight": "k", "waited_seconds": 16.04}),
    )
    html = case_page(client, analyst, case.pk)
    assert (
        "Run resumed from its last committed step, after 16.0 s waiting for the lease of a "
        "worker that stopped to run out" in html
    )


def test_step_notes_say_rejections_and_tool_errors_in_words(client, analyst, case):
    run = make_run(case)
    add_events(
        run,
        (
            "tool_rejected",
            1,
            {"reason": "invalid_arguments", "errors": ["name: Field required"]},
        ),
        ("tool_rejected", 2, {"reason": "unknown_tool"}),
        (
            "tool_retryable_failure",
            3,
            {"attempt": 1, "error_type": "rate_limited", "message": "429"},
        ),
        ("tool_failed", 3, {"error_type": "not_found", "message": "Unknown entity id: x"}),
    )
    html = case_page(client, analyst, case.pk)
    assert "Rejected: the arguments do not fit the tool" in html
    assert "name: Field required" in html
    assert "Rejected: there is no tool by that name" in html
    assert "Attempt 1 failed (rate limited): 429; retrying" in html
    assert "Failed (not found): Unknown entity id: x" in html
    for code in ("invalid_arguments", "unknown_tool", "rate_limited", "not_found"):
        assert code not in html


def test_the_banner_sends_only_reviewers_to_the_review_queues(client, tenant, analyst, reviewer):
    from tests.review_runs import approval_item, question_item

    approval = approval_item(tenant, analyst)
    case_url = reverse("runs-case-detail", args=[approval.case_id])
    queue_link = f'href="{reverse("reviews-queue")}">Open the approval queue'
    as_analyst = client_for(client, analyst).get(case_url).content.decode()
    assert queue_link not in as_analyst
    assert "A reviewer decides in the approval queue" in as_analyst
    assert queue_link in client_for(client, reviewer).get(case_url).content.decode()

    question = question_item(tenant, analyst)
    page = client.get(reverse("runs-case-detail", args=[question.case_id])).content.decode()
    assert "The agent waits for an analyst's answer" in page
    assert "The agent needs your answer" not in page
    page = case_page(client, analyst, question.case_id)
    assert "The agent needs your answer to continue" in page


def test_a_step_on_the_case_page_counts_its_failed_model_calls(case):
    from runs.models import TraceEvent
    from runs.step_views import group_steps

    run = make_run(case)
    usage = {"input_tokens": 100, "output_tokens": 20, "cost_usd": "0.01"}
    add_events(
        run,
        ("model_failed", 1, {"error_type": "invalid_json", "message": "x", "usage": usage}),
        ("model_decision", 1, {"kind": "call_tool", "tool_name": "x", "usage": usage}),
    )
    (step,) = group_steps(run.pk, TraceEvent.objects.filter(run=run).order_by("seq"))
    assert (step.input_tokens, step.output_tokens) == (200, 40)


def test_a_steps_time_reads_unknown_when_its_call_was_cut_off_untimed(client, analyst, case):
    run = make_run(case)
    add_events(
        run,
        ("model_decision", 1, {"kind": "call_tool", "tool_name": "resolve_entity"}),
        ("tool_started", 1, {"tool": "resolve_entity", "attempt": 1}),
        ("tool_failed", 1, {"tool": "resolve_entity", "error_type": "cancelled"}),
    )
    html = case_page(client, analyst, case.pk)
    assert "time unknown</span>" in html and " ms</span>" not in html


def test_a_steps_tokens_read_in_thousands_on_the_case_page(client, analyst, case):
    run = make_run(case)
    usage = {"input_tokens": 1200, "output_tokens": 34, "cost_usd": "0.01"}
    add_events(run, ("model_decision", 1, {"kind": "call_tool", "tool_name": "x", "usage": usage}))
    html = case_page(client, analyst, case.pk)
    assert 'title="1,200 in / 34 out">1,234 tok</span>' in html


def test_the_sign_off_banner_lists_the_packets_open_gaps(client, tenant, analyst):
    from tests.review_runs import paused_run

    run = paused_run(tenant, analyst, "Quillfeather Biscuit Works")  # in no registry
    html = case_page(client, analyst, run.case_id)
    assert "Open gaps in the packet:" in html
    assert (
        "<li>No registry company matches &#x27;Quillfeather Biscuit Works&#x27;: the subject"
        in html
    )


def test_the_case_list_shows_and_filters_by_the_latest_packets_risk(client, tenant, analyst):
    from tests.review_runs import SANCTIONED_SUBJECT, SIGNOFF_SUBJECT, paused_run

    sanctioned = paused_run(tenant, analyst, SANCTIONED_SUBJECT, jurisdiction="")
    clean = paused_run(tenant, analyst, SIGNOFF_SUBJECT)
    Case.objects.create(tenant=tenant, subject_name="No Run Yet Ltd", created_by=analyst)
    assert (sanctioned.risk_rating, clean.risk_rating) == ("high", "low")
    client_for(client, analyst)
    rows = client.get(reverse("runs-case-list")).content.decode().split("<tr>")[2:]
    by_subject = {re.search(r'">([^<]+)</a>', row).group(1): row for row in rows}
    assert 'class="badge risk-high">High risk' in by_subject[SANCTIONED_SUBJECT]
    assert 'class="badge risk-low">Low risk' in by_subject[SIGNOFF_SUBJECT]
    assert "risk</span>" not in by_subject["No Run Yet Ltd"]
    high = client.get(reverse("runs-case-list"), {"risk": "high"}).content.decode()
    assert SANCTIONED_SUBJECT in high and SIGNOFF_SUBJECT not in high
    assert '<option value="high" selected>High</option>' in high
    # An unknown rating filters nothing rather than listing none.
    everything = client.get(reverse("runs-case-list"), {"risk": "dreadful"}).content.decode()
    assert SANCTIONED_SUBJECT in everything and SIGNOFF_SUBJECT in everything
    # A case with no packet (no run yet, or a run stopped before one) has no rating to
    # filter by, and is found as such: "Unrated" is the runtime's word for a packet.
    unrated = client.get(reverse("runs-case-list"), {"risk": "none"}).content.decode()
    assert "No Run Yet Ltd" in unrated
    assert SANCTIONED_SUBJECT not in unrated and SIGNOFF_SUBJECT not in unrated
    assert '<option value="none" selected>No packet yet</option>' in unrated


def test_runs_from_before_the_risk_column_get_it_from_their_packet(case):
    from importlib import import_module

    from django.apps import apps

    migration = import_module("runs.migrations.0013_run_risk_rating")
    rated = make_run(case, state={"proposed_packet": {"risk_rating": "medium"}})
    unrated = make_run(case, state={"proposed_packet": None})
    migration.fill_risk_rating(apps, None)
    rated.refresh_from_db()
    unrated.refresh_from_db()
    assert (rated.risk_rating, unrated.risk_rating) == ("medium", "")


def test_the_cost_meter_gives_the_budget_as_it_was_set(case):
    from runs.fragments import meters_for

    run = make_run(case)
    run.budgets = {**run.budgets, "max_cost_usd": "0.015"}
    cost = next(meter for meter in meters_for(run) if meter.label == "Cost")
    assert cost.limit == "$0.015"


def test_an_empty_subject_says_what_to_enter(client, analyst):
    client_for(client, analyst)
    refused = client.post(
        reverse("runs-case-new"), {"subject_name": "  ", "subject_type": "company"}
    )
    assert refused.status_code == 400
    assert "Enter the name of the company or person to research." in refused.content.decode()


def test_an_answer_read_as_neither_yes_nor_no_says_so_in_its_step():
    from runs.models import TraceEvent
    from runs.step_views import _note_for

    unclear = TraceEvent(type="clarification_received", data={"answer": "hmm", "unclear": True})
    assert _note_for(unclear).text == (
        "Answer: hmm (read as singling out no candidate and not saying none is the subject)"
    )
    plain = TraceEvent(type="clarification_received", data={"answer": "The UK one"})
    assert _note_for(plain).text == "Answer: The UK one"


def test_an_answer_read_as_a_no_or_as_none_of_them_says_so_in_its_step():
    from runs.models import TraceEvent
    from runs.step_views import _note_for

    no = TraceEvent(type="clarification_received", data={"answer": "Nope", "turned_down": True})
    assert (
        _note_for(no).text
        == "Answer: Nope (read as a no: the candidate offered is not the subject)"
    )
    none = TraceEvent(
        type="clarification_received",
        data={"answer": "none of them", "ruled_out_entity_ids": ["co-a", "co-b"]},
    )
    assert _note_for(none).text == (
        "Answer: none of them (read as none of the candidates listed being the subject)"
    )
