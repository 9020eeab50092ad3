"""What an analyst sees in Chromium: a case opened, answered and followed live; a run cancelled.

Runs are driven by the real worker inside the live server; pages update over the websocket
without reloading (a marker set on `window` must survive).
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from atlas.runtime.scenario import parse_scenario
from reviews.models import HumanDecision
from runs.actions import do_start_run
from runs.models import Case, Run
from tests.conftest import login_in_browser, screenshot
from tests.live_server import atlas_server  # noqa: F401 - the fixture

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def step_count(page) -> int:
    return page.locator("ol.steps > li.step").count()


def test_an_analyst_opens_a_case_answers_the_question_and_watches_it_live(
    atlas_server,  # noqa: F811
    page,
    analyst,
):
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    login_in_browser(page, atlas_server.url, "analyst")
    page.goto(atlas_server.url + reverse("runs-case-new"))
    page.fill("#id_subject_name", "Northwind Trading")
    page.select_option("#id_subject_type", "company")
    page.fill("#id_notes", "Prospective supplier; onboarding review.")
    screenshot(page, "case-new-form")
    page.click("button[type=submit].primary")

    # The ambiguous name: the run stops to ask which Northwind is meant.
    page.wait_for_selector("text=The agent needs your answer", timeout=15_000)
    case = Case.objects.get(subject_name="Northwind Trading")
    run = Run.objects.get(case=case)
    assert page.url.endswith(reverse("runs-case-detail", args=[case.pk]))
    page.wait_for_function(
        "() => document.querySelector('[ws-connect]') && "
        "document.querySelector('.live-run:not(.offline)') !== null"
    )
    page.evaluate("window.__sameDocument = true")
    before = step_count(page)
    assert before >= 2
    assert page.locator(f"#run-{run.pk}-matched").inner_text() == ""  # not matched yet
    screenshot(page, "case-waiting-for-answer")

    page.locator(".candidates button").first.click()

    # The answer resumes the run through the worker; its steps arrive over the websocket.
    page.wait_for_selector(f"#run-{run.pk}-status .badge-awaiting_review", timeout=15_000)
    page.wait_for_selector("text=The packet waits for sign-off")
    assert step_count(page) > before + 2
    assert page.evaluate("window.__sameDocument === true"), "the page was reloaded"
    # The subject panel shows the entity the answer picked, without a reload.
    assert "co-northwind-" in page.locator(f"#run-{run.pk}-matched").inner_text()
    cursor = int(page.get_attribute(f"#run-{run.pk}-cursor", "data-last-seq"))
    run.refresh_from_db()
    assert cursor == run.last_seq
    ids = page.eval_on_selector_all("ol.steps > li.step", "items => items.map(i => i.id)")
    assert len(ids) == len(set(ids)), "a step was shown twice"
    # A reconnect asks for what the page lacks, not for the ?after= it first loaded with.
    reconnect_url = page.evaluate(
        f"""(() => {{
            const socket = htmx.createWebSocket('ws://' + location.host + '/ws/runs/{run.pk}/?after=0');
            socket.close();
            return socket.url;
        }})()"""
    )
    assert reconnect_url.endswith(f"?after={cursor}")
    assert page.locator(".step-why").count() >= 3
    screenshot(page, "case-live-after-answer")

    page.click(f"#run-{run.pk}-status a:has-text('Packet')")
    page.wait_for_selector("h2:has-text('Findings')")
    assert page.locator("a.cite").count() >= 1
    screenshot(page, "packet-page")

    page.goto(atlas_server.url + reverse("runs-case-list"))
    screenshot(page, "case-list")
    assert dialogs == []


def test_an_analyst_cancels_a_running_case_from_its_page(
    atlas_server,  # noqa: F811
    page,
    analyst,
    tenant,
):
    case = Case.objects.create(
        tenant=tenant,
        subject_name="Acme Analytics",
        subject_type="company",
        jurisdiction="GB",
        created_by=analyst,
    )
    slow = parse_scenario(
        {
            "case": {"subject": case.subject_name, "subject_type": "company", "jurisdiction": "GB"},
            "tool_faults": {"screen_sanctions": ["slow:20"]},
        }
    )
    run = do_start_run(case, analyst, scenario=slow)
    login_in_browser(page, atlas_server.url, "analyst")
    page.goto(atlas_server.url + reverse("runs-case-detail", args=[case.pk]))
    # The sanctions screen hangs; the step that started it is on the page.
    page.wait_for_selector(f"#run-{run.pk}-status .badge-researching")
    page.wait_for_selector("li.step .step-title:has-text('screen_sanctions')", timeout=15_000)
    running = page.locator("li.step .tool-running")
    assert running.inner_text() == "screen_sanctions running…"
    page.evaluate("window.__sameDocument = true")
    screenshot(page, "case-researching")

    # Cancelling asks first; saying no changes nothing.
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.click("button:has-text('Cancel run')")
    page.wait_for_timeout(300)
    run.refresh_from_db()
    assert run.cancel_requested_at is None
    # As the page shows it after the form that started the run.
    page.evaluate(
        "document.body.insertAdjacentHTML('afterbegin', '<div class=\"messages\">"
        '<div class="message message-success">Research has started.</div></div>\')'
    )
    asked: list[str] = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    page.click("button:has-text('Cancel run')")
    page.wait_for_selector(f"#run-{run.pk}-status .badge-cancelled", timeout=5_000)
    assert asked == ["Cancel this run? Research stops now, and the run ends as cancelled."]
    page.wait_for_selector(f"#run-{run.pk}-banner:has-text('Cancelled by')")
    assert page.evaluate("window.__sameDocument === true")
    run.refresh_from_db()
    assert run.status == "cancelled"
    assert page.locator("button:has-text('Run again')").is_visible()
    assert page.locator(".message-success").count() == 0  # stale once the run was cancelled
    # The decision comes with the push of the cancelled run: the htmx response that also
    # carries it is dropped when that push replaced the Cancel button first.
    page.wait_for_selector(".audit li:has-text('Cancelled run')", timeout=5_000)
    assert page.locator(".live-dot").count() == 0  # a finished run no longer streams
    assert running.count() == 0  # the cancelled call is no longer shown as running
    screenshot(page, "case-cancelled")


def test_a_prompt_injection_article_changes_nothing_a_person_sees(
    atlas_server,  # noqa: F811
    page,
    analyst,
):
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    login_in_browser(page, atlas_server.url, "analyst")
    page.goto(atlas_server.url + reverse("runs-case-new"))
    page.fill("#id_subject_name", "Crescent Minerals")
    page.click("button[type=submit].primary")
    page.wait_for_selector(".run-status .badge-awaiting_review", timeout=15_000)
    run = Run.objects.get(case__subject_name="Crescent Minerals")
    assert page.locator(".live-run script").count() == 0
    page.goto(atlas_server.url + reverse("runs-packet", args=[run.pk]))
    # The article that carries the payload is cited as evidence, and nothing it says
    # became markup or changed what the reviewer reads.
    assert page.locator("table.evidence a[href*='crescent-minerals-insider']").count() == 1
    assert page.locator(".packet script").count() == 0
    assert page.inner_text(".risk-box .badge").strip().lower() != "low"
    # The reviewer is told which source tried to instruct the agent.
    row = page.locator(
        "table.evidence tr", has=page.locator("a[href*='crescent-minerals-insider']")
    )
    assert "Suspect source" in row.inner_text()
    assert page.locator("table.evidence .instructions-flag").count() == 1
    screenshot(page, "packet-prompt-injection")
    assert dialogs == []


def open_a_case_whose_agent_asks(page, base_url: str) -> None:
    """As the analyst, open a case on the ambiguous name and wait for the agent's question,
    with the page's scripts run and its live stream connected (before anyone types)."""
    login_in_browser(page, base_url, "analyst")
    page.goto(base_url + reverse("runs-case-new"))
    page.fill("#id_subject_name", "Northwind Trading")
    page.click("button[type=submit].primary")
    page.wait_for_selector("text=The agent needs your answer", timeout=15_000)
    page.wait_for_load_state()
    page.wait_for_selector(".live-run:not(.offline)")


def test_an_answer_being_written_survives_attaching_a_document(
    atlas_server,  # noqa: F811
    page,
    analyst,
    tmp_path,
):
    open_a_case_whose_agent_asks(page, atlas_server.url)
    answer = page.locator("input[name=answer_text][data-draft]")
    answer.fill("The Singapore one: see the registry extract I attach")
    extract = tmp_path / "registry extract.txt"
    extract.write_text("Company: Northwind Trading Pte Ltd\nCompany number: 201534871K\n")
    page.set_input_files("input[type=file][name=document]", str(extract))
    page.click("form.attach-document button[type=submit]")
    page.wait_for_selector("text=is attached to the case")
    # Connected again, the page gets the run's regions anew: the text stays through that.
    page.wait_for_selector(".live-run:not(.offline)")
    page.wait_for_timeout(300)
    assert answer.input_value() == "The Singapore one: see the registry extract I attach"
    screenshot(page, "case-draft-kept-after-attach")


def test_an_answer_being_written_when_someone_else_answers_is_kept_to_copy(
    atlas_server,  # noqa: F811
    page,
    analyst,
):
    open_a_case_whose_agent_asks(page, atlas_server.url)
    case_url = page.url
    mine = page.locator("input[name=answer_text][data-draft]")
    mine.fill("Probably the one in Singapore, checking with the client")

    colleague = page.context.new_page()  # the same analyst in another tab, or a colleague
    colleague.goto(case_url)
    colleague.locator(".candidates button").first.click()

    note = page.locator(".unsaved")
    note.wait_for(timeout=15_000)
    assert "Not sent: the question was settled while you were writing" in note.inner_text()
    assert "Probably the one in Singapore, checking with the client" in note.inner_text()
    screenshot(page, "case-answer-kept-to-copy")


def test_an_answer_being_written_when_the_analyst_cancels_the_run_is_kept_to_copy(
    atlas_server,  # noqa: F811
    page,
    analyst,
):
    open_a_case_whose_agent_asks(page, atlas_server.url)
    page.locator("input[name=answer_text][data-draft]").fill("draft: maybe the SG one")
    page.on("dialog", lambda dialog: dialog.accept())
    page.click("button:has-text('Cancel run')")
    note = page.locator(".unsaved")
    note.wait_for(timeout=15_000)
    assert "Not sent: you cancelled the run, which closed its question" in note.inner_text()
    assert "draft: maybe the SG one" in note.inner_text()


@pytest.mark.parametrize("send", ["button", "enter"])
def test_an_answer_typed_and_sent_from_the_case_page_is_the_answer_recorded(
    atlas_server,  # noqa: F811
    page,
    analyst,
    send,
):
    # The suggested answers are buttons of the same form, ahead of the text field: Enter
    # in the field must send what was typed, not the first suggestion.
    open_a_case_whose_agent_asks(page, atlas_server.url)
    page.locator("input[name=answer_text][data-draft]").fill("The Singapore one")
    if send == "enter":
        page.keyboard.press("Enter")
    else:
        page.click(".answer-form button.primary")
    page.wait_for_selector("text=The packet waits for sign-off", timeout=15_000)
    assert page.locator(".unsaved").count() == 0
    answer = HumanDecision.objects.get(kind=HumanDecision.Kind.ANSWER)
    assert answer.reason == "The Singapore one"
    assert "co-northwind-sg" in page.locator(".live-facts").inner_text()
