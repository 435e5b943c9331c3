"use strict";
// The tournament page for the room's TVs: the level, the time left counting down, the next
// level and the field. Everything is inserted as text. The time counts down from the time
// left the server sent and the moment this page received it (performance.now()), never from
// the TV's own wall clock.
(function () {
  const $ = (id) => document.getElementById(id);
  const PHASES = { not_started: "Not started", running: "", paused: "PAUSED",
                   on_break: "BREAK", finished: "Finished" };
  let shown = null;         // the last status drawn
  let receivedAt = 0;       // performance.now() when it came

  function clockText(seconds) {
    const s = Math.max(0, Math.ceil(seconds));
    const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
    const mm = h ? String(m).padStart(2, "0") : String(m);
    return (h ? h + ":" : "") + mm + ":" + String(r).padStart(2, "0");
  }

  function tick() {
    if (!shown) return;
    const gone = shown.counting ? (performance.now() - receivedAt) / 1000 : 0;
    $("time").textContent = clockText(shown.time_left - gone);
  }

  function draw(board) {
    $("refused").hidden = !board.refused;
    $("refused").textContent = board.refused ? "last message refused: " + board.refused : "";
    const s = board.status;
    if (!s) return;
    shown = s;
    receivedAt = performance.now();
    $("name").textContent = s.name;
    document.title = s.name;
    $("phase").textContent = PHASES[s.phase] || "";
    $("level").textContent = s.label;
    $("next").textContent = "Next: " + s.next;
    $("h4h").hidden = !s.hand_for_hand;
    const waiting = s.waiting_for || [];
    $("h4h").textContent = "HAND FOR HAND" + (waiting.length ? " · waiting for table" +
      (waiting.length > 1 ? "s " : " ") + waiting.join(", ") : "");
    $("players").textContent = "Players " + s.players;
    $("average").textContent = "Average stack " + s.average_stack.toLocaleString("en-US");
    document.body.dataset.phase = s.phase;
    tick();
  }

  setInterval(tick, 250);
  const source = new EventSource("/events");
  source.onopen = () => { $("link").textContent = "live"; $("link").className = "link up"; };
  source.onerror = () => { $("link").textContent = "reconnecting"; $("link").className = "link down"; };
  source.onmessage = (ev) => draw(JSON.parse(ev.data));
}());
