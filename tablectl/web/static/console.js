// The dealer console: the public view plus the controls of this login, each enabled only
// when the table would take it now (the snapshot's "commands", docs/mqtt.md 8.3, and the
// login's "allowed" from /api/session). Commands go via POST /api/cmd/{name}.
"use strict";

let session = null;
let view = null;
let streamOk = true;
let busy = false;
let entry = "";          // the amount being typed, in money ("12.5")
let entryKey = "";       // the decision it was typed for
let wagerLegal = null;   // the wager's legal entry ({kind, min, max}) or null

const FLOOR_ONLY = ["adjust_stack", "seat_player", "unseat_player", "kill_hand", "clear_error"];

function stakesNow() { return view && view.snapshot ? view.snapshot.stakes : null; }
function upc() { return unitsPerCurrency(stakesNow()); }
function allowed(name) { return Boolean(session && (session.allowed || []).indexOf(name) >= 0); }
function live() { return Boolean(view && !view.stale && !view.resyncing && streamOk); }

// Whether the table would take `name` now: the snapshot's commands.available; a daemon
// without it (older) is judged by its phase.
function available(name) {
  const snap = view && view.snapshot;
  if (!snap) return false;
  if (snap.commands) return snap.commands.available.indexOf(name) >= 0;
  const inHand = Boolean(snap.hand) && snap.phase !== "settled";
  switch (name) {
    case "start_hand": return snap.phase === "idle";
    case "next_hand": return snap.phase === "settled";
    case "action": return Boolean(snap.to_act) || snap.phase === "showdown";
    case "seat_player": case "unseat_player": case "adjust_stack": return !inHand;
    case "clear_error": return (snap.errors || []).length > 0;
    case "confirm_read": case "reject_read": case "recall": return true;
    case "run_it": return false;   // a daemon without commands has no run_it either
    default: return inHand;
  }
}

function offered(name) { return allowed(name) && (name === "recall" || (live() && available(name))); }

function showReply(name, reply) {
  const node = document.getElementById("reply");
  const ok = reply && reply.ok === true;
  node.className = "reply " + (ok ? "reply-ok" : "reply-error");
  node.dataset.command = name;
  node.dataset.ok = String(ok);
  const err = (reply && reply.error) || {};
  node.textContent = ok
    ? "\u2713 " + name.replace(/_/g, " ") + " done"
    : "\u2717 " + name.replace(/_/g, " ") + ": " + (err.reason || err.code || "failed") +
      (err.code ? " [" + err.code + "]" : "");
  return ok;
}

async function send(name, args) {
  if (!session || busy) return null;
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
  if (view) render(view);
  return reply;
}

// Buttons with data-confirm need a second tap within 3 s (touch-friendly, no dialogs).
function confirmTap(button) {
  if (!button.dataset.confirm) return true;
  if (button.dataset.armed === "1") {
    button.dataset.armed = "";
    setLabel(button, button.dataset.label);
    return true;
  }
  button.dataset.label = labelOf(button);
  button.dataset.armed = "1";
  setLabel(button, button.dataset.confirm);
  setTimeout(() => {
    if (button.dataset.armed === "1") { button.dataset.armed = ""; setLabel(button, button.dataset.label); }
  }, 3000);
  return false;
}

function labelOf(button) {
  const label = button.querySelector(".label");
  return label ? label.textContent : button.textContent;
}

// A button's text with its keyboard shortcut shown beside it (<kbd>).
function setLabel(button, text) {
  clear(button);
  button.appendChild(el("span", "label", text));
  if (button.dataset.key) button.appendChild(el("kbd", "key", button.dataset.key));
}

// A command button: its label, the arguments it sends (data-args: what a test can send
// directly) and whether it is enabled now.
function setCommand(button, label, args, enabled) {
  const shown = label + "|" + (button.dataset.key || "");
  if (button.dataset.armed !== "1" && button.dataset.shown !== shown) {
    setLabel(button, label);
    button.dataset.shown = shown;
  }
  button.dataset.args = JSON.stringify(args || {});
  button.disabled = !enabled;
}

// --- the amount: typed in money, sent in chip units ------------------------------------------

function entryUnits() {
  if (!/^\d+(\.\d{0,2})?$/.test(entry)) return null;
  return Math.round(parseFloat(entry) * upc());
}

function unitsText(units) {
  const value = units / upc();
  return upc() === 1 || Number.isInteger(value) ? String(value) : value.toFixed(2);
}

function setEntry(text) {
  entry = text;
  document.getElementById("amount").value = entry;
  if (view) renderActions(view.snapshot);
}

function press(key) {
  if (key === "clear") setEntry("");
  else if (key === "back") setEntry(entry.slice(0, -1));
  else if (key === ".") { if (upc() > 1 && entry.indexOf(".") < 0) setEntry((entry || "0") + "."); }
  else if (/^\d$/.test(key)) {
    const next = entry === "0" ? key : entry + key;
    if (/^\d{0,9}(\.\d{0,2})?$/.test(next)) setEntry(next);
  }
}

// Quick sizes from the snapshot: pot = collected pots + this street's bets; a pot-sized
// raise calls, then raises by the pot after the call. Clamped to the legal min..max.
function quickSize(which) {
  const snap = view && view.snapshot;
  if (!snap || !wagerLegal) return;
  const seats = snap.seats || [];
  const me = seats.find((s) => snap.to_act && s.seat === snap.to_act.seat) || { bet: 0 };
  const highest = Math.max(0, ...seats.map((s) => s.bet || 0));
  const total = (snap.pots || []).reduce((a, p) => a + p.amount, 0) + seats.reduce((a, s) => a + (s.bet || 0), 0);
  const call = highest - (me.bet || 0);
  let to = wagerLegal.min;
  if (which === "max") to = wagerLegal.max;
  else if (which === "pot") to = highest + total + call;
  else if (which === "half") to = highest + Math.floor((total + call) / 2);
  to = Math.min(wagerLegal.max, Math.max(wagerLegal.min, to));
  setEntry(unitsText(to));
}

// --- rendering -------------------------------------------------------------------------------

function title(kind) {
  const t = kind.replace(/_/g, "-");
  return t[0].toUpperCase() + t.slice(1);
}

function renderActions(snap) {
  const toAct = snap && snap.to_act;
  const legal = (toAct && toAct.legal) || [];
  const find = (k) => legal.find((l) => l.kind === k);
  const can = offered("action") && Boolean(toAct);
  const seat = toAct ? toAct.seat : null;
  // the arguments each slot sends (no seat when nobody is to act: the daemon's own choice)
  const args = (kind, extra) => Object.assign(seat === null ? {} : { seat: seat }, { kind: kind }, extra || {});
  const stakes = snap && snap.stakes;
  const heading = document.getElementById("to-act");
  const showdown = Boolean(snap) && !toAct && snap.phase === "showdown";
  heading.textContent = toAct ? seatName(snap, seat) + " (seat " + seat + ") to act"
    : showdown ? "Showdown \u2013 show or muck" : "No one to act";

  const fold = find("fold");
  setCommand(document.getElementById("act-fold"), "Fold", args("fold"), can && Boolean(fold));
  const passive = find("check") || find("call") || find("bring_in") || { kind: "check" };
  const passiveButton = document.getElementById("act-check-call");
  passiveButton.className = "btn btn-act act-" + passive.kind;
  passiveButton.dataset.kind = passive.kind;
  // a call or bring-in names its amount: refused if the table moved on meanwhile
  const passiveArgs = args(passive.kind, passive.amount !== undefined ? { amount: passive.amount } : null);
  setCommand(passiveButton, title(passive.kind) + (passive.amount ? " " + money(passive.amount, stakes) : ""),
    passiveArgs, can && legal.indexOf(passive) >= 0);

  const wager = find("bet") || find("raise") || find("complete") || null;
  const base = (snap && snap.pots && snap.pots.length) || (snap && (snap.seats || []).some((s) => s.bet)) ? "raise" : "bet";
  const wkind = wager ? wager.kind : base;
  const wagerButton = document.getElementById("act-bet-raise");
  wagerButton.className = "btn btn-act act-" + wkind;
  wagerButton.dataset.kind = wkind;
  wagerButton.dataset.key = wkind === "bet" ? "B" : "R";
  wagerLegal = can ? wager : null;
  const box = document.getElementById("wager");
  box.hidden = !wagerLegal;
  let units = null;
  if (wagerLegal) {
    // a new decision (another seat, street or hand) starts from the minimum
    const key = [snap.hand && snap.hand.id, snap.street, seat, wkind, wager.min].join("|");
    if (key !== entryKey) { entryKey = key; entry = unitsText(wager.min); }
    const input = document.getElementById("amount");
    if (document.activeElement !== input) input.value = entry;
    units = entryUnits();
    document.getElementById("amount-label").textContent = title(wkind) + (wkind === "bet" ? "" : " to");
    document.getElementById("amount-currency").textContent = money(0, stakes).replace(/[\d.,\s]/g, "") || "";
    document.getElementById("amount-range").textContent = "min " + money(wager.min, stakes) +
      " \u00b7 max " + money(wager.max, stakes);
    document.getElementById("pad-dot").disabled = upc() === 1;
  }
  const inRange = units !== null && wagerLegal && units >= wagerLegal.min && units <= wagerLegal.max;
  const wlabel = title(wkind) + (wkind === "bet" ? " " : " to ") + (units !== null ? money(units, stakes) : "\u2026");
  setCommand(wagerButton, wagerLegal ? wlabel : title(wkind),
    args(wkind, { amount: units !== null ? units : (wager ? wager.min : 0) }),
    Boolean(wagerLegal) && Boolean(inRange));
  wagerButton.title = wagerLegal && !inRange ? "between " + money(wagerLegal.min, stakes) + " and " + money(wagerLegal.max, stakes) : "";

  document.getElementById("showdown-row").hidden = !showdown;
  const canShow = showdown && offered("action");
  setCommand(document.getElementById("act-show"), "Show", { kind: "show" }, canShow);
  setCommand(document.getElementById("act-muck"), "Muck", { kind: "muck" }, canShow);
}

function undoText(snap) {
  const undo = snap && snap.commands && snap.commands.undo;
  if (!undo) return "Undo";
  if (undo.kind === "run_it") return "Undo: run it " + undo.count + " times";
  const seat = (snap.seats || []).find((s) => s.seat === undo.seat);
  const who = seat && seat.name ? seat.name : "seat " + undo.seat;
  const to = undo.kind === "bet" || undo.kind === "raise" || undo.kind === "complete";
  return "Undo: " + who + " " + undo.kind.replace(/_/g, "-") +
    (undo.amount !== undefined ? (to ? " to " : " ") + money(undo.amount, snap.stakes) : "");
}

function renderHandRow(snap) {
  const simple = [["cmd-start-hand", "start_hand", "Start hand"], ["cmd-next-hand", "next_hand", "Next hand"],
    ["cmd-undo", "undo", undoText(snap)], ["cmd-misdeal", "misdeal", "Misdeal"], ["cmd-kill-hand", "kill_hand", "Kill hand"]];
  simple.forEach(([id, name, label]) => setCommand(document.getElementById(id), label, {}, offered(name)));
  // run it twice (docs/mqtt.md section 8.4, run_it): offered once no betting remains before
  // the run-out, where the house allows it; the table refuses a count it does not allow
  setCommand(document.getElementById("cmd-run-twice"), "Run it twice", { count: 2 }, offered("run_it"));
  setCommand(document.getElementById("cmd-run-three"), "Run it three times", { count: 3 }, offered("run_it"));
  renderFormats(snap);
  document.getElementById("cmd-manual-card").disabled = !offered("manual_card");
  document.getElementById("cmd-seat-player").disabled = !offered("seat_player");
  document.getElementById("cmd-unseat-player").disabled = !offered("unseat_player");
  document.getElementById("cmd-adjust-stack").disabled = !offered("adjust_stack");
  document.getElementById("cmd-recall").disabled = !offered("recall");
}

// Bomb pots and double boards (docs/mqtt.md section 8.3, commands.formats): start_hand with
// {bomb} (the ante typed in money, else the house's most) or {double_board: true}, shown
// only where the house deals them and enabled when start_hand would be taken.
function renderFormats(snap) {
  const formats = snap && snap.commands && snap.commands.formats;
  const row = document.getElementById("formats");
  row.hidden = !(formats && allowed("start_hand"));
  const bomb = document.getElementById("cmd-start-bomb");
  const double = document.getElementById("cmd-start-double");
  const most = formats ? formats.max_bomb_pot : 0;
  const typed = formats ? unitsOf("bomb-amount") : null;
  const ante = typed !== null && typed > 0 && typed <= most ? typed : most;
  const wrong = document.getElementById("bomb-amount").value.trim() !== "" && ante !== typed;
  bomb.hidden = !most;
  setCommand(bomb, "Bomb pot " + money(ante, snap ? snap.stakes : null), { bomb: ante },
    Boolean(most) && !wrong && offered("start_hand"));
  bomb.title = wrong ? "a bomb pot of up to " + money(most, snap ? snap.stakes : null) : "";
  double.hidden = !(formats && formats.double_board);
  setCommand(double, "Double board", { double_board: true },
    Boolean(formats && formats.double_board) && offered("start_hand"));
}

// Dealer's choice (docs/mqtt.md section 8.4, choose_game): a button per game of the rotation,
// enabled while the table waits for the dealer's choice; the rotation's banner above.
function renderChooseGame(snap) {
  const rot = snap && snap.rotation;
  const banner = document.getElementById("rotation");
  banner.textContent = rotationText(snap);
  banner.hidden = !banner.textContent;
  const node = document.getElementById("choose-game");
  node.hidden = !(rot && rot.dealers_choice && allowed("choose_game"));
  if (node.hidden) { clear(node); return; }
  const games = rot.games.map((g) => g.variant + ":" + g.structure);
  if (node.dataset.games !== games.join(",")) {
    clear(node);
    node.dataset.games = games.join(",");
    node.appendChild(el("span", "choose-label", "Dealer's choice:"));
    rot.games.forEach((g, i) => {
      const b = el("button", "btn btn-small");
      b.type = "button";
      b.dataset.cmd = "choose_game";
      b.dataset.game = games[i];
      b.addEventListener("click", () => send("choose_game", { game: games[i] }));
      node.appendChild(b);
    });
  }
  node.querySelectorAll("button").forEach((b, i) =>
    setCommand(b, rot.games[i].label, { game: games[i] }, offered("choose_game")));
}

function renderReads(snap) {
  const node = clear(document.getElementById("reads"));
  ((snap && snap.errors) || []).forEach((e) => {
    const row = el("div", "read-row");
    row.appendChild(el("span", "read-msg", e.message || e.code));
    // A doubtful read is a "doubtful_read" error whose message names the held read:
    // "read {id} needs confirmation: ..." (the public snapshot has no other field for it).
    const held = e.code === "doubtful_read" && /^read (\S+) needs confirmation/.exec(e.message || "");
    const add = (label, cls, name, args) => {
      if (!allowed(name)) return;
      const b = el("button", "btn btn-small " + cls);
      b.type = "button";
      b.dataset.cmd = name;
      setCommand(b, label, args, offered(name));
      b.addEventListener("click", () => send(name, args));
      row.appendChild(b);
    };
    if (held) {
      add("Confirm", "btn-go", "confirm_read", { read: held[1] });
      add("Reject", "btn-danger", "reject_read", { read: held[1] });
    } else {
      add("Clear", "", "clear_error", { code: e.code });
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
  // run waits for its snapshot either; nothing is offered then.
  const notLive = !live();
  document.body.classList.toggle("stale", notLive);
  const pill = document.getElementById("live");
  pill.textContent = !streamOk ? "no server" : v.stale ? (v.status === "offline" ? "OFFLINE" : "stale")
    : v.resyncing ? "resyncing" : "live";
  pill.className = "live-pill " + (notLive ? "pill-stale" : "pill-live");
  document.getElementById("table-name").textContent = (session && session.table_name) || v.title || v.table;
  document.getElementById("hand-no").textContent = snap && snap.hand ? "Hand #" + snap.hand.number : "Between hands";
  document.getElementById("phase").textContent = snap ? [snap.phase, snap.street].filter(Boolean).join(" \u00b7 ") : "";
  renderBanners(document.getElementById("banners"), v, streamOk);
  renderBoard(document.getElementById("board"), snap, "lg");
  renderPots(document.getElementById("pots"), snap);
  renderResults(document.getElementById("results"), snap);
  renderSeatRows(snap);
  renderActions(snap);
  renderHandRow(snap);
  renderChooseGame(snap);
  renderReads(snap);
}

// --- wiring ----------------------------------------------------------------------------------

function intOf(id) {
  const v = parseInt(document.getElementById(id).value, 10);
  return Number.isFinite(v) ? v : null;
}

// Money typed in a field ("-5", "12.50") in chip units, or null.
function unitsOf(id) {
  const text = document.getElementById(id).value.trim();
  if (!/^[+-]?\d+(\.\d{0,2})?$/.test(text)) return null;
  return Math.round(parseFloat(text) * upc());
}

function clickCommand(button) {
  if (button.disabled || !confirmTap(button)) return;
  send(button.dataset.cmd, JSON.parse(button.dataset.args || "{}"));
}

function wire() {
  document.querySelectorAll("[data-cmd]").forEach((b) => {
    setLabel(b, labelOf(b));
    b.addEventListener("click", () => clickCommand(b));
  });
  document.querySelectorAll("[data-pad]").forEach((b) => b.addEventListener("click", () => press(b.dataset.pad)));
  [["size-min", "min"], ["size-half", "half"], ["size-pot", "pot"], ["size-max", "max"]].forEach(([id, which]) =>
    document.getElementById(id).addEventListener("click", () => quickSize(which)));
  const amount = document.getElementById("amount");
  amount.addEventListener("input", () => { entry = amount.value.trim(); if (view) renderActions(view.snapshot); });
  document.getElementById("bomb-amount").addEventListener("input", () => { if (view) renderFormats(view.snapshot); });
  const on = (id, handler) => {
    const b = document.getElementById(id);
    b.addEventListener("click", () => { if (!b.disabled && confirmTap(b)) handler(); });
  };
  on("cmd-manual-card", () => {
    const card = document.getElementById("manual-card").value.trim();
    const where = document.getElementById("manual-target").value;
    const args = { card: card };
    if (where === "board") args.board = true; else args.seat = parseInt(where, 10);
    send("manual_card", args);
  });
  on("cmd-seat-player", () => send("seat_player", {
    seat: intOf("p-seat"), name: document.getElementById("p-name").value.trim(), stack: unitsOf("p-stack"),
  }));
  on("cmd-unseat-player", () => send("unseat_player", { seat: intOf("p-seat") }));
  on("cmd-adjust-stack", () => send("adjust_stack", {
    seat: intOf("p-seat"), amount: unitsOf("adj-amount"), reason: document.getElementById("adj-reason").value.trim(),
  }));
  on("cmd-recall", async () => {
    const reply = await send("recall", { hands: intOf("recall-hands") || 1 });
    const out = document.getElementById("recall-out");
    out.textContent = reply && reply.ok ? (reply.result.text || []).join("\n") || "No hands yet." : "";
  });
  document.getElementById("logout").addEventListener("click", async () => {
    await fetch("/logout", { method: "POST", credentials: "same-origin", headers: { "X-CSRF-Token": session ? session.csrf : "" } });
    location.href = "/login";
  });
  document.addEventListener("keydown", onKey);
}

// Keyboard: F fold, C check/call (show at a showdown), B/R the amount, Enter sends the bet
// or raise, U undo, N next hand, S start hand; digits, "." and Backspace type the amount.
// Not while typing in another field (card, name, reason...).
function onKey(ev) {
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const target = ev.target;
  const amount = document.getElementById("amount");
  const typing = target && (target.tagName === "INPUT" || target.tagName === "SELECT") && target !== amount;
  if (typing) return;
  const key = ev.key.length === 1 ? ev.key.toUpperCase() : ev.key;
  const showdown = !document.getElementById("showdown-row").hidden;
  const click = (id) => { ev.preventDefault(); clickCommand(document.getElementById(id)); };
  if (key === "Enter") { click("act-bet-raise"); return; }
  if (target === amount) return;  // the field types its own digits
  if (/^[0-9.]$/.test(key)) { ev.preventDefault(); press(key); return; }
  if (key === "Backspace") { ev.preventDefault(); press("back"); return; }
  switch (key) {
    case "F": click(showdown ? "act-muck" : "act-fold"); break;
    case "C": click(showdown ? "act-show" : "act-check-call"); break;
    case "B": case "R": ev.preventDefault(); if (wagerLegal) { amount.focus(); amount.select(); } break;
    case "U": click("cmd-undo"); break;
    case "N": click("cmd-next-hand"); break;
    case "S": click("cmd-start-hand"); break;
    default:
  }
}

function applyRole() {
  // Controls of commands this login may not send are not shown at all (floor-only ones for
  // a dealer login); the rest are disabled until the table would take them.
  document.querySelectorAll("[data-needs], [data-cmd]").forEach((node) => {
    const name = node.dataset.needs || node.dataset.cmd;
    node.hidden = FLOOR_ONLY.indexOf(name) >= 0 && !allowed(name);
  });
  const noRole = document.getElementById("no-role");
  noRole.hidden = !session.commands || (session.allowed || []).length > 0;
  noRole.textContent = "This console sends as broker user \u201c" + (session.command_user || "?") +
    "\u201d, which has no role at this table: nothing can be sent. Add it to [access.roles] " +
    "(docs/web.md) and restart tablectl web.";
}

document.addEventListener("DOMContentLoaded", async () => {
  const resp = await fetch("/api/session", { credentials: "same-origin" });
  if (resp.status !== 200) { location.href = "/login?next=/console"; return; }
  session = await resp.json();
  wire();
  applyRole();
  document.getElementById("user").textContent = session.user + " (" + session.role + ")";
  document.body.dataset.ready = "1";
  openStream("/events/public", render, (state) => {
    streamOk = state === "open";
    if (view) render(view);
  });
});
