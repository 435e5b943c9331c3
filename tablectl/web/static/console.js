// The dealer console: the public view plus buttons that send commands via POST /api/cmd/{name}.
"use strict";

let session = null;
let view = null;
let streamOk = true;
let busy = false;

function showReply(name, reply) {
  const node = document.getElementById("reply");
  clear(node);
  const ok = reply && reply.ok === true;
  node.className = "reply " + (ok ? "reply-ok" : "reply-error");
  node.dataset.command = name;
  node.dataset.ok = String(ok);
  const err = (reply && reply.error) || {};
  node.textContent = ok
    ? "\u2713 " + name + " done"
    : "\u2717 " + name + ": " + (err.reason || err.code || "failed") + (err.code ? " [" + err.code + "]" : "");
  return ok;
}

async function send(name, args) {
  if (!session) return null;
  if (busy) return null;
  busy = true;
  document.body.classList.add("busy");
  let reply;
  try {
    const resp = await fetch("/api/cmd/" + encodeURIComponent(name), {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": session.csrf },
      body: JSON.stringify({ args: args || {} }),
    });
    if (resp.status === 401) { location.href = "/login?next=/console"; return null; }
    reply = await resp.json();
  } catch (e) {
    reply = { ok: false, error: { code: "network", reason: "the console server did not answer" } };
  } finally {
    busy = false;
    document.body.classList.remove("busy");
  }
  showReply(name, reply);
  return reply;
}

// Buttons with data-confirm need a second tap within 3 s (touch-friendly, no dialogs).
function confirmTap(button) {
  if (!button.dataset.confirm) return true;
  if (button.dataset.armed === "1") {
    button.dataset.armed = "";
    button.textContent = button.dataset.label;
    return true;
  }
  button.dataset.label = button.textContent;
  button.dataset.armed = "1";
  button.textContent = button.dataset.confirm;
  setTimeout(() => {
    if (button.dataset.armed === "1") { button.dataset.armed = ""; button.textContent = button.dataset.label; }
  }, 3000);
  return false;
}

function on(id, handler) {
  const button = document.getElementById(id);
  button.addEventListener("click", () => { if (confirmTap(button)) handler(); });
}

function amountValue() {
  const v = parseInt(document.getElementById("amount").value, 10);
  return Number.isFinite(v) ? v : null;
}

function renderActions(snap) {
  const node = clear(document.getElementById("actions"));
  const amountRow = document.getElementById("amount-row");
  const title = document.getElementById("to-act");
  const toAct = snap && snap.to_act;
  amountRow.hidden = true;
  if (!toAct && snap && snap.phase === "showdown") {
    // The engine asks each contender in turn to show or muck; the snapshot does not name
    // the seat, so the command goes without one (the daemon takes the seat it expects).
    title.textContent = "Showdown \u2013 show or muck";
    [["show", "Show"], ["muck", "Muck"]].forEach(([kind, label]) => {
      const b = el("button", "btn btn-act act-" + kind, label);
      b.type = "button";
      b.id = "act-" + kind;
      b.addEventListener("click", () => send("action", { kind: kind }));
      node.appendChild(b);
    });
    return;
  }
  if (!toAct) { title.textContent = "No one to act"; return; }
  title.textContent = "Seat " + toAct.seat + " \u2013 " + seatName(snap, toAct.seat) + " to act";
  const stakes = snap.stakes;
  (toAct.legal || []).forEach((legal) => {
    const b = el("button", "btn btn-act act-" + legal.kind);
    b.type = "button";
    b.id = "act-" + legal.kind;
    let label = legal.kind.replace("_", " ");
    label = label[0].toUpperCase() + label.slice(1);
    if (legal.amount !== undefined) label += " " + money(legal.amount, stakes);
    if (legal.min !== undefined) {
      label += legal.min === legal.max ? " " + money(legal.min, stakes) : "\u2026";
      amountRow.hidden = false;
      const input = document.getElementById("amount");
      input.min = String(legal.min);
      input.max = String(legal.max);
      // A new decision (another seat, street or hand) starts from the minimum; the same one
      // keeps what the dealer typed while other updates arrive.
      const key = [snap.hand && snap.hand.id, snap.street, toAct.seat, legal.kind, legal.min].join("|");
      const current = amountValue();
      if (input.dataset.key !== key || current === null || current < legal.min || current > legal.max) {
        input.value = String(legal.min);
      }
      input.dataset.key = key;
      input.dataset.kind = legal.kind;
      document.getElementById("amount-money").textContent = money(amountValue(), stakes);
    }
    b.textContent = label;
    b.addEventListener("click", () => {
      const args = { seat: toAct.seat, kind: legal.kind };
      if (legal.amount !== undefined) args.amount = legal.amount;
      if (legal.min !== undefined) args.amount = amountValue();
      send("action", args);
    });
    node.appendChild(b);
  });
}

function renderReads(snap) {
  const node = clear(document.getElementById("reads"));
  ((snap && snap.errors) || []).forEach((e) => {
    const row = el("div", "read-row");
    row.appendChild(el("span", "read-msg", e.message || e.code));
    // A doubtful read is a "doubtful_read" error whose message names the held read:
    // "read {id} needs confirmation: ..." (the public snapshot has no other field for it).
    const held = e.code === "doubtful_read" && /^read (\S+) needs confirmation/.exec(e.message || "");
    if (held) e = Object.assign({}, e, { read: held[1] });
    if (e.read !== undefined) {
      const yes = el("button", "btn btn-go btn-small", "Confirm");
      yes.type = "button";
      yes.addEventListener("click", () => send("confirm_read", { read: e.read }));
      const no = el("button", "btn btn-danger btn-small", "Reject");
      no.type = "button";
      no.addEventListener("click", () => send("reject_read", { read: e.read }));
      row.appendChild(yes);
      row.appendChild(no);
    } else {
      const clr = el("button", "btn btn-small", "Clear");
      clr.type = "button";
      clr.addEventListener("click", () => send("clear_error", { code: e.code }));
      row.appendChild(clr);
    }
    node.appendChild(row);
  });
}

function renderSeatRows(snap) {
  const body = clear(document.getElementById("seat-rows"));
  const target = document.getElementById("manual-target");
  const chosen = target.value;
  clear(target);
  const board = el("option", null, "Board");
  board.value = "board";
  target.appendChild(board);
  if (!snap) return;
  const toAct = snap.to_act ? snap.to_act.seat : null;
  (snap.seats || []).filter((s) => s.status !== "empty").forEach((s) => {
    const tr = el("tr", "status-" + s.status + (s.seat === toAct ? " to-act" : ""));
    tr.dataset.seat = String(s.seat);
    tr.appendChild(el("td", "seat-no", s.seat));
    tr.appendChild(el("td", "seat-name", s.name));
    tr.appendChild(el("td", "seat-stack", money(s.stack, snap.stakes)));
    tr.appendChild(el("td", "seat-bet", s.bet ? money(s.bet, snap.stakes) : ""));
    const cards = el("td", "seat-cards");
    (s.cards || []).forEach((c) => cards.appendChild(cardEl(c.card, "sm")));
    tr.appendChild(cards);
    tr.appendChild(el("td", "seat-status", s.status === "active" ? "" : s.status.replace("_", "-")));
    tr.addEventListener("click", () => { document.getElementById("p-seat").value = String(s.seat); });
    body.appendChild(tr);
    const opt = el("option", null, "Seat " + s.seat + " " + (s.name || ""));
    opt.value = String(s.seat);
    target.appendChild(opt);
  });
  if (chosen) target.value = chosen;
}

function render(v) {
  view = v;
  setMoneyFormat(v);
  applyDeckColours(v);
  const snap = v.snapshot;
  // Live only as the display page is (docs/mqtt.md section 9.1): not while a gap or a new
  // run waits for its snapshot either.
  const notLive = Boolean(v.stale) || Boolean(v.resyncing) || !streamOk;
  document.body.classList.toggle("stale", notLive);
  const live = document.getElementById("live");
  live.textContent = !streamOk ? "no server" : v.stale ? (v.status === "offline" ? "OFFLINE" : "stale")
    : v.resyncing ? "resyncing" : "live";
  live.className = "live-pill " + (notLive ? "pill-stale" : "pill-live");
  document.getElementById("table-name").textContent = (session && session.table_name) || v.table;
  document.getElementById("hand-no").textContent = snap && snap.hand ? "Hand #" + snap.hand.number : "Between hands";
  document.getElementById("phase").textContent = snap ? [snap.phase, snap.street].filter(Boolean).join(" \u00b7 ") : "";
  renderBanners(document.getElementById("banners"), v, streamOk);
  renderBoard(document.getElementById("board"), snap, "lg");
  renderPots(document.getElementById("pots"), snap);
  renderResults(document.getElementById("results"), snap);
  renderSeatRows(snap);
  renderActions(snap);
  renderReads(snap);
}

function intOf(id) {
  const v = parseInt(document.getElementById(id).value, 10);
  return Number.isFinite(v) ? v : null;
}

function wire() {
  on("cmd-start-hand", () => send("start_hand", {}));
  on("cmd-next-hand", () => send("next_hand", {}));
  on("cmd-undo", () => send("undo", {}));
  on("cmd-misdeal", () => send("misdeal", {}));
  on("cmd-manual-card", () => {
    const card = document.getElementById("manual-card").value.trim();
    const where = document.getElementById("manual-target").value;
    const args = { card: card };
    if (where === "board") args.board = true; else args.seat = parseInt(where, 10);
    send("manual_card", args);
  });
  on("cmd-seat-player", () => send("seat_player", {
    seat: intOf("p-seat"), name: document.getElementById("p-name").value.trim(), stack: intOf("p-stack"),
  }));
  on("cmd-unseat-player", () => send("unseat_player", { seat: intOf("p-seat") }));
  on("cmd-adjust-stack", () => send("adjust_stack", {
    seat: intOf("p-seat"), amount: intOf("adj-amount"), reason: document.getElementById("adj-reason").value.trim(),
  }));
  on("cmd-recall", async () => {
    const reply = await send("recall", { hands: intOf("recall-hands") || 1 });
    const out = document.getElementById("recall-out");
    out.textContent = reply && reply.ok ? JSON.stringify(reply.result, null, 2) : "";
  });
  document.getElementById("amount").addEventListener("input", () => {
    document.getElementById("amount-money").textContent = money(amountValue(), view && view.snapshot && view.snapshot.stakes);
  });
  document.getElementById("amount-min").addEventListener("click", () => {
    const input = document.getElementById("amount"); input.value = input.min;
    document.getElementById("amount-money").textContent = money(amountValue(), view && view.snapshot && view.snapshot.stakes);
  });
  document.getElementById("amount-max").addEventListener("click", () => {
    const input = document.getElementById("amount"); input.value = input.max;
    document.getElementById("amount-money").textContent = money(amountValue(), view && view.snapshot && view.snapshot.stakes);
  });
  document.getElementById("logout").addEventListener("click", async () => {
    await fetch("/logout", { method: "POST", credentials: "same-origin", headers: { "X-CSRF-Token": session ? session.csrf : "" } });
    location.href = "/login";
  });
}

document.addEventListener("DOMContentLoaded", async () => {
  wire();
  const resp = await fetch("/api/session", { credentials: "same-origin" });
  if (resp.status !== 200) { location.href = "/login?next=/console"; return; }
  session = await resp.json();
  document.getElementById("user").textContent = session.user;
  document.body.dataset.ready = "1";
  openStream("/events/public", render, (state) => {
    streamOk = state === "open";
    if (view) render(view);
  });
});
