"""Keyboard-only use of the queues in Chromium: keys a page handles never take over a key
that the focused control needs, and focus is never lost to the page."""

from __future__ import annotations

import pytest

from reviews.models import HumanDecision
from tests.conftest import login_in_browser
from tests.live_server import atlas_server  # noqa: F401 (a fixture)
from tests.review_runs import approval_item, question_item, sanctioned_signoff_item
from tests.test_case_browser import open_a_case_whose_agent_asks
from tests.test_review_browser import off_the_browser_loop

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def focused(page) -> str:
    """What has focus, as a person reading the page would name it."""
    return page.evaluate(
        "() => { const el = document.activeElement;"
        " return el.tagName + ':' + (el.getAttribute('name') || el.textContent.trim()); }"
    )


def test_enter_on_a_link_or_button_of_the_questions_page_does_what_it_says(
    page, live_server, tenant, analyst
):
    item = off_the_browser_loop(question_item, tenant, analyst)
    login_in_browser(page, live_server.url, analyst.username)
    page.goto(f"{live_server.url}/reviews/questions/")
    # Nothing focused: Enter goes to the selected question's answer field.
    page.keyboard.press("Enter")
    assert focused(page) == "INPUT:answer_text"
    page.keyboard.press("Escape")
    # A candidate answer button sends that answer.
    row = page.locator(f"#review-item-{item.pk}")
    row.get_by_role("button", name="Northwind Trading Ltd (GB, no. 04512398)").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector(f"#review-item-{item.pk} .decided")
    assert HumanDecision.objects.get(review_item=item).payload["text"].startswith("Northwind")
    # Filter submits its form.
    page.get_by_role("searchbox", name="Case").fill("Northwind")
    page.get_by_role("button", name="Filter").focus()
    page.keyboard.press("Enter")
    page.wait_for_url("**/reviews/questions/?q=Northwind*")
    # A link in the main navigation is followed.
    page.locator(".mainnav").get_by_role("link", name="Cases").focus()
    page.keyboard.press("Enter")
    page.wait_for_url("**/cases/")


def test_single_key_shortcuts_act_only_in_the_queue_and_the_help_keeps_focus(
    page, live_server, tenant, analyst, reviewer
):
    item = off_the_browser_loop(approval_item, tenant, analyst)
    login_in_browser(page, live_server.url, reviewer.username)
    page.goto(f"{live_server.url}/reviews/")
    nav_link = page.locator(".mainnav").get_by_role("link", name="Cases")
    nav_link.focus()
    for key in ("j", "a", "?"):
        page.keyboard.press(key)
    assert page.locator("tr.selected").count() == 0
    assert not page.locator("#keys-help").is_visible()
    assert focused(page) == "A:Cases"
    # Inside the queue's table the keys work.
    claim = page.locator(f"#review-item-{item.pk}").get_by_role("button", name="Claim")
    claim.focus()
    page.keyboard.press("j")
    assert page.locator("tr.selected").get_attribute("data-item") == str(item.pk)
    # The help is modal: Tab and Shift+Tab stay inside it; Escape gives focus back.
    page.keyboard.press("?")
    assert page.locator("#keys-help").is_visible()
    for key in ("Tab", "Tab", "Shift+Tab"):
        page.keyboard.press(key)
        assert page.evaluate(
            "document.getElementById('keys-help').contains(document.activeElement)"
        )
    page.keyboard.press("Escape")
    assert not page.locator("#keys-help").is_visible()
    assert claim.evaluate("el => el === document.activeElement")
    # Closed with its button, it gives focus back too.
    page.keyboard.press("?")
    page.keyboard.press("Enter")  # on Close
    assert not page.locator("#keys-help").is_visible()
    assert claim.evaluate("el => el === document.activeElement")


def test_the_queue_keys_work_after_the_skip_link_or_a_click_on_the_page(
    page, live_server, tenant, analyst, reviewer
):
    item = off_the_browser_loop(approval_item, tenant, analyst)
    login_in_browser(page, live_server.url, reviewer.username)
    page.goto(f"{live_server.url}/reviews/")
    # The skip link gives focus to the main area.
    page.keyboard.press("Tab")
    assert focused(page) == "A:Skip to main content"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"
    page.keyboard.press("j")
    assert page.locator("tr.selected").get_attribute("data-item") == str(item.pk)
    # A click on the blank space of the main area does too.
    page.reload()
    page.locator("main h1").click()
    page.keyboard.press("?")
    assert page.locator("#keys-help").is_visible()


def is_focused(locator) -> bool:
    return locator.evaluate("el => el === document.activeElement")


def test_focus_stays_in_a_queue_row_through_claim_and_decision(
    page, live_server, tenant, analyst, reviewer
):
    item = off_the_browser_loop(approval_item, tenant, analyst)
    login_in_browser(page, live_server.url, reviewer.username)
    page.goto(f"{live_server.url}/reviews/")
    row = page.locator(f"#review-item-{item.pk}")
    row.get_by_role("button", name="Claim").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector(f"#review-item-{item.pk} .claim-mine")
    # Claimed: the reason to type next.
    assert is_focused(row.locator("input[name=reason]"))
    page.keyboard.type("Routine registry lookup")
    page.keyboard.press("Tab")  # to Approve
    page.keyboard.press("Enter")
    page.wait_for_selector(f"#review-item-{item.pk} .decided")
    # Decided: the result, which a screen reader then reads.
    assert is_focused(row.locator(".decided"))
    # Still in the queue: its keys go on working from there.
    page.keyboard.press("?")
    assert page.locator("#keys-help").is_visible()


def test_focus_goes_to_the_answer_recorded_on_the_questions_page(
    page, live_server, tenant, analyst
):
    item = off_the_browser_loop(question_item, tenant, analyst)
    login_in_browser(page, live_server.url, analyst.username)
    page.goto(f"{live_server.url}/reviews/questions/")
    row = page.locator(f"#review-item-{item.pk}")
    row.locator("input[name=answer_text]").fill("The one registered in England")
    row.get_by_role("button", name="Send").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector(f"#review-item-{item.pk} .decided")
    assert is_focused(row.locator(".decided"))


def test_the_refreshing_nav_and_new_items_notice_keep_focus(
    page, live_server, tenant, analyst, reviewer
):
    off_the_browser_loop(approval_item, tenant, analyst)
    login_in_browser(page, live_server.url, reviewer.username)
    page.goto(f"{live_server.url}/reviews/")
    nav = page.locator(".mainnav")
    assert nav.get_by_role("link", name="Approvals").locator(".count").inner_text() == "1"
    off_the_browser_loop(approval_item, tenant, analyst)
    # Focus on a nav link while the nav refreshes: the counts change, the link stays.
    nav.get_by_role("link", name="Cases").focus()
    page.evaluate("window.__focused = document.activeElement")
    with page.expect_response("**/nav/"):
        page.evaluate("htmx.trigger(document.querySelector('.mainnav'), 'atlas:queues-changed')")
    page.wait_for_function(
        "() => document.querySelector('.mainnav a[aria-current=page] .count').textContent === '2'"
    )
    assert page.evaluate("window.__focused === document.activeElement")
    # The same for the notice of new items, refreshed every 10 seconds.
    with page.expect_response("**/reviews/new/**"):
        page.evaluate("htmx.trigger(document.querySelector('.new-items'), 'atlas:queues-changed')")
    notice = page.locator(".new-items-notice")
    notice.wait_for()
    notice.focus()
    page.evaluate("window.__focused = document.activeElement")
    with page.expect_response("**/reviews/new/**"):
        page.evaluate("htmx.trigger(document.querySelector('.new-items'), 'atlas:queues-changed')")
    page.wait_for_timeout(100)  # the swap, had there been one
    assert page.evaluate("window.__focused === document.activeElement")


def test_focus_goes_to_the_new_banner_after_answering_on_the_case_page(
    atlas_server,  # noqa: F811 (the fixture imported above)
    page,
    analyst,
):
    open_a_case_whose_agent_asks(page, atlas_server.url)
    page.evaluate(
        "window.__focusTrail = [];"
        "document.addEventListener('focusin', (e) => window.__focusTrail.push("
        "e.target.className + ':' + e.target.textContent.trim().slice(0, 40)))"
    )
    page.locator(".candidates button").first.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("text=The packet waits for sign-off", timeout=15_000)
    trail = page.evaluate("window.__focusTrail")
    # The answer recorded: focus on the banner that says so, then on the run's status line
    # as the banner goes, never on <body>. (On a busy machine the run's next frame can
    # replace the banner before it is focused: focus then goes straight to the status.)
    after = trail[1:]
    assert after and all(e.startswith(("banner-title:", "run-status")) for e in after), trail
    assert page.evaluate("document.querySelector('.live-run').contains(document.activeElement)")


def test_focus_goes_to_the_first_refused_field_after_a_server_side_error(
    page, live_server, tenant, analyst, reviewer
):
    login_in_browser(page, live_server.url, analyst.username)
    page.goto(f"{live_server.url}/cases/new/")
    page.fill("#id_jurisdiction", "XQ")
    page.get_by_role("button", name="Open case and start research").click()
    page.wait_for_selector("[data-error-summary]")
    assert is_focused(page.locator("#id_subject_name"))
    # In a queue row, refused without reload: the reason box, which names its error.
    item = off_the_browser_loop(approval_item, tenant, analyst)
    page.context.clear_cookies()
    login_in_browser(page, live_server.url, reviewer.username)
    page.goto(f"{live_server.url}/reviews/")
    row = page.locator(f"#review-item-{item.pk}")
    row.get_by_role("button", name="Deny").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector(f"#review-item-{item.pk} .error")
    assert is_focused(row.locator("input[name=reason][aria-invalid=true]"))


def test_a_sign_off_refused_for_unmarked_hits_focuses_the_first_unmarked_one(
    page, live_server, tenant, analyst, reviewer
):
    item = off_the_browser_loop(sanctioned_signoff_item, tenant, analyst)
    first, second, _ = item.payload["sanctions_hits"]
    login_in_browser(page, live_server.url, reviewer.username)
    page.goto(f"{live_server.url}/reviews/items/{item.pk}/")
    page.check(f"input[name=hit-{first['evidence_id']}][value=false_positive]")
    page.fill("#id_reason", "Checked against the registry")
    page.get_by_role("button", name="Sign off packet").click()
    page.wait_for_selector("#decision-hits-error")
    assert is_focused(page.locator(f"input[name=hit-{second['evidence_id']}]").first)
    # Its group is named by the list and the name matched, and says it is not marked.
    group = page.get_by_role(
        "radiogroup", name="Synthetic OFAC SDN: Dmitri Volkov (not marked yet)"
    )
    assert group.evaluate("el => el.contains(document.activeElement)")


def test_a_queue_row_says_its_results_in_a_live_region_it_keeps(
    page, live_server, tenant, analyst, reviewer
):
    item = off_the_browser_loop(approval_item, tenant, analyst)
    login_in_browser(page, live_server.url, reviewer.username)
    page.goto(f"{live_server.url}/reviews/")
    region_id = f"review-item-{item.pk}-said"
    page.evaluate(f"window.__region = document.getElementById('{region_id}')")
    assert page.locator(f"#{region_id}").get_attribute("role") == "status"
    assert page.locator(f"#{region_id}").inner_text() == ""
    # Enter in the reason box before choosing a or d says what to do.
    row = page.locator(f"#review-item-{item.pk}")
    row.locator("input[name=reason]").fill("Routine")
    row.locator("input[name=reason]").press("Enter")
    assert page.locator("#keys-status").inner_text().startswith("Press a or d first")
    row.get_by_role("button", name="Claim").click()
    page.wait_for_selector(f"#review-item-{item.pk} .claim-mine")
    # The row was replaced; its live region was kept, with what happened written in it.
    assert page.evaluate(f"window.__region === document.getElementById('{region_id}')")
    assert page.locator(f"#{region_id}").text_content().startswith("You hold it until")


def test_the_new_items_notice_is_replaced_only_when_its_count_changes(
    page, live_server, tenant, analyst, reviewer
):
    off_the_browser_loop(approval_item, tenant, analyst)
    login_in_browser(page, live_server.url, reviewer.username)
    page.goto(f"{live_server.url}/reviews/")
    off_the_browser_loop(approval_item, tenant, analyst)
    poll = "htmx.trigger(document.querySelector('.new-items'), 'atlas:queues-changed')"
    with page.expect_response("**/reviews/new/**"):
        page.evaluate(poll)
    page.locator(".new-items-notice").wait_for()
    page.evaluate("window.__notice = document.querySelector('.new-items-notice')")
    with page.expect_response("**/reviews/new/**"):
        page.evaluate(poll)
    page.wait_for_timeout(100)
    assert page.evaluate("window.__notice === document.querySelector('.new-items-notice')")


@pytest.mark.parametrize("width", [390, 640])  # a phone, and 1280 px at 200% zoom
def test_pages_wrap_instead_of_scrolling_sideways_on_a_phone_and_at_200_percent(
    page, live_server, tenant, analyst, reviewer, width
):
    signoff = off_the_browser_loop(sanctioned_signoff_item, tenant, analyst)
    question = off_the_browser_loop(question_item, tenant, analyst)
    page.set_viewport_size({"width": width, "height": 800})
    widest = (
        "() => Math.max(document.documentElement.scrollWidth, ...Array.from("
        "document.querySelectorAll('.topbar, .topbar *, .step-meta, .step-meta *'),"
        " (el) => el.getBoundingClientRect().right))"
    )
    for who, paths in (
        (reviewer, ["/reviews/", f"/reviews/items/{signoff.pk}/", "/reviews/audit/"]),
        (analyst, ["/cases/", f"/cases/{question.case_id}/", "/reviews/questions/"]),
    ):
        page.context.clear_cookies()
        login_in_browser(page, live_server.url, who.username)
        for path in paths:
            page.goto(f"{live_server.url}{path}")
            page.wait_for_load_state("load")
            assert page.evaluate(widest) <= width, (width, path)


CONTRAST = """(el) => {
  const rgb = (text) => text.match(/[\\d.]+/g).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map((v) => {
    v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
  }).reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
  let opacity = 1, background = null;
  for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
    const style = getComputedStyle(node);
    opacity *= Number(style.opacity);
    const bg = rgb(style.backgroundColor);
    if (!background && (bg.length === 3 || bg[3] > 0)) background = bg.slice(0, 3);
  }
  const page = rgb(getComputedStyle(document.body).backgroundColor).slice(0, 3);
  const blend = (c) => c.map((v, i) => opacity * v + (1 - opacity) * page[i]);
  const [a, b] = [lum(blend(rgb(getComputedStyle(el).color).slice(0, 3))), lum(blend(background))];
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}"""


def test_the_nav_count_and_a_settled_conflicts_other_values_are_legible(
    page, live_server, tenant, analyst, reviewer
):
    from tests.review_runs import conflict_item

    item = off_the_browser_loop(conflict_item, tenant, analyst)
    login_in_browser(page, live_server.url, reviewer.username)
    page.goto(f"{live_server.url}/reviews/escalations/")
    assert page.locator(".mainnav .count").first.evaluate(CONTRAST) >= 4.5
    page.goto(f"{live_server.url}/reviews/escalations/{item.pk}/")
    page.locator(".conflict .value-card").nth(1).click()
    page.fill("textarea[name=note]", "The 2024 board announcement is newer than the filing.")
    page.get_by_role("button", name="Record resolution").click()
    page.wait_for_selector(".resolution")
    other = page.locator(".value-card.not-chosen")
    assert other.count() == 1
    assert "Not chosen" in other.inner_text()
    assert "Stands" in page.locator(".value-card.chosen").inner_text()
    for text in other.locator("dt, dd, .value, .settled-label, .value-letter").all():
        assert text.evaluate(CONTRAST) >= 4.5, text.inner_text()


def test_the_skip_link_comes_first_and_the_pulse_stops_for_reduced_motion(
    page, live_server, analyst
):
    login_in_browser(page, live_server.url, analyst.username)
    page.goto(f"{live_server.url}/cases/")
    assert focused(page).startswith("BODY"), "nothing takes focus as the page opens"
    page.keyboard.press("Tab")
    assert focused(page) == "A:Skip to main content"
    assert page.get_by_role("link", name="Skip to main content").is_visible()
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"
    pulse = (
        "() => { const el = document.createElement('span'); el.className = 'tool-running';"
        " document.body.append(el); return getComputedStyle(el, '::before').animationName; }"
    )
    assert page.evaluate(pulse) == "pulse"
    page.emulate_media(reduced_motion="reduce")
    assert page.evaluate(pulse) == "none"


def test_a_keyboard_decision_refused_for_its_reason_is_sent_again_with_enter(
    page, live_server, tenant, analyst, reviewer
):
    item = off_the_browser_loop(approval_item, tenant, analyst)
    login_in_browser(page, live_server.url, reviewer.username)
    page.goto(f"{live_server.url}/reviews/?kind=approval")
    row = page.locator(f"#review-item-{item.pk}")
    page.keyboard.press("j")
    page.keyboard.press("a")
    page.keyboard.press("Enter")  # no reason yet: refused
    page.wait_for_selector(
        f"#review-item-{item.pk} .field-error, #review-item-{item.pk} [aria-invalid=true]"
    )
    reason = row.locator("input[name=reason]")
    reason.focus()
    page.keyboard.type("Routine registry lookup")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"#review-item-{item.pk} .decided")
    decision = HumanDecision.objects.get(review_item_id=item.pk)
    assert decision.kind == "approve" and decision.reason == "Routine registry lookup"


def test_a_reason_typed_after_a_on_a_row_decided_on_its_own_page_is_not_taken_as_keys(
    page, live_server, tenant, analyst, reviewer
):
    """`a` on a sign-off that must be read first decides nothing and says so; a reason
    typed straight after it ("Clean; no findings") must not have its o open the item or its
    j and k move the selection. A deliberate key after a pause works again."""
    item = off_the_browser_loop(sanctioned_signoff_item, tenant, analyst)
    login_in_browser(page, live_server.url, reviewer.username)
    page.goto(f"{live_server.url}/reviews/")
    page.locator("main h1").click()
    page.keyboard.press("j")
    assert page.locator("tr.selected").get_attribute("data-item") == str(item.pk)
    page.keyboard.press("a")
    page.keyboard.type("Clean; no findings of concern.", delay=40)
    page.wait_for_timeout(300)
    assert page.url.endswith("/reviews/"), "a typed letter opened the item"
    assert "taken as keys" in page.locator("#keys-status").inner_text()
    page.wait_for_timeout(1700)
    page.keyboard.press("o")
    page.wait_for_url(f"**/reviews/items/{item.pk}/")
