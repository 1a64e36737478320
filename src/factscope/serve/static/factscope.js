// factscope pages: live job progress and claim / evidence linking. Pages read the same without it.
(function () {
  "use strict";

  // Claim ``number`` of a record as the claims table the page already shows it: its text, label, probabilities
  // and evidence (cut to 160 characters).
  function claimLine(record, number) {
    var row = document.getElementById(record.id + "-c" + number);
    if (!row) { return "claim " + number; }
    var heads = Array.prototype.map.call(row.closest("table").querySelectorAll("thead th"), function (th) {
      return th.textContent.trim();
    });
    var cells = row.querySelectorAll("td");
    var parts = ["claim " + number];
    var evidence = "";
    heads.forEach(function (head, index) {
      if (!cells[index]) { return; }
      if (head === "claim") {
        var triplet = Array.prototype.map.call(cells[index].querySelectorAll(".part"), function (part) {
          return part.textContent.trim();
        });
        var claim = triplet.length ? triplet.join(" ") : cells[index].textContent;
        parts[0] = "claim " + number + ": " + claim.replace(/\s+/g, " ").trim();
      } else if (head === "label" || head.indexOf("P(") === 0) {
        parts.push(head === "label" ? cells[index].textContent.trim() : head + " " + cells[index].textContent.trim());
      } else if (head === "evidence") {
        var quoted = cells[index].querySelector("q");
        var text = quoted ? quoted.textContent.trim() : "";
        evidence = text.length > 160 ? text.slice(0, 159) + "\u2026" : text;
      }
    });
    return parts.join(" · ") + (evidence ? "\nevidence: " + evidence : "");
  }

  function linkClaims() {
    var tip = document.createElement("div");
    tip.className = "fs-tip";
    tip.hidden = true;
    document.body.appendChild(tip);
    document.querySelectorAll(".record mark[data-claims]").forEach(function (mark) {
      var record = mark.closest(".record");
      var numbers = mark.getAttribute("data-claims").split(" ");
      function linked(on) {
        record.querySelectorAll("mark[data-claims]").forEach(function (other) {
          var shared = other.getAttribute("data-claims").split(" ").some(function (n) {
            return numbers.indexOf(n) >= 0;
          });
          other.classList.toggle("linked", on && shared);
        });
        numbers.forEach(function (n) {
          var row = document.getElementById(record.id + "-c" + n);
          if (row) { row.classList.toggle("linked", on); }
        });
      }
      mark.addEventListener("mouseenter", function () {
        linked(true);
        tip.textContent = numbers.map(function (n) { return claimLine(record, n); }).join("\n");
        tip.style.whiteSpace = "pre-line";
        var box = mark.getBoundingClientRect();
        tip.style.left = (window.scrollX + box.left) + "px";
        tip.style.top = (window.scrollY + box.bottom + 4) + "px";
        tip.hidden = false;
      });
      mark.addEventListener("mouseleave", function () { linked(false); tip.hidden = true; });
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
    var finished = job.status !== "queued" && job.status !== "running";
    document.querySelectorAll("form.cancel").forEach(function (form) { form.hidden = finished; });
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
