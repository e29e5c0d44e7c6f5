// The projector: a big screen that turns by itself through the round's pairings
// ("Table 4: Alice (Red) - Bob"), the live games (a multiboard with clocks) and the
// standings. A newly paired round is shown at once: people look for their table.
// URL options: ?rotate=SECONDS (each screen, default 15), ?phase=pairings|boards|
// standings (stay on one).

import { clockElement, connect, el, pointsText, resultText, roundPairings, tickClocks, tournamentId } from "./tour.js";
import { drawBoard } from "./miniboard.js";
import { loadTexts, tr } from "/static/common.js";

const params = new URLSearchParams(location.search);
const ROTATE_MS = Math.max(1, Number(params.get("rotate") || 15)) * 1000;
const PINNED = params.get("phase");
const PAIRINGS_PER_PAGE = 16;  // two columns of eight
const BOARDS_PER_PAGE = 6;     // three by two
const ROWS_PER_PAGE = 12;

let tour = null;
const games = new Map();       // game_id -> latest "game" message
let screens = [];              // [{phase, page}]
let current = 0;
let shownRound = 0;
let timer = null;

const $ = (id) => document.getElementById(id);

function pages(count, size) {
  return Math.max(1, Math.ceil(count / size));
}

/** The screens to turn through, from what the event is now. */
function plan() {
  const out = [];
  if (!tour || (!tour.pairings.length && tour.status !== "finished")) return [{ phase: "waiting", page: 0 }];
  if (tour.status === "finished") {
    for (let p = 0; p < pages(tour.rows.length, ROWS_PER_PAGE); p++) out.push({ phase: "standings", page: p });
    return out;
  }
  const round = roundPairings(tour);
  for (let p = 0; p < pages(round.length, PAIRINGS_PER_PAGE); p++) out.push({ phase: "pairings", page: p });
  const live = round.filter((pairing) => pairing.game_id);
  for (let p = 0; live.length && p < pages(live.length, BOARDS_PER_PAGE); p++) out.push({ phase: "boards", page: p });
  for (let p = 0; tour.rows.length && p < pages(tour.rows.length, ROWS_PER_PAGE); p++) out.push({ phase: "standings", page: p });
  return out;
}

function show(screen) {
  document.body.dataset.phase = screen.phase;
  document.body.dataset.page = String(screen.page);
  for (const section of document.querySelectorAll(".phase")) section.hidden = section.id !== screen.phase;
  if (screen.phase === "pairings") drawPairings(screen.page);
  else if (screen.phase === "boards") drawBoards(screen.page);
  else if (screen.phase === "standings") drawStandings(screen.page);
  else drawWaiting();
}

function turn() {
  screens = plan();
  if (PINNED) {
    const pinned = screens.find((s) => s.phase === PINNED);
    show(pinned || screens[0]);
    return;
  }
  current = (current + 1) % screens.length;
  show(screens[current]);
}

function restart(at = 0) {
  clearInterval(timer);
  screens = plan();
  current = Math.min(at, screens.length - 1);
  if (PINNED) { turn(); } else { show(screens[current]); }
  timer = setInterval(turn, ROTATE_MS);
}

function pageOf(list, size, page) {
  return list.slice(page * size, (page + 1) * size);
}

function pageLabel(page, count) {
  return count > 1 ? ` (${page + 1}/${count})` : "";
}

function drawWaiting() {
  $("waiting-title").textContent = tour ? tr(tour.status === "open" ? "tour.waiting_start" : "tour.waiting_round") : "…";
  $("note").textContent = tour ? tour.note : "";
}

function drawPairings(page) {
  const round = roundPairings(tour);
  const count = pages(round.length, PAIRINGS_PER_PAGE);
  const section = $("pairings");
  section.dataset.round = String(tour.round);
  $("pairings-title").textContent = `${tr("tour.round_pairings", { n: tour.round })}${pageLabel(page, count)}`;
  const lines = pageOf(round, PAIRINGS_PER_PAGE, page).map((p) => el(
    "li",
    { class: p.second === null ? "bye" : "game", "data-table": p.table, "data-result": p.result },
    p.line,
    p.result && p.second !== null ? el("span", { class: "result" }, resultText(p.result)) : null,
  ));
  $("pairing-lines").replaceChildren(...lines);
  $("pairing-lines").classList.toggle("two-columns", lines.length > 8);
}

function nameLine(name, seat, game) {
  const mark = el("span", { class: `seat-mark ${tour.variant} seat${seat}`, title: tour.seat_names[seat] });
  const row = el("div", { class: `player seat${seat}` }, el("span", { class: "name" }, mark, name || ""));
  if (game && game.clock.remaining_ms.length) row.append(clockElement(seat, game));
  return row;
}

function drawBoards(page) {
  const live = roundPairings(tour).filter((p) => p.game_id);
  const count = pages(live.length, BOARDS_PER_PAGE);
  $("boards").dataset.round = String(tour.round);
  $("boards-title").textContent = `${tr("tour.live_games", { n: tour.round })}${pageLabel(page, count)}`;
  const cards = pageOf(live, BOARDS_PER_PAGE, page).map((p) => {
    const game = games.get(p.game_id);
    const card = el("article", { class: "game-card", "data-table": p.table });
    const result = (game && game.result) || p.result;
    card.append(el("div", { class: "table-number" }, `Table ${p.table || p.board}`,
      result ? el("span", { class: "result", "data-result": result,
        "data-termination": game ? game.termination || "" : "" }, resultText(result)) : null));
    card.append(nameLine(p.second, 1, game));
    const board = el("div", { class: "board" });
    if (game) drawBoard(board, game);
    else board.dataset.gameId = p.game_id;
    card.append(board);
    card.append(nameLine(p.first, 0, game));
    return card;
  });
  $("multiboard").dataset.count = String(cards.length);  // fewer games, bigger boards
  $("multiboard").replaceChildren(...cards);
}

function drawStandings(page) {
  const count = pages(tour.rows.length, ROWS_PER_PAGE);
  const final = tour.status === "finished";
  $("standings").dataset.final = String(final);
  $("standings-title").textContent = (final ? tr("tour.final_standings") : tr("tour.standings_after", { n: completedRounds() })) +
    `${tour.points !== "1/½/0" ? ` (points ${tour.points})` : ""}${pageLabel(page, count)}`;
  const breaks = tour.tiebreaks.slice(0, 2);
  $("standings-table").tHead.replaceChildren(el("tr", {},
    el("th", {}, "#"), el("th", {}, tr("tour.player")), el("th", {}, tr("tour.points")),
    ...breaks.map((b) => el("th", { title: b.name }, b.label))));
  const rows = pageOf(tour.rows, ROWS_PER_PAGE, page).map((row) => el("tr", { "data-player": row.player },
    el("td", {}, row.rank), el("td", { class: "name" }, row.player), el("td", {}, pointsText(row.points)),
    ...breaks.map((b) => el("td", {}, pointsText(row.tiebreaks[b.key] ?? 0)))));
  $("standings-table").tBodies[0].replaceChildren(...rows);
}

function completedRounds() {
  const done = new Set();
  const open = new Set();
  for (const p of tour.pairings) (p.result ? done : open).add(p.round);
  return Math.max(0, ...[...done].filter((r) => !open.has(r)));
}

function drawHeader() {
  $("event").textContent = tour.name;
  const rounds = tour.rounds ? ` of ${tour.rounds}` : "";
  const status = { open: "not started", running: `round ${tour.round}${rounds}`, paused: "paused", finished: "finished" }[tour.status] || tour.status;
  $("facts").textContent = `${tour.variant} · ${tour.time_control} · ${status}`;
  document.title = `${tour.name}: projector`;
}

function onMessage(message) {
  if (message.t === "hello") {
    $("qr").src = `/tournament/${encodeURIComponent(tournamentId())}/qr.svg`;
    $("join-url").textContent = message.join_url;
    $("join").dataset.url = message.join_url;
  } else if (message.t === "tour") {
    const newRound = !tour || message.round !== shownRound || message.status !== tour.status;
    tour = message;
    drawHeader();
    if (newRound) {  // a new round (or the end): its pairings first
      shownRound = message.round;
      restart(0);
    } else {
      const screen = screens[current] || { phase: "waiting", page: 0 };
      screens = plan();
      if (PINNED) turn(); else show(screen);
    }
  } else if (message.t === "game") {
    message.received = performance.now();  // clocks count down from here
    games.set(message.game_id, message);
    if (tour && document.body.dataset.phase === "boards") drawBoards(Number(document.body.dataset.page));
  } else if (message.t === "error") {
    $("event").textContent = message.msg;
  }
}

await loadTexts();  // the catalogue's words ("中文 English"); the page works without them
$("join-title").textContent = tr("tour.scan_to_join");
tickClocks();
restart(0);
connect(onMessage);
