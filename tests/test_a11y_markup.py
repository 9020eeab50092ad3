"""What a screen reader reads from the markup alone: each data table's header cells say
which cells they head, every page opens with one h1 and goes down one level at a time, and
each filter names what it filters."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.urls import reverse

from tests.case_rows import add_events, awaiting_signoff, make_run, tool_step
from tests.conftest import client_for
from tests.review_runs import approval_item, conflict_item, question_item
from tests.test_form_error_markup import described, every_description_exists
from tests.test_page_structure import assert_no_skipped_level

pytestmark = pytest.mark.django_db

TABLE = re.compile(r"<table\b.*?</table>", re.S)
HEADER_CELL = re.compile(r"<th\b([^>]*)>(.*?)</th>", re.S)


def header_cells(html: str) -> list[tuple[str, str]]:
    """Each header cell of each table on the page: (its attributes, its text)."""
    cells = [cell for table in TABLE.findall(html) for cell in HEADER_CELL.findall(table)]
    assert cells, "the page has no table header cells"
    return [
        (attrs, " ".join(unescape(re.sub(r"<[^>]+>", "", text)).split())) for attrs, text in cells
    ]


def assert_headers_say_what_they_head(html: str) -> None:
    for attrs, text in header_cells(html):
        assert re.search(r'\bscope="(col|row)"', attrs), (attrs, text)
        assert text, f"a header cell with no words: <th{attrs}>"


def test_every_table_of_the_cases_queues_and_packet_heads_its_cells(
    client, tenant, analyst, reviewer, case
):
    signoff = awaiting_signoff(case)
    client_for(client, analyst)
    for url in (
        reverse("runs-case-list"),
        reverse("runs-packet", args=[signoff.pk]),
        reverse("runs-case-detail", args=[case.pk]),
    ):
        assert_headers_say_what_they_head(client.get(url).content.decode())
    decided = approval_item(tenant, analyst)
    approval_item(tenant, analyst)
    question_item(tenant, analyst)
    conflict_item(tenant, analyst)
    client_for(client, reviewer)
    client.post(reverse("reviews-decide", args=[decided.pk]), {"decision": "deny", "reason": "No."})
    for url in (
        reverse("reviews-queue"),
        reverse("reviews-clarifications"),
        reverse("reviews-escalations"),
        reverse("reviews-audit"),
    ):
        assert_headers_say_what_they_head(client.get(url).content.decode())


def test_a_case_pages_runs_are_rows_headed_by_their_number(client, analyst, case):
    first = make_run(case, status="cancelled", reason="cancelled")
    second = awaiting_signoff(case)
    html = client_for(client, analyst).get(reverse("runs-case-detail", args=[case.pk]))
    table = re.search(
        r'<table class="data compact runs-of-case">.*?</table>', html.content.decode(), re.S
    )
    heads = [text for attrs, text in header_cells(table.group(0)) if 'scope="row"' in attrs]
    assert heads == [f"Run {second.pk}", f"Run {first.pk}"]


def test_correcting_a_subject_and_the_earlier_steps_page_open_with_one_h1(client, analyst, case):
    client_for(client, analyst)
    correct = client.get(reverse("runs-case-correct", args=[case.pk])).content.decode()
    assert correct.count("<h1") == 1
    assert_no_skipped_level(correct)

    run = make_run(case, status="completed", reason="packet_approved")
    add_events(
        run,
        ("run_started", 0, {}),
        *tool_step(1, "resolve_entity", {"name": case.subject_name}, "1 candidate"),
        *tool_step(2, "screen_sanctions", {"name": case.subject_name}, "no hits"),
    )
    # Without JavaScript, "show earlier" opens a page of its own.
    earlier = client.get(reverse("runs-run-steps", args=[run.pk]), {"before": run.last_seq})
    html = earlier.content.decode()
    assert html.count("<h1") == 1
    assert f"<h1>Run {run.pk}: steps 0–2</h1>" in html
    assert_no_skipped_level(html)


def test_the_case_lists_date_filters_each_say_what_they_filter(client, analyst):
    html = client_for(client, analyst).get(reverse("runs-case-list")).content.decode()
    labels = {
        re.search(r'name="(date_\w+)"', label).group(1): " ".join(
            unescape(re.sub(r"<[^>]+>", " ", label)).split()
        )
        for label in re.findall(r"<label\b.*?</label>", html, re.S)
        if 'name="date_' in label
    }
    assert labels == {"date_from": "Opened from", "date_to": "Opened to"}


def test_a_refused_login_is_tied_to_both_fields(client, analyst):
    refused = client.post(reverse("login"), {"username": analyst.username, "password": "wrong"})
    html = refused.content.decode()
    every_description_exists(html)
    for name in ("username", "password"):
        field, ids = described(html, name=name)
        assert field["aria-invalid"] == "true" and ids == ["login-error"]
    blank = client.get(reverse("login")).content.decode()
    assert "aria-invalid" not in blank


def test_a_runs_meters_read_as_used_of_limit_and_print_needs_javascript(client, analyst, case):
    run = awaiting_signoff(case)
    client_for(client, analyst)
    page = client.get(reverse("runs-case-detail", args=[case.pk])).content.decode()
    meters = re.findall(
        r'<div class="bar" role="meter" aria-label="([^"]+)" aria-valuetext="([^"]+)"', page
    )
    assert ("Iterations", "5 of 12") in meters, meters
    packet = client.get(reverse("runs-packet", args=[run.pk])).content.decode()
    assert '<button type="button" data-print hidden>Print</button>' in packet


def test_the_admins_traces_and_metrics_head_their_cells_and_keep_heading_levels(
    client, admin_user, analyst, case
):
    run = awaiting_signoff(case)
    add_events(run, *tool_step(9, "resolve_entity", {"name": case.subject_name}, "1 candidate"))
    client_for(client, admin_user)
    for url in (reverse("runs-trace-list"), reverse("runs-trace", args=[run.pk])):
        html = client.get(url).content.decode()
        assert_headers_say_what_they_head(html)
        assert_no_skipped_level(html)
    assert_headers_say_what_they_head(client.get(reverse("runs-metrics")).content.decode())
    new_case = client_for(client, analyst).get(reverse("runs-case-new")).content.decode()
    assert_no_skipped_level(new_case)
