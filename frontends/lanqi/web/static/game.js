// One game: played when this browser holds a seat (the gateway says which), watched
// otherwise, reviewed step by step once it is over. Legal targets, check and
// forbidden points come from the gateway; this page only draws and sends taps.
import { Link, el, loadTexts, muted, refusal, setMuted, sound, tr } from "/static/common.js";
import { drawBoard } from "/static/board.js";

const $ = (id) => document.getElementById(id);
const gameId = decodeURIComponent(location.pathname.split("/").pop());
let link = null;
let view = null;
let seat = null;
let receivedAt = 0;
// The ply of this seat's latest turn and when its state came (performance.now()): a move
// says how long the player thought (think_ms), and the referee gives back the rest - the
// lag of the links - within the seat's quota (docs/protocol.md#lag-compensation).
let turnPly = null;
let turnSince = 0;
let selected = null;
let premove = null;
let reviewPly = null; // null: live
let reviewView = null;
let flip = null; // null: by seat
let letters = localStorage.getItem("lanqi.letters") === "1";
let resignArmed = false;
let rating = null;
let lowTimeSaid = false;

function note(text) {
  $("note").textContent = text;
}

function translate() {
  for (const node of document.querySelectorAll("[data-text]")) node.textContent = tr(node.dataset.text);
}

const isXiangqi = () => view && view.variant === "xiangqi";
const myTurn = () => view && seat !== null && view.status !== "finished" && view.to_move === seat;
const flipped = () => (flip === null ? seat === 1 : flip);

function targetsOf(from) {
  if (!view || !myTurn()) return [];
  if (!isXiangqi()) return view.legal.map((move) => ({ move, square: move }));
  return view.legal.filter((m) => m.slice(0, 2) === from).map((move) => ({ move, square: move.slice(2, 4) }));
}

function pieceAt(square) {
  const piece = view.pieces.find(([s]) => s === square);
  return piece ? { kind: piece[1], seat: piece[2] } : null;
}

async function play(move) {
  selected = null;
  const sent = view;
  const request = { t: "move", move, ply: sent.ply };
  if (turnPly === sent.ply) request.think_ms = Math.round(performance.now() - turnSince);
  const answer = await link.request(request);
  if (!answer.ok) note(tr("lobby.refused", { why: refusal(answer) }));
  render();
}

function onSquare(square, how) {
  if (!view || seat === null || view.status === "finished" || reviewPly !== null) return;
  if (!myTurn()) {
    premoveTap(square);
    return;
  }
  if (!isXiangqi()) {
    if (view.legal.includes(square)) play(square);
    else note(tr("point_taken"));
    return;
  }
  if (selected) {
    const target = targetsOf(selected).find((t) => t.square === square);
    if (target) {
      play(target.move);
      return;
    }
  }
  const piece = pieceAt(square);
  selected = piece && piece.seat === seat ? square : null;
  if (how !== "drag-start") render();
}

function premoveTap(square) {
  if (!isXiangqi()) {
    premove = premove === square ? null : square;
  } else if (selected && selected !== square) {
    premove = selected + square;
    selected = null;
  } else {
    const piece = pieceAt(square);
    selected = piece && piece.seat === seat ? square : null;
    premove = null;
  }
  note(premove ? tr("premove_set") : "");
  render();
}

function onDrag(from, to) {
  if (!view || seat === null || reviewPly !== null) return;
  if (!myTurn()) {
    if (isXiangqi()) {
      premove = from + to;
      note(tr("premove_set"));
      render();
    }
    return;
  }
  const move = view.legal.find((m) => m === from + to);
  if (move) play(move);
  else render();
}

function clockText(ms) {
  if (ms < 10000) return `0:${(Math.max(0, ms) / 1000).toFixed(1).padStart(4, "0")}`;
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h ? `${h}:${String(m).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}` : `${m}:${String(s % 60).padStart(2, "0")}`;
}

const LOW_TIME_MS = 10000;

// The sound for a change of the game (null: none). The end wins over a check, a check
// over a capture; the opponent's move on a player's page says it is their turn.
function soundFor(before, after) {
  if (before.status !== "finished" && after.status === "finished") return "end";
  if (after.ply <= before.ply) return null;
  if ((after.markers.check || []).length) return "check";
  if (after.pieces.length < before.pieces.length) return "capture";
  if (seat !== null && after.status === "active" && after.to_move === seat) return "your_turn";
  return after.variant === "xiangqi" ? "move" : "stone";
}

function tick() {
  if (!view) return;
  const clock = view.clock;
  const timed = clock.remaining_ms && clock.remaining_ms.length === 2;
  for (const [id, s] of [["top", flipped() ? 0 : 1], ["bottom", flipped() ? 1 : 0]]) {
    const node = document.querySelector(`#${id} .clock`);
    node.dataset.seat = String(s);
    if (!timed) {
      node.removeAttribute("data-left-ms");
      node.textContent = "";
      continue;
    }
    let left = clock.remaining_ms[s];
    const running = clock.running === s && view.status === "active";
    if (running) left -= performance.now() - receivedAt;
    left = Math.max(0, Math.round(left));
    node.dataset.leftMs = String(left);
    node.textContent = clockText(left);
    node.classList.toggle("running", running);
    node.classList.toggle("low", left < 10000);
    if (running && s === seat && left < LOW_TIME_MS && !lowTimeSaid) {
      lowTimeSaid = true;
      sound("low_time");
    } else if (s === seat && left >= LOW_TIME_MS + 5000) lowTimeSaid = false;
  }
  if (clock.first_move_left_ms !== null && view.status !== "finished") {
    const left = Math.max(0, clock.first_move_left_ms - (performance.now() - receivedAt));
    $("status").textContent = tr("first_move_in", { time: clockText(left) });
  }
}

function sideKey(s) {
  return view.seat_names[s].toLowerCase();
}

function renderPlayers() {
  for (const [id, s] of [["top", flipped() ? 0 : 1], ["bottom", flipped() ? 1 : 0]]) {
    const box = $(id);
    box.dataset.seat = String(s);
    const away = view.connected.length === 2 && !view.connected[s] && view.status !== "finished";
    box.querySelector(".name").textContent =
      `${tr("side." + sideKey(s))} ${view.players[s]}${s === seat ? " (" + tr("you_mark") + ")" : ""}${away ? " · " + tr("away") : ""}`;
    box.classList.toggle("to-move", view.to_move === s && view.status !== "finished");
  }
}

function renderStatus() {
  let text = "";
  if (view.status === "waiting") text = tr("waiting_start");
  else if (view.status === "active") {
    text = seat === null ? `${tr("watching")} · ${tr("to_move." + sideKey(view.to_move))}` : myTurn() ? tr("your_move") : tr("to_move." + sideKey(view.to_move));
    if ((view.markers.check || []).length) text += ` · ${tr("check")}`;
  }
  $("status").textContent = text;
}

function renderResult() {
  const banner = $("result");
  if (view.status !== "finished" || !view.result) {
    banner.hidden = true;
    banner.removeAttribute("data-result");
    banner.removeAttribute("data-termination");
    return;
  }
  banner.hidden = false;
  banner.dataset.result = view.result;
  banner.dataset.termination = view.termination || "";
  let head = tr("result.over");
  if (view.result === "1/2-1/2") head = tr("result.draw");
  else if (view.winner !== null) head = tr("wins." + sideKey(view.winner));
  const why = view.termination ? tr("termination." + view.termination) : "";
  const lines = [el("strong", {}, `${view.result} · ${head}`), el("div", {}, why)];
  if (rating) {
    const delta = Math.round(rating.after - rating.before);
    lines.push(el("div", { class: "rating" }, tr("rating_change", { before: Math.round(rating.before), after: Math.round(rating.after), delta: (delta >= 0 ? "+" : "") + delta })));
  }
  banner.replaceChildren(...lines);
}

function renderPrompt() {
  const box = $("prompt");
  box.replaceChildren();
  box.hidden = true;
  if (seat === null || view.status === "finished") return;
  const other = view.players[1 - seat];
  const ask = (text, yes, no, yesKey, noKey) => {
    box.hidden = false;
    box.append(el("div", {}, text),
      el("button", { id: yesKey, onclick: () => action(yes) }, tr(yesKey)),
      el("button", { id: noKey, onclick: () => action(no) }, tr(noKey)));
  };
  if (view.draw_offer !== null && view.draw_offer !== seat)
    ask(tr("draw_offered", { name: other }), "accept_draw", "decline_draw", "accept_draw", "decline");
  else if (view.takeback_offer !== null && view.takeback_offer !== seat)
    ask(tr("takeback_asked_by", { name: other }), "accept_takeback", "decline_takeback", "allow_takeback", "refuse_takeback");
}

function renderMoves() {
  const notation = $("notation").value;
  const items = view.moves.map((m, i) => {
    const text = m[notation] || m.move;
    const item = el("li", { "data-ply": String(i + 1), class: (reviewPly ?? view.ply) === i + 1 ? "current" : "" }, text);
    item.addEventListener("click", () => {
      if (view.status === "finished") review(i + 1);
    });
    return item;
  });
  $("moves").replaceChildren(...items);
  $("notation").hidden = !isXiangqi();
}

// A spectator who has not entered the lobby chats under a name typed here.
const guest = () => seat === null && !localStorage.getItem("lanqi.name");

function renderChat() {
  const lines = view.chat.map((c) => el("div", { class: c.room }, el("b", {}, `${c.name}: `), c.text));
  $("chat-lines").replaceChildren(...lines);
}

function renderControls() {
  const playing = seat !== null && view.status !== "finished";
  for (const id of ["resign", "draw", "takeback"]) $(id).hidden = !playing;
  $("rematch").hidden = !(seat !== null && view.status === "finished");
  $("review").hidden = view.status !== "finished";
  $("resign").textContent = resignArmed ? tr("confirm_resign") : tr("resign");
  $("draw").textContent = view.draw_offer === seat && seat !== null ? tr("draw_offered_button") : tr("offer_draw");
  $("letters").textContent = letters ? tr("web.chinese_pieces") : tr("web.letter_pieces");
  $("letters").hidden = !isXiangqi();
  $("mute").textContent = tr(muted() ? "web.sound_off" : "web.sound_on");
  $("mute").dataset.muted = muted() ? "1" : "0";
  $("chat-name").hidden = !guest();
  if (view.status === "finished") $("step").textContent = tr("review_step", { shown: reviewPly ?? view.ply, ply: view.ply });
}

function render() {
  if (!view) return;
  document.body.dataset.seat = seat === null ? "watch" : String(seat);
  $("title").textContent = `${view.players[0]} – ${view.players[1]}`;
  const shown = reviewPly !== null && reviewView ? { ...view, ...reviewView } : view;
  let targets = [];
  if (reviewPly === null && myTurn()) targets = isXiangqi() ? (selected ? targetsOf(selected) : []) : targetsOf(null);
  drawBoard($("board"), shown, { flip: flipped(), letters, selected, targets, onSquare, onDrag });
  if (premove && reviewPly === null) {
    const squares = isXiangqi() ? [premove.slice(0, 2), premove.slice(2, 4)] : [premove];
    for (const s of squares) $("board").querySelector(`[data-square="${s}"]`)?.classList.add("premove");
  }
  renderPlayers();
  renderStatus();
  renderResult();
  renderPrompt();
  renderMoves();
  renderChat();
  renderControls();
  tick();
}

async function review(ply) {
  const target = Math.max(0, Math.min(view.ply, ply));
  if (target === view.ply) {
    reviewPly = null;
    reviewView = null;
  } else {
    const answer = await link.request({ t: "position", ply: target });
    if (!answer.ok) return;
    reviewPly = target;
    reviewView = answer.view;
  }
  render();
}

async function action(what) {
  const answer = await link.request({ t: "action", what });
  if (!answer.ok) note(tr("lobby.refused", { why: refusal(answer) }));
}

// The state shown since receivedAt gives this seat a new turn: its thinking starts then.
function noteTurn() {
  if (myTurn() && view.ply !== turnPly) {
    turnPly = view.ply;
    turnSince = receivedAt;
  }
}

function onState(message) {
  const before = view;
  view = message.view;
  receivedAt = performance.now() - (message.age_ms || 0);
  noteTurn();
  if (before) {
    const name = soundFor(before, view);
    if (name) sound(name);
    if (view.ply !== before.ply) selected = null;
  }
  if (view.status === "finished") premove = null;
  if (premove && myTurn()) {
    const move = isXiangqi() ? view.legal.find((m) => m === premove) : view.legal.includes(premove) ? premove : null;
    premove = null;
    if (move) {
      play(move);
      return;
    }
    note(tr("premove_dropped"));
  }
  render();
}

function onMessage(message) {
  if (message.t === "state") onState(message);
  else if (message.t === "seat") {
    seat = message.seat;
    noteTurn();
    render();
  } else if (message.t === "rating") {
    rating = message;
    render();
  } else if (message.t === "assigned") location.assign(`/game/${message.game_id}`);
  else if (message.t === "challenge") {
    note(tr("rematch_answer", { name: message.from }).split(":")[0]);
    const box = $("prompt");
    box.hidden = false;
    box.replaceChildren(el("div", {}, tr("lobby.challenges_you", { name: message.from })),
      el("button", { id: "accept-challenge", onclick: () => link.request({ t: "accept_challenge", challenge_id: message.challenge_id }) }, tr("accept")),
      el("button", { id: "decline-challenge", onclick: () => link.request({ t: "decline_challenge", challenge_id: message.challenge_id }) }, tr("decline")));
  }
}

async function main() {
  await loadTexts();
  translate();
  $("notation").value = localStorage.getItem("lanqi.notation") || "chinese";
  $("notation").addEventListener("change", () => {
    localStorage.setItem("lanqi.notation", $("notation").value);
    render();
  });
  $("flip").addEventListener("click", () => {
    flip = !flipped();
    render();
  });
  $("letters").addEventListener("click", () => {
    letters = !letters;
    localStorage.setItem("lanqi.letters", letters ? "1" : "0");
    render();
  });
  $("resign").addEventListener("click", () => {
    if (!resignArmed) {
      resignArmed = true;
      render();
      setTimeout(() => { resignArmed = false; render(); }, 4000);
      return;
    }
    resignArmed = false;
    action("resign");
  });
  $("draw").addEventListener("click", () => action("offer_draw"));
  $("takeback").addEventListener("click", () => action("takeback"));
  $("rematch").addEventListener("click", async () => {
    const answer = await link.request({ t: "rematch" });
    note(answer.ok ? tr("lobby.challenge_sent", { name: view.players[1 - seat] }) : tr("lobby.refused", { why: refusal(answer) }));
  });
  $("first").addEventListener("click", () => review(0));
  $("prev").addEventListener("click", () => review((reviewPly ?? view.ply) - 1));
  $("next").addEventListener("click", () => review((reviewPly ?? view.ply) + 1));
  $("last").addEventListener("click", () => review(view.ply));
  document.addEventListener("keydown", (event) => {
    if (!view || view.status !== "finished" || event.target.tagName === "INPUT") return;
    if (event.key === "ArrowLeft") review((reviewPly ?? view.ply) - 1);
    if (event.key === "ArrowRight") review((reviewPly ?? view.ply) + 1);
  });
  $("chat-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = $("chat-text").value.trim();
    if (!text) return;
    const message = { t: "chat", text };
    if (guest()) {
      message.name = $("chat-name").value.trim();
      localStorage.setItem("lanqi.chat_name", message.name);
    }
    const answer = await link.request(message);
    if (answer.ok) $("chat-text").value = "";
    else note(tr("lobby.refused", { why: refusal(answer) }));
  });
  $("chat-name").value = localStorage.getItem("lanqi.chat_name") || "";
  $("chat-name").placeholder = tr("web.chat_name");
  $("mute").addEventListener("click", () => {
    setMuted(!muted());
    render();
  });
  setInterval(tick, 100);
  link = new Link({
    onMessage,
    onOpen: async () => {
      const answer = await link.request({ t: "watch", game_id: gameId });
      if (!answer.ok) note(answer.code === "unknown_game" ? tr("web.not_found") : refusal(answer));
    },
  });
}

main();
