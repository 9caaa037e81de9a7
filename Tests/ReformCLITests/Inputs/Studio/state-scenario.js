// Run by drive.py on Pipelines/github-incremental.yaml (StudioBrowserTests), after helpers.js: a run, then the
// State tab: each partition's bookmark, and a manager's state reset with its button.
(async function () {
  var found = {};
  var $ = studioTest.$, until = studioTest.until;
  await until("the pipeline to pass its check", function () { return $("check-state").textContent.indexOf("ok") === 0; });
  document.querySelector('[data-tab="state"]').click();
  await until("the state", function () { return $("state-empty"); });
  found.before = $("state-empty").textContent;
  $("run").click();
  await until("the run to end", function () { return /: (done|failed|cancelled)/.test($("run-state").textContent); });
  found.runState = $("run-state").textContent;
  await until("the bookmarks", function () { return document.querySelector("#state tbody tr"); });
  found.place = $("state-place").textContent;
  found.rows = Array.prototype.map.call(document.querySelectorAll("#state tbody tr"), function (row) {
    return Array.prototype.slice.call(row.cells, 0, 6).map(function (cell) { return cell.textContent; });
  });
  found.buttons = Array.prototype.map.call(document.querySelectorAll("#state button.reset"), function (b) { return b.textContent; });
  document.querySelector("#state button.reset").click();
  await until("the reset", function () { return $("state-reset"); });
  found.reset = $("state-reset").textContent;
  found.after = $("state-empty") ? $("state-empty").textContent : null;
  return found;
})()
