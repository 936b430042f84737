// A finished game replayed: /replay/{id}. Any finished game, still in the hot streams or only in its archive, hand
// by hand and move by move: a scrubber over its log batches, play at a chosen speed, a step back or forward, a jump
// to any hand's deal. A finished game hides nothing, so every seat's hand is shown face up at every step (the
// replay step's `cards`), the cards that came to a hand in the step just taken marked. Every move of the game is
// listed (history.js reads the game's feed, an archived game's folded from its archive), the step shown marked,
// and a move clicked goes to it. The archive's signature, checked by the gateway with the house's public key,
// is said in the header and its panel, with the file to download and the command that checks it anywhere.
//
// A game its start kept private is shown to its seats only: the seat's token this browser keeps for the game (the
// seat page's, localStorage) goes along with every request; without one the page says there is no such game.
import { el, narrate } from "./cards.js";
import { loadHistory, markLast } from "./history.js";
import { drawTable, gameLine, scores, status } from "./table.js";
import { WORDS as W, say } from "./words.js";

const game = decodeURIComponent(location.pathname.split("/").pop());
const $ = (id) => document.getElementById(id);
const token = localStorage.getItem(`zioncheck.seat.${game}`);
const headers = token ? { Authorization: `Bearer ${token}` } : {};
const base = `/games/${encodeURIComponent(game)}`;
const SPEEDS = [["\u00bc\u00d7", 1600], ["\u00bd\u00d7", 800], ["1\u00d7", 400], ["2\u00d7", 200], ["4\u00d7", 100],
  ["16\u00d7", 25]];
const SPEED = "400";       // milliseconds a step stays on the table, to begin with
let steps = 0;             // the game's log batches: step N shows the game after N of them
let shown = -1;            // the step the table shows
let before = null;         // the cards of the step before the one shown, when it was shown just before
let playing = null;        // the timer of the replay playing on its own
let hands = {};            // hand number -> the step that deals it

// --- the table at one step ------------------------------------------------------

// A card's code as cards.js drew it: its title, but a joker's, which says "joker" in the reader's words.
const code = (node) => (node.classList.contains("joker") ? "JK" : node.title);

// Every seat's hand face up; what came to a hand in the step just taken, marked.
function draw(at) {
  const view = { ...at.view, revealed: at.cards, due: "" };   // no countdown: the game is over
  drawTable($("table"), view);
  markLast($("table"));
  if (before) {
    for (const [seat, cards] of at.cards.entries()) {
      const had = new Set(before[seat] || []);
      for (const node of $("table").querySelectorAll(`.seat[data-seat="${seat}"] .hand .card`)) {
        if (!had.has(code(node))) node.classList.add("fresh");
      }
    }
  }
  $("status").textContent = status(view);
  $("status").title = gameLine(view);
  $("scores").replaceChildren(scores(view));
}

function standings(view) {
  const ranked = Array.from({ length: view.players }, (_, s) => s).sort((a, b) => view.totals[a] - view.totals[b]);
  return ranked.map((s) => W.seatPoints({ seat: s, points: view.totals[s] })).join(", ");
}

function markStep(step) {
  for (const node of $("moves").querySelectorAll("li.current")) node.classList.remove("current");
  const current = [...$("moves").querySelectorAll("li")].filter((li) => Number(li.dataset.seq) === step);
  for (const node of current) node.classList.add("current");
  if (current.length) current[0].scrollIntoView({ block: "nearest" });
}

async function read(step) {
  const response = await fetch(`${base}/replay?step=${step}`, { headers });
  return response.ok ? response.json() : null;
}

async function show(step) {
  const at = await read(step);
  if (!at || Number($("step").value) !== at.step) return;   // the scrubber moved on while this was in flight
  before = shown >= 0 && at.step === shown + 1 ? before : null;
  draw(at);
  before = at.cards;
  shown = at.step;
  $("step-label").textContent = W.step(at.step, at.steps);
  $("hand").value = String(at.view.hand);
  $("step-moves").replaceChildren(...(at.feed ? at.feed.items.flatMap((item, i) => [i ? " \u00b7 " : "", ...narrate(item)]) : []));
  $("result").hidden = at.step !== at.steps;
  $("result").textContent = W.finalStandings(standings(at.view));
  $("table").dataset.step = String(at.step);
  markStep(at.step);
}

function goTo(step) {
  const n = Math.max(0, Math.min(steps, step));
  $("step").value = String(n);
  return show(n);
}

// --- playing -------------------------------------------------------------------

function stop() {
  clearTimeout(playing);
  playing = null;
  $("play").textContent = W.play;
}

// One step every `speed` milliseconds (read before each wait), each drawn before the next wait begins.
function tick() {
  playing = setTimeout(async () => {
    const next = Number($("step").value) + 1;
    if (next <= steps) await goTo(next);
    if (next >= steps) stop();
    else if (playing) tick();
  }, Number($("speed").value));
}

function wire() {
  $("speed").replaceChildren(...SPEEDS.map(([label, ms]) => el("option", { value: String(ms), text: label })));
  $("speed").value = SPEED;
  $("hand").replaceChildren(...Object.keys(hands).map((hand) => el("option", { value: hand, text: W.handOption(hand) })));
  $("step").max = String(steps);
  $("step").addEventListener("input", () => goTo(Number($("step").value)));
  $("hand").addEventListener("change", () => { stop(); goTo(hands[$("hand").value]); });
  $("to-start").addEventListener("click", () => { stop(); goTo(0); });
  $("to-end").addEventListener("click", () => { stop(); goTo(steps); });
  $("back").addEventListener("click", () => { stop(); goTo(Number($("step").value) - 1); });
  $("forward").addEventListener("click", () => { stop(); goTo(Number($("step").value) + 1); });
  $("play").addEventListener("click", () => {
    if (playing) { stop(); return; }
    if (Number($("step").value) >= steps) goTo(0);
    $("play").textContent = W.pause;
    tick();
  });
  $("moves").addEventListener("click", (event) => {
    const li = event.target.closest("li[data-seq]");
    if (li) { stop(); goTo(Number(li.dataset.seq)); }
  });
  document.addEventListener("keydown", (event) => {
    if (event.target.matches("input, select, textarea")) return;
    if (event.key === "ArrowRight") { stop(); goTo(Number($("step").value) + 1); }
    if (event.key === "ArrowLeft") { stop(); goTo(Number($("step").value) - 1); }
  });
}

// --- the archive's signature ------------------------------------------------------

async function signature() {
  let check = null;
  try {
    const response = await fetch(`${base}/signature`, { headers });
    if (response.ok) check = await response.json();
  } catch { /* said below as unknown */ }
  const said = check ? {
    verified: W.archiveVerified,
    not_intact: W.archiveNotIntact((check.findings || []).map((f) => say(`tell.verify.${f.what}`, f)).join("; ")),
    not_archived: W.archiveNotArchived, unchecked: W.archiveUnchecked }[check.status] : W.archiveUnknown;
  $("signature").textContent = said;
  $("signature").className = `signature ${check ? check.status : "unknown"}`;
  $("archive-status").textContent = said;
  if (!check || check.status === "not_archived") return;
  $("archive-facts").textContent = [check.key ? W.archiveKey(check.key) : W.archiveSignedBy(check.signed_by || "?"),
    check.state_hash ? W.archiveHash(check.state_hash) : ""].filter(Boolean).join(" \u00b7 ");
  $("download").hidden = false;
  $("download").addEventListener("click", download);
  $("verify-line").textContent = `zioncheck verify ${game}.zca --key ${check.key || check.signed_by}`;
  $("archive-hint").hidden = false;
}

async function download() {
  const response = await fetch(`${base}/archive`, { headers });
  if (!response.ok) return;
  const link = el("a", { href: URL.createObjectURL(await response.blob()), download: `${game}.zca` });
  document.body.append(link);
  link.click();
  link.remove();
}

// --- the start --------------------------------------------------------------------

async function start() {
  let response;
  try {
    response = await fetch(`${base}/replay`, { headers });
  } catch {
    setTimeout(start, 2000);
    return;
  }
  if (response.status === 404 || response.status === 409) {   // no such game (or private); or not over yet
    $("status").textContent = response.status === 404 ? W.noSuchGame(game) : W.replayNotOver;
    $("status").classList.add("error");
    $("signature").textContent = "";
    for (const part of document.querySelectorAll("#table, #replay, .panels")) part.hidden = true;
    if (response.status === 409) {
      $("status").after(el("a", { id: "watch-link", href: `/watch/${encodeURIComponent(game)}`, text: W.watchIt }));
    }
    return;
  }
  if (!response.ok) { setTimeout(start, 2000); return; }
  const last = await response.json();
  steps = last.steps;
  hands = last.hands || {};
  $("replay").classList.add("shown");
  wire();
  await loadHistory(game, $("moves"), token);   // every move; the live stream has nothing more to add
  $("step").value = String(steps);
  await show(steps);
  signature();
}

$("game-id").textContent = game;
document.title = W.titleReplayOf(game);
start();

