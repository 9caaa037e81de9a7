// Reform Studio's page: the pipeline in an editor checked as you type, runs started and watched.
// Everything it shows comes from the studio's JSON API (StudioServer.swift), with the token of
// the page's own URL.
(function () {
  "use strict";
  var token = new URLSearchParams(location.search).get("token") || "";
  var $ = function (id) { return document.getElementById(id); };
  var yaml = $("yaml"), gutter = $("gutter");
  var known = { modified: 0, saved: "", runs: [], diagnostics: [] };
  var current = { run: null, changes: -1, polling: false, selectedPage: null, selectedStage: null };

  function api(method, path, body) {
    var init = { method: method, headers: { "X-Reform-Token": token } };
    if (body !== undefined) {
      init.body = typeof body === "string" ? body : JSON.stringify(body);
      init.headers["Content-Type"] = typeof body === "string" ? "application/yaml" : "application/json";
    }
    return fetch(path, init).then(function (response) {
      return response.json().then(function (json) {
        if (!response.ok) throw new Error(json.error || ("status " + response.status));
        return json;
      });
    });
  }

  function element(tag, attributes, children) {
    var node = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (name) {
      if (name === "text") node.textContent = attributes[name];
      else if (name === "className") node.className = attributes[name];
      else node.setAttribute(name, attributes[name]);
    });
    (children || []).forEach(function (child) { if (child) node.appendChild(child); });
    return node;
  }

  function pretty(value) { return JSON.stringify(value, null, 2); }

  // MARK: The editor

  function renderGutter() {
    var lines = yaml.value.split("\n").length;
    var flags = {};
    known.diagnostics.forEach(function (d) {
      if (!flags[d.line] || d.severity === "error") flags[d.line] = d.severity;
    });
    gutter.textContent = "";
    for (var i = 1; i <= lines; i++) {
      var text = String(i);
      if (flags[i]) {
        gutter.appendChild(element("span", { className: "flag " + flags[i], "data-line": text, title: flags[i], text: text }));
      } else {
        gutter.appendChild(document.createTextNode(text));
      }
      gutter.appendChild(document.createTextNode("\n"));
    }
    gutter.scrollTop = yaml.scrollTop;
  }

  function goTo(line, column) {
    var lines = yaml.value.split("\n");
    var offset = 0;
    for (var i = 0; i < line - 1 && i < lines.length; i++) offset += lines[i].length + 1;
    offset += Math.max(0, column - 1);
    yaml.focus();
    yaml.setSelectionRange(offset, offset);
    yaml.scrollTop = Math.max(0, (line - 5) * 18);
    gutter.scrollTop = yaml.scrollTop;
  }

  function renderDiagnostics(result) {
    known.diagnostics = result.diagnostics || [];
    var list = $("diagnostics");
    list.textContent = "";
    known.diagnostics.forEach(function (d) {
      var item = element("li", { className: d.severity, "data-line": String(d.line), "data-column": String(d.column), text: d.text });
      item.addEventListener("click", function () { goTo(d.line, d.column); });
      list.appendChild(item);
    });
    var state = $("check-state");
    if (result.ok) {
      state.className = "badge ok";
      state.textContent = result.summary + (known.diagnostics.length ? ", " + known.diagnostics.length + " warnings" : "");
      known.runs = result.runs || [];
      renderRunChoices();
    } else {
      state.className = "badge error";
      state.textContent = known.diagnostics.length + (known.diagnostics.length === 1 ? " error" : " errors");
    }
    renderGutter();
  }

  var checkTimer = null, checking = 0;
  function check() {
    var asked = ++checking;
    return api("POST", "/api/check", yaml.value).then(function (result) {
      if (asked === checking) renderDiagnostics(result);
      return result;
    }).catch(function (error) { $("check-state").textContent = error.message; });
  }
  function checkSoon() {
    clearTimeout(checkTimer);
    checkTimer = setTimeout(check, 300);
  }

  function markDirty() {
    var dirty = yaml.value !== known.saved;
    $("file-state").textContent = dirty ? "edited, not saved" : "saved";
    return dirty;
  }

  function load() {
    return api("GET", "/api/pipeline").then(function (file) {
      $("file-path").textContent = file.path;
      yaml.value = file.text;
      known.saved = file.text;
      known.modified = file.modified;
      $("disk-changed").hidden = true;
      markDirty();
      renderGutter();
      return check();
    });
  }

  function save() {
    var text = yaml.value;
    return api("PUT", "/api/pipeline", text).then(function (result) {
      known.saved = text;
      known.modified = result.modified;
      markDirty();
      renderDiagnostics(result);
      if (result.ok && $("rerun").checked && $("run-mode").value === "replay") startRun();
    }).catch(function (error) { $("file-state").textContent = "not saved: " + error.message; });
  }

  function watchDisk() {
    api("GET", "/api/pipeline/modified").then(function (answer) {
      if (answer.modified === known.modified) return;
      if (markDirty()) {
        $("disk-changed").hidden = false;
      } else {
        load();
      }
    }).catch(function () {});
  }

  // MARK: Runs

  function renderRunChoices() {
    var select = $("run-name");
    var chosen = select.value;
    select.textContent = "";
    known.runs.forEach(function (run) {
      select.appendChild(element("option", { value: run.name, text: run.name }));
    });
    if (chosen && known.runs.some(function (r) { return r.name === chosen; })) select.value = chosen;
    renderParams();
  }

  function renderParams() {
    var box = $("params");
    var given = {};
    Array.prototype.forEach.call(document.querySelectorAll("#params input, #params select, #inputs input"), function (input) {
      given[input.name] = input.value;
    });
    box.textContent = "";
    $("inputs").textContent = "";
    var run = known.runs.find(function (r) { return r.name === $("run-name").value; });
    if (!run) return;
    run.managers.forEach(function (manager) {
      var input = element("input", { name: "input:" + manager, type: "text", placeholder: "a file in the pipeline's folder" });
      if (given["input:" + manager]) input.value = given["input:" + manager];
      $("inputs").appendChild(element("label", { title: "reform run --input " + manager + "=PATH" }, [document.createTextNode(manager), input]));
    });
    run.params.forEach(function (param) {
      var input;
      if (param.choices) {
        input = element("select", { name: param.name });
        input.appendChild(element("option", { value: "", text: "" }));
        param.choices.forEach(function (choice) {
          var text = typeof choice === "string" ? choice : JSON.stringify(choice);
          input.appendChild(element("option", { value: text, text: text }));
        });
      } else {
        input = element("input", { name: param.name, type: "text" });
        if (param.pattern) input.setAttribute("pattern", param.pattern);
        if (param.type === "int" || param.type === "double") input.setAttribute("inputmode", "decimal");
      }
      if (param.required) input.required = true;
      if (param.value !== undefined) input.placeholder = typeof param.value === "string" ? param.value : JSON.stringify(param.value);
      if (param.fanned_out) input.placeholder = "each partition's";
      if (given[param.name]) input.value = given[param.name];
      var label = element("label", { className: param.required ? "required" : "", title: (param.type || "any") + ", of " + param.manager },
        [document.createTextNode(param.name), input]);
      box.appendChild(label);
    });
  }

  function startRun() {
    var params = {}, inputs = {};
    Array.prototype.forEach.call($("params").querySelectorAll("input, select"), function (input) {
      if (input.value !== "") params[input.name] = input.value;
    });
    Array.prototype.forEach.call($("inputs").querySelectorAll("input"), function (input) {
      if (input.value !== "") inputs[input.name.slice("input:".length)] = input.value;
    });
    $("run-state").className = "badge";
    $("run-state").textContent = "starting…";
    return api("POST", "/api/runs", { run: $("run-name").value || null, mode: $("run-mode").value, params: params, inputs: inputs })
      .then(function () {
        current.changes = -1;
        $("cancel").disabled = false;
        poll();
      })
      .catch(function (error) {
        $("run-state").className = "badge error";
        $("run-state").textContent = error.message;
      });
  }

  function poll() {
    if (current.polling) return;
    current.polling = true;
    var seen = current.run ? "?run=" + current.run.id + "&changes=" + current.changes + "&phase=" + current.run.phase : "";
    api("GET", "/api/runs/current" + seen).then(function (answer) {
      current.polling = false;
      if (answer.phase === "none") return;
      // Nothing new since the last poll: the run as it was.
      var run = answer.unchanged ? current.run : answer;
      if (current.run && run.id !== current.run.id) current.bodies = {};
      var changed = !answer.unchanged;
      current.run = run;
      current.changes = run.watch.changes;
      if (changed) renderRun(run);
      if (run.phase === "running") setTimeout(poll, 250);
      else {
        $("cancel").disabled = true;
        if (!$("tab-state").hidden) renderState();
        if (!$("tab-changes").hidden) renderChanges();
      }
    }).catch(function () { current.polling = false; setTimeout(poll, 1000); });
  }

  function renderRun(run) {
    var state = $("run-state");
    state.className = "badge " + (run.phase === "failed" ? "error" : run.phase === "done" ? "ok" : "");
    var pages = run.watch.pages_seen;
    state.textContent = "run " + run.id + " (" + run.run + ", " + run.mode + "): " + run.phase + " · " + pages + (pages === 1 ? " page" : " pages") +
      " · " + run.seconds.toFixed(2) + " s";
    renderPages(run);
    renderSteps(run);
    renderOutput(run);
    renderSummary(run);
  }

  function pageKey(page) { return page.manager + "|" + (page.partition || "") + "|" + page.page; }

  function renderPages(run) {
    var tab = $("tab-pages");
    tab.textContent = "";
    var pages = run.watch.pages;
    if (!pages.length) { tab.appendChild(element("p", { className: "empty", text: "No page landed (yet)." })); return; }
    if (run.watch.pages_seen > pages.length) {
      tab.appendChild(element("p", { className: "empty", text: "The last " + pages.length + " of " + run.watch.pages_seen + " pages." }));
    }
    var body = element("tbody");
    var table = element("table", { id: "pages" }, [
      element("thead", {}, [element("tr", {}, ["manager", "partition", "page", "status", "records", "seconds", "then"].map(function (h, i) {
        return element("th", { className: i === 2 || i === 3 || i === 4 || i === 5 ? "number" : "", text: h });
      }))]), body]);
    var detail = element("div", { id: "page-detail" });
    pages.forEach(function (page) {
      var row = element("tr", { className: "clickable" + (page.status >= 400 || page.error ? " failed" : ""), "data-key": pageKey(page) }, [
        element("td", { text: page.manager }), element("td", { text: page.partition || "" }),
        element("td", { className: "number", text: String(page.page) }), element("td", { className: "number", text: String(page.status) }),
        element("td", { className: "number", text: page.records_streamed ? "streamed" : String(page.records) }),
        element("td", { className: "number", text: page.seconds === undefined ? (page.replayed ? "replay" : "cache") : page.seconds.toFixed(3) }),
        element("td", { text: page.error ? "failed: " + page.error : page.next ? "next: " + page.next : (page.stop_reason ? "stop: " + page.stop_reason : "") })]);
      row.addEventListener("click", function () { showPage(page, detail); });
      body.appendChild(row);
    });
    tab.appendChild(table);
    tab.appendChild(detail);
    var selected = pages.find(function (page) { return pageKey(page) === current.selectedPage; });
    if (selected) showPage(selected, detail);
  }

  function headerList(pairs) {
    return element("pre", { className: "json", text: pairs.map(function (p) { return p[0] + ": " + p[1]; }).join("\n") || "(none)" });
  }

  // Reads page `number` of the current run with its body (the poll leaves bodies out), then shows it.
  function showPage(page, detail) {
    current.selectedPage = pageKey(page);
    Array.prototype.forEach.call(document.querySelectorAll("#pages tr"), function (row) {
      row.classList.toggle("selected", row.getAttribute("data-key") === current.selectedPage);
    });
    if (page.body !== undefined) return renderPage(page, detail);
    var cached = current.bodies && current.bodies[current.run.id + ":" + page.number];
    if (cached) return renderPage(cached, detail);
    return api("GET", "/api/runs/current/pages/" + page.number).then(function (whole) {
      current.bodies = current.bodies || {};
      current.bodies[current.run.id + ":" + page.number] = whole;
      renderPage(whole, detail);
    }).catch(function (error) {
      detail.textContent = "";
      detail.appendChild(element("p", { className: "badge error", text: error.message }));
    });
  }

  function renderPage(page, detail) {
    detail.textContent = "";
    detail.appendChild(element("h2", { text: page.method + " " + page.url }));
    if (page.error) detail.appendChild(element("p", { className: "badge error", id: "page-error", text: "This page failed the manager: " + page.error }));
    detail.appendChild(element("h3", { text: "Request headers" + (page.replayed ? " (replayed from fixtures)" : "") }));
    detail.appendChild(headerList(page.request_headers));
    if (page.request_body) {
      detail.appendChild(element("h3", { text: "Request body" }));
      detail.appendChild(element("pre", { className: "json", text: page.request_body }));
    }
    detail.appendChild(element("h3", { text: "Response " + page.status + " · " + page.body_bytes + " bytes · " + (page.records_streamed ? "records read from the file as the run takes them" : page.records + " records") }));
    detail.appendChild(headerList(page.response_headers));
    var shown = 8000;
    var body = element("pre", { className: "json", id: "page-body" });
    body.textContent = page.body.length > shown ? page.body.slice(0, shown) : page.body;
    var bodyBox = element("details", { open: "" }, [element("summary", { text: "Body" + (page.body_cut ? " (cut by the studio's limit)" : "") }), body]);
    if (page.body.length > shown) {
      var more = element("button", { type: "button", text: "show all " + page.body.length + " characters" });
      more.addEventListener("click", function () { body.textContent = page.body; more.remove(); });
      bodyBox.appendChild(more);
    }
    detail.appendChild(bodyBox);
    if (!page.error) detail.appendChild(element("p", { text: page.next ? "Next page: " + page.next : "Paging stopped: " + (page.stop_reason || "") }));
  }

  function recordBox(record, run) {
    var origin = record.manager + (record.partition ? " [" + record.partition + "]" : "") + " · record " + record.sequence +
      (record.page ? " · page " + record.page : "") + (record.line ? " · line " + record.line : "");
    var link = element("div", { className: "origin", text: "from " + origin, title: "Show where it came from" });
    link.addEventListener("click", function () { showOrigin(record, run); });
    return element("div", { className: "record", "data-sequence": String(record.sequence), "data-manager": record.manager },
      [link, element("pre", { className: "json", text: pretty(record.value) })]);
  }

  function showOrigin(record, run) {
    var landed = null;
    run.watch.managers.forEach(function (m) {
      if (m.name === record.manager) m.samples.forEach(function (s) { if (s.sequence === record.sequence) landed = s; });
    });
    var partition = landed ? landed.partition : record.partition;
    var page = run.watch.pages.find(function (p) {
      return p.manager === record.manager && p.page === record.page && (!partition || p.partition === partition);
    });
    var box = $("origin");
    if (box) {
      box.textContent = "";
      box.appendChild(element("h3", { text: "Where record " + record.sequence + " of " + record.manager + " came from" }));
      if (page) {
        var open = element("button", { type: "button", text: "Open page " + page.page + ": " + page.method + " " + page.url });
        open.addEventListener("click", function () { selectTab("pages"); current.selectedPage = pageKey(page); renderPages(run); });
        box.appendChild(open);
      } else {
        box.appendChild(element("p", { className: "empty", text: record.page ? "Its page is no longer kept." : "It came from an input file, not a page." }));
      }
      if (landed) {
        box.appendChild(element("h3", { text: "As landed" }));
        box.appendChild(element("pre", { className: "json", id: "origin-landed", text: pretty(landed.value) }));
        box.appendChild(element("h3", { text: "Its path through the chain" }));
        box.appendChild(pathOf(record, run));
      } else {
        box.appendChild(element("p", { className: "empty", text: "Its path is kept for each manager's first records (see Landed)." }));
      }
      box.scrollIntoView({ block: "nearest" });
    }
  }

  // What each reformer (or, in a steps reformer, each step) made of a landed record, in order,
  // until one rejects it or makes nothing of it (a filter, a dedupe, a limit).
  function pathOf(record, run) {
    var mine = function (r) { return r.manager === record.manager && r.sequence === record.sequence; };
    var list = element("ol", { className: "record-path" });
    run.watch.outputs.forEach(function (output, index) {
      var ended = false;
      function visit(stage, label) {
        if (ended) return;
        var made = stage.samples.concat(stage.traced || []).filter(mine);
        var refused = stage.rejections.concat(stage.traced_rejections || []).filter(function (r) { return mine(r.record); });
        var item = element("li", { className: "path-stage" }, [
          element("div", { className: "path-name", text: label + " " + stage.name + (stage.line ? " (line " + stage.line + ")" : "") })]);
        if (refused.length) {
          item.appendChild(element("div", { className: "rejection", text: "rejected: " + refused[0].code + ": " + refused[0].message }));
          ended = true;
        } else if (!made.length) {
          item.appendChild(element("div", { className: "empty", text: "made nothing of it: the record stops here" }));
          ended = true;
        } else {
          made.forEach(function (r) { item.appendChild(element("pre", { className: "json", text: pretty(r.value) })); });
        }
        list.appendChild(item);
      }
      list.appendChild(element("li", { className: "path-output", text: "Output " + (index + 1) + ": " + output.name }));
      output.stages.forEach(function (stage, position) {
        if (stage.steps && stage.steps.length) {
          stage.steps.forEach(function (step, number) { visit(step, (position + 1) + "." + (number + 1)); });
        } else {
          visit(stage, String(position + 1));
        }
      });
    });
    return list;
  }

  // The first rows an output wrote (after a sorted shape's sort), each with the record that filled it.
  function writtenRows(rows, run) {
    var box = element("div", { className: "written-rows" }, [
      element("h3", { text: "Rows of " + rows.shape + ": the first " + rows.first.length + " of " + rows.written + " written" })]);
    var body = element("tbody");
    rows.first.forEach(function (row) {
      var cells = row.value.map(function (cell) { return element("td", { text: typeof cell === "string" ? cell : JSON.stringify(cell) }); });
      var from = element("td", { className: "origin", text: row.manager + " · record " + row.sequence, title: "Show where it came from" });
      from.addEventListener("click", function () { showOrigin(row, run); });
      body.appendChild(element("tr", {}, cells.concat([from])));
    });
    box.appendChild(element("table", { className: "written" }, [
      element("thead", {}, [element("tr", {}, rows.columns.concat(["from"]).map(function (h) { return element("th", { text: h }); }))]), body]));
    return box;
  }

  function renderSteps(run) {
    var tab = $("tab-steps");
    tab.textContent = "";
    run.watch.managers.forEach(function (manager) {
      var box = element("details", { className: "landed" }, [element("summary", { text: "Landed by " + manager.name + ": " + manager.records + " records" })]);
      manager.samples.forEach(function (s) { box.appendChild(recordBox(s, run)); });
      tab.appendChild(box);
    });
    function stageRow(stage, key, label, className) {
      var row = element("tr", { className: "clickable " + className + (current.selectedStage === key ? " selected" : ""), "data-stage": key }, [
        element("td", { text: label }), element("td", { text: stage.name + (stage.line ? " (line " + stage.line + ")" : "") }),
        element("td", { className: "number", text: String(stage.in) }), element("td", { className: "number", text: String(stage.out) }),
        element("td", { className: "number", text: String(stage.rejected) })]);
      row.addEventListener("click", function () { current.selectedStage = key; renderSteps(run); });
      return row;
    }
    run.watch.outputs.forEach(function (output, index) {
      tab.appendChild(element("h2", { text: "Output " + (index + 1) + ": " + output.name }));
      var body = element("tbody");
      output.stages.forEach(function (stage, position) {
        body.appendChild(stageRow(stage, index + ":" + position, String(position + 1), "reformer"));
        (stage.steps || []).forEach(function (step, number) {
          body.appendChild(stageRow(step, index + ":" + position + ":" + number, (position + 1) + "." + (number + 1), "step"));
        });
      });
      tab.appendChild(element("table", { className: "stages" }, [
        element("thead", {}, [element("tr", {}, ["#", "reformer / step", "in", "out", "rejected"].map(function (h, i) {
          return element("th", { className: i > 1 ? "number" : "", text: h });
        }))]), body]));
      if (output.rows) tab.appendChild(writtenRows(output.rows, run));
    });
    // The chosen reformer or step; by default the last reformer of the first output.
    var chosen = current.selectedStage ? current.selectedStage.split(":").map(Number) : null;
    var output = chosen ? run.watch.outputs[chosen[0]] : null;
    var stage = output ? output.stages[chosen[1]] : null;
    if (stage && chosen.length > 2) stage = (stage.steps || [])[chosen[2]];
    if (!stage && run.watch.outputs.length && run.watch.outputs[0].stages.length) {
      stage = run.watch.outputs[0].stages[run.watch.outputs[0].stages.length - 1];
    }
    var detail = element("div", { id: "stage-detail" });
    if (stage) {
      detail.appendChild(element("h2", { text: "After " + stage.name + ": the first " + stage.samples.length + " of " + stage.out + " records" }));
      if (stage.line) {
        var source = element("button", { type: "button", id: "step-source", text: "Show line " + stage.line + " in the editor" });
        source.addEventListener("click", function () { goTo(stage.line, 1); });
        detail.appendChild(source);
      }
      stage.samples.forEach(function (s) { detail.appendChild(recordBox(s, run)); });
      if (stage.rejections.length) {
        detail.appendChild(element("h2", { text: "Rejected by " + stage.name + " (" + stage.rejected + ")" }));
        stage.rejections.forEach(function (r) {
          var box = recordBox(r.record, run);
          box.insertBefore(element("div", { className: "rejection", text: r.code + ": " + r.message }), box.firstChild);
          detail.appendChild(box);
        });
      }
    }
    tab.appendChild(detail);
    tab.appendChild(element("div", { id: "origin" }));
  }

  function renderOutput(run) {
    var tab = $("tab-output");
    tab.textContent = "";
    if (!run.files) { tab.appendChild(element("p", { className: "empty", text: "The files appear when the run ends." })); return; }
    if (!run.files.length) { tab.appendChild(element("p", { className: "empty", text: "The run wrote no file." })); return; }
    run.files.forEach(function (file) {
      var what = file.kind === "sqlite" ? " (an SQLite database: its table's first rows)" : file.kind === "binary" ? " (binary)" : "";
      tab.appendChild(element("h2", { text: file.path + " · " + file.bytes + " bytes" + (file.cut ? " (the start)" : "") + what }));
      if (file.text) tab.appendChild(element("pre", { className: "json", text: file.text }));
    });
  }

  function renderSummary(run) {
    var tab = $("tab-summary");
    tab.textContent = "";
    if (run.error) tab.appendChild(element("pre", { className: "json", id: "run-error", text: run.error }));
    if (run.summary) tab.appendChild(element("pre", { className: "json", id: "run-summary", text: run.summary }));
    if (run.stats) {
      tab.appendChild(element("details", { id: "run-stats" }, [
        element("summary", { text: "Figures, as --stats json prints them: " + run.stats.seconds.toFixed(3) + " s" +
          (run.stats.peak_rss_bytes ? ", peak " + (run.stats.peak_rss_bytes / 1048576).toFixed(1) + " MiB" : "") }),
        element("pre", { className: "json", text: pretty(run.stats) })]));
    }
    if (run.watch.events.length) {
      tab.appendChild(element("h2", { text: "Service events" }));
      tab.appendChild(element("pre", { className: "json", text: run.watch.events.join("\n") }));
    }
    if (!tab.firstChild) tab.appendChild(element("p", { className: "empty", text: "The run is going." }));
  }

  function renderChanges() {
    var key = $("change-key").value.trim();
    var box = $("changes");
    return api("GET", "/api/runs/changes" + (key ? "?key=" + encodeURIComponent(key) : "")).then(function (answer) {
      box.textContent = "";
      if (answer.none) { box.appendChild(element("p", { className: "empty", id: "changes-none", text: answer.none })); return; }
      box.appendChild(element("p", { id: "changes-against", text: "Run " + answer.run + " against run " + answer.against + " (" + answer.run_name + ")" }));
      answer.files.forEach(function (file) {
        var counts = file.error ? file.error : "+" + file.added + " −" + file.removed + (file.changed !== undefined ? " ~" + file.changed : "") +
          (file.only ? " (only in the " + file.only + " run)" : "") + (file.unkeyed ? " · " + file.unkeyed + " without the key" : "");
        var section = element("details", { className: "change", "data-path": file.path, open: "" },
          [element("summary", { text: file.path + ": " + counts })]);
        function items(list, label, className) {
          (list || []).forEach(function (item) {
            var text = typeof item === "string" ? item : pretty(item);
            section.appendChild(element("pre", { className: "json " + className, title: label, text: (className === "added" ? "+ " : "− ") + text }));
          });
        }
        items(file.added_items, "added", "added");
        items(file.removed_items, "removed", "removed");
        (file.changed_items || []).forEach(function (pair) {
          section.appendChild(element("pre", { className: "json changed", text: "~ " + pretty(pair.old) + "\n→ " + pretty(pair.new) }));
        });
        box.appendChild(section);
      });
    }).catch(function (error) {
      box.textContent = "";
      box.appendChild(element("p", { className: "badge error", id: "changes-error", text: error.message }));
    });
  }

  function renderState() {
    var run = $("run-name").value;
    return api("GET", "/api/state" + (run ? "?run=" + encodeURIComponent(run) : "")).then(function (state) {
      var tab = $("tab-state");
      tab.textContent = "";
      tab.appendChild(element("p", { id: "state-place", text: "Kept in " + state.place }));
      if (!state.rows.length) {
        tab.appendChild(element("p", { className: "empty", id: "state-empty", text: "Nothing saved yet: the next run fetches everything." }));
        return;
      }
      var body = element("tbody");
      var managers = [];
      state.rows.forEach(function (cells) {
        var row = element("tr", { "data-manager": cells[0] }, cells.map(function (cell) { return element("td", { text: cell }); }));
        var action = element("td");
        if (managers.indexOf(cells[0]) < 0) {
          managers.push(cells[0]);
          var reset = element("button", { type: "button", className: "reset", text: "Reset " + cells[0] });
          reset.addEventListener("click", function () { resetState(cells[0]); });
          action.appendChild(reset);
        }
        if (cells[1] !== "-") {
          var one = element("button", { type: "button", className: "reset-partition", text: "Reset " + cells[1] });
          one.addEventListener("click", function () { resetState(cells[0], cells[1]); });
          action.appendChild(one);
        }
        row.appendChild(action);
        body.appendChild(row);
      });
      tab.appendChild(element("table", { id: "state" }, [
        element("thead", {}, [element("tr", {}, state.columns.concat([""]).map(function (h) { return element("th", { text: h.toLowerCase() }); }))]),
        body]));
      var all = element("button", { type: "button", id: "reset-all", text: "Reset every manager" });
      all.addEventListener("click", function () { resetState(null); });
      tab.appendChild(all);
    }).catch(function (error) {
      $("tab-state").textContent = "";
      $("tab-state").appendChild(element("pre", { className: "json", text: error.message }));
    });
  }

  function resetState(manager, partition) {
    var asked = { run: $("run-name").value || null, manager: manager, partition: partition || null };
    return api("POST", "/api/state/reset", asked).then(function (answer) {
      return renderState().then(function () {
        $("tab-state").insertBefore(element("p", { id: "state-reset", className: "badge ok", text: answer.reset }), $("tab-state").firstChild);
      });
    }).catch(function (error) { $("tab-state").appendChild(element("pre", { className: "json", text: error.message })); });
  }

  function selectTab(name) {
    Array.prototype.forEach.call(document.querySelectorAll(".tabs button"), function (button) {
      var selected = button.getAttribute("data-tab") === name;
      button.setAttribute("aria-selected", selected ? "true" : "false");
      $("tab-" + button.getAttribute("data-tab")).hidden = !selected;
    });
    if (name === "state") renderState();
    if (name === "changes") renderChanges();
  }

  // MARK: Wiring

  yaml.addEventListener("input", function () { markDirty(); renderGutter(); checkSoon(); });
  yaml.addEventListener("scroll", function () { gutter.scrollTop = yaml.scrollTop; });
  yaml.addEventListener("keydown", function (event) {
    if ((event.ctrlKey || event.metaKey) && event.key === "s") { event.preventDefault(); save(); }
    if (event.key === "Tab") {
      event.preventDefault();
      var start = yaml.selectionStart;
      yaml.setRangeText("  ", start, yaml.selectionEnd, "end");
      markDirty(); renderGutter(); checkSoon();
    }
  });
  $("save").addEventListener("click", save);
  $("compare").addEventListener("click", renderChanges);
  $("change-key").addEventListener("keydown", function (event) { if (event.key === "Enter") renderChanges(); });
  $("reload").addEventListener("click", load);
  $("run-name").addEventListener("change", renderParams);
  $("run-form").addEventListener("submit", function (event) {
    event.preventDefault();
    if ($("run-form").reportValidity()) startRun();
  });
  $("cancel").addEventListener("click", function () { api("DELETE", "/api/runs/current").then(poll); });
  Array.prototype.forEach.call(document.querySelectorAll(".tabs button"), function (button) {
    button.addEventListener("click", function () { selectTab(button.getAttribute("data-tab")); });
  });
  load().then(function () { poll(); });
  setInterval(watchDisk, 2000);
})();
