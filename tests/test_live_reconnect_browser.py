"""The live page while the server cannot push (its channel layer is down): it catches up
by reconnecting, says so once without flickering, and stops when the server says it is
done. The browser's WebSocket is replaced by one that closes as the server would."""

from __future__ import annotations

import pytest

from tests.case_rows import make_run
from tests.conftest import login_in_browser

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Sockets that open, then close with window.__closeCode (none: stay open); timers of three
# seconds or more run a hundred times faster, so reconnects come within the test.
SERVER_THAT_CANNOT_PUSH = """
window.__sockets = [];
window.__closeCode = 4503;
window.__noPush = [];
class ClosingSocket {
  constructor(url) {
    this.url = url;
    this.readyState = 0;
    this.listeners = {};
    window.__sockets.push(this);
    setTimeout(() => {
      this.readyState = 1;
      this.emit("open", {});
      if (window.__closeCode) setTimeout(() => this.close(window.__closeCode), 10);
    }, 10);
  }
  emit(kind, event) {
    if (this["on" + kind]) this["on" + kind](event);
    (this.listeners[kind] || []).forEach((listener) => listener(event));
  }
  addEventListener(kind, listener) { (this.listeners[kind] = this.listeners[kind] || []).push(listener); }
  removeEventListener() {}
  send() {}
  close(code) {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.emit("close", { code: code || 1000, reason: "" });
  }
}
Object.assign(ClosingSocket, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
window.WebSocket = ClosingSocket;
const realSetTimeout = window.setTimeout.bind(window);
window.setTimeout = (callback, ms, ...rest) => realSetTimeout(callback, ms >= 3000 ? ms / 100 : ms, ...rest);
new MutationObserver(() => {
  const section = document.querySelector(".live-run");
  if (!section) return;
  const shown = section.classList.contains("no-push");
  if (window.__noPush[window.__noPush.length - 1] !== shown) window.__noPush.push(shown);
}).observe(document, { attributes: true, subtree: true, attributeFilter: ["class"] });
"""


def test_the_delayed_updates_note_holds_steady_and_a_finished_stream_is_not_reopened(
    live_server, page, analyst, case
):
    run = make_run(case)
    page.add_init_script(SERVER_THAT_CANNOT_PUSH)
    login_in_browser(page, live_server.url, "analyst")
    page.goto(f"{live_server.url}/cases/{case.pk}/?run={run.pk}")

    page.wait_for_function("() => window.__sockets.length >= 4")
    assert page.locator(".live-run.no-push").count() == 1
    shown = page.evaluate("window.__noPush")
    assert shown[shown.index(True) :] == [True], f"the note flickered: {shown}"

    # Pushes work again: the note goes once a socket has stayed open.
    page.evaluate("window.__closeCode = null")
    page.wait_for_function(
        "() => !document.querySelector('.live-run').classList.contains('no-push')"
    )
    assert page.locator(".live-run.offline").count() == 0

    # The server closes normally (the run has ended): the page does not come back.
    page.evaluate("window.__sockets[window.__sockets.length - 1].close(1000)")
    opened = page.evaluate("window.__sockets.length")
    page.wait_for_timeout(500)
    assert page.evaluate("window.__sockets.length") == opened
    assert page.locator(".live-run.offline, .live-run.no-push").count() == 0


def test_a_stream_refused_after_the_session_ended_says_the_page_stopped_updating(
    live_server, page, analyst, case
):
    run = make_run(case)
    page.add_init_script(
        SERVER_THAT_CANNOT_PUSH.replace("window.__closeCode = 4503", "window.__closeCode = 4403")
    )
    login_in_browser(page, live_server.url, "analyst")
    page.goto(f"{live_server.url}/cases/{case.pk}/?run={run.pk}")

    notice = page.locator("#live-refused[role=alert]")
    notice.wait_for()
    assert "This page has stopped updating by itself: your session has ended" in (
        notice.inner_text()
    )
    assert (
        notice.get_by_role("link", name="Sign in again in a new tab").get_attribute("target")
        == "_blank"
    )
    assert page.locator(".live-run.refused").count() == 1
    assert page.locator(".live-run.offline").count() == 0


def test_a_refused_stream_opens_again_once_an_action_shows_the_session_is_back(
    live_server, page, tenant, analyst
):
    from tests.review_runs import QUESTION_SUBJECT, paused_run
    from tests.test_review_browser import off_the_browser_loop

    run = off_the_browser_loop(
        lambda: paused_run(tenant, analyst, QUESTION_SUBJECT, jurisdiction="")
    )
    assert run.status == "waiting_for_input"
    case = run.case
    page.add_init_script(
        SERVER_THAT_CANNOT_PUSH.replace("window.__closeCode = 4503", "window.__closeCode = 4403")
    )
    login_in_browser(page, live_server.url, "analyst")
    page.goto(f"{live_server.url}/cases/{case.pk}/?run={run.pk}")
    page.locator("#live-refused").wait_for()
    opened = page.evaluate("window.__sockets.length")
    page.evaluate("window.__closeCode = 0")  # signed in again: the next socket stays open
    page.locator("input[name=answer_text]").fill("The UK one")
    page.get_by_role("button", name="Send answer", exact=True).last.click()
    page.locator("#live-refused").wait_for(state="detached")
    assert page.evaluate("window.__sockets.length") == opened + 1
    assert page.locator(".live-run.refused").count() == 0
