// uno-table: the hub's standings page. The whole standings come with each event of the
// stream (a snapshot first, then one after each change), resumed after a lost connection by
// table.js's Stream; nothing polls. The round's timer counts down on the hub's clock.
"use strict";

// The page's words come with the pages' own in WORDS (/static/words.js: the [hub] section of
// the table's phrases).

const hub = { view: null, skew: 0 };  // skew: the hub's clock minus this device's, in seconds
const $ = (id) => document.getElementById(id);
window.unoTable.hub = hub;

function tableKey(id) { return /^\d+$/.test(id) ? [0, Number(id), ""] : [1, 0, id]; }
function byTable(a, b) {
  const x = tableKey(a), y = tableKey(b);
  return x[0] - y[0] || x[1] - y[1] || (x[2] < y[2] ? -1 : x[2] > y[2] ? 1 : 0);
}

function render() {
  const v = hub.view;
  if (!v) return;
  $("round").textContent = v.round ? "· " + t("round", { n: v.round }) : "";
  renderRanking(v);
  renderTables(v);
  $("flags").replaceChildren(...v.flags.map((f) =>
    el("li", { "data-id": f.id }, t("flag", { t: f.table, id: f.id, p: f.problem }))));
  tick();
}

function renderRanking(v) {
  const head = el("li", { class: "head" },
    el("span", { class: "rank" }, t("col-rank")), el("span", { class: "player" }, t("col-player")),
    el("span", { class: "n" }, t("col-matches")), el("span", { class: "n" }, t("col-points")),
    el("span", { class: "n rounds" }, t("col-rounds")), el("span", { class: "n wins" }, t("col-wins")));
  const rows = v.ranking.map((r) => el("li", { class: r.rank <= 3 && v.results ? "top" : null, "data-player": r.player },
    el("span", { class: "rank" }, r.rank), el("span", { class: "player" }, r.player),
    el("span", { class: "n" }, r.match_wins), el("span", { class: "n points" }, r.points),
    el("span", { class: "n rounds" }, r.rounds), el("span", { class: "n wins" }, r.wins)));
  const list = $("ranking");
  list.replaceChildren(head, ...(rows.length ? rows : [el("li", { class: "empty" }, t("no-results"))]));
  // Many players on a wide screen: side by side, so that twelve tables' fit on one TV.
  const wide = window.innerWidth > window.innerHeight;
  list.style.setProperty("--cols", String(wide ? Math.min(3, Math.max(1, Math.ceil(rows.length / 14))) : 1));
}

function renderTables(v) {
  const ids = [...new Set([...Object.keys(v.tables || {}), ...Object.keys(v.online || {})])].sort(byTable);
  $("tables").replaceChildren(...ids.map((id) => {
    const state = (v.online || {})[id];
    const seated = (v.tables || {})[id];
    return el("li", { "data-table": id },
      el("span", { class: "id" }, t("table", { n: id })),
      state ? el("span", { class: "state " + state }, t(state === "online" ? "online" : "offline")) : null,
      seated ? el("span", { class: "who" }, seated.join(", ")) : null);
  }));
}

function tick() {
  const box = $("timer");
  const v = hub.view;
  if (!v || !v.ends_at) { box.textContent = ""; box.className = "timer"; return; }
  const left = Math.round(v.ends_at - (Date.now() / 1000 + hub.skew));
  if (left <= 0) {
    box.textContent = t("time-up");
    box.className = "timer over";
    return;
  }
  box.textContent = Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0");
  box.className = left < 300 ? "timer low" : "timer";
}

function onFrame(frame) {
  if (frame.type !== "snapshot" && frame.type !== "standings") return;
  hub.view = frame;
  if (typeof frame.now === "number") hub.skew = frame.now - Date.now() / 1000;
  render();
}

if (!lang) lang = (navigator.language || "").toLowerCase().startsWith("ja") ? "ja" : "en";
applyWords();
langSwitch($("lang"), render);
window.addEventListener("resize", render);
setInterval(tick, 1000);
const stream = new Stream(onFrame);
window.unoTable.stream = stream;
stream.open();
