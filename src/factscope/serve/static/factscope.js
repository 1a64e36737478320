// factscope pages: live job progress and claim / evidence linking. Pages read the same without it.
(function () {
  "use strict";

  function linkClaims() {
    var marks = document.querySelectorAll("[data-claims]");
    marks.forEach(function (node) {
      var record = node.closest(".record");
      if (!record) { return; }
      var numbers = node.getAttribute("data-claims").split(" ");
      function toggle(on) {
        record.querySelectorAll("[data-claims]").forEach(function (other) {
          var mine = other.getAttribute("data-claims").split(" ");
          var shared = mine.some(function (n) { return numbers.indexOf(n) >= 0; });
          other.classList.toggle("linked", on && shared);
        });
      }
      node.addEventListener("mouseenter", function () { toggle(true); });
      node.addEventListener("mouseleave", function () { toggle(false); });
    });
  }

  function showJob(row, job) {
    var progress = row.querySelector("progress");
    if (progress) { progress.max = job.records || 1; progress.value = job.done; }
    var count = row.querySelector(".count");
    if (count) { count.textContent = job.done + " / " + (job.records === null ? "?" : job.records); }
    var status = row.querySelector(".status");
    if (status) { status.textContent = job.status; status.className = "status " + job.status; }
    var rate = row.querySelector(".rate");
    if (rate) { rate.textContent = job.rate ? job.rate.toFixed(2) : ""; }
  }

  function followJobs() {
    var live = document.querySelector("[data-live]");
    if (!live) { return; }
    var url = live.getAttribute("data-live");
    function poll() {
      fetch(url, { credentials: "same-origin" }).then(function (reply) {
        return reply.ok ? reply.json() : null;
      }).then(function (data) {
        if (!data) { return; }
        var jobs = Array.isArray(data) ? data : [data];
        var running = false;
        jobs.forEach(function (job) {
          var row = document.querySelector('[data-job="' + job.id + '"]');
          if (row) { showJob(row, job); }
          running = running || job.status === "queued" || job.status === "running";
        });
        if (running) { window.setTimeout(poll, 1000); }
      }).catch(function () { window.setTimeout(poll, 5000); });
    }
    poll();
  }

  document.addEventListener("DOMContentLoaded", function () { linkClaims(); followJobs(); });
})();
