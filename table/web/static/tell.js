// Live regions that behave (the table view's for spectators, a seat page's for its player):
// messages told one at a time and in order, with a pause after each long enough to be read, so
// that a burst is never dropped (VoiceOver drops polite messages that come in bursts). Urgent
// ones (your turn, a penalty, an answer asked for) go to the assertive region, ahead of the
// others still waiting. Each message carries its language (lang). Where the person asks for it,
// the page also speaks them itself (the browser's speech), one after the other.
"use strict";

const KEPT = 12; // messages kept in a region: a reader's history, never a page that grows

class Teller {
  constructor(polite, assertive) {
    this.regions = { polite, assertive };
    this.queue = [];
    this.busy = false;
    this.speak = false;
    // ?pace=MS: the pause after a short message (longer ones wait longer); 700 ms by default.
    const pace = Number(params.get("pace"));
    this.pace = pace >= 0 && pace <= 10000 && params.has("pace") ? pace : 700;
    window.unoTable.told = []; // every message as it was told: for the person's own checks
  }

  // Tell ``text`` (in ``language``); urgent: assertive, before what waits.
  say(text, language, urgent) {
    if (!text) return;
    const message = { text, lang: language || lang || "en", urgent: Boolean(urgent) };
    if (urgent) {
      const at = this.queue.findIndex((m) => !m.urgent);
      this.queue.splice(at < 0 ? this.queue.length : at, 0, message);
    } else {
      this.queue.push(message);
    }
    if (this.queue.length > 40) this.queue.splice(this.queue.findIndex((m) => !m.urgent), 1);
    this.next();
  }

  next() {
    if (this.busy || !this.queue.length) return;
    this.busy = true;
    const message = this.queue.shift();
    const region = this.regions[message.urgent ? "assertive" : "polite"] || this.regions.polite;
    if (region) {
      region.append(el("p", { lang: message.lang }, message.text));
      while (region.children.length > KEPT) region.firstElementChild.remove();
    }
    window.unoTable.told.push({ ...message, at: performance.now() });
    const wait = this.pace * (1 + message.text.length / 40);
    let finished = false;
    const done = () => {
      if (finished) return;
      finished = true;
      this.busy = false;
      this.next();
    };
    if (this.speak && "speechSynthesis" in window) {
      const utterance = new SpeechSynthesisUtterance(message.text);
      utterance.lang = message.lang === "ja" ? "ja-JP" : "en-GB";
      utterance.onend = () => setTimeout(done, Math.min(this.pace, 300));
      utterance.onerror = done;
      speechSynthesis.speak(utterance);
      setTimeout(done, Math.max(wait, 12000)); // a browser with no voice never ends it
    } else {
      setTimeout(done, wait);
    }
  }
}
