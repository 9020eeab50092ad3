// A button marked data-print prints the page (the page's policy runs no inline handlers).
// It is hidden in the markup, so a page without JavaScript offers no button that does nothing.
(function () {
  "use strict";
  document.querySelectorAll("[data-print]").forEach(function (button) { button.hidden = false; });
  document.addEventListener("click", function (event) {
    if (event.target.closest && event.target.closest("[data-print]")) window.print();
  });
})();
