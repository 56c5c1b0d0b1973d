// cnfgen-queens report --html: tabs, sortable summary, the runs table (sort, filter, pages) and the
// comparison of two solvers or two encodings.  The runs come from runs.js, loaded when first needed.
"use strict";
(function () {
  const PAGE = 100;
  const body = document.body;
  const timeColumn = body.dataset.time === "cpu" ? "cpu" : "wall";
  // the runs' columns, from the report (experiments/html_report.py): the runs table's, and the pairing keys
  const COLUMNS = JSON.parse(document.getElementById("run-columns").textContent);
  let data = null; // {columns, rows}
  let col = null; // column name -> index
  const waiting = [];

  // ---- the view in the address: tab, filters, sort, compared pair (#tab=compare&a=kissat&b=minisat) ----
  const initial = new URLSearchParams(location.hash.slice(1));
  const RUNS_KEYS = (k) => k === "q" || k === "sort" || k === "desc" || k.startsWith("f.");
  const CMP_KEYS = (k) => ["dim", "a", "b", "only", "csort", "cdesc"].includes(k);
  function save() {
    const p = new URLSearchParams(initial);
    [...p.keys()].filter((k) => k === "tab" || k === "against" || (runsGrid && RUNS_KEYS(k)) || (cmpGrid && CMP_KEYS(k)))
      .forEach((k) => p.delete(k));
    const active = document.querySelector("nav button.active");
    if (active && active.dataset.tab !== "overview") p.set("tab", active.dataset.tab);
    if (runsGrid) {
      runsGrid.state(p, "");
      const q = document.getElementById("filter-all").value;
      if (q) p.set("q", q);
    }
    if (cmpGrid) {
      const get = (id) => document.getElementById(id);
      p.set("dim", get("cmp-dim").value); p.set("a", get("cmp-a").value); p.set("b", get("cmp-b").value);
      if (get("cmp-only").checked) p.set("only", "1");
      cmpGrid.state(p, "c");
    }
    const text = p.toString();
    if (!text && !location.hash) return; // the plain overview: the address as it was
    try { history.replaceState(null, "", "#" + text); } catch (e) { location.replace("#" + text); }
  }

  // ---- tabs ----
  const tabs = document.querySelectorAll("nav button");
  function show(name) {
    tabs.forEach((b) => b.classList.toggle("active", b.dataset.tab === name));
    document.querySelectorAll("main > section").forEach((s) => { s.hidden = s.id !== name; });
    if (name === "runs" || name === "compare") withRuns(name === "runs" ? runsView : compareView);
    save();
  }
  tabs.forEach((b) => b.addEventListener("click", () => show(b.dataset.tab)));

  // ---- lazy runs.js ----
  window.cnfgenRuns = function (d) {
    data = d;
    col = {};
    d.columns.forEach((c, i) => { col[c] = i; });
    document.querySelectorAll(".loading").forEach((p) => { p.hidden = true; });
    waiting.splice(0).forEach((f) => f());
  };
  let requested = false;
  function withRuns(f) {
    if (data) { f(); return; }
    waiting.push(f);
    if (requested) return;
    requested = true;
    const s = document.createElement("script");
    s.src = "runs.js";
    s.onerror = () => document.querySelectorAll(".loading").forEach((p) => {
      p.textContent = "runs.js could not be loaded (it should be beside index.html).";
    });
    document.head.appendChild(s);
  }

  // ---- comparing and filtering values ----
  function compare(a, b, numeric) {
    if (a === b) return 0;
    if (a === null || a === undefined || a === "") return 1; // empty cells last, either direction
    if (b === null || b === undefined || b === "") return -1;
    if (numeric) return a - b;
    return String(a).localeCompare(String(b), undefined, { numeric: true });
  }
  function matcher(text, numeric) {
    text = text.trim();
    if (!text) return null;
    if (numeric) {
      const range = text.match(/^(-?[\d.eE+-]+)\s*\.\.\s*(-?[\d.eE+-]+)$/);
      if (range) {
        const lo = parseFloat(range[1]), hi = parseFloat(range[2]);
        return (v) => v !== null && v >= lo && v <= hi;
      }
      const op = text.match(/^(<=|>=|<|>|=)\s*(-?[\d.eE+-]+)$/);
      if (op) {
        const x = parseFloat(op[2]);
        const test = { "<": (v) => v < x, ">": (v) => v > x, "<=": (v) => v <= x, ">=": (v) => v >= x,
          "=": (v) => v === x }[op[1]];
        return (v) => v !== null && test(v);
      }
    }
    const needle = text.toLowerCase();
    return (v) => v !== null && String(v).toLowerCase().includes(needle);
  }
  const fmt = (v, c) => (v === null ? "" : c.decimals != null && typeof v === "number" ? v.toFixed(c.decimals) :
    String(v));

  // ---- a paged, sortable table over an array of rows ----
  function Grid(section, table, columns, opts) {
    this.section = section; this.table = table; this.columns = columns; this.opts = opts || {};
    this.all = []; this.rows = []; this.page = 0; this.sortBy = null; this.desc = false;
    this.filters = columns.map(() => null);
    const head = table.tHead;
    head.innerHTML = "";
    const tr = head.insertRow();
    columns.forEach((c, i) => {
      const th = document.createElement("th");
      th.textContent = c.label;
      th.dataset.col = c.name;
      th.addEventListener("click", () => this.sort(i));
      tr.appendChild(th);
    });
    if (this.opts.filters) {
      const fr = head.insertRow();
      fr.className = "filters";
      columns.forEach((c, i) => {
        const td = document.createElement("td");
        const input = document.createElement("input");
        input.type = "search";
        input.dataset.col = c.name;
        input.placeholder = c.numeric ? ">1, 8..12" : "filter";
        input.addEventListener("input", () => {
          this.filters[i] = matcher(input.value, c.numeric); this.refilter(); save();
        });
        td.appendChild(input);
        fr.appendChild(td);
      });
    }
    section.querySelector(".prev").onclick = () => this.go(this.page - 1);
    section.querySelector(".next").onclick = () => this.go(this.page + 1);
  }
  Grid.prototype.load = function (rows) { this.all = rows; this.refilter(); };
  Grid.prototype.refilter = function () {
    const tests = this.filters.map((f, i) => [f, this.columns[i].get]).filter((p) => p[0]);
    const global = this.global;
    const gets = this.columns.map((c) => c.get);
    this.rows = this.all.filter((r) => tests.every(([f, get]) => f(get(r))) &&
      (!global || gets.some((get) => global(get(r)))));
    if (this.sortBy !== null) this.order();
    this.go(0);
  };
  Grid.prototype.sort = function (i) {
    this.desc = this.sortBy === i ? !this.desc : false;
    this.sortBy = i;
    this.order();
    this.mark();
    this.go(0);
    save();
  };
  Grid.prototype.mark = function () {
    this.table.querySelectorAll("th").forEach((th, j) => {
      th.className = j === this.sortBy ? (this.desc ? "sorted-desc" : "sorted-asc") : "";
    });
  };
  // the sort and filters into the address's parameters (``prefix``: one grid's apart from another's), and back
  Grid.prototype.state = function (params, prefix) {
    if (this.sortBy !== null) {
      params.set(prefix + "sort", this.columns[this.sortBy].name);
      if (this.desc) params.set(prefix + "desc", "1");
    }
    this.table.querySelectorAll("tr.filters input").forEach((input) => {
      if (input.value) params.set(prefix + "f." + input.dataset.col, input.value);
    });
  };
  Grid.prototype.restore = function (params, prefix) {
    this.table.querySelectorAll("tr.filters input").forEach((input, i) => {
      const v = params.get(prefix + "f." + input.dataset.col);
      if (v) { input.value = v; this.filters[i] = matcher(v, this.columns[i].numeric); }
    });
    const i = this.columns.findIndex((c) => c.name === params.get(prefix + "sort"));
    if (i >= 0) { this.sortBy = i; this.desc = params.get(prefix + "desc") === "1"; this.mark(); }
  };
  Grid.prototype.order = function () {
    const c = this.columns[this.sortBy], sign = this.desc ? -1 : 1;
    const keyed = this.rows.map((r, k) => [c.get(r), k, r]);
    keyed.sort((x, y) => {
      const empty = (v) => v === null || v === undefined || v === "";
      if (empty(x[0]) !== empty(y[0])) return empty(x[0]) ? 1 : -1;
      return sign * compare(x[0], y[0], c.numeric) || x[1] - y[1];
    });
    this.rows = keyed.map((x) => x[2]);
  };
  Grid.prototype.go = function (page) {
    const pages = Math.max(1, Math.ceil(this.rows.length / PAGE));
    this.page = Math.min(Math.max(0, page), pages - 1);
    const start = this.page * PAGE, slice = this.rows.slice(start, start + PAGE);
    const tbody = this.table.tBodies[0];
    const frag = document.createDocumentFragment();
    slice.forEach((r) => {
      const tr = document.createElement("tr");
      this.columns.forEach((c) => {
        const td = document.createElement("td");
        const v = c.get(r);
        if (c.render) c.render(td, v, r); else td.textContent = fmt(v, c);
        if (c.numeric) td.className = "num";
        tr.appendChild(td);
      });
      if (this.opts.rowClass) tr.className = this.opts.rowClass(r);
      frag.appendChild(tr);
    });
    tbody.replaceChildren(frag);
    const info = this.section.querySelector(".page-info");
    const shown = this.rows.length ? `${start + 1}–${start + slice.length}` : "0";
    info.textContent = `rows ${shown} of ${this.rows.length.toLocaleString("en")}` +
      (this.rows.length !== this.all.length ? ` (filtered from ${this.all.length.toLocaleString("en")})` : "") +
      ` · page ${this.page + 1}/${pages}`;
  };

  // ---- the runs table ----
  let runsGrid = null;
  function runsView() {
    if (runsGrid) return;
    const columns = COLUMNS.shown.map(({ name, heading, numeric, decimals }) => ({
      name, label: heading, numeric, decimals, get: (r) => r[col[name]],
      render: name === "output" ? (td, v) => {
        if (v === null) return;
        const a = document.createElement("a");
        a.href = v; a.textContent = "log";
        td.appendChild(a);
      } : name === "verdict" ? (td, v) => { td.textContent = v; td.classList.add("v-" + v); } : null,
    }));
    const section = document.getElementById("runs");
    runsGrid = new Grid(section, document.getElementById("runs-table"), columns, { filters: true });
    const all = document.getElementById("filter-all");
    all.addEventListener("input", () => { runsGrid.global = matcher(all.value, false); runsGrid.refilter(); save(); });
    runsGrid.restore(initial, "");
    if (initial.get("q")) { all.value = initial.get("q"); runsGrid.global = matcher(all.value, false); }
    runsGrid.load(data.rows);
    save();
  }

  // ---- the comparison view ----
  const KEYS = COLUMNS.pairs; // per dimension compared, the columns its runs are paired on
  const FLOOR = 1e-3;
  let cmpGrid = null;
  function solvedTime(r) {
    const t = r[col[timeColumn]];
    return r[col.verdict] === "solved" && t !== null ? Math.max(t, FLOOR) : null;
  }
  function disagreement(a, b) {
    const sa = a[col.status], sb = b[col.status];
    if ((sa === "SAT" && sb === "UNSAT") || (sa === "UNSAT" && sb === "SAT")) return `${sa} vs ${sb}`;
    const ca = a[col.count], cb = b[col.count];
    if (ca !== null && cb !== null && ca !== cb) return `count ${ca} vs ${cb}`;
    const va = a[col.verdict], vb = b[col.verdict];
    return va !== vb ? `${va} vs ${vb}` : "";
  }
  // the statistics of each pair, computed by the report (experiments/compare.py): interval, test, verdict
  const statsNode = document.getElementById("cmp-stats");
  const cmpStats = statsNode ? JSON.parse(statsNode.textContent) : {};
  function verdictText(dim, a, b) {
    const s = (cmpStats[dim] || {})[a]?.[b];
    if (!s) return "";
    if (s.refused) return `No verdict: ${s.refused}.`;
    if (s.gm === null) return "No instance solved by both: no verdict.";
    const x = (v) => "×" + v.toPrecision(3);
    let t = `Paired over ${s.pairs} instances both solved (median of repeats): time A / B ${x(s.gm)}`;
    t += s.low !== null ? ` (95% CI ${x(s.low)} to ${x(s.high)})` :
      ` (95% CI n/a: needs ${cmpStats.min_pairs} pairs)`;
    t += s.p !== null ? `; Wilcoxon signed-rank p = ${s.p.toPrecision(3)}` :
      `; Wilcoxon test not run (fewer than ${cmpStats.min_pairs} pairs)`;
    const word = s.verdict === "A" ? `${a} faster` : s.verdict === "B" ? `${b} faster` : "no difference at 95%";
    return t + `; verdict: ${word}` + (s.machines > 1 ? ` (across ${s.machines} machines)` : "") + ".";
  }
  function compareView() {
    const dim = document.getElementById("cmp-dim"), selA = document.getElementById("cmp-a");
    const selB = document.getElementById("cmp-b"), only = document.getElementById("cmp-only");
    const section = document.getElementById("compare");
    if (!cmpGrid) {
      const columns = [
        ["instance", "instance", false], ["a_status", "A status", false], ["a_time", `A ${timeColumn} (s)`, true],
        ["b_status", "B status", false], ["b_time", `B ${timeColumn} (s)`, true],
        ["speedup", "speed-up of B (A time / B time)", true], ["disagree", "disagreement", false],
      ].map(([name, label, numeric], i) => ({
        name, label, numeric, get: (r) => r[i],
        render: name === "speedup" ? (td, v) => { td.textContent = v === null ? "" : "×" + v.toFixed(2); } :
          name.endsWith("time") ? (td, v) => { td.textContent = v === null ? "" : v.toFixed(3); } : null,
      }));
      cmpGrid = new Grid(section, document.getElementById("cmp-table"), columns,
        { rowClass: (r) => (r[6] ? "disagree" : "") });
      const fill = () => {
        const values = [...new Set(data.rows.map((r) => r[col[dim.value]]))].sort();
        [selA, selB].forEach((s, k) => {
          s.replaceChildren(...values.map((v) => new Option(v, v)));
          s.selectedIndex = Math.min(k, values.length - 1);
        });
        pair();
      };
      dim.addEventListener("change", () => { fill(); save(); });
      [selA, selB, only].forEach((e) => e.addEventListener("change", () => { pair(); save(); }));
      if (new Set(data.rows.map((r) => r[col.solver])).size < 2) dim.value = "encoding"; // one solver: compare encodings
      if (KEYS[initial.get("dim")]) dim.value = initial.get("dim");
      fill();
      const has = (sel, v) => [...sel.options].some((o) => o.value === v);
      if (has(selA, initial.get("a"))) selA.value = initial.get("a");
      if (has(selB, initial.get("b"))) selB.value = initial.get("b");
      only.checked = initial.get("only") === "1";
      cmpGrid.restore(initial, "c");
    }
    function pair() {
      const keys = KEYS[dim.value].map((k) => col[k]), d = col[dim.value];
      const key = (r) => keys.map((i) => r[i]).join("\u0001");
      const a = new Map(), out = [];
      data.rows.forEach((r) => { if (r[d] === selA.value) a.set(key(r), r); });
      let both = 0, aWon = 0, bWon = 0, solvedBoth = 0, disagree = 0, conflicts = 0;
      const instances = new Set(), repeat = KEYS[dim.value].indexOf("repeat");
      const instance = (r) => keys.filter((_, j) => j !== repeat).map((i) => r[i]).join("\u0001");
      data.rows.forEach((rb) => {
        if (rb[d] !== selB.value || selA.value === selB.value) return;
        const ra = a.get(key(rb));
        if (!ra) return;
        both++;
        instances.add(instance(rb));
        const ta = solvedTime(ra), tb = solvedTime(rb);
        const speedup = ta !== null && tb !== null ? ta / tb : null;
        if (speedup !== null) solvedBoth++;
        if (ta !== null && (tb === null || ta < tb)) aWon++;
        if (tb !== null && (ta === null || tb < ta)) bWon++;
        const why = disagreement(ra, rb);
        if (why) { disagree++; if (why.includes("SAT vs") || why.startsWith("count")) conflicts++; }
        if (only.checked && !why) return;
        const label = dim.value === "solver" ? ra[col.instance] :
          ra[col.instance].replace(" " + ra[col.encoding], "").replace(/ g\d+/, "") + " · " + ra[col.solver];
        out.push([label, `${ra[col.status]} (${ra[col.verdict]})`, ta, `${rb[col.status]} (${rb[col.verdict]})`, tb,
          speedup, why]);
      });
      // the runs side by side, repeat by repeat; the statistics (per instance the median of its repeats) are
      // the verdict's below, the figures the terminal's report --compare prints
      section.querySelector(".cmp-summary").textContent = selA.value === selB.value ?
        "Pick two different values." :
        `${both.toLocaleString("en")} runs of each side paired on ${instances.size.toLocaleString("en")} ` +
        `instances (repeat by repeat); solved by both: ${solvedBoth}; A faster in ${aWon}, B faster in ${bWon}; ` +
        `disagreements: ${disagree} (answers in conflict: ${conflicts}).`;
      section.querySelector(".cmp-verdict").textContent =
        selA.value === selB.value ? "" : verdictText(dim.value, selA.value, selB.value);
      cmpGrid.load(out);
    }
    pair();
    save();
  }

  const start = location.hash === "#against" ? "against" : initial.get("tab"); // #against: report --against's tab
  show(["runs", "compare", "against"].includes(start) && document.getElementById(start) ? start : "overview");

  // ---- the summary table sorts in place (a few hundred rows at most) ----
  document.querySelectorAll("table.sortable").forEach((table) => {
    table.querySelectorAll("th").forEach((th, i) => th.addEventListener("click", () => {
      const desc = th.classList.contains("sorted-asc");
      table.querySelectorAll("th").forEach((h) => { h.className = ""; });
      th.className = desc ? "sorted-desc" : "sorted-asc";
      const numeric = th.dataset.num === "1";
      const rows = [...table.tBodies[0].rows];
      const value = (tr) => { const t = tr.cells[i].textContent; return numeric ? (t === "" ? null : +t) : t; };
      rows.sort((x, y) => {
        const a = value(x), b = value(y);
        if ((a === null) !== (b === null)) return a === null ? 1 : -1;
        return (desc ? -1 : 1) * compare(a, b, numeric);
      });
      table.tBodies[0].replaceChildren(...rows);
    }));
  });
})();
