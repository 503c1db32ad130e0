// The table view and the overlay: what anyone at the table sees and hears, live. Only the
// public stream is used; nothing here ever knows a card in a hand.
"use strict";

const model = { standing: null, captions: [], presses: {}, verdict: null };
const $ = (id) => document.getElementById(id);
const voice = new Voice($("voice"));
// The spectators' live region (the table view's; the overlay, a video's, has none).
const teller = $("polite") ? new Teller($("polite"), null) : null;
window.unoTable.verdicts = [];

function render() {
  const s = model.standing;
  if (!s) return;
  const state = s.state;
  if ($("round")) $("round").textContent = "· " + t("round", { n: state.round });
  if ($("top")) $("top").replaceChildren(cardEl(state.top, { code: true }));
  if ($("facts")) {
    const facts = [];
    if (state.color) {
      facts.push(el("span", { class: "fact", "data-color": state.color },
        el("span", { class: "swatch " + state.color }), t(state.color)));
    }
    facts.push(el("span", { class: "fact", "data-direction": state.direction }, t(state.direction)));
    if (state.pending_draw) {
      facts.push(el("span", { class: "fact pending", id: "pending" }, t("pending", { n: state.pending_draw })));
    }
    if (state.awaiting_color) facts.push(el("span", { class: "fact" }, t("awaiting-color", { p: state.awaiting_color })));
    $("facts").replaceChildren(...facts);
  }
  if ($("turnline")) {
    $("turnline").textContent = state.turn ? t("turn", { p: state.turn }) : (state.top ? "" : t("waiting"));
  }
  renderResult(s);
  renderPlayers(s);
  renderCaptions();
  if ($("verdict")) $("verdict").replaceChildren(model.verdict ? verdictLine(model.verdict) : "");
  renderRounds(s);
}

function renderResult(s) {
  const box = $("result");
  if (!box) return;
  const last = s.rounds[s.rounds.length - 1];
  let text = "";
  if (s.match_over && last) text = t("match-over", { p: last.winner });
  else if (s.state.finished && last && s.rounds.length === s.state.round) {
    text = t("round-over", { p: last.winner, n: s.rounds.length });
  }
  box.textContent = text;
  box.classList.toggle("hidden", !text);
}

function renderPlayers(s) {
  const list = $("players");
  if (!list) return;
  const uno = new Set(s.state.uno || []);
  list.replaceChildren(...Object.entries(s.state.hands).map(([name, count]) => el("li",
    { class: name === s.state.turn ? "turn" : "", "data-player": name },
    el("span", { class: "name" }, name, uno.has(name) ? el("span", { class: "badge" }, "UNO") : null),
    el("span", { class: "count", "data-count": count }, count),
    el("span", { class: "score" }, s.scores[name] !== undefined ? s.scores[name] : ""))));
}

function renderCaptions() {
  const list = $("captions");
  if (!list) return;
  list.replaceChildren(...model.captions.slice(-4).map((c) => el("li", { lang: tableLang }, c)));
}

function renderRounds(s) {
  const table = $("rounds");
  if (!table) return;
  const names = Object.keys(s.scores);
  const head = el("thead", {}, el("tr", {}, el("th", {}, "#"), names.map((n) => el("th", {}, n))));
  const rows = s.rounds.map((r, i) => el("tr", {}, el("td", {}, i + 1),
    names.map((n) => el("td", { class: r.winner === n ? "won" : "" }, r.points[n] || 0))));
  const foot = el("tfoot", {}, el("tr", {}, el("td", {}, t("total")), names.map((n) => el("td", {}, s.scores[n]))));
  table.replaceChildren(head, el("tbody", {}, rows), foot);
}

async function refetch() {
  const { status, body } = await getJSON("/api/state");
  if (status === 200) { model.standing = body; render(); }
}

function onFrame(frame, id) {
  switch (frame.type) {
    case "snapshot":
      model.standing = { state: frame.state, scores: frame.scores, rounds: frame.rounds, match_over: frame.match_over };
      model.captions = frame.captions.map((c) => c.text);
      break;
    case "state": {
      const s = model.standing;
      if (!s) return;
      const finished = frame.last_round ? frame.last_round.round : 0;
      if (finished < s.rounds.length) s.rounds.length = finished;
      else if (finished === s.rounds.length + 1) s.rounds.push({ winner: frame.last_round.winner, points: frame.last_round.points });
      else if (finished > s.rounds.length) { refetch(); }
      Object.assign(s, { state: frame.state, scores: frame.scores, match_over: frame.match_over });
      break;
    }
    case "announcement":
      model.captions.push(frame.text);
      if (model.captions.length > 20) model.captions.splice(0, 10);
      voice.say(frame, id);
      if (teller) teller.say(frame.text, tableLang, false);
      break;
    case "press":
      model.presses[frame.seat] = frame.button;
      return;
    case "verdict":
      model.verdict = frame.input === "press" ? { ...frame, button: model.presses[frame.seat] } : frame;
      break;
    case "new-match":
    case "resumed":
      refetch();
      return;
    default:
      return;
  }
  render();
  if (frame.type === "verdict") {
    window.unoTable.verdicts.push({ n: frame.n, verdict: frame.verdict, at: performance.timeOrigin + performance.now() });
  }
}

(async () => {
  if (document.documentElement.classList.contains("overlay")) {
    const box = document.querySelector(".ov");
    if (params.get("layout") === "column") box.classList.add("column");
    if (params.get("captions") === "0") $("captions").closest(".box").remove();
    if (params.get("scores") === "0") $("players").classList.add("noscores");
    const scale = parseFloat(params.get("scale") || "1");
    if (scale > 0 && scale <= 5) box.style.setProperty("--scale", String(scale));
  }
  await boot(onFrame, render);
})();
