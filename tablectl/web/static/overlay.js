// Broadcast overlay: hole cards from the delayed secure view, on a transparent background.
"use strict";

function renderOverlay(view) {
  applyDeckColours(view);
  const snap = view.snapshot;
  const players = clear(document.getElementById("players"));
  const label = document.getElementById("hand-label");
  const hand = snap && snap.hand ? "Hand #" + snap.hand.number : view.hand ? "Hand " + view.hand : "";
  label.textContent = hand ? hand + (snap && snap.game ? " \u00b7 " + (snap.game.label || "") : "") : "";
  const holecards = view.holecards || {};
  const seats = snap && snap.seats ? snap.seats.filter((s) => s.status !== "empty") : [];
  const bySeat = new Map(seats.map((s) => [String(s.seat), s]));
  Object.keys(holecards).forEach((k) => { if (!bySeat.has(k)) bySeat.set(k, { seat: parseInt(k, 10), name: "", status: "active" }); });
  const results = (snap && snap.results) || [];
  const odds = liveOdds(view.odds, snap);
  Array.from(bySeat.values()).sort((a, b) => a.seat - b.seat).forEach((s) => {
    let cards = holecards[String(s.seat)];
    if (!cards && s.cards) cards = s.cards.map((c) => c.card).filter(Boolean);
    if (!cards || !cards.length) return;
    const box = el("div", "hole status-" + s.status);
    box.dataset.seat = String(s.seat);
    const name = el("div", "hole-name");
    name.appendChild(el("span", "hole-seat", s.seat));
    name.appendChild(el("span", null, s.name || "Seat " + s.seat));
    const who = el("div", "hole-who");
    who.appendChild(name);
    const figures = statsOf(view.stats, s);
    if (figures) who.appendChild(statsEl(figures));
    box.appendChild(who);
    const row = el("div", "hole-cards");
    cards.forEach((c) => row.appendChild(cardEl(c, "lg")));
    box.appendChild(row);
    const chips = tournamentChips(s, snap);
    if (chips) box.appendChild(el("div", "hole-stack", chips));
    const mine = results.filter((r) => r.seat === s.seat && r.description);
    if (mine.length) box.appendChild(el("div", "hole-desc", mine.map((r) => r.description).join(" / ")));
    else if (s.status === "folded") box.appendChild(el("div", "hole-desc", "folded"));
    else if (odds.has(s.seat)) box.appendChild(oddsEl(odds.get(s.seat)));
    players.appendChild(box);
  });
  const board = clear(document.getElementById("board"));
  const several = snap && (snap.runs || snap.double_board);
  board.classList.toggle("runs", Boolean(several));
  if (several) {   // every run's (or board's) cards, one row each (docs/mqtt.md section 8.3)
    several.boards.forEach((cards, i) => {
      const row = el("div", "run-board");
      row.dataset.run = String(i + 1);
      cards.forEach((c) => row.appendChild(cardEl(c, "lg")));
      board.appendChild(row);
    });
  } else {
    ((snap && snap.board) || []).forEach((c) => board.appendChild(cardEl(c, "lg")));
  }
}

// At a tournament table: the seat's chips, how many big blinds they make and the seat's M,
// the orbits its stack lasts: stack / (small blind + big blind + the antes of one deal: the
// big-blind ante, or the ante times the seats dealt in) (docs/mqtt.md section 8.3,
// "tournament"); "" elsewhere.
function tournamentChips(seat, snap) {
  const st = snap && snap.stakes;
  const bb = st && st.big_blind;
  if (!snap || !snap.tournament || !bb || typeof seat.stack !== "number") return "";
  const blinds = seat.stack / bb;
  const figure = (x) => (x < 10 ? x.toFixed(1) : Math.floor(x).toLocaleString("en-US"));
  let text = seat.stack.toLocaleString("en-US") + " chips \u00b7 " + figure(blinds) + " BB";
  const dealt = (snap.seats || []).filter((s) => s.status !== "empty" && s.status !== "out").length;
  const antes = (st.big_blind_ante || 0) + (st.ante || 0) * dealt;
  const orbit = (st.small_blind || 0) + bb + antes;
  if (orbit > 0) text += " \u00b7 M " + figure(seat.stack / orbit);
  return text;
}

// The odds of each live seat, if they were computed on the board shown now (a board card
// released before its odds leaves the old figures out rather than showing them as current).
function liveOdds(odds, snap) {
  const out = new Map();
  if (!odds || !snap || !Array.isArray(odds.players)) return out;
  // a hand run more than once is valued on the board of one run (odds.run)
  const several = snap.runs || snap.double_board;
  const shown = odds.run && several ? several.boards[odds.run - 1] : snap.board;
  if (JSON.stringify(odds.board || []) !== JSON.stringify(shown || [])) return out;
  odds.players.forEach((p) => out.set(p.seat, p));
  return out;
}

// The floor's statistics of the player in this seat (docs/floor.md), already held back by the
// server for the broadcast delay; only when the seat still holds the player they are about.
function statsOf(stats, seat) {
  if (!stats || !Array.isArray(stats.players) || !seat.name) return null;
  return stats.players.find((p) => p.seat === seat.seat && p.name === seat.name) || null;
}

function statsEl(p) {
  const ratio = (r) => (r && r.percent !== null && r.percent !== undefined ? Math.round(r.percent) : "\u2013");
  const text = "VPIP " + ratio(p.vpip) + " \u00b7 PFR " + ratio(p.pfr) + " \u00b7 3-bet " + ratio(p.three_bet) +
    " \u00b7 WTSD " + ratio(p.wtsd) + " \u00b7 W$SD " + ratio(p.wsd) + " \u00b7 " + p.hands + (p.hands === 1 ? " hand" : " hands");
  return el("div", "hole-stats", text);
}

function pct(x) { return (100 * x).toFixed(1) + "%"; }

function oddsEl(p) {
  const box = el("div", "hole-odds");
  box.appendChild(el("span", "odds-win", pct(p.equity)));
  if (p.high !== undefined && p.high !== null) {
    box.appendChild(el("span", "odds-hilo", "Hi " + pct(p.high) + " \u00b7 Lo " + pct(p.low)));
  }
  return box;
}

document.addEventListener("DOMContentLoaded", () => {
  openStream("/events/overlay", renderOverlay, null);
});
