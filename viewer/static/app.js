// sessiondb viewer: the only script the pages load (the Content-Security-
// Policy allows no other). It never inserts markup: it toggles <details>
// and moves the focus.
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  var transcript = document.getElementById("transcript");
  // Bookkeeping lines and the tool results shown inside their calls are
  // hidden until asked for.
  function showHidden(on) {
    if (!transcript) { return; }
    transcript.classList.toggle("show-hidden", on);
    document.querySelectorAll('button[data-action="bookkeeping"]').forEach(function (b) {
      b.textContent = b.textContent.replace(/^(show|hide)/, on ? "hide" : "show");
    });
  }
  document.querySelectorAll("button[data-action]").forEach(function (b) {
    b.addEventListener("click", function () {
      if (b.getAttribute("data-action") === "bookkeeping") {
        showHidden(!transcript.classList.contains("show-hidden"));
        return;
      }
      var open = b.getAttribute("data-action") === "expand";
      document.querySelectorAll(".transcript details, .compaction details").forEach(function (d) {
        d.open = open;
      });
    });
  });
  // "/" focuses the search box, as on most sites.
  document.addEventListener("keydown", function (e) {
    var t = e.target;
    if (e.key === "/" && !(t instanceof HTMLInputElement) && !(t instanceof HTMLTextAreaElement)) {
      var q = document.getElementById("q") || document.getElementById("topq");
      if (q) { e.preventDefault(); q.focus(); }
    }
  });
  // A link to an entry (from search) highlights it.
  function mark() {
    document.querySelectorAll(".entry.target").forEach(function (el) { el.classList.remove("target"); });
    if (location.hash.length > 1) {
      var el = document.getElementById(location.hash.slice(1));
      // A further line of a streamed response is shown in the card of
      // the message it continues: its anchor is inside that card.
      if (el && el.classList.contains("anchor")) { el.scrollIntoView(); el = el.closest(".entry"); }
      if (el) {
        if (el.classList.contains("bookkeeping") || el.classList.contains("paired")) { showHidden(true); el.scrollIntoView(); }
        el.classList.add("target");
      }
    }
  }
  window.addEventListener("hashchange", mark);
  mark();
});
