// One game, live over /games/{id}/public/ws; once it is over, a replay with a slider over its log batches.
import { el, narrate } from "./cards.js";
import { drawTable, scores, status } from "./table.js";

const game = decodeURIComponent(location.pathname.split("/").pop());
const $ = (id) => document.getElementById(id);
const MOVES_KEPT = 200;
let shownSeq = -1;          // the newest view drawn (views carry `seq`: never draw an older one)
let fedSeq = 0;             // the newest feed batch listed
let replaying = false;      // the slider, not the live stream, is what the table shows
let replaySteps = null;
let replayShown = -1;       // the replay step the table shows

function show(view) {
  drawTable($("table"), view);
  $("status").textContent = status(view);
  $("scores").replaceChildren(scores(view));
}

function listMoves(batch) {
  if (batch.seq <= fedSeq || replaying) return;  // a repeat, or the replay owns the list
  fedSeq = batch.seq;
  appendMoves(batch);
}

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
  if (view.game_over && replaySteps === null) offerReplay();
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/games/${encodeURIComponent(game)}/public/ws`);
  socket.onopen = () => { if (!replaying) $("connection").textContent = "live"; };
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.kind === "view") onView(message.view);
    else if (message.kind === "feed") listMoves(message.batch);
  };
  socket.onclose = (event) => {
    if (event.code === 4404) {
      $("status").textContent = `No game ${game} is stored.`;
      $("status").classList.add("error");
      $("connection").textContent = "";
      return;
    }
    $("connection").textContent = `reconnecting (${event.reason || "connection closed"})`;
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
  $("step-label").textContent = `step ${at.step} of ${at.steps}`;
  $("step-moves").replaceChildren(...(at.feed ? at.feed.items.flatMap((item, i) => [i ? " \u00b7 " : "", ...narrate(item)]) : []));
}

function replay() {
  replaying = true;
  $("connection").textContent = "replay";
}

async function offerReplay() {
  replaySteps = 0;
  const response = await fetch(`/games/${encodeURIComponent(game)}/replay`);
  if (!response.ok) return;
  replaySteps = (await response.json()).steps;
  const slider = $("step");
  slider.max = String(replaySteps);
  slider.value = String(replaySteps);
  $("step-label").textContent = `step ${replaySteps} of ${replaySteps}`;
  $("replay").classList.add("shown");
  slider.addEventListener("input", () => { replay(); step(Number(slider.value)); });
  let timer = null;
  $("play").addEventListener("click", () => {
    if (timer) { clearInterval(timer); timer = null; $("play").textContent = "Play"; return; }
    if (Number(slider.value) >= replaySteps) slider.value = "0";
    replay();
    $("play").textContent = "Pause";
    timer = setInterval(() => {
      const next = Number(slider.value) + 1;
      if (next > replaySteps) { clearInterval(timer); timer = null; $("play").textContent = "Play"; return; }
      slider.value = String(next);
      step(next);
    }, 250);
  });
}

$("game-id").textContent = game;
document.title = `Zioncheck: ${game}`;
connect();
