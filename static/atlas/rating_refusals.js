// The sign-off form's rating choice (reviews/_rating_choice.html): of the refusals listed
// under it, only the chosen rating's is shown, and it describes the choice.
(function () {
  "use strict";

  function describedBy(select, refusal) {
    if (select.dataset.describedBy === undefined) {
      select.dataset.describedBy = select.getAttribute("aria-describedby") || "";
    }
    var ids = select.dataset.describedBy.split(" ").filter(Boolean);
    if (refusal) ids.push(refusal.id);
    select.setAttribute("aria-describedby", ids.join(" "));
  }

  function showChosen(select) {
    var box = document.getElementById(select.dataset.refusals);
    if (!box) return;
    var chosen = null;
    box.querySelectorAll("[data-rating]").forEach(function (refusal) {
      var shown = refusal.dataset.rating === select.value;
      refusal.hidden = !shown;
      if (shown) chosen = refusal;
    });
    box.hidden = !chosen;
    describedBy(select, chosen);
  }

  function start(root) {
    if (!root.querySelectorAll) return;
    root.querySelectorAll("select[data-refusals]").forEach(showChosen);
  }

  document.addEventListener("change", function (event) {
    var select = event.target;
    if (select.matches && select.matches("select[data-refusals]")) showChosen(select);
  });
  document.addEventListener("htmx:load", function (event) { start(event.detail.elt); });
  start(document);
})();
