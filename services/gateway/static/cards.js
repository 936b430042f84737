// Drawing cards and telling moves: shared by the list of games and the table.
import { WORDS } from "./words.js";

const SUITS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// A card as the table shows it: "10H" is ten of hearts, "JK" a joker (R2).
export function card(code, size = "") {
  if (code === "JK") {
    return el("span", { class: `card joker ${size}`, title: WORDS.joker },
      el("span", { class: "rank", text: "JK" }), el("span", { class: "pip", text: "\u2605" }));
  }
  const rank = code.slice(0, -1), suit = code.slice(-1);
  const red = suit === "D" || suit === "H";
  return el("span", { class: `card ${red ? "red" : "black"} ${size}`, title: code },
    el("span", { class: "rank", text: rank }), el("span", { class: "pip", text: SUITS[suit] || "?" }));
}

export function back(size = "") {
  return el("span", { class: `card back ${size}` });
}

export function empty(label = "") {
  return el("span", { class: "card empty", title: label });
}

const cards = (list) => list.map((c) => card(c, "mini"));

// One feed item (contracts/feed.py) as a line a person reads: a list of nodes and text.
export function narrate(item) {
  const W = WORDS;
  switch (item.type) {
    case "game_started": return [W.gameStarted(item.players, item.decks)];
    case "hand_dealt": return [W.handDealt(item.hand, item.dealer, item.hand_sizes[0], item.stock)];
    case "stock_reshuffled": return [W.reshuffled(item.stock)];
    case "seed_revealed": return [W.seedRevealed(item.hand)];
    case "stock_drawn": return [W.drew(item.seat)];
    case "stock_exhausted": return [W.noCardToDraw(item.seat)];
    case "discard_taken": return [W.took(item.seat), card(item.card, "mini"), W.fromThePile];
    case "discard_claimed": return [W.claimsCard(item.seat), card(item.card, "mini")];
    case "claim_won": return [W.wonClaim(item.seat), card(item.card, "mini")];
    case "claim_failed": return [W.lostClaim(item.seat), card(item.card, "mini"),
      `: ${W.failedWhy[item.why] || item.why}`];
    case "went_down": return [W.wentDown(item.seat),
      ...item.melds.flatMap((m, i) => [i ? " | " : "", ...cards(m.cards)])];
    case "laid_off": return [W.laidOff(item.seat), card(item.card, "mini"), W.onMeld(item.owner, item.index)];
    case "joker_swapped": return [W.swapped(item.seat), card(item.card, "mini"), W.forJoker(item.owner, item.index)];
    case "discarded": return [W.discarded(item.seat), card(item.card, "mini")];
    case "hand_ended": return [item.winner === null ? W.handDry(item.hand) : W.handWon(item.hand, item.winner)];
    case "game_ended": return [W.gameEnded(item.winners)];
    case "turn_timed_out": return [W.timedOut(item.seat)];
    case "seat_idle": return [W.seatIdle(item.seat)];
    case "seat_back": return [W.seatBack(item.seat)];
    case "game_abandoned": return [W.gameAbandoned(item.hand)];
    case "window_released": return [];   // R22: the claim window's countdown on the table says it
    case "seat_ready": return [W.seatReadyLine(item.seat)];
    case "pause_ended": return [W.pauseEnded(item.hand)];
    default: return [item.type];
  }
}
