// uno-table: what every page shares. The stream of the table's events (with resume), the
// words of the pages in English and Japanese (t), and the card as it is drawn.
"use strict";

// WORDS, the pages' words in English and Japanese, comes before this script from
// /static/words.js: the [web] section of the table's phrases (table/referee/phrases_*.toml).


const SYMBOLS = { S: "⊘", R: "⇄", "+2": "+2", W: "W", "W+4": "+4", WSH: "⇆", WC: "★" };
const COLOR_OF = { R: "red", Y: "yellow", G: "green", B: "blue" };

const params = new URLSearchParams(location.search);
let lang = params.get("lang") || localStorage.getItem("uno-lang") || null;

function t(key, vars) {
  const words = WORDS[lang] || WORDS.en;
  let text = words[key] !== undefined ? words[key] : (WORDS.en[key] !== undefined ? WORDS.en[key] : key);
  for (const [k, v] of Object.entries(vars || {})) text = text.split("{" + k + "}").join(String(v));
  return text;
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// A card as people name it, not as it is drawn: "blue Skip", 「青のスキップ」, "red 5".
function cardName(code) {
  const color = COLOR_OF[code[0]] && code.length > 1 && code !== "W+4" ? COLOR_OF[code[0]] : null;
  const rank = color ? code.slice(1) : code;
  const name = /^[0-9]$/.test(rank) ? rank : t("r-" + rank);
  return color ? t("card-name", { c: t(color), r: name }) : name;
}

// A card drawn from its code: "R5", "G+2", "W+4"; null draws an empty place.
function cardEl(code, opts) {
  opts = opts || {};
  const tag = opts.button ? "button" : "div";
  if (!code) return el(tag, { class: "card none" });
  const color = COLOR_OF[code[0]] && code.length > 1 && code !== "W+4" ? COLOR_OF[code[0]] : null;
  const rank = color ? code.slice(1) : code;
  const face = SYMBOLS[rank] || rank;
  // Named on the card as a screen reader names it ("red 5", 「赤の5」): the drawn symbols are
  // pictures, hidden from it; a playable card's ring is said as words it alone hears.
  return el(tag, {
    class: "card " + (color || "wild") + (opts.extra ? " " + opts.extra : ""),
    "data-code": opts.code ? code : null, onclick: opts.onclick,
  }, el("span", { class: "corner", "aria-hidden": "true" }, face),
  el("span", { class: "face", "aria-hidden": "true" }, face),
  el("span", { class: "name" }, cardName(code)),
  opts.said ? el("span", { class: "sr-only" }, ", " + opts.said) : null);
}

function applyWords(root) {
  document.documentElement.lang = lang;
  for (const node of (root || document).querySelectorAll("[data-t]")) node.textContent = t(node.dataset.t);
  // The report follows the page's language.
  for (const link of document.querySelectorAll('a[href^="/stats"]')) link.href = "/stats?lang=" + encodeURIComponent(lang);
  // The announcements come in the table's language, the one its voice speaks: the heading says which.
  for (const node of document.querySelectorAll('[data-t="said"]')) node.textContent = t("said-in", { l: t("lang-" + tableLang) });
}

// The table's events: a snapshot first, then every event once, resumed after a lost
// connection from the last event id (the browser's own reconnection sends it too).
class Stream {
  constructor(onFrame) {
    this.onFrame = onFrame;
    this.lastId = null;
    this.source = null;
    this.seen = [];
    this.live = false;
    document.addEventListener("visibilitychange", () => {
      if (!document.hidden && (!this.source || this.source.readyState === EventSource.CLOSED)) this.open();
    });
  }

  open() {
    if (this.source) this.source.close();
    const url = "/api/events" + (this.lastId ? "?last_event_id=" + encodeURIComponent(this.lastId) : "");
    const source = new EventSource(url);
    this.source = source;
    source.onopen = () => this.status(true);
    source.onerror = () => {
      this.status(false);
      if (source.readyState === EventSource.CLOSED && this.source === source) {
        setTimeout(() => { if (this.source === source) this.open(); }, 3000);
      }
    };
    source.onmessage = (message) => {
      if (message.lastEventId) this.lastId = message.lastEventId;
      const frame = JSON.parse(message.data);
      if (frame.type !== "snapshot") {
        this.seen.push(message.lastEventId);
        if (this.seen.length > 20000) this.seen.splice(0, 10000);
      }
      this.onFrame(frame, message.lastEventId);
    };
  }

  // Let go of the stream (as a phone's browser does in the background) and take it up again.
  pause() { if (this.source) { this.source.close(); this.source = null; } this.status(false); }
  resume() { this.open(); }

  status(live) {
    this.live = live;
    for (const dot of document.querySelectorAll(".link")) dot.classList.toggle("live", live);
  }
}

async function getJSON(url) {
  const response = await fetch(url, { cache: "no-store", credentials: "same-origin" });
  const body = await response.json().catch(() => ({}));
  return { status: response.status, body };
}

async function postJSON(url, data) {
  const response = await fetch(url, {
    method: "POST", cache: "no-store", credentials: "same-origin",
    headers: { "Content-Type": "application/json" }, body: JSON.stringify(data || {}),
  });
  const body = await response.json().catch(() => ({}));
  return { status: response.status, body, retryAfter: Number(response.headers.get("retry-after")) || 1 };
}

// A press id made here: a retry or a second tap of the same button sends the same one.
function pressId() {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// Speaking the announcements on this device, when the person asks for it.
class Voice {
  constructor(select) {
    this.mode = localStorage.getItem("uno-voice") || "off";
    this.queue = [];
    this.playing = false;
    if (select) {
      select.value = this.mode;
      select.addEventListener("change", () => {
        this.mode = select.value;
        localStorage.setItem("uno-voice", this.mode);
      });
    }
  }

  say(frame, id) {
    if (this.mode === "browser" && "speechSynthesis" in window) {
      const utterance = new SpeechSynthesisUtterance(frame.text);
      utterance.lang = tableLang === "ja" ? "ja-JP" : "en-GB";
      speechSynthesis.speak(utterance);
    } else if (this.mode === "table") {
      this.queue.push("/api/speech/" + encodeURIComponent(id));
      this.next();
    }
  }

  next() {
    if (this.playing || !this.queue.length) return;
    this.playing = true;
    const audio = new Audio(this.queue.shift());
    const done = () => { this.playing = false; this.next(); };
    audio.onended = done;
    audio.onerror = done;
    audio.play().catch(done);
  }
}

let tableLang = "en";
let phrases = {}; // the referee's corrections, by phrase key, in each language

async function loadInfo() {
  const { body } = await getJSON("/api/info");
  tableLang = body.language || "en";
  phrases = body.phrases || {};
  if (!lang) lang = tableLang;
  return body;
}

function langSwitch(select, redraw) {
  if (!select) return;
  select.value = lang;
  select.addEventListener("change", () => {
    lang = select.value;
    localStorage.setItem("uno-lang", lang);
    applyWords();
    redraw();
  });
}

// What the referee made of an input, in people's words: a refusal as the referee's own
// polite correction (the phrase catalogue's), never the program's reason.
function verdictLine(event) {
  let words = t("verdict-" + event.verdict);
  if (event.verdict === "rejected") words = said(event.reason ? "rejected-" + event.reason : "rejected");
  else if (event.verdict === "penalty") words = t("penalty-word");
  const who = event.input === "press"
    ? t("input-press", { p: event.seat, b: buttonWord(event.button || "") })
    : event.input === "admin" ? t("admin") + ": " + t(event.action)
    : (event.verdict === "accepted" ? t("played") : "");
  return el("span", { class: event.verdict, "data-n": event.n, "data-verdict": event.verdict },
    who ? who + " " : "", words);
}

// A phrase of the referee's in the page's language (the general refusal for a reason without one).
function said(key) {
  const phrase = phrases[key] || phrases.rejected;
  return phrase ? (phrase[lang] || phrase.en) : "✗";
}

function buttonWord(button) {
  if (button.startsWith("color:")) return t(button.slice(6));
  return t(button === "draw" ? "b-draw" : button);
}

// A page's start: the table's language, the page's words, then the stream of events.
async function boot(onFrame, redraw, first) {
  await loadInfo();
  applyWords();
  langSwitch(document.getElementById("lang"), redraw);
  if (first) await first();
  const stream = new Stream(onFrame);
  window.unoTable.stream = stream;
  stream.open();
}

window.unoTable = window.unoTable || {};
