// The public table display: renders each view of /events/public.
"use strict";

let streamOk = true;
let lastView = null;

function renderSeats(node, snapshot) {
  clear(node);
  if (!snapshot) return;
  const toAct = snapshot.to_act ? snapshot.to_act.seat : null;
  const winners = new Set((snapshot.results || []).map((r) => r.seat));
  (snapshot.seats || []).filter((s) => s.status !== "empty").forEach((s) => {
    const box = el("div", "seat status-" + s.status);
    box.dataset.seat = String(s.seat);
    if (s.seat === toAct) box.classList.add("to-act");
    if (winners.has(s.seat)) box.classList.add("winner");
    const head = el("div", "seat-head");
    head.appendChild(el("span", "seat-no", s.seat));
    head.appendChild(el("span", "seat-name", s.name || "Seat " + s.seat));
    if (snapshot.button === s.seat) head.appendChild(el("span", "dealer-button", "D"));
    box.appendChild(head);
    // three or more cards (Omaha, stud): smaller face-up cards, so four fit one row
    const cards = el("div", "seat-cards" + ((s.cards || []).length > 2 ? " many" : ""));
    (s.cards || []).forEach((c) => cards.appendChild(cardEl(c.card, "sm")));
    box.appendChild(cards);
    const foot = el("div", "seat-foot");
    foot.appendChild(el("span", "seat-stack", money(s.stack, snapshot.stakes)));
    if (s.bet) foot.appendChild(el("span", "seat-bet", money(s.bet, snapshot.stakes)));
    if (s.status === "folded") foot.appendChild(el("span", "badge badge-folded", "FOLDED"));
    if (s.status === "all_in") foot.appendChild(el("span", "badge badge-allin", "ALL-IN"));
    if (s.status === "out") foot.appendChild(el("span", "badge badge-out", "SITTING OUT"));
    box.appendChild(foot);
    node.appendChild(box);
  });
}

function render(view) {
  lastView = view;
  setMoneyFormat(view);
  applyDeckColours(view);
  const snap = view.snapshot;
  // Live only when the view is the table's state: the server's stream is up, the daemon's run
  // is online, and no gap or new run is waiting for its snapshot (docs/mqtt.md section 9.1).
  const notLive = Boolean(view.stale) || Boolean(view.resyncing) || !streamOk;
  document.body.classList.toggle("stale", notLive);
  const live = document.getElementById("live");
  live.textContent = !streamOk ? "no server" : view.stale ? (view.status === "offline" ? "OFFLINE" : "stale")
    : view.resyncing ? "resyncing" : "live";
  live.className = "live-pill " + (notLive ? "pill-stale" : "pill-live");
  document.body.dataset.run = view.run ? view.run.journal + ":" + view.run.epoch + ":" + view.run.seq : "";
  document.getElementById("table-name").textContent = view.title || view.table;
  document.title = (view.title || view.table) + " \u2013 table display";
  document.getElementById("game-label").textContent = snap && snap.game ? snap.game.label || "" : "";
  document.getElementById("stakes").textContent = stakesText(snap);
  document.getElementById("hand-no").textContent = (snap && snap.hand ? "Hand #" + snap.hand.number : "") +
    (snap && snap.bomb_pot ? " \u2013 bomb pot " + money(snap.bomb_pot, snap.stakes) : "");
  const rotation = document.getElementById("rotation");
  rotation.textContent = rotationText(snap);
  rotation.hidden = !rotation.textContent;
  const tournament = document.getElementById("tournament");
  tournament.textContent = tournamentText(snap);
  tournament.hidden = !tournament.textContent;
  takeTournamentClock(snap);
  renderBanners(document.getElementById("banners"), view, streamOk);
  renderBoard(document.getElementById("board"), snap, "xl");
  renderPots(document.getElementById("pots"), snap);
  renderResults(document.getElementById("results"), snap);
  const turn = document.getElementById("turn");
  turn.textContent = snap && snap.to_act ? "Action on " + seatName(snap, snap.to_act.seat) : "";
  renderSeats(document.getElementById("seats"), snap);
  // the hand's log from the snapshot, newest first (the first entries of a long hand come
  // last, after a line saying how many between are left out)
  const log = clear(document.getElementById("log"));
  const entries = view.log || [];
  const omitted = view.log_omitted || 0;
  const firstKept = omitted ? entries.findIndex((ev, i) => i > 0 && ev.n > entries[i - 1].n + 1) : -1;
  entries.slice().reverse().forEach((ev, j) => {
    const i = entries.length - 1 - j;
    if (firstKept > 0 && i === firstKept - 1) {
      log.appendChild(el("li", "log-omitted", "\u2026 " + omitted + " earlier entries not shown \u2026"));
    }
    const item = el("li", "log-" + ev.type, describeEvent(ev, snap));
    item.dataset.n = String(ev.n !== undefined ? ev.n : ev.seq);
    log.appendChild(item);
  });
}

// A tournament table's clock and field, under its level (docs/mqtt.md section 8.3,
// "tournament"): the time left counts down from the snapshot's time_left and the moment this
// page got that snapshot (performance.now()), never from the browser's own clock.
let tourClock = null;      // {key, left, counting, receivedAt, t}

function takeTournamentClock(snap) {
  const t = snap && snap.tournament;
  if (!t || !t.phase) {
    tourClock = null;
  } else {
    // the same snapshot drawn again keeps counting; a new one (a new time_left) starts again
    const key = JSON.stringify([t.status_at, t.time_left, t.phase]);
    if (!tourClock || tourClock.key !== key) {
      tourClock = { key: key, receivedAt: performance.now() };
    }
    tourClock.t = t;
  }
  tickTournamentClock();
}

function clockText(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  return (h ? h + ":" + String(m).padStart(2, "0") : String(m)) + ":" + String(r).padStart(2, "0");
}

function tournamentClockText(t, gone) {
  const parts = [];
  const PHASES = { paused: "PAUSED ", on_break: "BREAK " };
  if (t.phase === "not_started") parts.push("Not started");
  else if (t.phase === "finished") parts.push("Finished");
  else if (typeof t.time_left === "number") {
    const counting = t.phase === "running" || t.phase === "on_break";
    parts.push((PHASES[t.phase] || "") + clockText(t.time_left - (counting ? gone : 0)) + " left");
  }
  if (t.next_level && t.phase !== "finished") parts.push("next: " + t.next_level);
  if (typeof t.players_left === "number") {
    parts.push(t.players_left.toLocaleString("en-US") + (t.players_left === 1 ? " player" : " players") + " left");
  }
  if (typeof t.average_stack === "number" && t.average_stack > 0) {
    parts.push("average stack " + t.average_stack.toLocaleString("en-US"));
  }
  return parts.join(" \u00b7 ");
}

function tickTournamentClock() {
  const node = document.getElementById("tournament-clock");
  if (!node) return;
  const text = tourClock ? tournamentClockText(tourClock.t, (performance.now() - tourClock.receivedAt) / 1000) : "";
  if (node.textContent !== text) node.textContent = text;
  node.hidden = !text;
}

document.addEventListener("DOMContentLoaded", () => {
  setInterval(tickTournamentClock, 250);
  openStream("/events/public", render, (state) => {
    streamOk = state === "open";
    if (lastView) render(lastView);
  });
});

