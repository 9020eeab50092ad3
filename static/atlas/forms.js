// What a person types is not lost to the session ending or to a page reload.
//
// - An htmx request sent after the session ended gets a 401 (runs/session_ended.py) and
//   swaps nothing: the typed text stays, and a notice asks to sign in again in another tab
//   and send again.
// - An htmx action that never reached the server (the connection dropped), or that the
//   server failed on, says so in a notice: the typed text stays, to send again. The notice
//   goes once a later action gets through.
// - A field marked data-draft="KEY" keeps its text in this tab's sessionStorage while it is
//   typed, and gets it back when the page shows the same field empty again (attaching a
//   document reloads the case page under a half-written answer). KEY names one question,
//   so a draft never lands in another one's field.
(function () {
  "use strict";
  var PREFIX = "atlas-draft:";

  function store() {
    try { return window.sessionStorage; } catch (error) { return null; }
  }

  function restore(root) {
    var drafts = store();
    if (!drafts || !root.querySelectorAll) return;
    root.querySelectorAll("[data-draft]").forEach(function (field) {
      var saved = drafts.getItem(PREFIX + field.dataset.draft);
      if (saved && !field.value) field.value = saved;
    });
  }

  document.addEventListener("input", function (event) {
    var field = event.target;
    var drafts = store();
    if (!drafts || !field.dataset || !field.dataset.draft) return;
    delete field.dataset.sent;
    if (field.value) drafts.setItem(PREFIX + field.dataset.draft, field.value);
    else drafts.removeItem(PREFIX + field.dataset.draft);
  });

  // Being sent: a live update that settles the question may arrive before the response.
  function draftFields(event) {
    var elt = event.detail.elt;
    var form = elt && elt.closest && elt.closest("form");
    return form ? Array.prototype.slice.call(form.querySelectorAll("[data-draft]")) : [];
  }
  document.addEventListener("htmx:beforeRequest", function (event) {
    draftFields(event).forEach(function (field) { field.dataset.sent = "pending"; });
  });
  ["htmx:responseError", "htmx:sendError"].forEach(function (name) {
    document.addEventListener(name, function (event) {
      draftFields(event).forEach(function (field) { delete field.dataset.sent; });
    });
  });

  // Sent and accepted: the draft has done its job. Before the response is swapped in, as
  // it may replace the field's region (the answer's own live update).
  document.addEventListener("htmx:beforeSwap", function (event) {
    var drafts = store();
    var form = event.detail.elt && event.detail.elt.closest && event.detail.elt.closest("form");
    var status = event.detail.xhr && event.detail.xhr.status;
    if (!drafts || !form || !(status >= 200 && status < 300)) return;
    form.querySelectorAll("[data-draft]").forEach(function (field) {
      drafts.removeItem(PREFIX + field.dataset.draft);
      field.dataset.sent = "true";  // what is in it now was sent, not lost
    });
  });

  // A live update that replaces a field someone was typing in (another person answered
  // the question meanwhile) keeps their text on the page, to copy, as the queues do for a
  // refused form (templates/reviews/_unsaved.html).
  var replaced = null;
  // This page's own Cancel, sent: the question it then closes was not settled by someone
  // else, and the note says so.
  var cancelledHere = false;
  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail.elt;
    if (elt && elt.closest && elt.closest("form[data-cancel-run]")) cancelledHere = true;
  });
  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    var current = event.detail.target;
    var fragment = event.detail.fragment;
    replaced = null;
    if (!current || !current.querySelector || !fragment) return;
    var field = current.querySelector("[data-draft]");
    if (!field || !field.value.trim() || field.dataset.sent) return;
    var kept = fragment.querySelector && fragment.querySelector(
      '[data-draft="' + CSS.escape(field.dataset.draft) + '"]');
    if (!kept) {
      replaced = { id: current.id, text: field.value };
    } else if (!kept.value) {
      // The same question rendered again (a catch-up frame as the page connects): the
      // text being typed carries over.
      kept.setAttribute("value", field.value);
      kept.value = field.value;
    }
  });
  document.addEventListener("htmx:oobAfterSwap", function () {
    if (!replaced) return;
    var target = document.getElementById(replaced.id);
    if (target) {
      var note = document.createElement("div");
      note.className = "banner banner-muted unsaved";
      note.setAttribute("role", "status");
      var title = document.createElement("div");
      title.className = "banner-title";
      title.textContent = cancelledHere
        ? "Not sent: you cancelled the run, which closed its question. What you wrote, to copy:"
        : "Not sent: the question was settled while you were writing. What you wrote, to copy:";
      var text = document.createElement("blockquote");
      text.className = "reason-text unsaved-text";
      text.textContent = replaced.text;
      note.append(title, text);
      target.after(note);  // beside the region, so its next update leaves the note
    }
    replaced = null;
  });

  // A form sent back with errors: focus goes to its first invalid field (which names its
  // error through aria-describedby), or to the error summary when no one field is at fault.
  function focusFirstError() {
    var field = document.querySelector("main form [aria-invalid=true]");
    var summary = document.querySelector("main [data-error-summary]");
    // An unmarked group of radios (a sanctions hit): its first radio.
    if (field && !field.matches("input, select, textarea")) field = field.querySelector("input") || field;
    var target = field || summary;
    if (target && (!document.activeElement || document.activeElement === document.body)) {
      target.focus();
    }
  }

  document.addEventListener("DOMContentLoaded", function () {
    restore(document);
    focusFirstError();
  });
  document.addEventListener("htmx:load", function (event) { restore(event.target); });

  // A link that loads more in its own place ("show earlier" steps, the trace's "Load more
  // steps") is replaced by what it loaded: focus would fall back to <body>, and the next
  // Tab would start from the top of the page. Where a page's own code has not put focus
  // somewhere (queues.js does, for its rows), it goes to the first thing loaded, past a
  // new copy of the same link.
  var swapFocus = null;
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    var active = document.activeElement;
    swapFocus = null;
    if (!target || !active || active === document.body || !target.contains(active)) return;
    swapFocus = {
      lost: active,
      parent: target.parentNode,
      before: target.previousSibling,
      after: target.nextSibling,
    };
  });
  function sameKind(element, lost) {
    var selector = lost.tagName.toLowerCase() +
      Array.prototype.map.call(lost.classList, function (name) { return "." + CSS.escape(name); }).join("");
    return element.matches(selector) || Boolean(element.querySelector(selector));
  }
  document.addEventListener("htmx:afterSettle", function () {
    var swapped = swapFocus;
    swapFocus = null;
    var active = document.activeElement;
    if (!swapped || (active && active !== document.body && active.isConnected)) return;
    if (swapped.lost.isConnected || !swapped.parent.isConnected) return;
    var node = swapped.before ? swapped.before.nextSibling : swapped.parent.firstChild;
    var next = null;
    for (; node && node !== swapped.after; node = node.nextSibling) {
      if (node.nodeType === Node.ELEMENT_NODE && !node.hidden && !sameKind(node, swapped.lost)) {
        next = node;
        break;
      }
    }
    if (!next) return;
    if (next.matches("details")) next = next.querySelector("summary") || next;
    if (!next.matches("a[href], button, input, select, textarea, summary, [tabindex]")) next.tabIndex = -1;
    next.focus();
  });

  // Signing in again gives a new CSRF token: requests and forms of a page loaded before
  // send the one in the cookie, so "sign in in another tab, then send again" works.
  function csrfCookie() {
    var match = /(?:^|;\s*)csrftoken=([^;]+)/.exec(document.cookie);
    return match ? decodeURIComponent(match[1]) : null;
  }
  document.addEventListener("htmx:configRequest", function (event) {
    var token = csrfCookie();
    if (token) event.detail.headers["X-CSRFToken"] = token;
  });
  document.addEventListener("submit", function (event) {
    var token = csrfCookie();
    var field = event.target.querySelector && event.target.querySelector(
      "input[name=csrfmiddlewaretoken]");
    if (token && field) field.value = token;
  }, true);

  document.addEventListener("htmx:responseError", function (event) {
    if (event.detail.xhr.status === 403) {
      notify("refused", "That was refused and nothing was recorded: your role may not do " +
        "it, or this page is out of date. Reload the page to try again; what you typed " +
        "in its answer fields is kept.");
      return;
    }
    if (event.detail.xhr.status !== 401) return;
    var link = document.createElement("a");
    link.href = document.body.dataset.loginUrl || "/login/";
    link.target = "_blank";
    link.rel = "noopener";
    link.textContent = "Sign in again in a new tab";
    notify("session-ended", "Your session has ended, so the last action was not sent. ", link,
      ", then send it again here: what you typed is kept.");
  });

  // Only an action's failure is announced: a poll or a "show more" that fails is simply
  // tried again or clicked again.
  function isAction(event) {
    var config = event.detail.requestConfig;
    return Boolean(config) && config.verb !== "get";
  }
  document.addEventListener("htmx:sendError", function (event) {
    if (!isAction(event)) return;
    notify("not-sent", "The last action was not sent: the server could not be reached. " +
      "Nothing was recorded, and what you typed is kept: check the connection, then send " +
      "it again.");
  });
  document.addEventListener("htmx:responseError", function (event) {
    if (event.detail.xhr.status < 500 || !isAction(event)) return;
    notify("not-sent", "The server failed on the last action, so it may not have been " +
      "recorded. What you typed is kept: reload the page in another tab to see what was " +
      "recorded, then send it again here if it is not there.");
  });
  // An action that went through ends what the notices said of the last one; and, the
  // session being back, a live stream it had refused is opened again (live.js).
  document.addEventListener("htmx:afterRequest", function (event) {
    if (!event.detail.successful || !isAction(event)) return;
    ["not-sent", "session-ended", "refused"].forEach(function (id) {
      var notice = document.getElementById(id);
      if (notice) notice.remove();
    });
    document.querySelectorAll(".live-run.refused").forEach(function (section) {
      if (section.liveSocket && section.liveSocket.reconnect) section.liveSocket.reconnect();
    });
  });

  // The live stream's notice (live.js) looks and reads as these do.
  window.atlasNotify = notify;
  function notify(id) {
    var notice = document.getElementById(id);
    if (!notice) {
      notice = document.createElement("div");
      notice.id = id;
      notice.className = "message message-error session-ended";
      notice.setAttribute("role", "alert");
      document.body.insertBefore(notice, document.body.firstChild);
    }
    notice.replaceChildren.apply(notice, Array.prototype.slice.call(arguments, 1));
    notice.scrollIntoView({ block: "nearest" });
  }
})();
