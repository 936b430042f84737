// One game, live over /games/{id}/public/ws; once it is over, a replay of its log batches: a slider,
// a play button with a speed, and a jump to the deal of any hand. Every move from the game's start is read
// from its feed first (history.js); the chat of its seats is read here too (chat.js).
import { el, narrate } from "./cards.js";
import { chatLine, startChat } from "./chat.js";
import { heard } from "./clock.js";
import { lastListed, listBatch, loadHistory, markLast } from "./history.js";
import { showRules, viewRules } from "./rules.js";
import { drawTable, markOverflow, scores, status } from "./table.js";
import { WORDS as W } from "./words.js";

const game = decodeURIComponent(location.pathname.split("/").pop());
const $ = (id) => document.getElementById(id);
const MOVES_KEPT = 200;
const SPEEDS = [["\u00bc\u00d7", 1000], ["\u00bd\u00d7", 500], ["1\u00d7", 250], ["2\u00d7", 125], ["4\u00d7", 60]];
const SPEED = "250";        // milliseconds a replay step stays on the table, to begin with
let shownSeq = -1;          // the newest view drawn (views carry `seq`: never draw an older one)
let finished = false;       // the game is over: nothing new will come, and the page says so
let replaying = false;      // the slider, not the live stream, is what the table shows
let replaySteps = null;
let replayShown = -1;       // the replay step the table shows
let hands = {};             // hand number -> the replay step that deals it
let playing = null;         // the timer of a replay playing on its own

function show(view) {
  drawTable($("table"), view);
  markLast($("table"));
  $("status").textContent = status(view);
  viewRules(view).then((rules) => showRules($("rules"), rules));
  $("scores").replaceChildren(scores(view));
  markOverflow($("scores"), $("scores-more"));
}

function listMoves(batch) {
  if (replaying) return;   // the replay owns the list
  if (listBatch($("moves"), batch)) markLast($("table"));
}

// A replay step's moves (the live list is history.js's).
function appendMoves(batch) {
  const list = $("moves");
  for (const item of batch.items) list.append(el("li", { "data-seq": batch.seq }, narrate(item)));
  while (list.children.length > MOVES_KEPT) list.firstElementChild.remove();
  list.scrollTop = list.scrollHeight;
}

function onView(view) {
  if (view.seq <= shownSeq) return;
  shownSeq = view.seq;
  if (!replaying) show(view);
  if (view.game_over) {
    finished = true;
    $("connection").textContent = W.finished;
    $("replay-link").hidden = false;   // the whole game, every hand face up (replay.js)
    if (replaySteps === null) offerReplay();
  }
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const after = lastListed() > 0 ? `?after=${lastListed()}` : "";   // every move since those listed, none twice
  const socket = new WebSocket(`${scheme}://${location.host}/games/${encodeURIComponent(game)}/public/ws${after}`);
  socket.onopen = () => { $("connection").textContent = finished ? W.finished : W.live; };
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.kind === "clock") heard(message.now);
    if (message.kind === "clock" && message.behind && !finished) $("connection").textContent = W.behind(message.behind);
    if (message.kind === "view") onView(message.view);
    else if (message.kind === "feed") listMoves(message.batch);
    else if (message.kind === "chat") chatLine(message.line);
  };
  socket.onclose = (event) => {
    if (event.code === 4404) {   // said once, in the status: no table, moves or chat wait for a game never stored
      $("status").textContent = W.noSuchGame(game);
      $("status").classList.add("error");
      $("connection").textContent = "";
      for (const part of document.querySelectorAll("#table, #replay, .panels")) part.hidden = true;
      return;
    }
    if (finished) return;   // a finished game has nothing more to send
    $("connection").textContent = W.reconnecting("");
    setTimeout(connect, 1000);
  };
}

// --- the replay of a finished game ------------------------------------------------

async function step(n) {
  const response = await fetch(`/games/${encodeURIComponent(game)}/replay?step=${n}`);
  if (!response.ok) return;
  const at = await response.json();
  if (Number($("step").value) !== at.step) return;  // the slider moved on while this was in flight
  show(at.view);
  if (at.step !== replayShown + 1) $("moves").replaceChildren();  // a jump: the list starts again here
  if (at.feed) appendMoves(at.feed);
  replayShown = at.step;
  $("step-label").textContent = W.step(at.step, at.steps);
  $("hand").value = String(at.view.hand);
  $("step-moves").replaceChildren(...(at.feed ? at.feed.items.flatMap((item, i) => [i ? " \u00b7 " : "", ...narrate(item)]) : []));
}

function goTo(n) {
  replaying = true;
  $("step").value = String(n);
  return step(n);
}

function stop() {
  clearTimeout(playing);
  playing = null;
  $("play").textContent = W.play;
}

// One step every `speed` milliseconds (read before each wait), each drawn before the next wait begins.
function tick() {
  playing = setTimeout(async () => {
    const next = Number($("step").value) + 1;
    if (next <= replaySteps) await goTo(next);
    if (next >= replaySteps) stop();
    else if (playing) tick();
  }, Number($("speed").value));
}

async function offerReplay() {
  replaySteps = 0;
  const response = await fetch(`/games/${encodeURIComponent(game)}/replay`);
  if (!response.ok) return;
  const last = await response.json();
  replaySteps = last.steps;
  hands = last.hands || {};
  const slider = $("step");
  slider.max = String(replaySteps);
  slider.value = String(replaySteps);
  $("step-label").textContent = W.step(replaySteps, replaySteps);
  $("speed").replaceChildren(...SPEEDS.map(([label, ms]) => el("option", { value: String(ms), text: label })));
  $("speed").value = SPEED;
  $("hand").replaceChildren(...Object.keys(hands).map((hand) => el("option", { value: hand, text: W.handOption(hand) })));
  $("hand").value = String(last.view.hand);
  $("play").textContent = W.play;
  $("replay").classList.add("shown");
  slider.addEventListener("input", () => goTo(Number(slider.value)));
  $("hand").addEventListener("change", () => goTo(hands[$("hand").value]));
  $("play").addEventListener("click", () => {
    if (playing) { stop(); return; }
    if (Number(slider.value) >= replaySteps) goTo(0);
    $("play").textContent = W.pause;
    tick();
  });
}

$("game-id").textContent = game;
$("replay-link").href = `/replay/${encodeURIComponent(game)}`;
$("status").textContent = W.connecting;
document.title = `Zioncheck: ${game}`;
startChat(game);
loadHistory(game, $("moves")).then(() => { markLast($("table")); connect(); });
