"use strict";
// The floor page: one card per table, redrawn from the whole board on every message.
(function () {
  const tables = document.getElementById("tables");
  const link = document.getElementById("link");
  const count = document.getElementById("count");
  const flags = document.getElementById("flags");
  const flagList = document.getElementById("flag-list");

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function card(t) {
    const c = el("article", "table");
    c.dataset.table = t.table;
    c.classList.add(t.controller === "online" ? "online" : "offline");
    if (t.errors.length) c.classList.add("attention");
    const h = el("h2");
    // the table's name (its config's [table] name); the id beside it only when they differ
    const title = el("span", "name", t.name || t.table);
    if (t.name && t.name !== t.table) title.append(" ", el("span", "table-id", "(" + t.table + ")"));
    h.append(title, el("span", "controller", t.controller));
    c.append(h);
    c.append(el("div", "row game", (t.game || "?") + (t.stakes ? " · " + t.stakes : "")));
    const hand = t.hand ? "Hand #" + t.hand : "between hands";
    c.append(el("div", "row hand", hand + (t.phase ? " · " + t.phase : "") +
                (t.street ? " · " + t.street : "")));
    // every board: each run's of a hand run more than once, both of a double board
    for (const b of t.boards || []) {
      const row = el("div", "row board", (t.boards.length > 1 ? b.label + ": " : "Board: "));
      row.dataset.board = b.label;
      row.append(el("span", "cards", b.cards.map(x => x || "??").join(" ")));
      c.append(row);
    }
    c.append(el("div", "row pot", "Pot " + t.pot_text +
                (t.bomb !== null && t.bomb !== undefined ? " · bomb pot" : "")));
    c.append(el("div", "players", t.players.length + " players: " +
                t.players.map(p => p.name + " " + p.stack_text).join(", ")));
    const readers = el("div", "row readers");
    for (const r of t.readers) readers.append(el("span", "reader " + r.status,
                                                 r.name + " " + r.status + " "));
    if (!t.readers.length) readers.textContent = "no readers";
    c.append(readers);
    if (t.errors.length) {
      const ul = el("ul", "errors");
      for (const e of t.errors) ul.append(el("li", "error", e.code + ": " + e.message));
      c.append(ul);
    }
    return c;
  }

  function draw(board) {
    tables.replaceChildren(...board.tables.map(card));
    const waiting = board.tables.filter(t => t.errors.length).length;
    count.textContent = board.tables.length + " tables" +
      (waiting ? ", " + waiting + " waiting for a person" : "");
    flags.hidden = board.flags.length === 0;
    flagList.replaceChildren(...board.flags.map(f => el("li", "flag",
      f.rule + ": " + (f.table_name || f.hand) + " · " + (f.player || "seat " + f.seat) +
      " — " + f.detail)));
  }

  const source = new EventSource("/events");
  source.onopen = () => { link.textContent = "live"; link.className = "link up"; };
  source.onerror = () => { link.textContent = "reconnecting"; link.className = "link down"; };
  source.onmessage = (ev) => draw(JSON.parse(ev.data));
}());
