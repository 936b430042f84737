// One seat's page: /play/{id}#token=<the seat's token>. It shows the seat's hand and the table and sends
// every move of the seat by click or tap (POST /games/{id}/commands). The token is kept in this browser
// (localStorage, per game) and taken out of the address, so a reload is back in the seat and the address
// bar shows no token. Before the game starts it waits in the lobby (GET /lobbies/{id}).
//
// The seat's view comes over /games/{id}/view/ws; every move of the game is read from its feed (history.js),
// then comes over /games/{id}/public/ws with the chat (chat.js); after a dropped connection both resume with
// ?after= the last seq seen, so no move is lost or listed twice. The hand's order is the seat's own (arrange.js).
import { Arrangement, markPicked, wireArrangement } from "./arrange.js";
import { card, el } from "./cards.js";
import { chatLine, startChat } from "./chat.js";
import { heard, tick } from "./clock.js";
import { lastListed, listBatch, loadHistory, markLast } from "./history.js";
import { JOKER, arrangeRun } from "./moves.js";
import { showRules, viewRules } from "./rules.js";
import { drawTable, markOverflow, scores, status } from "./table.js";
import { LANGUAGE, WORDS as W } from "./words.js";

const game = decodeURIComponent(location.pathname.split("/").pop());
const $ = (id) => document.getElementById(id);
const STORE = `zioncheck.seat.${game}`;

let token = null;
let seat = null;
let view = null;            // the newest SeatView
let shownSeq = -1;
let over = false;
let arrangement = null;     // the seat's order of its hand
let selected = new Set();   // indices into view.cards
let slots = null;           // going down: one list of indices into view.cards per meld of the contract
let target = null;          // a meld tapped with one card picked: {owner, index}
let pending = 0;            // the seq of the last move sent, until a view has applied it: no move is sent twice
let pendingSince = 0;
let refusedAt = null;       // the moment a refusal shown was refused in (`moment`): once it has passed, it goes

// --- the token ---------------------------------------------------------------------

function takeToken() {
  const given = new URLSearchParams(location.hash.slice(1)).get("token");
  if (given) {
    localStorage.setItem(STORE, given);
    history.replaceState(null, "", location.pathname + location.search);
  }
  return given || localStorage.getItem(STORE);
}

function seatOf(value) {
  try {
    const claims = JSON.parse(atob(value.split(".")[0].replace(/-/g, "+").replace(/_/g, "/")));
    return claims.seat;
  } catch { return null; }
}

// A WebSocket's close reason starts with its code (4401, 4403); 4404 says no game is stored.
const closedFor = (event) => (event.code === 4404 ? "no_such_game" : String(event.reason || "").split(":")[0]);

function refuseSeat(why) {
  $("status").textContent = W.seatRefused(why);
  $("status").classList.add("error");
  $("connection").textContent = "";
}

// --- what the seat may do now ----------------------------------------------------

const pub = () => view.public;
const inPlay = () => view && pub().hand && !pub().hand_over && !pub().game_over;
const myTurn = () => inPlay() && pub().turn === seat;
const drawn = () => myTurn() && pub().drawn;
const isDown = () => Boolean(pub().down[seat]);
const topCard = () => pub().discard[pub().discard.length - 1];
// What the seat may do now, as the table's rules work it out (SeatView.moves, domain/legal.py): the page
// offers these moves and no other, so the table refuses none of them.
const moves = () => view.moves || {};
const canDraw = () => Boolean(moves().draw_stock);
const canTake = () => Boolean(moves().take_discard);
const canClaim = () => Boolean(moves().claim);
const canGoDown = () => (moves().go_down || []).length > 0;
const mayReady = () => Boolean(moves().ready);   // R23
const inSlots = () => new Set(slots ? slots.flat() : []);

const away = () => (pub().idle || []).includes(seat);

// What the seat is to do now, naming only the buttons the page shows. Away in a game whose people are all away (R21),
// no bot plays for the seat: the game waits to be abandoned, and says so.
function prompt() {
  const p = pub();
  if (p.game_over) return p.winners.includes(seat) ? W.youWon : W.gameOver(p.winners);
  if (away()) return p.due === "abandon" ? W.youAreAwayWaits : W.youAreAway;
  if (p.due === "pause") return mayReady() ? W.readyPrompt : W.waitingForOthers;
  if (!inPlay()) return W.waitingForDeal;
  if (!myTurn()) return W.othersTurn(p.turn) + (canClaim() ? W.canClaim : "");
  if (!p.drawn) return W.yourTurnDraw;
  if (slots) return "";   // going down: the boxes say what to do
  if (canGoDown()) return W.yourTurnGoDown;
  return isDown() && (moves().lay_off || []).length ? W.yourTurnLayOff : W.yourTurnDiscard;
}

// The moment of the game a move is made in: a refusal stays shown while it lasts.
const moment = () => (view ? [pub().hand, pub().turn, pub().drawn, pub().hand_over, pub().due,
  pub().discard.length].join() : "");

// A move sent and not yet applied by a view (its seq past the view's `applied`): the buttons wait for it, so a
// double tap sends nothing twice. A view that never comes (a connection lost) holds them for 5 s at most.
const waiting = () => pending > 0 && view && pub().applied < pending && Date.now() - pendingSince < 5000;

// --- drawing the page ------------------------------------------------------------

function draw() {
  if (!view) return;
  const p = pub();
  drawTable($("table"), p);
  markLast($("table"));
  $("table").dataset.applied = p.applied;
  const mine = document.querySelector(`.seat[data-seat="${seat}"]`);
  if (mine) {
    mine.classList.add("mine");
    mine.querySelector("h3").append(el("span", { class: "badge you", text: W.youBadge }));
  }
  $("status").textContent = status(p);
  viewRules(p).then((rules) => showRules($("rules"), rules));
  $("scores").replaceChildren(scores(p));
  markOverflow($("scores"), $("scores-more"));
  $("prompt").textContent = prompt();
  drawHand();
  drawSlots();
  drawChoices();
  const show = (id, when) => { $(id).hidden = !when; };
  show("draw", canDraw() && !slots);
  show("take", canTake() && !slots);
  show("claim", canClaim());
  show("go-down", canGoDown() && !slots && p.contract);
  show("discard", drawn() && !slots);
  show("ready", mayReady());
  for (const [id, words] of [["take", W.take], ["claim", W.claim]]) {   // the card either takes, named on its button
    $(id).replaceChildren(words, ...(p.discard.length && !$(id).hidden ? [" ", card(topCard(), "mini")] : []));
  }
  tick();
  for (const id of ["draw", "take", "claim", "go-down", "discard", "ready", "lay-down"]) $(id).disabled = waiting();
  if (selected.size !== 1) $("discard").disabled = true;
  $("actions").dataset.state = myTurn() ? (p.drawn ? "drawn" : "draw") : "wait";
}

function drawHand() {
  const used = inSlots();
  const order = arrangement.order(view.cards, pub().hand).filter((i) => !used.has(i));
  $("hand").replaceChildren(...order.map((i) => {
    const node = card(view.cards[i]);
    node.dataset.i = i;
    node.dataset.card = view.cards[i];
    node.setAttribute("role", "button");
    node.tabIndex = 0;
    if (selected.has(i)) node.classList.add("selected");
    if (drawn() && i === view.cards.length - 1) node.classList.add("fresh");   // the card this turn drew
    return node;
  }));
  markPicked($("hand"), arrangement, view.cards);
  $("hand-count").textContent = W.cards(view.cards.length);
  for (const [id, byRank] of [["sort-suit", false], ["sort-rank", true]]) {
    $(id).setAttribute("aria-pressed", String(arrangement.sortedBy() === byRank));
  }
}

function slotKinds() {
  const c = pub().contract;
  return [...Array(c.sets).fill("set"), ...Array(c.runs).fill("run")];
}

const slotCards = (kind, indices) => {
  const codes = indices.map((i) => view.cards[i]);
  return kind === "run" ? arrangeRun(codes) : codes;
};

// Going down: the contract's boxes, filled with the melds the rules found (moves.go_down); the person may
// move cards in and out before laying them down.
function suggested() {
  const kinds = slotKinds();
  const filled = kinds.map(() => []);
  const free = view.cards.map((_, i) => i);
  for (const meld of moves().go_down || []) {
    const ranks = new Set(meld.filter((c) => c !== JOKER).map((c) => c.slice(0, -1)));
    const want = ranks.size <= 1 && kinds.some((kind, k) => kind === "set" && !filled[k].length) ? "set" : "run";
    const k = kinds.findIndex((kind, j) => kind === want && !filled[j].length);
    if (k < 0) return kinds.map(() => []);
    for (const code of meld) {
      const at = free.findIndex((i) => view.cards[i] === code);
      if (at < 0) return kinds.map(() => []);
      filled[k].push(free.splice(at, 1)[0]);
    }
  }
  return filled;
}

function drawSlots() {
  $("arrange").hidden = !slots;
  if (!slots) return;
  let sets = 0, runs = 0;
  $("slots").replaceChildren(...slotKinds().map((kind, k) => {
    const label = kind === "set" ? W.setSlot(sets += 1) : W.runSlot(runs += 1);
    const cards = slots[k].map((i) => [view.cards[i], i]);
    const shown = kind === "run" ? arrangeRun(cards.map(([c]) => c)) : cards.map(([c]) => c);
    const pool = [...cards];
    return el("div", { class: "slot", "data-slot": k, "data-kind": kind, role: "button", tabindex: 0 },
      el("span", { class: "slot-label", text: label }),
      shown.map((code) => {
        const at = pool.findIndex(([c]) => c === code);
        const [, i] = pool.splice(at, 1)[0];
        const node = card(code, "small");
        node.dataset.i = i;
        return node;
      }));
  }));
}

function drawChoices() {
  const box = $("choices");
  if (!target || selected.size !== 1) { box.hidden = true; target = null; return; }
  const meld = pub().table.find((m) => m.owner === target.owner && m.index === target.index);
  if (!meld) { box.hidden = true; target = null; return; }
  const code = view.cards[[...selected][0]];
  const here = (m) => m.card === code && m.owner === meld.owner && m.index === meld.index;
  const offs = (moves().lay_off || []).filter(here);
  const offLabel = W.layOffOn(meld.owner, meld.index);
  const buttons = offs.map((m) => (offs.length === 2 && m.end
    ? choice(offLabel + (m.end === "low" ? W.atLowEnd : W.atHighEnd), { move: "lay_off", end: m.end })
    : choice(offLabel, { move: "lay_off", end: m.end })));
  if ((moves().swap_joker || []).some(here)) buttons.push(choice(W.swapFor(meld.owner, meld.index), { move: "swap_joker" }));
  box.replaceChildren(el("span", { class: "picked" }, card(code, "mini")),
    ...(buttons.length ? buttons : [el("span", { class: "muted", text: W.noFit })]),
    el("button", { type: "button", class: "quiet", "data-move": "cancel", text: W.cancel }));
  box.hidden = false;
}

function choice(text, data) {
  const attrs = { type: "button", text, "data-move": data.move };
  if (data.end) attrs["data-end"] = data.end;
  return el("button", attrs);
}

// --- sending moves -----------------------------------------------------------------

function showRefusal(text) {
  $("refusal").textContent = text;
  $("refusal").hidden = !text;
  refusedAt = text ? moment() : null;
}

// The view that follows an accepted move redraws the hand (onView); the answer may come before or after it,
// so it changes nothing the person may have picked meanwhile. A refusal reads in the page's language, detail and
// all: the gateway says it in the language asked for (Accept-Language: `said`).
async function send(command) {
  if (waiting()) return;
  showRefusal("");
  pending = Number.MAX_SAFE_INTEGER;   // until the answer names the move's seq
  pendingSince = Date.now();
  draw();
  try {
    const response = await fetch(`/games/${encodeURIComponent(game)}/commands`, {
      method: "POST", body: JSON.stringify({ seat, ...command }),
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}`, "Accept-Language": LANGUAGE },
    });
    const body = await response.json();
    pending = response.ok ? body.seq : 0;
    if (!response.ok) showRefusal(W.problem(body.error));
    else if (!body.accepted) showRefusal(W.refused(body.said || W.reason(body.reason)));
  } catch {
    pending = 0;
    showRefusal(W.cannotReach);
  }
  draw();
}

const one = () => view.cards[[...selected][0]];

function onHand(event) {
  const node = event.target.closest(".card[data-i]");
  if (!node) return;
  const i = Number(node.dataset.i);
  if (selected.has(i)) selected.delete(i); else selected.add(i);
  target = null;
  draw();
}

function onSlot(event) {
  const back = event.target.closest(".card[data-i]");
  const box = event.target.closest(".slot");
  if (!box) return;
  const k = Number(box.dataset.slot);
  if (back) slots[k] = slots[k].filter((i) => i !== Number(back.dataset.i));
  else { slots[k].push(...selected); selected.clear(); }
  draw();
}

function onTable(event) {
  if (!view) return;
  const meld = event.target.closest(".meld[data-meld]");
  if (meld) {
    if (selected.size !== 1) { showRefusal(W.pickOneCard); return; }
    const [owner, number] = meld.dataset.meld.split(".").map(Number);
    target = { owner, index: number - 1 };
    showRefusal("");
    draw();
    return;
  }
  if (event.target.closest(".pile.stock")) {
    if (canDraw()) send({ type: "draw_stock" });
    else showRefusal(!inPlay() ? W.waitingForDeal : myTurn() ? W.alreadyDrew : W.othersTurn(pub().turn));
  }
  else if (event.target.closest(".pile.discard")) {
    if (canTake()) send({ type: "take_discard" });
    else if (canClaim() && !$("claim").disabled) send({ type: "claim_discard" });
  }
}

function onChoice(event) {
  const button = event.target.closest("button[data-move]");
  if (!button) return;
  const move = button.dataset.move;
  const at = [target.owner, target.index];
  if (move === "cancel") { target = null; draw(); return; }
  const code = one();
  selected.clear();   // the pick is spent, whatever the table answers
  target = null;
  if (move === "lay_off") send({ type: "lay_off", target: at, card: code, ...(button.dataset.end ? { end: button.dataset.end } : {}) });
  else if (move === "swap_joker") send({ type: "swap_joker", target: at, card: code });
}

function wire() {
  $("hand").addEventListener("click", onHand);
  $("slots").addEventListener("click", onSlot);
  $("table").addEventListener("click", onTable);
  $("choices").addEventListener("click", onChoice);
  $("draw").addEventListener("click", () => send({ type: "draw_stock" }));
  $("take").addEventListener("click", () => send({ type: "take_discard" }));
  $("claim").addEventListener("click", () => send({ type: "claim_discard" }));
  $("ready").addEventListener("click", () => send({ type: "ready" }));
  $("discard").addEventListener("click", () => { if (selected.size === 1) send({ type: "discard", card: one() }); });
  $("go-down").addEventListener("click", () => { slots = suggested(); target = null; showRefusal(""); draw(); });
  $("cancel-down").addEventListener("click", () => { slots = null; draw(); });
  $("lay-down").addEventListener("click", () => {
    const kinds = slotKinds();
    send({ type: "go_down", melds: slots.map((indices, k) => slotCards(kinds[k], indices)) });
  });
  $("sort-suit").addEventListener("click", () => { arrangement.sort(false); draw(); });
  $("sort-rank").addEventListener("click", () => { arrangement.sort(true); draw(); });
  wireArrangement({ box: $("hand"), button: $("move-cards"), hint: $("move-hint") }, arrangement,
    () => ({ cards: view.cards, hand: pub().hand }), draw);
  for (const id of ["hand", "slots"]) {   // a card or a box picked with the keyboard as with a tap
    $(id).addEventListener("keydown", (event) => {
      if ((event.key === "Enter" || event.key === " ") && event.target.matches("[role=button]")) {
        event.preventDefault();
        event.target.click();
      }
    });
  }
}

// --- the streams ---------------------------------------------------------------------

function onView(next) {
  if (next.seq <= shownSeq) return;
  shownSeq = next.seq;
  if (!view || next.cards.join() !== view.cards.join()) { selected.clear(); slots = null; target = null; }
  view = next;
  over = next.public.game_over;
  if (over) {   // the whole game, every hand face up (replay.js)
    $("replay-link").href = `/replay/${encodeURIComponent(game)}`;
    $("replay-link").hidden = false;
  }
  if (refusedAt !== null && refusedAt !== moment()) showRefusal("");   // what it refused is past
  draw();
}

const socketUrl = (path) => `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${path}`;

function connectSeat() {
  const after = shownSeq >= 0 ? `&after=${shownSeq}` : "";
  const socket = new WebSocket(socketUrl(`/games/${encodeURIComponent(game)}/view/ws?token=${encodeURIComponent(token)}${after}`));
  socket.onopen = () => { $("connection").textContent = over ? W.finished : W.live; };
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.kind === "clock") heard(message.now);
    if (message.kind === "view") onView(message.view);
  };
  socket.onclose = (event) => {
    if (event.code === 4401 || event.code === 4403 || event.code === 4404) {
      if (event.code === 4401) localStorage.removeItem(STORE);
      refuseSeat(W.problem(closedFor(event)));
      return;
    }
    if (over) return;
    $("connection").textContent = W.reconnecting("");
    setTimeout(connectSeat, 1000);
  };
}

// The seat's token goes along: a game its start kept private is shown to its seats only.
function connectFeed() {
  const after = lastListed() >= 0 ? `&after=${lastListed()}` : "";
  const socket = new WebSocket(socketUrl(`/games/${encodeURIComponent(game)}/public/ws?token=${encodeURIComponent(token)}${after}`));
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.kind === "feed" && listBatch($("moves"), message.batch)) markLast($("table"));
    else if (message.kind === "chat") chatLine(message.line);
  };
  socket.onclose = (event) => { if (!over && event.code !== 4404) setTimeout(connectFeed, 1000); };
}

// --- before the game: the lobby ---------------------------------------------------------

async function waitForStart() {
  let response;
  try {
    response = await fetch(`/lobbies/${encodeURIComponent(game)}`, { headers: { Authorization: `Bearer ${token}` } });
  } catch {
    setTimeout(waitForStart, 2000);
    return;
  }
  if (response.status === 404) {          // no lobby waits: the game has started (or was opened without one)
    $("waiting").hidden = true;
    $("playing").hidden = false;
    connectSeat();
    startChat(game, { token, seat });
    loadHistory(game, $("moves"), token).then(() => { markLast($("table")); connectFeed(); });
    return;
  }
  const body = await response.json();
  if (!response.ok) {
    if (response.status === 401) localStorage.removeItem(STORE);
    refuseSeat(W.problem(body.error));
    return;
  }
  $("waiting").hidden = false;
  $("status").textContent = W.waitingForHost;
  showRules($("waiting-rules"), { game: body.game, contracts: body.contracts, limits: body.limits, open: true });
  $("waiting-seats").replaceChildren(...body.seats.map((s) => el("li", { "data-seat": s.seat, class: s.joined ? "joined" : "" },
    el("b", { text: W.Seat(s.seat) }), " \u00b7 ",
    s.player === "person" ? (s.seat === seat ? W.yourSeat : W.personSeat) : W.botOf(s.player),
    s.player === "person" ? el("span", { class: "badge", text: s.joined ? W.joinedMark : W.notJoinedYet }) : "")));
  setTimeout(waitForStart, 2000);
}

token = takeToken();
$("game-id").textContent = game;
if (!token) {
  refuseSeat(W.noSeatToken);
} else {
  seat = seatOf(token);
  arrangement = new Arrangement(game, seat);
  document.title = W.playTitle(game, seat);
  $("me-name").textContent = W.you(seat);
  $("status").textContent = W.connecting;
  wire();
  waitForStart();
}
