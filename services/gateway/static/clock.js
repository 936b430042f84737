// Deadlines as countdowns (R19-R23). A view names the deadline running (`due`: the turn, a claim window held for
// people, the pause between hands, a game waiting for its people) and when it falls (`due_at`, seconds since the
// epoch by the table's clock). Each frame says the gateway's clock (`now`), so the count is the server's, not a guess
// from this browser's clock. Every `.clock` node on the page counts down on its own, four times a second.
import { el } from "./cards.js";
import { WORDS as W } from "./words.js";

let offset = 0;   // the gateway's clock less this browser's, in seconds

export function heard(now) {
  if (typeof now === "number" && now > 0) offset = now - Date.now() / 1000;
}

// Whole seconds left, counted up (a turn of 60 s shows 60 at its start, 1 in its last second); never more than `most`,
// the deadline's own length, whatever the two clocks' difference or the time a view took to come.
const left = (dueAt, most) => Math.max(0, Math.min(Math.ceil(dueAt - (Date.now() / 1000 + offset)), most));

// Each deadline's length, as the game's clock sets it (the view's `limits`, StartGame.limits).
const LENGTH = { turn: "turn_seconds", claim: "claim_seconds", pause: "pause_seconds", abandon: "abandon_seconds" };

// A countdown to `view.due_at` (to the millisecond) if the view's deadline is `what` and its time is known; else nothing.
export function clock(view, what) {
  if (view.due !== what || typeof view.due_at !== "number") return null;
  const most = view.limits && typeof view.limits[LENGTH[what]] === "number" ? Math.ceil(view.limits[LENGTH[what]]) : Infinity;
  const node = el("span", { class: `clock ${what}`, "data-due-at": view.due_at, "data-most": most, role: "timer" });
  show(node);
  return node;
}

// "45 s" under a minute, "9:58" from a minute on.
const said = (seconds) => (seconds < 60 ? W.secondsLeft(seconds)
  : `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`);

function show(node) {
  const seconds = left(Number(node.dataset.dueAt), Number(node.dataset.most));
  const text = said(seconds);
  if (node.textContent !== text) node.textContent = text;
  node.classList.toggle("late", seconds <= 5 && !node.classList.contains("claim"));   // a claim's wait is short
}

export function tick() {
  for (const node of document.querySelectorAll(".clock[data-due-at]")) show(node);
}

setInterval(tick, 250);
