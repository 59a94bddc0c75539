// rederive site: sortable, searchable tables, written for this site (no library,
// no network). Each table's rows travel as JSON in a <script type="application/json">
// beside it and are drawn with textContent, so no cell is ever parsed as HTML.
"use strict";

(function () {
  var PAGE = 100;

  function parseNumber(text) {
    if (text === "" || text === null) return null;
    var t = String(text).trim().replace(/,/g, "");
    if (t === "" || !/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?%?$/i.test(t)) return null;
    return parseFloat(t);
  }

  // Numbers before text, empty cells last, in either direction.
  function compare(a, b) {
    var empty = (a === "") - (b === "");
    if (empty) return { value: empty, fixed: true };
    var na = parseNumber(a), nb = parseNumber(b);
    if (na !== null && nb !== null) return { value: na - nb, fixed: false };
    if (na !== null) return { value: -1, fixed: false };
    if (nb !== null) return { value: 1, fixed: false };
    return { value: a < b ? -1 : a > b ? 1 : 0, fixed: false };
  }

  function setup(widget) {
    var data = JSON.parse(widget.querySelector("script.tbl-data").textContent);
    var table = widget.querySelector("table");
    var body = table.querySelector("tbody");
    var headers = table.querySelectorAll("thead th");
    var filter = widget.querySelector("input.tbl-filter");
    var count = widget.querySelector(".tbl-count");
    var more = widget.querySelector("button.tbl-more");
    var rows = data.rows.map(function (cells, index) {
      return { cells: cells, index: index, text: cells.join("\u0001").toLowerCase() };
    });
    var state = { shown: PAGE, column: -1, direction: 0, query: "" };

    function visible() {
      var q = state.query;
      var out = q ? rows.filter(function (r) { return r.text.indexOf(q) >= 0; }) : rows.slice();
      if (state.column >= 0) {
        var c = state.column, d = state.direction;
        out.sort(function (x, y) {
          var r = compare(x.cells[c], y.cells[c]);
          var v = r.fixed ? r.value : d * r.value;
          return v || x.index - y.index;
        });
      }
      return out;
    }

    function draw() {
      var list = visible();
      var fragment = document.createDocumentFragment();
      list.slice(0, state.shown).forEach(function (r) {
        var tr = document.createElement("tr");
        r.cells.forEach(function (value, k) {
          var td = document.createElement("td");
          td.textContent = value;
          // Numbers right-aligned; short text (a model name) kept on one line.
          if (data.numeric[k]) td.className = "num";
          else if (value.length <= 32 && value.indexOf("\n") < 0) td.className = "nw";
          tr.appendChild(td);
        });
        fragment.appendChild(tr);
      });
      body.textContent = "";
      body.appendChild(fragment);
      var total = rows.length;
      var shown = Math.min(state.shown, list.length);
      count.textContent = (state.query ? list.length + " of " + total + " rows match" : total + " rows") +
        (shown < list.length ? "; showing " + shown : "");
      more.hidden = shown >= list.length;
      more.textContent = "Show " + Math.min(PAGE * 10, list.length - shown) + " more rows";
    }

    headers.forEach(function (th, k) {
      var button = th.querySelector("button");
      button.addEventListener("click", function () {
        if (state.column === k) state.direction = -state.direction;
        else { state.column = k; state.direction = 1; }
        headers.forEach(function (other) { other.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", state.direction > 0 ? "ascending" : "descending");
        draw();
      });
    });
    filter.addEventListener("input", function () {
      state.query = filter.value.trim().toLowerCase();
      state.shown = PAGE;
      draw();
    });
    more.addEventListener("click", function () {
      state.shown += PAGE * 10;
      draw();
    });
    draw();
    widget.classList.add("ready");
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll(".tbl").forEach(setup);
  });
})();
