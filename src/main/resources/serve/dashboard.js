// orchestrate serve: refreshes the page's <main id="live"> every few seconds without reloading.
// The server escapes every value; the fetched page is parsed inertly (DOMParser runs no script)
// and its <main> replaces ours. No inline script, no eval: the Content-Security-Policy forbids both.
(function () {
  "use strict";
  var INTERVAL_MS = 3000;
  var refreshes = 0;
  var busy = false;

  function openDetails(main) {
    var open = {};
    main.querySelectorAll("details[open] > summary").forEach(function (s) { open[s.textContent] = true; });
    return open;
  }

  function refresh() {
    var main = document.getElementById("live");
    if (busy || !main || document.hidden) { return; }
    var active = document.activeElement;
    if (active && main.contains(active) && (active.tagName === "INPUT" || active.tagName === "SELECT"
        || active.tagName === "TEXTAREA")) { return; }
    // Notes being written for a decision are not swapped away, focused or not.
    var writing = false;
    main.querySelectorAll("textarea, form.action input:not([type=hidden])").forEach(function (f) {
      if ((f.type === "checkbox" && f.checked) || (f.type !== "checkbox" && f.value !== "")) { writing = true; }
    });
    if (writing) { return; }
    busy = true;
    fetch(window.location.href, { credentials: "same-origin", cache: "no-store", headers: { "Accept": "text/html" } })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (html) {
        if (html === null) { return; }
        var next = new DOMParser().parseFromString(html, "text/html").getElementById("live");
        if (!next) { return; }
        if (next.innerHTML !== main.innerHTML) {
          var open = openDetails(main);
          main.replaceChildren.apply(main, Array.prototype.slice.call(document.adoptNode(next).childNodes));
          main.querySelectorAll("details > summary").forEach(function (s) {
            if (open[s.textContent]) { s.parentNode.open = true; }
          });
        }
        refreshes += 1;
        document.documentElement.setAttribute("data-refreshes", String(refreshes));
        var stamp = document.getElementById("refreshed");
        if (stamp) { stamp.textContent = "updated " + new Date().toLocaleTimeString(); }
      })
      .catch(function () { /* the server is gone or busy: try again next time */ })
      .then(function () { busy = false; });
  }

  window.setInterval(refresh, INTERVAL_MS);
})();
