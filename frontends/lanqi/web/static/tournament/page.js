// The tournament page: standings with the event's tie-breaks, every round's
// pairings by table, the crosstable, results as they come, the live games of the
// round, and the event's report once it is finished. All of it from the gateway's
// live connection (tour and game messages).

import { clockElement, connect, el, pointsText, resultText, roundPairings, tickClocks, tournamentId } from "./tour.js";
import { drawBoard } from "./miniboard.js";
import { loadTexts, tr } from "/static/common.js";

const $ = (id) => document.getElementById(id);
const base = `/tournament/${encodeURIComponent(tournamentId())}`;
let tour = null;
let chosenRound = null;  // null: follow the current round
const games = new Map();
const recent = [];       // result lines, newest first
const known = new Map(); // "round/board/n" -> result, to see what is new

$("projector-link").href = `${base}/projector`;
$("report-link").href = `${base}/report`;

function drawFacts() {
  $("event").textContent = tour.name;
  document.title = tour.name;
  const rounds = tour.rounds ? ` of ${tour.rounds}` : "";
  const status = { open: "not started", running: `round ${tour.round}${rounds}`, paused: `paused in round ${tour.round}`, finished: "finished" }[tour.status] || tour.status;
  const format = tour.format.replace(/_/g, " ");
  $("facts").textContent = `${format} of ${tour.variant}, ${tour.players.length} players, ${tour.time_control}, points ${tour.points} · ${status}`;
  $("note").textContent = tour.note;
  document.body.dataset.status = tour.status;
  $("first-seat").textContent = tour.seat_names[0];
  $("second-seat").textContent = tour.seat_names[1];
}

function drawStandings() {
  const table = $("standings");
  table.dataset.points = tour.points;
  table.tHead.replaceChildren(el("tr", {},
    ...["#", tr("tour.player"), tr("tour.points"), "Games", "W", "D", "L", "Rating"].map((h) => el("th", {}, h)),
    ...tour.tiebreaks.map((b) => el("th", { title: b.name, "data-tiebreak": b.key }, b.label))));
  table.tBodies[0].replaceChildren(...tour.rows.map((row) => el("tr", { "data-player": row.player },
    el("td", { class: "rank" }, row.rank),
    el("td", { class: "name" }, row.player),
    el("td", { class: "points", "data-value": row.points }, pointsText(row.points)),
    el("td", {}, row.games), el("td", {}, row.wins), el("td", {}, row.draws), el("td", {}, row.losses),
    el("td", {}, row.rating === null ? "" : Math.round(row.rating)),
    ...tour.tiebreaks.map((b) => el("td", { "data-tiebreak": b.key, "data-value": row.tiebreaks[b.key] ?? 0 },
      pointsText(row.tiebreaks[b.key] ?? 0))))));
  $("tiebreak-legend").textContent = tour.tiebreaks.length
    ? `Tie-breaks in order: ${tour.tiebreaks.map((b) => b.name).join(", ")}.` : "";
}

function drawPairings() {
  const rounds = [...new Set(tour.pairings.map((p) => p.round))].sort((a, b) => a - b);
  const round = chosenRound ?? tour.round;
  $("round-tabs").replaceChildren(...rounds.map((r) => {
    const button = el("button", { type: "button", "data-round": r, "aria-pressed": String(r === round) }, tr("tour.round", { n: r }));
    button.onclick = () => { chosenRound = r === tour.round ? null : r; drawPairings(); };
    return button;
  }));
  const table = $("pairings");
  table.dataset.round = String(round);
  table.tBodies[0].replaceChildren(...roundPairings(tour, round).map((p) => {
    const notes = [p.otb && p.second !== null ? "over the board" : "", p.manual ? "manual" : "", p.note || ""].filter(Boolean);
    const game = p.game_id ? el("a", { href: `/game/${encodeURIComponent(p.game_id)}` }, p.result ? "review" : "watch") : "";
    return el("tr", { "data-table": p.table, "data-board": p.board, "data-game-id": p.game_id, "data-result": p.result },
      el("td", {}, p.table ?? ""), el("td", {}, p.first ?? ""),
      el("td", { class: "result" }, p.second === null ? (p.note === "absent" ? "absent" : "bye") : resultText(p.result) || "–"),
      el("td", {}, p.second ?? ""), el("td", { class: "note" }, notes.join("; "), " ", game));
  }));
}

let firstTour = true;

function noteResults() {
  const seen = new Map();
  for (const p of tour.pairings) {
    const key = `${p.round}/${p.board}`;
    const n = seen.get(key) || 0;
    seen.set(key, n + 1);
    const id = `${key}/${n}`;
    const before = known.get(id);
    known.set(id, p.result || null);
    if (p.second === null || !p.result) continue;
    // on opening: the current round's results; then each result as it comes
    if (firstTour ? p.round === tour.round : !before) {
      recent.unshift(`Round ${p.round}, table ${p.table ?? p.board}: ${p.first} ${resultText(p.result)} ${p.second}`);
    }
  }
  firstTour = false;
  recent.splice(10);
  $("results").replaceChildren(...(recent.length ? recent.map((line) => el("li", {}, line)) : [el("li", { class: "none" }, tr("tour.no_results"))]));
}

function drawCrosstable() {
  const rounds = Math.max(tour.paired_rounds, 0);
  const table = $("crosstable");
  table.tHead.replaceChildren(el("tr", {}, el("th", {}, "#"), el("th", {}, tr("tour.player")),
    ...Array.from({ length: rounds }, (_, i) => el("th", {}, `R${i + 1}`)), el("th", {}, "Pts")));
  table.tBodies[0].replaceChildren(...tour.crosstable.map((line) => el("tr", { "data-player": line.player },
    el("td", {}, line.line), el("td", { class: "name" }, line.player),
    ...Array.from({ length: rounds }, (_, i) => {
      const cell = line.rounds[String(i + 1)];
      if (!cell) return el("td", {}, "");
      if (cell.bye) return el("td", { class: "bye" }, cell.code === "0" ? "–" : "bye");
      return el("td", { "data-code": cell.code }, `${cell.opponent ?? "?"}${cell.seat} ${cell.code}`);
    }),
    el("td", { class: "points" }, pointsText(line.points)))));
}

function drawLive() {
  const live = roundPairings(tour).filter((p) => p.game_id);
  $("live-section").hidden = tour.status === "finished" || !live.length;
  $("live-title").textContent = tr("tour.games", { n: tour.round });
  $("live").replaceChildren(...live.map((p) => {
    const game = games.get(p.game_id);
    const card = el("article", { class: "game-card" });
    const result = (game && game.result) || p.result;
    card.append(el("div", { class: "table-number" }, `Table ${p.table ?? p.board}`,
      result ? el("span", { class: "result", "data-result": result }, ` ${resultText(result)}`) : ""));
    const row = (seat, name) => el("div", { class: "player" }, el("span", {}, name ?? ""),
      game && game.clock.remaining_ms.length ? clockElement(seat, game) : "");
    const board = el("a", { class: "board", href: `/game/${encodeURIComponent(p.game_id)}` });
    if (game) drawBoard(board, game); else board.dataset.gameId = p.game_id;
    card.append(row(1, p.second), board, row(0, p.first));
    return card;
  }));
}

function drawReport() {
  const finished = tour.status === "finished";
  $("report-link").hidden = !finished;
  $("report-section").hidden = !finished;
  if (finished && !$("report").src) $("report").src = `${base}/report`;
}

function onMessage(message) {
  if (message.t === "tour") {
    tour = message;
    drawFacts();
    drawStandings();
    drawPairings();
    noteResults();
    drawCrosstable();
    drawLive();
    drawReport();
  } else if (message.t === "game") {
    message.received = performance.now();  // clocks count down from here
    games.set(message.game_id, message);
    if (tour) drawLive();
  } else if (message.t === "error") {
    $("event").textContent = message.msg;
  }
}

await loadTexts();  // the catalogue's words ("中文 English"); the page works without them
for (const node of document.querySelectorAll("[data-text]")) node.textContent = tr(node.dataset.text);
tickClocks();
connect(onMessage);
