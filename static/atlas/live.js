// Live run pages: reconnect the run's websocket from the last step this page rendered.
//
// The htmx ws extension keeps the URL it first connected with; on a reconnect that URL's
// ?after= would be stale and the server would resend steps the page already shows. The
// server keeps `data-last-seq` on #run-<id>-cursor current with every push, so a reconnect
// asks for exactly what is missing.
(function () {
  "use strict";
  if (!window.htmx) return;
  var defaultCreate = htmx.createWebSocket || function (url) { return new WebSocket(url, []); };
  htmx.createWebSocket = function (url) {
    var match = /\/ws\/runs\/(\d+)\//.exec(url);
    if (match) {
      var cursor = document.getElementById("run-" + match[1] + "-cursor");
      if (cursor && cursor.dataset.lastSeq) {
        url = url.replace(/([?&]after=)\d*/, "$1" + cursor.dataset.lastSeq);
      }
    }
    return defaultCreate(url);
  };
  // A region rendered for an htmx response can arrive after a push that already showed a
  // later state of the run (or a later decision on the case); never let it replace the
  // newer one.
  function older(incoming, current, key) {
    return Boolean(incoming.dataset[key] && current.dataset[key] &&
      Number(incoming.dataset[key]) < Number(current.dataset[key]));
  }
  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    // The run's status line says a thing once: the same words again are not read again.
    var line = event.detail.target;
    if (line && /^run-\d+-announce$/.test(line.id || "") && event.detail.fragment &&
        event.detail.fragment.textContent.trim() === line.textContent.trim()) {
      event.detail.shouldSwap = false;
      return;
    }
    var incoming = event.detail.fragment && event.detail.fragment.firstElementChild;
    var current = event.detail.target;
    if (!incoming || !current || !incoming.dataset || !current.dataset) return;
    if (older(incoming, current, "seq") || older(incoming, current, "newestDecision")) {
      event.detail.shouldSwap = false;
      return;
    }
    // A message about the action that started or resumed the run ("research has started")
    // is stale once the run has ended: its status says what is true now.
    if (/^run-\d+-status$/.test(current.id || "")) {
      var was = current.querySelector(".badge");
      var now = incoming.querySelector(".badge-cancelled, .badge-completed, .badge-failed");
      if (was && now && was.className !== now.className) {
        document.querySelectorAll(".messages .message-success").forEach(function (message) {
          message.remove();
        });
      }
    }
  });
  // A push replaces a region with the control that had focus in it: answering on the case
  // page swaps nothing itself, and the push that follows replaces the banner with its
  // answer field and buttons; a status change replaces the Cancel button. Focus then goes
  // to the same control in the new region if there is one, else to the new banner's
  // heading, else to the run's status line; never to <body>.
  var lostFocus = null;
  function sameControl(region, control) {
    if (!control.tagName || control === region) return region;
    var candidates = region.querySelectorAll(control.tagName);
    for (var i = 0; i < candidates.length; i++) {
      var other = candidates[i];
      if (other.name === control.name && other.value === control.value &&
          other.textContent.trim() === control.textContent.trim() && !other.disabled) return other;
    }
    return null;
  }
  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    var current = event.detail.target;
    var active = document.activeElement;
    if (event.detail.shouldSwap === false || !current || !current.id || !/^run-\d+-/.test(current.id)) return;
    if (active && active !== document.body && current.contains(active)) {
      lostFocus = { id: current.id, control: active };
    }
  });
  document.addEventListener("htmx:oobAfterSwap", function () {
    if (!lostFocus) return;
    var lost = lostFocus;
    lostFocus = null;
    var region = document.getElementById(lost.id);
    var active = document.activeElement;
    if (!region || (active && active !== document.body && active.isConnected)) return;
    var status = document.getElementById(lost.id.replace(/^(run-\d+)-.*$/, "$1-status"));
    var next = sameControl(region, lost.control) ||
      (/-banner$/.test(lost.id) && region.querySelector(".banner-title")) || status;
    if (next) next.focus();
  });
  // The server closes with this code while it cannot push (its channel layer is down),
  // after sending what is new: the page catches up by reconnecting every few seconds.
  var LAYER_DOWN = 4503;
  // Each catch-up while the layer is down opens and closes at once: the note that pushes
  // are delayed goes only once a socket has stayed open, so it does not flicker.
  var PUSHES_WORK_AFTER_MS = 3000;
  document.addEventListener("htmx:wsClose", function (event) {
    var code = event.detail && event.detail.event && event.detail.event.code;
    var section = event.target.closest ? event.target.closest(".live-run") : null;
    if (!section) return;
    clearTimeout(section.pushesWorkTimer);
    section.classList.toggle("offline", code !== 1000 && code !== LAYER_DOWN);
    // The server is up but cannot push: each reconnect still brings the page up to date.
    section.classList.toggle("no-push", code === LAYER_DOWN);
    var socket = event.detail && event.detail.socketWrapper;
    if (code === LAYER_DOWN && socket && socket.reconnect) {
      setTimeout(socket.reconnect, 5000 + 5000 * Math.random());
    }
    if (code === 4403 || code === 4404) {
      section.dataset.liveRefused = String(code);
      section.liveSocket = socket;  // opened again once an action shows the session is back
      section.classList.remove("offline");
      section.classList.add("refused");
      if (window.atlasNotify) {
        var link = document.createElement("a");
        link.href = document.body.dataset.loginUrl || "/login/";
        link.target = "_blank";
        link.rel = "noopener";
        link.textContent = "Sign in again in a new tab";
        window.atlasNotify("live-refused", "This page has stopped updating by itself: your " +
          "session has ended, or you may no longer see this run. ", link,
          ", then reload this page to see the run as it stands.");
      }
    }
  });
  document.addEventListener("htmx:wsOpen", function (event) {
    var section = event.target.closest ? event.target.closest(".live-run") : null;
    if (!section) return;
    section.classList.remove("offline", "refused");
    var refused = document.getElementById("live-refused");
    if (refused) refused.remove();
    clearTimeout(section.pushesWorkTimer);
    section.pushesWorkTimer = setTimeout(function () {
      section.classList.remove("no-push");
    }, PUSHES_WORK_AFTER_MS);
  });
})();
