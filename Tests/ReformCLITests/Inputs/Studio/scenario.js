// Run in the studio's page by drive.py (StudioBrowserTests), after helpers.js: does what a person would, through
// the DOM only, and returns what the page showed at each step.
(async function () {
  var found = {};
  var $ = studioTest.$, until = studioTest.until, type = studioTest.type;

  await until("the pipeline to load and pass its check", function () { return $("check-state").textContent.indexOf("ok") === 0; });
  found.loaded = $("check-state").textContent;
  found.path = $("file-path").textContent;
  var original = $("yaml").value;

  // A typo: the diagnostic at its line, flagged in the gutter; clicking it puts the cursor there.
  var broken = original.replace("\nmanagers:", "\nmanagrs:");
  type(broken);
  found.dirtyState = $("file-state").textContent;
  var item = await until("the diagnostic", function () {
    return Array.prototype.find.call(document.querySelectorAll("#diagnostics li"), function (li) {
      return li.textContent.indexOf("did you mean 'managers'") >= 0;
    });
  });
  found.diagnostic = item.textContent;
  found.diagnosticLine = +item.getAttribute("data-line");
  found.brokenLine = broken.split("\n").indexOf("managrs:") + 1;
  found.flaggedLines = Array.prototype.map.call(document.querySelectorAll("#gutter .flag"), function (flag) { return +flag.getAttribute("data-line"); });
  found.checkState = $("check-state").textContent;
  item.click();
  found.cursorLine = $("yaml").value.slice(0, $("yaml").selectionStart).split("\n").length;

  // Fixed: no diagnostic; the run's params as a form.
  type(original);
  await until("the fix to pass", function () { return $("check-state").textContent.indexOf("ok") === 0; });
  found.diagnosticsAfterFix = document.querySelectorAll("#diagnostics li").length;
  found.params = Array.prototype.map.call(document.querySelectorAll("#params input"), function (input) { return input.name; });

  // Run (replay): every page, each page's exchange.
  $("run").click();
  await until("the run to end", function () { return /: (done|failed|cancelled)/.test($("run-state").textContent); });
  found.runState = $("run-state").textContent;
  var rows = document.querySelectorAll("#pages tbody tr");
  found.pageRows = rows.length;
  rows[1].click();
  await until("the page's exchange", function () { return document.getElementById("page-body"); });
  found.pageTitle = document.querySelector("#page-detail h2").textContent;
  found.pageBodyHasTheList = document.getElementById("page-body").textContent.indexOf("\"list\"") >= 0;

  // The records after each reformer, and where one came from.
  document.querySelector('[data-tab="steps"]').click();
  found.stepsVisible = !$("tab-steps").hidden;
  found.stages = Array.prototype.map.call(document.querySelectorAll("table.stages tbody tr"), function (row) {
    return Array.prototype.map.call(row.cells, function (cell) { return cell.textContent; });
  });
  var records = document.querySelectorAll("#stage-detail .record");
  found.stageRecords = records.length;
  var origin = records[3].querySelector(".origin");
  found.fourthOrigin = origin.textContent;
  origin.click();
  var open = await until("the record's origin", function () { return document.querySelector("#origin button"); });
  found.originButton = open.textContent;
  var landed = document.querySelector("#origin-landed");
  found.originLanded = landed ? JSON.parse(landed.textContent) : null;
  found.originPath = Array.prototype.map.call(document.querySelectorAll("#origin .record-path > li"), function (item) {
    var value = item.querySelector("pre");
    return (item.querySelector(".path-name") || item).textContent + (value ? " → " + Object.keys(JSON.parse(value.textContent)).length + " keys" : "");
  });
  open.click();
  found.pagesVisibleAfterOrigin = !$("tab-pages").hidden;
  await until("the record's page", function () { return document.querySelector("#page-detail h2"); });
  found.originPageTitle = document.querySelector("#page-detail h2").textContent;
  var selected = document.querySelector("#pages tr.selected");
  found.selectedPage = selected ? selected.getAttribute("data-key") : null;

  // What it wrote.
  document.querySelector('[data-tab="output"]').click();
  found.outputFiles = Array.prototype.map.call(document.querySelectorAll("#tab-output h2"), function (h) { return h.textContent; });

  // Save: written, and run again from the fixtures.
  var firstRun = found.runState.match(/run (\d+)/)[1];
  type("# saved from the studio\n" + original);
  $("save").click();
  await until("the save", function () { return $("file-state").textContent === "saved"; });
  await until("the run after saving", function () {
    var match = $("run-state").textContent.match(/run (\d+).*: done/);
    return match && match[1] !== firstRun;
  });
  found.rerunState = $("run-state").textContent;

  // What changed since the first run: nothing but a comment, so no record.
  document.querySelector('[data-tab="changes"]').click();
  await until("the changes", function () { return $("changes-against"); });
  found.changesAgainst = $("changes-against").textContent;
  found.changes = Array.prototype.map.call(document.querySelectorAll("#changes details.change summary"), function (s) { return s.textContent; });

  // Another editor saves the file: the page, with nothing unsaved, loads it.
  var token = new URLSearchParams(location.search).get("token");
  var outside = "# changed by another editor\n" + original;
  await fetch("/api/pipeline", { method: "PUT", headers: { "X-Reform-Token": token }, body: outside });
  await until("the page to load the file changed on disk", function () { return $("yaml").value === outside; });
  found.reloadedFromDisk = true;

  // The rows run: each row written says which record filled it.
  $("run-name").value = "rows";
  $("run-name").dispatchEvent(new Event("change"));
  $("run").click();
  await until("the rows run to end", function () { return /\(rows, replay\): (done|failed)/.test($("run-state").textContent); });
  document.querySelector('[data-tab="steps"]').click();
  var written = await until("the rows written", function () {
    var list = document.querySelectorAll("table.written tbody tr");
    return list.length ? list : null;
  });
  found.writtenRows = written.length;
  found.writtenHeading = document.querySelector(".written-rows h3").textContent;
  found.firstRow = Array.prototype.map.call(written[0].cells, function (cell) { return cell.textContent; });
  written[0].querySelector(".origin").click();
  var filledBy = await until("the row's record", function () { return document.getElementById("origin-landed"); });
  found.firstRowLanded = JSON.parse(filledBy.textContent);

  document.querySelector('[data-tab="pages"]').click();
  return found;
})()
