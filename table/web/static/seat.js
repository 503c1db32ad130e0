// A seat's remote: this seat's situation, its buttons and (where the table knows it) its own
// hand. Its private view comes from /api/seat/TOKEN, fetched again whenever the table moves.
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
      if (text !== shown) { shown = text; view = body; render(); } // unchanged: left as it is
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
  render();
}

function renderHand() {
  const box = $("handbox");
  if (!view.hand) { box.classList.add("hidden"); return; }
  box.classList.remove("hidden");
  const cards = view.hand.map((c) => cardEl(c.code, {
    code: true, button: view.plays_cards,
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
    render(); // the top card and colour, even when the seat's own view has not changed
  } else if (!["new-match", "resumed"].includes(frame.type)) {
    if (frame.type === "announcement") onAnnouncement(frame);
    if (frame.type === "verdict") {
      const ours = (frame.input === "press" && view && frame.seat === view.seat) || (frame.input === "tag" && playing);
      if (ours) {
        if (frame.input === "tag") playing = false;
        notice = "";
        mine = { ...frame, button: frame.input === "press" ? lastButton : undefined };
        render();
      }
    } else if (frame.type === "press" && view && frame.seat === view.seat) lastButton = frame.button;
    if (!fetching && window.unoTable.viewAfter) window.unoTable.viewAfter = id; // still as new
    return;
  }
  refresh();
}

for (const button of document.querySelectorAll("#colors button")) {
  button.addEventListener("click", () => chooseColor(button.dataset.color));
}

boot(onFrame, render, refresh);
