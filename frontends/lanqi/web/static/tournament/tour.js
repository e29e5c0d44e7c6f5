// What the tournament page and the projector share: the live connection to the
// gateway (/tournament/<id>/ws), small DOM helpers, clocks that count down.

import { tr } from "/static/common.js";

/** The tournament id of this page's URL (/tournament/<id>[/projector]). */
export function tournamentId() {
  const parts = location.pathname.split("/").filter(Boolean);
  return decodeURIComponent(parts[1] || "");
}

/** An element: el("td", {class: "x", "data-seat": 0}, "text", child...). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

/** Points as people write them: 2.5 -> "2½", 0.5 -> "½". */
export function pointsText(value) {
  const whole = Math.floor(value);
  const half = Math.abs(value - whole - 0.5) < 1e-9;
  if (half) return whole ? `${whole}½` : "½";
  return Number.isInteger(value) ? String(value) : String(Math.round(value * 100) / 100);
}

/** "4:58", "1:05:03", "0:07.4" (tenths in the last ten seconds). */
export function clockText(ms) {
  if (ms < 10000) return `0:${(Math.max(0, Math.floor(ms / 100)) / 10).toFixed(1).padStart(4, "0")}`;
  const seconds = Math.floor(ms / 1000);
  const hours = Math.floor(seconds / 3600);
  const rest = seconds % 3600;
  const mm = String(Math.floor(rest / 60));
  const ss = String(rest % 60).padStart(2, "0");
  return hours ? `${hours}:${mm.padStart(2, "0")}:${ss}` : `${mm}:${ss}`;
}

/**
 * A clock element for one seat. data-seat and data-left-ms follow the page
 * contract (docs/web.md); a running clock counts down between the referee's
 * readings (tick() below redraws it).
 */
export function clockElement(seat, game) {
  const left = game.clock.remaining_ms[seat];
  const node = el("span", { class: "clock", "data-seat": seat });
  if (left === undefined) return node;
  node.dataset.readMs = String(left);
  // the referee's reading is age_ms old when the message is sent
  node.dataset.readAt = String((game.received ?? performance.now()) - (game.age_ms || 0));
  if (game.clock.running === seat) node.classList.add("running");
  drawClock(node, performance.now());
  return node;
}

function drawClock(node, now) {
  const read = Number(node.dataset.readMs);
  const left = node.classList.contains("running") ? read - (now - Number(node.dataset.readAt)) : read;
  node.dataset.leftMs = String(Math.max(0, Math.round(left)));
  node.textContent = clockText(left);
}

/** Redraw every running clock on the page, ten times a second. */
export function tickClocks() {
  setInterval(() => {
    const now = performance.now();
    for (const node of document.querySelectorAll(".clock.running")) drawClock(node, now);
  }, 100);
}

/**
 * The live connection: calls onMessage(message) for each JSON message, shows its
 * state in #link (data-state up / down / connecting) and reconnects by itself
 * (1 s, 2 s, ... up to 10 s) when the gateway or the Wi-Fi goes away.
 */
export function connect(onMessage) {
  const link = document.getElementById("link");
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}` +
    `/tournament/${encodeURIComponent(tournamentId())}/ws`;
  let delay = 1000;
  const show = (state, text) => {
    if (!link) return;
    link.dataset.state = state;
    link.textContent = text;
  };
  const open = () => {
    show("connecting", tr("web.link_connecting"));
    const socket = new WebSocket(url);
    socket.onopen = () => { delay = 1000; show("up", tr("web.link_up")); };
    socket.onmessage = (event) => onMessage(JSON.parse(event.data));
    socket.onclose = () => {
      show("down", tr("web.link_down"));
      setTimeout(open, delay);
      delay = Math.min(delay * 2, 10000);
    };
  };
  open();
}

/** The current round's pairings of a tour message, by table. */
export function roundPairings(tour, round = tour.round) {
  return tour.pairings.filter((p) => p.round === round);
}

/** "1-0", "½-½", "0-1" as a result cell shows it. */
export function resultText(result) {
  if (result === "1/2-1/2") return "½-½";
  return result || "";
}
