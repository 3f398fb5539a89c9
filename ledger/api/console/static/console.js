// The table ledger console: the little the pages need from a script. Everything works without
// it (steps are all shown, fragments load on reload); with it, lists refresh themselves, the
// hand replay steps one event at a time (buttons and keys), the audit shows its progress and
// the hold chart loads once computed. No inline script, no library.
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  function fetchFragment(url) {
    return fetch(url, { credentials: "same-origin", headers: { "X-Console-Fragment": "1" } })
      .then(function (response) {
        if (response.status === 401) { window.location.assign("/console/sign-in"); }
        if (!response.ok) { throw new Error("HTTP " + response.status); }
        return response.text();
      });
  }

  // Parts that refresh themselves: data-refresh="url" data-interval="ms".
  function refresher(element) {
    var url = element.getAttribute("data-refresh");
    var every = parseInt(element.getAttribute("data-interval") || "3000", 10);
    function tick() {
      if (document.hidden) { return setTimeout(tick, every); }
      fetchFragment(url).then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        element.replaceChildren.apply(element, Array.prototype.slice.call(doc.body.childNodes));
        element.setAttribute("data-refreshed", String(Date.now()));
      }).catch(function () { /* keep what is shown; try again */ })
        .then(function () { setTimeout(tick, every); });
    }
    setTimeout(tick, every);
  }

  // Parts loaded once, after the page: data-load="url".
  function loader(element) {
    fetchFragment(element.getAttribute("data-load")).then(function (html) {
      var doc = new DOMParser().parseFromString(html, "text/html");
      element.replaceChildren.apply(element, Array.prototype.slice.call(doc.body.childNodes));
      element.setAttribute("data-loaded", "1");
    }).catch(function (error) {
      element.textContent = "This part could not be loaded (" + error.message + "): reload the page.";
      element.setAttribute("data-loaded", "error");
    });
  }

  // The audit's progress: data-progress="url" answers JSON {checked, total, done}.
  function progress(element) {
    var bar = element.querySelector("progress");
    var text = element.querySelector("[data-progress-text]");
    function poll() {
      fetch(element.getAttribute("data-progress"), { credentials: "same-origin" })
        .then(function (r) { return r.json(); })
        .then(function (job) {
          bar.max = Math.max(job.total, 1);
          bar.value = job.checked;
          text.textContent = job.checked + " of " + job.total + " events, " + job.seconds + " s";
          if (job.done) { window.location.reload(); } else { setTimeout(poll, 500); }
        }).catch(function () { setTimeout(poll, 2000); });
    }
    poll();
  }

  // The hand replay: one step at a time, forwards and backwards, with a link per step.
  function stepper(article) {
    var list = article.querySelector(".steps");
    var steps = Array.prototype.slice.call(list.children);
    var nav = article.querySelector("[data-stepper]");
    var position = nav.querySelector("[data-position]");
    if (!steps.length) { return; }
    var current = 0;
    function show(index, push) {
      current = Math.max(0, Math.min(steps.length - 1, index));
      steps.forEach(function (step, i) {
        step.classList.toggle("current", i === current);
        step.setAttribute("aria-hidden", i === current ? "false" : "true");
      });
      var step = steps[current];
      position.textContent = "Step " + (current + 1) + " of " + steps.length + " (" +
        step.id + ")";
      if (push && window.location.hash !== "#" + step.id) {
        history.replaceState(null, "", "#" + step.id);
      }
    }
    function fromHash() {
      var id = window.location.hash.slice(1);
      var index = steps.findIndex(function (s) {
        return id === "differs" ? s.classList.contains("disagrees") : s.id === id;
      });
      return index < 0 ? 0 : index;
    }
    list.classList.add("paged");
    nav.hidden = false;
    nav.addEventListener("click", function (event) {
      var button = event.target.closest("button[data-step]");
      if (!button) { return; }
      var where = button.getAttribute("data-step");
      show(where === "first" ? 0 : where === "last" ? steps.length - 1 :
        where === "next" ? current + 1 : current - 1, true);
    });
    document.addEventListener("keydown", function (event) {
      var tag = (event.target.tagName || "").toLowerCase();
      if (tag === "input" || tag === "select" || tag === "textarea" || event.altKey ||
          event.ctrlKey || event.metaKey) { return; }
      var moves = { ArrowRight: current + 1, ArrowLeft: current - 1, Home: 0,
        End: steps.length - 1 };
      if (event.key in moves) { event.preventDefault(); show(moves[event.key], true); }
    });
    window.addEventListener("hashchange", function () { show(fromHash(), false); });
    window.addEventListener("beforeprint", function () { list.classList.remove("paged"); });
    window.addEventListener("afterprint", function () { list.classList.add("paged"); });
    show(fromHash(), false);
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-refresh]").forEach(refresher);
    document.querySelectorAll("[data-load]").forEach(loader);
    document.querySelectorAll("[data-progress]").forEach(progress);
    document.querySelectorAll("[data-replay]").forEach(stepper);
  });
}());
