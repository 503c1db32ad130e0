// uno-table: what every page shares. The stream of the table's events (with resume), the
// words of the pages in English and Japanese, and the card as it is drawn.
"use strict";

const WORDS = {
  en: {
    title: "uno-table",
    round: "Round {n}",
    turn: "{p}'s turn",
    clockwise: "↻ clockwise",
    counterclockwise: "↺ counterclockwise",
    red: "red", yellow: "yellow", green: "green", blue: "blue",
    color: "Colour", draw: "Draw", pile: "Top card",
    pending: "Draw {n} pending",
    "awaiting-color": "{p} names the colour",
    players: "Players", said: "Announcements", scores: "Scores", total: "Total",
    "round-over": "{p} wins round {n}!",
    "match-over": "{p} wins the match!",
    waiting: "Waiting for the first card",
    voice: "Voice", "voice-off": "off", "voice-browser": "this device", "voice-table": "the table's voice",
    "verdict-accepted": "✓", "verdict-rejected": "✗", "verdict-penalty": "!",
    "input-tag": "card on {r}", "input-press": "{p}: {b}",
    uno: "UNO!", "b-draw": "Draw", pass: "Pass", challenge: "Challenge", don: "Don!",
    catch: "Catch {p}!", "choose": "Choose a colour",
    "s-your-turn": "Your turn", "s-your-turn-uno": "Your turn: call UNO before your second-last card!",
    "s-must-draw": "Draw {n}", "s-draw-or-challenge": "Draw {n} or challenge",
    "s-draw-or-stack": "Draw {n} or stack", "s-choose-color": "Choose a colour",
    "s-show-hand": "Show your hand on the play pad", "s-wait-show": "{p} shows their hand on the play pad",
    "s-catch": "{p} did not call UNO: catch!",
    "s-call-uno-late": "You are on one card: call UNO!", "s-wait": "{p}'s turn",
    "s-round-over": "Round over: {p} wins", "s-match-over": "Match over", "s-dealing": "Dealing",
    "your-hand": "Your hand", "unknown-cards": "+{n} cards the table has not seen",
    gone: "This seat link is no longer valid (a new match?). Scan the new code.",
    "press-sent": "{b}…", "too-fast": "Slow down a little: sending it again in a moment", "refused": "{m}",
    admin: "Admin", undo: "Undo", "next-round": "Next round", "new-match": "New match",
    "voice-test": "Voice test", readers: "Readers", seats: "Seats (scan with a phone)",
    "new-match-sure": "Abandon this match and start a new one?", pages: "{n} pages following",
    "pages-1": "1 page following", "name-readings": "Names as the voice says them",
    login: "Log in", key: "api_key", done: "Done: {a}",
    stats: "Stats",
    played: "card played", "penalty-word": "penalty",
    "caught-you": "You were caught: you forgot to call UNO. Take the penalty cards.",
    "catch-gone": "Someone was quicker: that UNO was already caught.",
    "said-in": "Announcements (in {l}, as the table speaks)", "lang-en": "English", "lang-ja": "Japanese",
    "r-S": "Skip", "r-R": "Reverse", "r-+2": "Draw Two", "r-W": "Wild", "r-W+4": "Wild Draw Four",
    "r-WSH": "Wild Shuffle Hands", "r-WC": "Wild Customizable", "card-name": "{c} {r}",
    ask: "Ask the table (only you hear it)", "ask-hand": "My hand", "ask-play": "What can I play?",
    "ask-top": "Top card", "ask-counts": "Cards held", "ask-last": "Last events",
    speak: "Speak on this phone (earphones)", playable: "playable", told: "What the table tells you",
    "hand-says": "{n} cards. {list}", "hand-one": "1 card. {list}", "hand-unknown": "{n} cards the table has not seen.",
    "hand-none": "The table does not see your cards: you hold {n}.", "group": "{c}: {list}.",
    "g-wild": "Wild cards", "and": ", ",
    "play-says": "You can play: {list}.", "play-none": "Nothing to play: draw a card.",
    "play-none-drawn": "Nothing to play: pass.", "play-wait": "Not your turn: {p}'s turn.",
    "top-says": "Top card: {c}. Colour: {k}.", "top-none": "No card on the pile yet.",
    "pending-says": "Draw {n} pending.", "counts-says": "{list}.", "count-one": "{p} 1 card",
    "count": "{p} {n} cards", "uno-said": "UNO", "last-none": "Nothing has happened yet.",
    "top-now": "Top card now: {c}.", "turn-says": "{s}. Top card: {c}.", drew: "You drew: {list}.",
  },
  ja: {
    title: "ウノ・テーブル",
    round: "第{n}ラウンド",
    turn: "{p}の番",
    clockwise: "↻ 時計回り",
    counterclockwise: "↺ 反時計回り",
    red: "赤", yellow: "黄", green: "緑", blue: "青",
    color: "色", draw: "山札", pile: "場のカード",
    pending: "{n}枚引く",
    "awaiting-color": "{p}が色を選びます",
    players: "プレイヤー", said: "アナウンス", scores: "得点", total: "合計",
    "round-over": "{p}が第{n}ラウンドの勝ち!",
    "match-over": "{p}の優勝!",
    waiting: "最初のカードを待っています",
    voice: "音声", "voice-off": "なし", "voice-browser": "この端末", "voice-table": "テーブルの音声",
    "verdict-accepted": "✓", "verdict-rejected": "✗", "verdict-penalty": "!",
    "input-tag": "{r}にカード", "input-press": "{p}: {b}",
    uno: "ウノ!", "b-draw": "引く", pass: "パス", challenge: "チャレンジ", don: "ドン!",
    catch: "{p}を指摘!", "choose": "色を選ぶ",
    "s-your-turn": "あなたの番", "s-your-turn-uno": "あなたの番: 残り2枚から出すときはウノと言ってください!",
    "s-must-draw": "{n}枚引いてください", "s-draw-or-challenge": "{n}枚引くか、チャレンジ",
    "s-draw-or-stack": "{n}枚引くか、重ねる", "s-choose-color": "色を選んでください",
    "s-show-hand": "手札を場のパッドで見せてください", "s-wait-show": "{p}が手札を見せています",
    "s-catch": "{p}がウノと言っていません: 指摘!",
    "s-call-uno-late": "残り1枚: ウノ!", "s-wait": "{p}の番",
    "s-round-over": "ラウンド終了: {p}の勝ち", "s-match-over": "試合終了", "s-dealing": "配っています",
    "your-hand": "手札", "unknown-cards": "+{n}枚 (テーブルがまだ見ていないカード)",
    gone: "このリンクはもう使えません(新しい試合?)。新しいコードを読み取ってください。",
    "press-sent": "{b}…", "too-fast": "少し待ってください（すぐにもう一度送ります）", "refused": "{m}",
    admin: "管理", undo: "取り消し", "next-round": "次のラウンド", "new-match": "新しい試合",
    "voice-test": "音声テスト", readers: "リーダー", seats: "席 (スマホで読み取り)",
    "new-match-sure": "この試合をやめて、新しく始めますか?", pages: "{n}ページが見ています",
    "pages-1": "1ページが見ています", "name-readings": "音声での名前の読み",
    login: "ログイン", key: "api_key", done: "{a}: OK",
    stats: "成績",
    played: "カードを出しました", "penalty-word": "ペナルティ",
    "caught-you": "ウノの宣言忘れを指摘されました。ペナルティのカードを引いてください。",
    "catch-gone": "ほかの人が先に指摘しました。",
    "said-in": "アナウンス(テーブルの言葉、{l})", "lang-en": "英語", "lang-ja": "日本語",
    "r-S": "スキップ", "r-R": "リバース", "r-+2": "ドローツー", "r-W": "ワイルド", "r-W+4": "ワイルドドローフォー",
    "r-WSH": "シャッフルワイルド", "r-WC": "白いワイルド", "card-name": "{c}の{r}",
    ask: "テーブルに聞く (あなただけに聞こえます)", "ask-hand": "手札", "ask-play": "出せるカード",
    "ask-top": "場のカード", "ask-counts": "みんなの枚数", "ask-last": "最近のできごと",
    speak: "この端末で読み上げる (イヤホン)", playable: "出せます", told: "テーブルからのお知らせ",
    "hand-says": "{n}枚。{list}", "hand-one": "1枚。{list}", "hand-unknown": "テーブルがまだ見ていないカードが{n}枚。",
    "hand-none": "テーブルはあなたの手札を見ていません。{n}枚です。", "group": "{c}: {list}。",
    "g-wild": "ワイルドカード", "and": "、",
    "play-says": "出せるカード: {list}。", "play-none": "出せるカードがありません。1枚引いてください。",
    "play-none-drawn": "出せるカードがありません。パスしてください。", "play-wait": "今は{p}の番です。",
    "top-says": "場のカード: {c}。色: {k}。", "top-none": "場にはまだカードがありません。",
    "pending-says": "{n}枚引く番です。", "counts-says": "{list}。", "count-one": "{p} 1枚",
    "count": "{p} {n}枚", "uno-said": "ウノ", "last-none": "まだ何も起きていません。",
    "top-now": "場のカード: {c}。", "turn-says": "{s}。場のカード: {c}。", drew: "引いたカード: {list}。",
  },
};

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
