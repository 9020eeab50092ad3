// Queue keyboard: j/k select a row, a/d approve/deny (focus the reason; Enter submits),
// o opens the selected item, ? toggles help. Keys never fire while typing in a field, nor
// with focus outside the queue's table.
(function () {
  "use strict";
  let selectedId = null;

  function rows() {
    const table = document.querySelector("table[data-queue]");
    return table ? Array.from(table.querySelectorAll("tbody tr[data-item]")) : [];
  }
  function selected() {
    return rows().find((row) => row.dataset.item === selectedId) || null;
  }
  function select(row) {
    rows().forEach((r) => r.classList.toggle("selected", r === row));
    selectedId = row ? row.dataset.item : null;
    if (row) row.scrollIntoView({ block: "nearest" });
  }
  function move(delta) {
    const all = rows();
    if (!all.length) return;
    let index = all.indexOf(selected());
    index = index < 0 ? (delta > 0 ? 0 : all.length - 1) : Math.min(all.length - 1, Math.max(0, index + delta));
    select(all[index]);
  }
  // The skip link, and a click on the page's blank space, focus the main area itself: as
  // good as nothing focused.
  function nothingFocused(el) {
    return !el || el === document.body || el === document.documentElement || el.id === "main";
  }
  // Enter belongs to whatever has focus (a link follows, a button presses): the queue takes
  // it only when nothing is focused (<body>) or a queue row itself is.
  function ownsEnter(el) {
    if (nothingFocused(el)) return true;
    return !!el.matches && el.matches("table[data-queue] tbody tr[data-item]");
  }
  function typing(el) {
    return !!el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
  }
  function helpBox() {
    return document.getElementById("keys-help");
  }
  // The help is a modal dialog: Tab stays inside it, and closing it (Escape, ?, Close)
  // puts focus back where it was when it opened.
  let helpOpener = null;
  function toggleHelp(show) {
    const box = helpBox();
    if (!box) return;
    const open = show === undefined ? box.hidden : show;
    if (open === !box.hidden) return;
    if (open) {
      helpOpener = document.activeElement;
      box.hidden = false;
      box.querySelector("[data-close-help]")?.focus();
      return;
    }
    box.hidden = true;
    const opener = helpOpener;
    helpOpener = null;
    if (opener && opener !== document.body && opener.isConnected) opener.focus();
    else if (box.contains(document.activeElement)) document.activeElement.blur();
  }
  function trapTab(event, box) {
    const focusable = Array.from(
      box.querySelectorAll("a[href], button:not([disabled]), input, select, textarea, [tabindex]")
    ).filter((el) => el.tabIndex >= 0 && !el.hidden);
    if (!focusable.length) return;
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    const inside = box.contains(event.target);
    if (!inside || (event.shiftKey && event.target === first) || (!event.shiftKey && event.target === last)) {
      event.preventDefault();
      (event.shiftKey ? last : first).focus();
    }
  }
  // Single-key shortcuts (WCAG 2.1.4) act only where the queue is being worked: with
  // nothing focused, or focus inside the queue's table. A key pressed on the navigation,
  // the filters or anywhere else is that element's own.
  function inQueue(el) {
    if (nothingFocused(el)) return true;
    return !!el.closest && !!el.closest("table[data-queue]");
  }
  function intend(decision) {
    if (!selected()) move(1);
    const row = selected();
    if (!row) return;
    const form = row.querySelector("form[data-decide-form]");
    if (!form) {
      // Not this reviewer's to decide (their own case, someone else's claim), or decided
      // on its own page (a packet to read first: matches to mark, conflicts, high risk).
      const notYours = row.querySelector("[data-not-yours]");
      say(notYours ? notYours.dataset.notYours : "This item is decided on its own page: press o to open it.");
      row.classList.add("needs-open");
      setTimeout(() => row.classList.remove("needs-open"), 1500);
      // A reason typed straight after a or d has nowhere to go: its letters must not act
      // as keys (the o of "no" opening the item, a j moving on).
      holdKeys();
      return;
    }
    showIntent(row, form, decision);
    form.querySelector("input[name=reason]").focus();
  }
  // After a or d found no reason field, the next key tells a shortcut (o to open the item,
  // as the page says, or j, k, a, d, ?) from a reason being typed anyway ("Clean; no
  // findings", whose o would open the item): a reason's keys are held until a pause of
  // HOLD_KEYS_MS.
  const HOLD_KEYS_MS = 1500;
  const SHORTCUT_KEYS = new Set(["j", "k", "a", "d", "o", "?"]);
  let afterRefusedIntent = false;
  let keysHeldUntil = 0;
  function holdKeys() {
    afterRefusedIntent = true;
  }
  function keysHeld(key) {
    const typingOn = Date.now() < keysHeldUntil;
    const firstKeyIsTyping = afterRefusedIntent && !SHORTCUT_KEYS.has(key);
    afterRefusedIntent = false;
    if (!typingOn && !firstKeyIsTyping) return false;
    keysHeldUntil = Date.now() + HOLD_KEYS_MS;
    say("Not taken as keys: this item has no reason field here. Pause, then press o to open it.");
    return true;
  }
  // The decision chosen with a or d in each row, by its id: a row refused and sent back
  // fresh (a reason missing) keeps it, so Enter sends it again once the reason is typed.
  const intended = {};
  function showIntent(row, form, decision) {
    intended[row.id] = decision;
    form.dataset.intent = decision;
    form.classList.remove("needs-choice");
    row.classList.toggle("intent-approve", decision === "approve");
    row.classList.toggle("intent-deny", decision === "deny");
    const button = form.querySelector(`button[data-decision="${decision}"]`);
    const input = form.querySelector("input[name=reason]");
    // The button's visible word; the rest of its name (the subject) is for screen readers.
    input.placeholder = `Reason to ${button.firstChild.textContent.trim().toLowerCase()}, then Enter`;
  }
  document.addEventListener("htmx:afterSwap", () => {
    Object.keys(intended).forEach((id) => {
      const row = document.getElementById(id);
      const form = row && row.querySelector("form[data-decide-form]");
      if (form && !form.dataset.intent) showIntent(row, form, intended[id]);
    });
  });
  // The keys' live region is on the page, empty, from the start: a region created together
  // with its words is often not read. Emptied (not hidden) after a while.
  function keysStatus() {
    let box = document.getElementById("keys-status");
    if (!box) {
      box = document.createElement("div");
      box.id = "keys-status";
      box.className = "keys-status";
      box.setAttribute("role", "status");
      document.body.appendChild(box);
    }
    return box;
  }
  if (document.body) keysStatus();
  else document.addEventListener("DOMContentLoaded", keysStatus);
  function say(text) {
    const box = keysStatus();
    box.textContent = text;
    clearTimeout(say.timer);
    say.timer = setTimeout(() => { box.textContent = ""; }, 4000);
  }
  function answerField() {
    if (!selected()) move(1);
    const row = selected();
    return row ? row.querySelector("form[data-answer-form] input[name=answer_text]") : null;
  }

  document.addEventListener("keydown", (event) => {
    const target = event.target;
    const decideForm = target.closest ? target.closest("form[data-decide-form]") : null;
    if (decideForm && target.name === "reason" && event.key === "Enter") {
      event.preventDefault();
      const intent = decideForm.dataset.intent;
      if (!intent) {
        decideForm.classList.add("needs-choice");
        say("Press a or d first: a approves, d denies; then Enter.");
        return;
      }
      // A click (not requestSubmit) so htmx sends the button's name and value too.
      decideForm.querySelector(`button[data-decision="${intent}"]`).click();
      return;
    }
    const box = helpBox();
    if (box && !box.hidden) {
      if (event.key === "Tab") trapTab(event, box);
      else if (event.key === "Escape" || event.key === "?") {
        event.preventDefault();
        toggleHelp(false);
      }
      return;
    }
    if (event.key === "Escape") {
      if (typing(target)) target.blur();
      return;
    }
    if (typing(target) || event.ctrlKey || event.metaKey || event.altKey) return;
    if (!inQueue(target)) return;
    if (event.key.length === 1 && !event.target.matches?.("button, a, summary") && keysHeld(event.key)) {
      event.preventDefault();
      return;
    }
    switch (event.key) {
      case "j": move(1); break;
      case "k": move(-1); break;
      case "a": intend("approve"); break;
      case "d": intend("deny"); break;
      case "o": {
        // The item's own page first; a selector list would take the first link in the row.
        const row = selected();
        const link = ["a[data-open]", "td.what a", "td.subject a"]
          .map((selector) => row?.querySelector(selector))
          .find(Boolean);
        if (link) window.location.assign(link.href);
        break;
      }
      case "Enter": {
        if (!ownsEnter(target)) return;
        if (target.matches && target.matches("tr[data-item]")) select(target);
        const field = answerField();
        if (!field) return;
        field.focus();
        break;
      }
      case "?": toggleHelp(); break;
      default: return;
    }
    event.preventDefault();
  });

  document.addEventListener("click", (event) => {
    if (event.target.closest("[data-close-help]")) toggleHelp(false);
    const row = event.target.closest("table[data-queue] tbody tr[data-item]");
    if (row) select(row);
  });

  // htmx replaces a row after Claim, Release, a decision or an answer: the control that
  // had focus goes with it. Focus moves to what the person needs next in the new row: the
  // field to correct, the result, the reason to type, or the claim they now hold.
  let rowHadFocus = null;
  document.addEventListener("htmx:beforeSwap", (event) => {
    const target = event.detail.target;
    const row = target && target.matches && target.matches("tr[data-item]") ? target : null;
    rowHadFocus = row && row.contains(document.activeElement) ? row.id : null;
  });
  function focusInRow(row) {
    const error = row.querySelector(".error");
    const candidates = error
      ? ["[aria-invalid=true]", "input[name=reason]", "input[name=answer_text]", ".error"]
      : ["[data-result]", "input[name=reason]", "input[name=answer_text]", ".claim-mine", ".claim-other", "a[href], button"];
    const next = candidates.map((selector) => row.querySelector(selector)).find(Boolean);
    if (!next) return;
    if (!next.matches("a[href], button, input, select, textarea, [tabindex]")) next.tabIndex = -1;
    next.focus();
  }

  // htmx replaces a decided row: keep it selected so j/k continue from there.
  document.addEventListener("htmx:afterSwap", (event) => {
    const row = selected();
    if (row) row.classList.add("selected");
    const swapped = event.target;
    if (!swapped.matches || !swapped.matches("tr[data-item]")) return;
    const active = document.activeElement;
    const lost = !active || active === document.body || !active.isConnected;
    if (rowHadFocus === swapped.id && lost) focusInRow(swapped);
    rowHadFocus = null;
    sayInRow(swapped);
  });
  // Each row keeps one live region through its swaps (hx-preserve): the result of a Claim,
  // a decision or an answer is written into it, unless focus was just put on that result
  // (then it is read as focus lands, and would be read twice). An error is an alert.
  function sayInRow(row) {
    const region = row.querySelector("[data-row-status]");
    if (!region || row.querySelector(".error")) return;
    const result = ["[data-result]", ".claim-mine", ".claim-other"]
      .map((selector) => row.querySelector(selector))
      .find(Boolean);
    if (!result || result === document.activeElement) return;
    region.textContent = result.textContent.replace(/\s+/g, " ").trim();
  }
})();
