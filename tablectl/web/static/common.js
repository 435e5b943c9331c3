// Shared by every page: cards, money, seat names, the event stream. No framework, no build.
// Everything from the table is inserted with textContent, never as HTML.
"use strict";

const SUIT_SYMBOL = { s: "\u2660", h: "\u2665", d: "\u2666", c: "\u2663" };
const SUIT_NAME = { s: "spades", h: "hearts", d: "diamonds", c: "clubs" };
const CURRENCY_SYMBOL = { USD: "$", EUR: "\u20ac", GBP: "\u00a3", CAD: "$", AUD: "$" };

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

// A card face ("Ah", "Td") or a card back (null).
function cardEl(code, size) {
  const card = el("div", "card" + (size ? " card-" + size : ""));
  if (!code || typeof code !== "string" || code.length < 2) {
    card.classList.add("back");
    card.setAttribute("aria-label", "hidden card");
    card.dataset.card = "";
    return card;
  }
  const rank = code.slice(0, -1).toUpperCase();
  const suit = code.slice(-1).toLowerCase();
  card.classList.add("suit-" + suit);
  card.dataset.card = rank + suit;
  card.setAttribute("aria-label", (rank === "T" ? "10" : rank) + " of " + (SUIT_NAME[suit] || suit));
  card.appendChild(el("span", "rank", rank === "T" ? "10" : rank));
  card.appendChild(el("span", "suit", SUIT_SYMBOL[suit] || "?"));
  return card;
}

// One money format per table (docs/web.md): cents are shown or not as the table's stakes
// decide, never per amount, so its stakes read "$1/$2" (or "$0.50/$1.00") on every hand and
// every page. At a table whose stakes are whole units an amount that is not (an odd chip of a
// split pot) still shows its cents: a display never rounds money. Each page's render calls
// setMoneyFormat(view) before drawing.
let moneyCents = false;

const STAKE_AMOUNTS = ["small_blind", "big_blind", "ante", "bring_in", "small_bet", "big_bet", "straddle"];

function unitsPerCurrency(stakes) {
  return (stakes && stakes.units_per_currency) || 100;
}

// Whether a table's stakes need cents: one of its forced bets or bet sizes is not whole.
function stakesNeedCents(stakes) {
  const upc = unitsPerCurrency(stakes);
  if (upc === 1 || !stakes) return false;
  return STAKE_AMOUNTS.some((k) => typeof stakes[k] === "number" && stakes[k] % upc !== 0);
}

function setMoneyFormat(view) {
  const snap = view && view.snapshot;
  moneyCents = stakesNeedCents(snap && snap.stakes);
}

function money(amount, stakes) {
  if (typeof amount !== "number") return "";
  const upc = unitsPerCurrency(stakes);
  const cur = (stakes && stakes.currency) || "USD";
  const sym = CURRENCY_SYMBOL[cur];
  const value = amount / upc;
  // an amount that is not whole still shows its cents (never rounded)
  const text = moneyCents || !Number.isInteger(value)
    ? value.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })
    : value.toLocaleString("en-US");
  return sym ? sym + text : text + " " + cur;
}

function seatName(snapshot, seatNo) {
  const seats = (snapshot && snapshot.seats) || [];
  const seat = seats.find((s) => s.seat === seatNo);
  return seat && seat.name ? seat.name : "Seat " + seatNo;
}

const FORCED = {
  small_blind: "posts the small blind", big_blind: "posts the big blind", ante: "posts an ante",
  big_blind_ante: "posts the big blind ante", straddle: "straddles", bring_in: "brings in",
};

const VERBS = {
  fold: "folds", check: "checks", call: "calls", bet: "bets", raise: "raises to",
  all_in: "is all-in for", complete: "completes to", bring_in: "brings in",
  small_blind: "posts small blind", big_blind: "posts big blind", straddle: "straddles",
  ante: "antes",
};

// One line of the action log for an event of the public stream.
function describeEvent(ev, snapshot) {
  const stakes = snapshot && snapshot.stakes;
  const who = (seat) => seatName(snapshot, seat);
  switch (ev.type) {
    case "hand_started": {
      const hand = ev.hand && typeof ev.hand === "object" ? ev.hand.number : ev.hand;
      return "Hand #" + (hand === undefined ? "?" : hand) + " started";
    }
    case "forced_bet":
      return who(ev.seat) + " " + (FORCED[ev.kind] || "posts " + String(ev.kind).replace(/_/g, " ")) +
        " " + money(ev.amount, stakes);
    case "action": {
      // amount: chips this action put in; to: the seat's bet this street after it.
      const total = ev.kind === "bet" || ev.kind === "raise" || ev.kind === "complete";
      const shown = total ? ev.to : ev.amount;
      const amount = shown ? " " + money(shown, stakes) : "";
      return who(ev.seat) + " " + (VERBS[ev.kind] || String(ev.kind).replace(/_/g, " ")) + amount +
        (ev.all_in ? " (all-in)" : "");
    }
    case "bet_returned":
      return money(ev.amount, stakes) + " returned to " + who(ev.seat);
    case "board":
      // each board event carries the whole board so far (null: a card nobody read); of its
      // run in a hand run more than once
      return (ev.run || ev.board ? (ev.run ? "Run " : "Board ") + (ev.run || ev.board) + " " + (ev.street || "board") :
        ev.street ? ev.street[0].toUpperCase() + ev.street.slice(1) : "Board") + ": " +
        (ev.cards || []).map((c) => c || "?").join(" ");
    case "runs":
      return "Run it " + (ev.count === 2 ? "twice" : ev.count === 3 ? "three times" : ev.count + " times");
    case "correction":
      return "Correction: " + (ev.kind || "").replace(/_/g, " ") + (ev.by ? " by " + ev.by : "");
    case "seat":
      if (ev.change === "adjusted" && ev.reason === "rebuy") {
        return who(ev.seat) + " rebuys " + money(ev.amount, stakes);
      }
      return who(ev.seat) + " " + (ev.change || "changed") + " (" + money(ev.stack, stakes) + ")";
    case "face_up":
      return who(ev.seat) + " turns up " + (ev.cards || []).join(" ") + " (all-in)";
    case "showdown":
      return who(ev.seat) + " shows " + (ev.cards || []).join(" ") + (ev.run ? " (run " + ev.run + ")" : "") +
        (ev.board ? " (board " + ev.board + ")" : "") +
        (ev.high ? " \u2013 " + ev.high : "") + (ev.low ? " / " + ev.low : "");
    case "winner":
      return who(ev.seat) + " wins " + money(ev.amount, stakes) + (ev.run ? " on run " + ev.run : "") +
        (ev.board ? " on board " + ev.board : "") +
        (ev.half && ev.half !== "whole" ? " (" + ev.half + ")" : "") +
        (ev.description ? " \u2013 " + ev.description : "");
    case "hand_ended":
      return ev.result && ev.result !== "settled" ? "Hand void (" + ev.result + ")" : "Hand over";
    case "error":
      return (ev.active === false ? "Cleared: " : "Error: ") + (ev.message || ev.code);
    case "device":
      return "Device " + ev.name + " " + ev.status;
    default:
      return ev.type;
  }
}

function stakesText(snapshot) {
  const st = snapshot && snapshot.stakes;
  if (!st) return "";
  if (st.small_blind || st.big_blind) return money(st.small_blind, st) + "/" + money(st.big_blind, st);
  if (st.small_bet) return money(st.small_bet, st) + "/" + money(st.big_bet, st);
  return "";
}

// Four-colour deck: ?deck=4 or ?deck=2 overrides the server's default.
function applyDeckColours(view) {
  const param = new URLSearchParams(location.search).get("deck");
  const four = param ? param === "4" : Boolean(view && view.four_colour);
  document.body.classList.toggle("four-colour", four);
}

// Open an SSE stream; onView(view) gets each complete view, onState("open"|"error").
function openStream(path, onView, onState) {
  const source = new EventSource(path);
  source.onopen = () => onState && onState("open");
  source.onerror = () => onState && onState("error");
  source.onmessage = (msg) => {
    let view;
    try { view = JSON.parse(msg.data); } catch (e) { return; }
    onView(view);
  };
  return source;
}

// The public board: five places for flop games, the cards dealt so far.
function boardRow(node, board, size, isStud) {
  board.forEach((c) => node.appendChild(cardEl(c, size)));
  if (!isStud) {
    for (let i = board.length; i < 5; i++) node.appendChild(el("div", "card slot" + (size ? " card-" + size : "")));
  }
}

// The board; a hand run more than once (snapshot.runs, docs/mqtt.md section 8.3) shows every
// run's board, one labelled row each, run 1 first; a double-board hand its two boards.
function renderBoard(node, snapshot, size) {
  clear(node);
  const variant = (snapshot && snapshot.game && snapshot.game.variant) || "";
  const isStud = variant.indexOf("stud") >= 0 || variant === "razz";
  const double = snapshot && snapshot.double_board;
  const runs = (snapshot && snapshot.runs) || (double ? { count: 2, boards: double.boards } : null);
  const word = double ? "Board " : "Run ";
  node.classList.toggle("runs", Boolean(runs));
  if (runs) node.dataset.runs = String(runs.count); else delete node.dataset.runs;
  if (!runs) {
    boardRow(node, (snapshot && snapshot.board) || [], size, isStud);
    return;
  }
  (runs.boards || []).forEach((board, i) => {
    const row = el("div", "run-board");
    row.dataset.run = String(i + 1);
    row.appendChild(el("span", "run-label", word + (i + 1)));
    boardRow(row, board || [], size, isStud);
    node.appendChild(row);
  });
}

function renderPots(node, snapshot) {
  clear(node);
  const pots = (snapshot && snapshot.pots) || [];
  pots.forEach((pot, i) => {
    const row = el("div", "pot" + (i === 0 ? " main-pot" : " side-pot"));
    row.dataset.amount = String(pot.amount);
    row.appendChild(el("span", "pot-label", i === 0 ? "Main pot" : "Side pot " + i));
    row.appendChild(el("span", "pot-amount", money(pot.amount, snapshot.stakes)));
    if (i > 0 && pot.eligible) {
      row.appendChild(el("span", "pot-eligible", pot.eligible.map((s) => seatName(snapshot, s)).join(", ")));
    }
    node.appendChild(row);
  });
}

function halfLabel(half) {
  return half === "high" ? "High" : half === "low" ? "Low" : "";
}

function renderResults(node, snapshot) {
  clear(node);
  const results = (snapshot && snapshot.results) || [];
  // Name the pot when there are several; a settled snapshot no longer lists the pots, so
  // the awards' own pot numbers tell too.
  // (no snapshot: a new run or a reset view, nothing to show; this must not throw, or the
  // rest of the page would keep the last table's leftovers)
  const severalPots = (snapshot && snapshot.pots && snapshot.pots.length > 1) || results.some((r) => r.pot > 0);
  results.forEach((r) => {
    const row = el("div", "result result-" + (r.half || "whole"));
    row.dataset.seat = String(r.seat);
    row.dataset.amount = String(r.amount);
    row.dataset.pot = String(r.pot);
    row.dataset.half = r.half || "whole";
    const head = el("div", "result-head");
    head.appendChild(el("span", "result-name", seatName(snapshot, r.seat)));
    head.appendChild(el("span", "result-verb", " wins "));
    head.appendChild(el("span", "result-amount", money(r.amount, snapshot.stakes)));
    const half = halfLabel(r.half);
    if (half) head.appendChild(el("span", "result-half half-" + r.half, half));
    if (severalPots) {
      head.appendChild(el("span", "result-pot", r.pot === 0 ? "main pot" : "side pot " + r.pot));
    }
    if (r.run || r.board) {
      row.dataset.run = String(r.run || r.board);
      head.appendChild(el("span", "result-run", (r.run ? "run " : "board ") + (r.run || r.board)));
    }
    row.appendChild(head);
    if (r.description) row.appendChild(el("div", "result-desc", r.description));
    if (r.cards && r.cards.length) {
      const cards = el("div", "result-cards");
      r.cards.forEach((c) => cards.appendChild(cardEl(c, "sm")));
      row.appendChild(cards);
    }
    node.appendChild(row);
  });
}

// Banners: stale state, reader offline, errors waiting for the dealer.
function renderBanners(node, view, streamOk) {
  clear(node);
  const snap = view && view.snapshot;
  const add = (cls, text) => node.appendChild(el("div", "banner " + cls, text));
  if (!streamOk) add("banner-stale", "No connection to the display server \u2013 retrying\u2026");
  else if (!view || !view.connected) add("banner-stale", "Display server has no broker connection \u2013 last known state");
  else if (view.status === "offline") add("banner-stale", "Table controller OFFLINE \u2013 last known state, not live");
  else if (!snap) add("banner-stale", "Waiting for the table\u2026");
  else if (view.resyncing) add("banner-info", "Resynchronising\u2026");
  if (!snap) return;
  (snap.devices || []).filter((d) => d.status !== "online").forEach((d) => {
    add("banner-error", "Reader " + (d.status === "incompatible" ? "incompatible" : "offline")
      + ": " + (d.name || d.kind) + (d.detail ? " \u2013 " + d.detail : ""));
  });
  const errors = snap.errors || [];
  errors.forEach((e) => add("banner-error", e.message || e.code));
  if (errors.length || snap.phase === "fault") add("banner-wait", "Waiting for the dealer");
}

// A tournament table's level (docs/mqtt.md section 8.3, "tournament"): the level, whether it
// starts with the next hand, hand for hand, and whether the table is sure of it; "" at a
// table that follows no tournament.
function tournamentText(snap) {
  const t = snap && snap.tournament;
  if (!t) return "";
  const parts = [];
  if (t.level && typeof t.level.label === "string") {
    const label = t.level.label.charAt(0).toUpperCase() + t.level.label.slice(1);
    parts.push(t.pending ? label + " from the next hand" : label);
  } else {
    parts.push("Tournament " + t.id);
  }
  if (t.hand_for_hand) {
    parts.push(t.waiting ? "HAND FOR HAND: waiting for the other tables" : "HAND FOR HAND");
  }
  if (t.link === "stale" || t.link === "link_down") {
    parts.push("tournament clock not updating: playing the last level known");
  } else if (t.link === "no_status") {
    parts.push("no tournament clock yet");
  }
  return parts.join(" \u00b7 ");
}

// A mixed game's rotation: the game now, the hands left in it, the next game, where the frozen
// button resumes (docs/mqtt.md section 8.3, "rotation"); "" at a table dealing one game.
function rotationText(snap) {
  const rot = snap && snap.rotation;
  if (!rot) return "";
  const name = rot.name ? rot.name.toUpperCase() : "Mixed games";
  if (rot.choosing) return name + ": dealer's choice \u2014 the dealer picks the next game";
  const left = rot.hands_left;
  let text = name + ": " + (rot.game ? rot.game.label : "") + ", " + left +
    (left === 1 ? " hand" : " hands") + " left";
  text += rot.next ? "; next " + rot.next.label : "; then the dealer's choice";
  if (Number.isInteger(rot.frozen_button)) text += "; button frozen on seat " + rot.frozen_button;
  return text;
}
