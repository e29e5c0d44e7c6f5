// The lobby: enter with a name (or a claim code), then players, seeks, challenges and
// games; posting or taking a seek, challenging. A game assigned to this browser opens.
import { Link, el, loadTexts, refusal, secret, tr } from "/static/common.js";

const $ = (id) => document.getElementById(id);
let link = null;
let myName = localStorage.getItem("lanqi.name");
const challenges = new Map();

function note(text) {
  $("note").textContent = text;
}

function translate() {
  for (const node of document.querySelectorAll("[data-text]")) node.textContent = tr(node.dataset.text);
}

function seekFromForm() {
  const variant = $("variant").value;
  const options = variant === "gomoku" ? { size: Number($("size").value), rule: $("rule").value } : {};
  const clock = $("clock").value;
  let time_control = { kind: "none" };
  if (clock !== "none") {
    const [base, inc] = clock.split("+").map(Number);
    time_control = { kind: "fischer", base_ms: base * 1000, increment_ms: inc * 1000 };
  }
  return { variant, options, time_control, rated: $("rated").checked, color: $("color").value };
}

function seekText(seek) {
  const tc = seek.time_control || {};
  const clock = tc.kind === "fischer" ? `${tc.base_ms / 60000}+${tc.increment_ms / 1000}` : tr("time.untimed");
  const opts = seek.options && seek.options.size ? ` ${seek.options.size} ${seek.options.rule || ""}` : "";
  return `${seek.variant}${opts} · ${clock} · ${seek.rated ? tr("rated") : tr("casual")}`;
}

function showEntered() {
  const entered = !!myName;
  $("enter").hidden = entered;
  $("lobby").hidden = false;
  $("seek-form").hidden = !entered;
  $("me").textContent = entered ? myName : "";
}

function drawLobby(lobby) {
  const seeks = lobby.seeks.map((s) => {
    const mine = s.player === myName;
    const button = mine
      ? el("button", { class: "cancel", "data-seek": s.seek_id, onclick: () => act({ t: "cancel_seek", seek_id: s.seek_id }) }, tr("web.cancel"))
      : el("button", { class: "take", "data-seek": s.seek_id, onclick: () => act({ t: "take_seek", seek_id: s.seek_id }) }, tr("web.take"));
    return el("li", { "data-seek-id": s.seek_id }, `${s.player} (${Math.round(s.rating || 1500)}) · ${seekText(s)} `, myName ? button : null);
  });
  $("seeks").replaceChildren(...(seeks.length ? seeks : [el("li", { class: "empty" }, tr("lobby.no_seeks"))]));
  const players = lobby.players.map((p) => {
    const ratings = Object.entries(p.ratings).map(([v, r]) => `${v} ${Math.round(r)}`).join(" · ");
    const me = p.name === myName;
    const button = !me && myName
      ? el("button", { class: "challenge", "data-player": p.name, onclick: () => challenge(p.name) }, tr("lobby.challenge"))
      : null;
    return el("li", { "data-player": p.name }, `${p.name}${p.kind === "bot" ? ` (${tr("lobby.bot")})` : ""} ${me ? "← " + tr("you") : ""} · ${ratings} `, button);
  });
  $("players").replaceChildren(...(players.length ? players : [el("li", { class: "empty" }, tr("lobby.no_players"))]));
  const games = lobby.games.map((g) => {
    const label = `${g.players[0]} – ${g.players[1]} · ${g.variant} · ${g.status === "finished" ? (g.result || "") + " " + tr("web.finished") : tr("lobby.ply", { n: g.ply })}`;
    return el("li", { "data-game-id": g.game_id }, el("a", { href: `/game/${g.game_id}` }, label));
  });
  $("games").replaceChildren(...(games.length ? games : [el("li", { class: "empty" }, tr("lobby.no_games"))]));
  const events = (lobby.tournaments || []).map((t) =>
    el("li", { "data-tournament-id": t.tournament_id },
      el("a", { href: `/tournament/${encodeURIComponent(t.tournament_id)}` }, tr("web.tournament_line", t))));
  $("tournaments").replaceChildren(...(events.length ? events : [el("li", { class: "empty" }, tr("web.no_tournaments"))]));
}

function drawChallenges() {
  const rows = [...challenges.values()].map((c) =>
    el("div", { class: "incoming", "data-challenge-id": c.challenge_id },
      tr("lobby.challenges_you", { name: c.from }), " · ", c.seek ? seekText(c.seek) : "", " ",
      el("button", { class: "accept", onclick: () => act({ t: "accept_challenge", challenge_id: c.challenge_id }) }, tr("accept")),
      el("button", { class: "decline", onclick: () => act({ t: "decline_challenge", challenge_id: c.challenge_id }) }, tr("decline"))));
  $("challenges").replaceChildren(...rows);
}

async function act(message) {
  const answer = await link.request(message);
  if (!answer.ok) note(tr("lobby.refused", { why: refusal(answer) }));
  else if (message.t === "seek" && !answer.paired) note(tr("lobby.seek_posted"));
  return answer;
}

async function challenge(name) {
  const answer = await act({ t: "challenge", to: name, seek: seekFromForm() });
  if (answer.ok) note(tr("lobby.challenge_sent", { name }));
}

function onMessage(message) {
  if (message.t === "lobby") drawLobby(message);
  else if (message.t === "assigned") location.assign(`/game/${message.game_id}`);
  else if (message.t === "challenge") {
    challenges.set(message.challenge_id, message);
    drawChallenges();
  } else if (message.t === "challenge_closed") {
    challenges.delete(message.challenge_id);
    drawChallenges();
    if (message.how === "declined") note(tr("lobby.challenge_declined", { name: "" }));
  }
}

async function enter(event) {
  event.preventDefault();
  const name = $("name").value.trim();
  const claim = $("claim").value.trim();
  if (!name) {
    note(tr("connect.need_name"));
    return;
  }
  const answer = await link.request({ t: "hello", secret: secret(), name, claim });
  if (!answer.ok) {
    note(tr("lobby.refused", { why: refusal(answer) }));
    return;
  }
  myName = answer.name;
  localStorage.setItem("lanqi.name", myName);
  note("");
  showEntered();
  await link.request({ t: "lobby" });
  if (answer.games.length) note(`${tr("web.your_seat")}: ${answer.games.map((g) => "/game/" + g).join(" ")}`);
}

async function main() {
  await loadTexts();
  translate();
  const syncVariant = () => {
    for (const node of document.querySelectorAll(".gomoku-only")) node.hidden = $("variant").value !== "gomoku";
  };
  $("variant").addEventListener("change", syncVariant);
  syncVariant();
  $("enter").addEventListener("submit", enter);
  $("seek-form").addEventListener("submit", (event) => {
    event.preventDefault();
    act({ t: "seek", seek: seekFromForm() });
  });
  link = new Link({
    onMessage,
    onOpen: async () => {
      myName = localStorage.getItem("lanqi.name");
      showEntered();
      await link.request({ t: "lobby" });
    },
  });
}

main();
