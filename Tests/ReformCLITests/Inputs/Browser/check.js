// Injected at the end of a page Reform wrote, run by headless Chromium (BrowserCheckTests): reads
// what a reader sees and clicks the numeric heading twice, then leaves the findings as JSON in
// a <pre> element (id reform-check) for --dump-dom to carry out.
(function () {
  var found = {};
  found.title = document.title;
  found.lang = document.documentElement.lang;
  var viewport = document.querySelector('meta[name="viewport"]');
  found.viewport = viewport ? viewport.content : null;
  var count = document.querySelector("p.count");
  found.count = count ? count.textContent : null;
  found.links = Array.prototype.map.call(document.querySelectorAll("tbody td a"), function (a) { return a.href; });
  var heads = document.querySelectorAll("thead th");
  found.headings = Array.prototype.map.call(heads, function (th) { return th.textContent; });
  found.headingAlign = Array.prototype.map.call(heads, function (th) { return getComputedStyle(th).textAlign; });
  var first = document.querySelector("tbody tr");
  found.cellAlign = first ? Array.prototype.map.call(first.cells, function (td) { return getComputedStyle(td).textAlign; }) : [];
  var numeric = Array.prototype.findIndex.call(heads, function (th) { return th.classList.contains("number"); });
  function column() {
    return Array.prototype.map.call(document.querySelector("tbody").rows, function (row) { return row.cells[numeric].textContent; });
  }
  found.before = column();
  if (numeric >= 0) {
    heads[numeric].click();
    found.ascending = column();
    found.ascendingMark = heads[numeric].getAttribute("aria-sort");
    heads[numeric].click();
    found.descending = column();
    found.descendingMark = heads[numeric].getAttribute("aria-sort");
  }
  var out = document.createElement("pre");
  out.id = "reform-check";
  out.textContent = JSON.stringify(found);
  document.body.appendChild(out);
})();
