// A seat's remote: this seat's situation, its buttons and (where the table knows it) its own
// hand. Its private view comes from /api/seat/TOKEN, fetched again whenever the table moves.
// It is also the player's private channel, for the ears (a screen reader, or this page's own
// speech into an earphone): the table's events in a polite live region, the player's turn and
// penalties in an assertive one, and answers to the player's questions (the hand, what can be
// played, the top card, everyone's count, the last events) made here from what the page
// already holds: asking sends nothing anywhere.
"use strict";

const token = decodeURIComponent(location.pathname.split("/").pop());
const $ = (id) => document.getElementById(id);
const ACTING = new Set(["your-turn", "your-turn-uno", "must-draw", "draw-or-challenge", "draw-or-stack",
  "choose-color", "show-hand", "catch", "call-uno-late"]);
let view = null;
let table = null; // the public state, for the top card and colour
let gone = false;
let wild = null; // a wild picked from the hand, waiting for its colour
let last = { key: "", id: "", at: 0, shown: "" };
let mine = null; // the latest verdict of this seat's own input
let playing = false; // a card of ours went to the play pad: the next card verdict is ours
let lastButton = ""; // the button of this seat's latest press event
let fetching = null;
let again = false;
let shown = ""; // the view on the page, as fetched
let notice = ""; // a word for this seat from the table's announcements (caught for UNO)
let asked = ""; // the button this page pressed last ("catch" goes to the table as "uno")
const teller = new Teller($("polite"), $("assertive"));
let heard = []; // the table's latest announcements, for "last events"
let toldKey = ""; // the situation last told to the player
let toldTop = undefined; // the top card last told
let toldMark = ""; // where the table was when the situation was last told

async function refresh() {
  if (gone) return;
  if (fetching) { again = true; return; }
  const stream = window.unoTable.stream;
  const after = stream ? stream.lastId : null; // the view is as new as this event, or newer
  fetching = getJSON("/api/seat/" + encodeURIComponent(token));
  try {
    const { status, body } = await fetching;
    if (status === 403) { gone = true; renderGone(); return; }
    if (status === 200) {
      const text = JSON.stringify(body);
      const before = view;
      if (text !== shown) { shown = text; view = body; render(); } // unchanged: left as it is
      tellNews(before, view);
      // Events that came meanwhile and change the view asked for another fetch (again);
      // without one, those that came meanwhile left the view as it is.
      window.unoTable.viewAfter = again || !stream ? after : stream.lastId;
    }
  } finally {
    fetching = null;
    if (again) { again = false; refresh(); }
  }
}

function renderGone() {
  $("situation").textContent = t("gone");
  for (const id of ["buttons", "colors", "handbox"]) $(id).classList.add("hidden");
}

function render() {
  if (!view || gone) return;
  $("seatname").textContent = view.seat;
  document.title = view.seat + " · uno-table";
  const sit = view.situation;
  $("situation").textContent = t("s-" + sit.key, { n: sit.count, p: sit.target || sit.turn || sit.winner || "" });
  $("situation").classList.toggle("act", ACTING.has(sit.key));
  $("situation").dataset.key = sit.key;
  if (table) {
    $("top").replaceChildren(cardEl(table.top, { extra: "small" }));
    $("facts").replaceChildren(table.color
      ? el("span", { class: "fact" }, el("span", { class: "swatch " + table.color }), t(table.color)) : "");
  }
  const ready = new Set(view.ready);
  const buttons = view.buttons.map((b) => el("button", {
    class: ready.has(b) ? "ready" : "", "data-button": b, onclick: () => press(b),
  }, buttonWord(b)));
  if (view.catch) {
    buttons.unshift(el("button", { class: "catch ready", "data-button": "catch", onclick: () => press("catch") },
      t("catch", { p: view.catch })));
  }
  $("buttons").replaceChildren(...buttons);
  $("colors").classList.toggle("hidden", !(ready.has("color") || wild));
  renderHand();
  $("mine").replaceChildren(notice ? el("span", { class: "penalty", "data-notice": "caught" }, notice)
    : mine ? mineLine(mine) : "");
}

// What a fresh view brings the player, at once: the cards just drawn (this seat's own, so
// this page alone tells them), then the player's turn or any moment to act, with the top card.
function tellNews(before, now) {
  if (!now || gone) return;
  const dealt = (v) => v.situation.key === "dealing" || !v.hand || !v.hand.length;
  if (before && now.hand && before.round === now.round && !dealt(before) && !dealt(now)) {
    const left = before.hand.map((c) => c.code);
    const drawn = [];
    for (const c of now.hand) {
      const at = left.indexOf(c.code);
      if (at >= 0) left.splice(at, 1); else drawn.push(cardName(c.code));
    }
    if (drawn.length && left.length === 0) teller.say(t("drew", { list: drawn.join(t("and")) }), lang, true);
  }
  const sit = now.situation;
  if (sit.key === toldKey) return;
  toldKey = sit.key;
  if (!ACTING.has(sit.key)) return;
  const words = $("situation").textContent;
  teller.say(table && table.top ? t("turn-says", { s: words, c: topWords() }) : words, lang, true);
}

function topWords() {
  return table.color && table.top && table.top.startsWith("W")
    ? cardName(table.top) + " (" + t(table.color) + ")" : cardName(table.top);
}

// This seat's own verdict: a catch that came after someone else's says so, not "not time".
function mineLine(event) {
  if (event.verdict === "rejected" && asked === "catch") {
    return el("span", { class: "rejected", "data-verdict": "rejected", "data-n": event.n }, t("catch-gone"));
  }
  return verdictLine(event);
}

// A catch of this seat's missed UNO, as the table announced it: the phone says so.
function onAnnouncement(frame) {
  if (!view || !["caught", "uno-missed"].includes(frame.key) || !frame.text.includes(view.seat)) return;
  if (frame.key === "caught" && asked === "catch") return; // this seat was the one who caught
  notice = t("caught-you");
  teller.say(notice, lang, true);
  render();
}

function renderHand() {
  const box = $("handbox");
  if (!view.hand) { box.classList.add("hidden"); return; }
  box.classList.remove("hidden");
  const cards = view.hand.map((c) => cardEl(c.code, {
    code: true, button: view.plays_cards, said: view.mine && c.playable ? t("playable") : null,
    extra: (c.playable ? "playable" : "") + (wild === c.code ? " picked" : ""),
    onclick: view.plays_cards ? () => pick(c) : null,
  }));
  if (view.unknown) cards.push(el("span", { class: "unknown" }, t("unknown-cards", { n: view.unknown })));
  $("hand").replaceChildren(...cards);
  $("hand").classList.toggle("myturn", view.mine); // on this seat's turn, what it can play
}

function pick(card) {
  if (card.code.startsWith("W")) {
    wild = card.code;
    render();
    teller.say(t("choose"), lang, true);
    return;
  }
  wild = null;
  press("play", { card: card.code });
}

function chooseColor(color) {
  if (wild) {
    const card = wild;
    wild = null;
    press("play", { card, color });
  } else {
    press("color", { color });
  }
}

async function press(button, extra) {
  const key = button + JSON.stringify(extra || {});
  const now = Date.now();
  // A second tap of the same thing before the table has moved is the same press.
  const same = key === last.key && shown === last.shown && now - last.at < 1500;
  const id = same ? last.id : pressId();
  last = { key, id, at: now, shown };
  if (button === "play") playing = true;
  asked = button;
  $("mine").textContent = t("press-sent", { b: button === "play" ? cardName(extra.card) : buttonWord(button) });
  const pressed = shown;
  let failures = 0;
  let waits = 0;
  while (failures < 3 && waits < 10) {
    let answer;
    try {
      answer = await postJSON("/api/press", { token, button, id, ...(extra || {}) });
    } catch (e) {
      failures++;
      await new Promise((r) => setTimeout(r, 500));
      continue; // the network failed: the same id again, so it counts once
    }
    if (answer.status === 403) { gone = true; renderGone(); }
    else if (answer.status === 429) {
      // Too many presses of this seat too close together: the press is kept and sent again
      // when the table says, unless the table has moved meanwhile (then it is the person's
      // to make again, or not).
      $("mine").textContent = t("too-fast");
      waits++;
      await new Promise((r) => setTimeout(r, Math.min(answer.retryAfter, 5) * 1000));
      if (shown === pressed && !gone) continue;
    }
    else if (answer.status >= 400) $("mine").textContent = t("refused", { m: answer.body.error || answer.status });
    return;
  }
}

// Only a state event (and a new match, a resumed table) changes what a seat may do: the
// view is fetched again then, and not for the other events.
function onFrame(frame, id) {
  if (frame.type === "snapshot" || frame.type === "state") {
    table = frame.state;
    if (frame.type === "snapshot") heard = frame.captions.map((c) => c.text).slice(-10);
    else if (table.top && table.top !== toldTop && toldTop !== undefined) {
      teller.say(t("top-now", { c: topWords() }), lang, false);
    }
    // The table moved (a card played or drawn, the turn passed on): the player's next moment
    // to act is told anew, even when it is the same kind of moment as the last one.
    const mark = JSON.stringify([table.top, table.hands, table.turn, table.color, table.pending_draw]);
    if (mark !== toldMark) { toldMark = mark; toldKey = ""; }
    toldTop = table.top;
    render(); // the top card and colour, even when the seat's own view has not changed
  } else if (!["new-match", "resumed"].includes(frame.type)) {
    if (frame.type === "announcement") {
      heard.push(frame.text);
      if (heard.length > 10) heard.shift();
      teller.say(frame.text, tableLang, false);
      onAnnouncement(frame);
    }
    if (frame.type === "verdict") {
      const ours = (frame.input === "press" && view && frame.seat === view.seat) || (frame.input === "tag" && playing);
      if (ours) {
        if (frame.input === "tag") playing = false;
        notice = "";
        mine = { ...frame, button: frame.input === "press" ? lastButton : undefined };
        render();
        // A refusal or a penalty of this seat's own: told at once (the referee's own words).
        if (frame.verdict !== "accepted") teller.say($("mine").textContent, lang, true);
      }
    } else if (frame.type === "press" && view && frame.seat === view.seat) lastButton = frame.button;
    if (!fetching && window.unoTable.viewAfter) window.unoTable.viewAfter = id; // still as new
    return;
  }
  refresh();
}

// --- the player's questions: answered from what this page holds, for this player only ---------

function answer(text, language) {
  $("answer").replaceChildren(el("span", { lang: language || lang }, text));
  teller.say(text, language || lang, true);
}

function handWords() {
  if (!view) return "";
  if (!view.hand) return t("hand-none", { n: view.unknown });
  const groups = [];
  for (const c of view.hand) { // in the table's order: by colour, then by rank
    const colour = COLOR_OF[c.code[0]] && c.code !== "W+4" && c.code.length > 1 ? COLOR_OF[c.code[0]] : "wild";
    const rank = c.code.slice(1);
    const name = colour === "wild" ? cardName(c.code) : /^[0-9]$/.test(rank) ? rank : t("r-" + rank);
    if (!groups.length || groups[groups.length - 1].colour !== colour) groups.push({ colour, names: [] });
    groups[groups.length - 1].names.push(name);
  }
  const list = groups.map((g) => t("group", { c: g.colour === "wild" ? t("g-wild") : t(g.colour), list: g.names.join(t("and")) }));
  const n = view.hand.length;
  let words = t(n === 1 ? "hand-one" : "hand-says", { n, list: list.join(" ") });
  if (view.unknown) words += " " + t("hand-unknown", { n: view.unknown });
  return words;
}

function playWords() {
  if (!view) return "";
  if (!view.mine) return ACTING.has(view.situation.key) ? $("situation").textContent
    : t("play-wait", { p: (table && table.turn) || view.situation.turn || "" });
  if (!view.hand) return $("situation").textContent;
  const playable = view.hand.filter((c) => c.playable).map((c) => cardName(c.code));
  if (playable.length) return t("play-says", { list: playable.join(t("and")) });
  return view.ready.includes("pass") ? t("play-none-drawn") : t("play-none");
}

function topAnswer() {
  if (!table || !table.top) return t("top-none");
  let words = t("top-says", { c: cardName(table.top), k: table.color ? t(table.color) : "-" });
  if (table.pending_draw) words += " " + t("pending-says", { n: table.pending_draw });
  return words;
}

function countWords() {
  if (!table) return "";
  const uno = new Set(table.uno || []);
  const list = Object.entries(table.hands).map(([p, n]) =>
    t(n === 1 ? "count-one" : "count", { p, n }) + (uno.has(p) ? " " + t("uno-said") : ""));
  return t("counts-says", { list: list.join(t("and")) });
}

const ASK = {
  hand: () => [handWords()],
  play: () => [playWords()],
  top: () => [topAnswer()],
  counts: () => [countWords()],
  last: () => heard.length ? [heard.slice(-5).join(" "), tableLang] : [t("last-none")],
};

for (const button of document.querySelectorAll("[data-ask]")) {
  button.addEventListener("click", () => answer(...ASK[button.dataset.ask]()));
}

$("speak").checked = localStorage.getItem("uno-seat-speak") === "1";
teller.speak = $("speak").checked;
$("speak").addEventListener("change", () => {
  teller.speak = $("speak").checked;
  localStorage.setItem("uno-seat-speak", teller.speak ? "1" : "0");
});

for (const button of document.querySelectorAll("#colors button")) {
  button.addEventListener("click", () => chooseColor(button.dataset.color));
}

boot(onFrame, render, refresh);
