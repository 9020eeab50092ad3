// Regions that refresh themselves (the navigation's counts every 30 s, a queue's new-items
// notice every 10 s) never take focus away from a person: they do not replace the element
// that holds it.
(function () {
  "use strict";

  function parse(html) {
    var template = document.createElement("template");
    template.innerHTML = html;
    return template.content;
  }

  // The same links as before (the usual case): only their counts and the current page
  // marker change, in place. Other links (a role changed): replaced, unless focus is inside.
  function updateNavInPlace(nav, html) {
    var links = nav.querySelectorAll("a[href]");
    var fresh = parse(html).querySelectorAll("a[href]");
    if (links.length !== fresh.length) return false;
    for (var i = 0; i < links.length; i++) {
      if (links[i].getAttribute("href") !== fresh[i].getAttribute("href")) return false;
    }
    links.forEach(function (link, index) {
      var incoming = fresh[index];
      link.setAttribute("aria-current", incoming.getAttribute("aria-current") || "");
      var count = link.querySelector(".count");
      var newCount = incoming.querySelector(".count");
      if (count && newCount) count.textContent = newCount.textContent;
      else if (count) {
        var label = count.previousSibling;
        if (label && label.nodeType === Node.TEXT_NODE) label.textContent = label.textContent.trimEnd();
        count.remove();
      } else if (newCount) link.append(" ", newCount);
    });
    return true;
  }

  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    var xhr = event.detail.xhr;
    if (!target || !target.matches || !xhr || xhr.status !== 200) return;
    var holdsFocus = target.contains(document.activeElement);
    if (target.matches("nav.mainnav")) {
      if (updateNavInPlace(target, xhr.responseText) || holdsFocus) event.detail.shouldSwap = false;
    } else if (target.matches(".new-items")) {
      // A live region: replaced only when its count changed, so it is read once per change.
      var unchanged = parse(xhr.responseText).textContent.trim() === target.textContent.trim();
      if (holdsFocus || unchanged) event.detail.shouldSwap = false;
    }
  });
})();
