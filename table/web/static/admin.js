// The admin page: undo, next round, new match, a voice test, the readers and the seats' codes.
"use strict";

const $ = (id) => document.getElementById(id);
let status = null;
let presses = {};
let verdict = null;

async function refresh() {
  const answer = await getJSON("/api/admin/status");
  if (answer.status === 401 || answer.status === 403) { location.reload(); return; }
  if (answer.status !== 200) return;
  status = answer.body;
  render();
}

function render() {
  if (!status) return;
  $("round").textContent = "· " + t("round", { n: status.standing.state.round });
  $("readers").replaceChildren(...Object.entries(status.readers).map(([name, state]) =>
    el("li", { class: state, "data-reader": name }, name + ": " + state)));
  const links = status.seats.map((seat) => seat.url).join(" ");
  if ($("seats").dataset.links !== links) { // new codes only for new links (a new match)
    $("seats").dataset.links = links;
    $("seats").replaceChildren(...status.seats.map((seat, i) => el("figure", { "data-seat": seat.name },
      el("figcaption", {}, el("strong", {}, seat.name)),
      el("img", { src: "/api/admin/qr/" + i + "?v=" + encodeURIComponent(seat.url.slice(-6)), alt: seat.name }),
      el("a", { href: seat.url, target: "_blank", rel: "noreferrer" }, seat.url))));
  }
  const names = status.name_readings || [];
  $("namebox").classList.toggle("hidden", !names.length);
  $("names").replaceChildren(...names.map((line) =>
    el("li", { class: line.startsWith("  warning") ? "lost" : "live" }, line.trim())));
  $("pages").textContent = status.pages === 1 ? t("pages-1") : t("pages", { n: status.pages });
  $("verdict").replaceChildren(verdict ? verdictLine(verdict) : "");
}

async function act(action) {
  if (action === "new-match" && !confirm(t("new-match-sure"))) return;
  const { status: code, body } = await postJSON("/api/admin/" + action, {});
  $("message").textContent = code < 300 ? t("done", { a: t(action) }) : (body.error || String(code));
  $("message").dataset.action = action;
  $("message").dataset.status = String(code);
}

for (const button of document.querySelectorAll("[data-action]")) {
  button.addEventListener("click", () => act(button.dataset.action));
}

function onFrame(frame) {
  if (frame.type === "press") { presses[frame.seat] = frame.button; return; }
  if (frame.type === "verdict") {
    verdict = frame.input === "press" ? { ...frame, button: presses[frame.seat] } : frame;
    render();
  }
  if (["snapshot", "new-match", "resumed", "reader"].includes(frame.type) ||
      (frame.type === "state" && status && frame.state.round !== status.standing.state.round)) refresh();
}

boot(onFrame, render, refresh);
