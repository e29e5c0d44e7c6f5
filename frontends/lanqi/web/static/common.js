// The page's link to the gateway: one WebSocket, kept up, with this browser's secret.
// Nothing secret about a seat ever comes here: the gateway keeps the seat tokens and
// knows this browser by the secret it made for itself (localStorage "lanqi.secret").

let catalogue = {};

export async function loadTexts() {
  try {
    catalogue = await (await fetch("/i18n.json")).json();
  } catch (err) {
    catalogue = {};
  }
}

function fill(line, fields) {
  return line.replace(/\{(\w+)\}/g, (_, name) => (name in fields ? String(fields[name]) : ""));
}

// "中文 English" from the message catalogue (lanqi.i18n), fields filled in.
export function tr(key, fields = {}) {
  const text = catalogue[key];
  if (!text) return key;
  const [zh, en, enPlural] = text;
  const english = "n" in fields && fields.n !== 1 && enPlural ? enPlural : en;
  return `${fill(zh, fields)} ${fill(english, fields)}`;
}

export function secret() {
  let value = localStorage.getItem("lanqi.secret");
  if (!value) {
    const bytes = new Uint8Array(24);
    crypto.getRandomValues(bytes);
    value = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    localStorage.setItem("lanqi.secret", value);
  }
  return value;
}

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === "onclick") node.addEventListener("click", value);
    else if (value !== null && value !== undefined && value !== false) node.setAttribute(name, value);
  }
  for (const child of children) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

// One WebSocket to the gateway, reopened with a growing pause when it drops; every
// (re)open says hello first (when this browser has entered the lobby) and then runs
// `onOpen`, so a reload or a lost Wi-Fi link comes back to the same player and seat.
export class Link {
  constructor({ onMessage, onOpen, onState }) {
    this.onMessage = onMessage;
    this.onOpen = onOpen;
    this.onState = onState;
    this.nextId = 1;
    this.waiting = new Map();
    this.delay = 500;
    this.open();
  }

  open() {
    this.setState("connecting");
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}/ws`);
    this.ws = ws;
    ws.onopen = async () => {
      this.delay = 500;
      this.setState("up");
      const name = localStorage.getItem("lanqi.name");
      if (name) {
        const answer = await this.request({ t: "hello", secret: secret() });
        if (answer.ok) localStorage.setItem("lanqi.name", answer.name);
        else if (answer.code === "need_name" || answer.code === "bad_session")
          localStorage.removeItem("lanqi.name");
      }
      if (this.onOpen) this.onOpen();
    };
    ws.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.t === "answer" && this.waiting.has(message.re)) {
        this.waiting.get(message.re)(message);
        this.waiting.delete(message.re);
      } else {
        this.onMessage(message);
      }
    };
    ws.onclose = () => {
      for (const resolve of this.waiting.values())
        resolve({ ok: false, code: "link_down", msg: tr("web.link_down") });
      this.waiting.clear();
      this.setState("down");
      setTimeout(() => this.open(), this.delay);
      this.delay = Math.min(this.delay * 2, 5000);
    };
  }

  setState(state) {
    this.state = state;
    const badge = document.getElementById("link");
    if (badge) {
      badge.dataset.state = state;
      badge.textContent = tr(`web.link_${state}`);
    }
    if (this.onState) this.onState(state);
  }

  // Send one message and resolve with the gateway's answer ({ok, code, msg, ...}).
  request(message) {
    return new Promise((resolve) => {
      if (!this.ws || this.ws.readyState !== WebSocket.OPEN) {
        resolve({ ok: false, code: "link_down", msg: tr("web.link_down") });
        return;
      }
      const id = this.nextId++;
      this.waiting.set(id, resolve);
      this.ws.send(JSON.stringify({ ...message, id }));
    });
  }
}

// A line for a refusal: the catalogue's words where it has them, else the server's.
export function refusal(answer) {
  return answer.msg || answer.code || "?";
}

// Short sounds synthesized with WebAudio (no files to ship; silent where audio is not
// allowed): each a few tones [frequency Hz, start s, length s, wave]. The name of the
// last one chosen is kept on <body data-last-sound> (also when muted) for tools and tests.
export const SOUNDS = {
  move: [[520, 0, 0.09, "triangle"]],
  stone: [[300, 0, 0.07, "square"]],
  capture: [[420, 0, 0.06, "square"], [260, 0.05, 0.1, "square"]],
  check: [[880, 0, 0.1, "sine"], [880, 0.14, 0.1, "sine"]],
  end: [[660, 0, 0.15, "sine"], [550, 0.15, 0.15, "sine"], [440, 0.3, 0.3, "sine"]],
  your_turn: [[740, 0, 0.08, "sine"], [990, 0.08, 0.1, "sine"]],
  low_time: [[1200, 0, 0.05, "square"], [1200, 0.1, 0.05, "square"], [1200, 0.2, 0.05, "square"]],
};

export function muted() {
  return localStorage.getItem("lanqi.mute") === "1";
}

export function setMuted(on) {
  localStorage.setItem("lanqi.mute", on ? "1" : "0");
}

let audio = null;
export function sound(name) {
  document.body.dataset.lastSound = name;
  document.body.dataset.sounds = String(Number(document.body.dataset.sounds || 0) + 1);
  if (muted() || !SOUNDS[name]) return;
  try {
    audio = audio || new AudioContext();
    const now = audio.currentTime;
    for (const [freq, start, length, wave] of SOUNDS[name]) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.type = wave;
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.08, now + start);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
      osc.connect(gain).connect(audio.destination);
      osc.start(now + start);
      osc.stop(now + start + length);
    }
  } catch (err) {
    /* no audio here */
  }
}
