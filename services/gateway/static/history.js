// Every move of a game from its start, for the moves list of the seat page and the watch page, and the last move
// marked on the table. A page first reads the game's feed a page at a time (GET /games/{id}/feed?from=), then
// follows it live on the public WebSocket from the last batch it listed (?after=): a reload or a language switch
// lists every move again, none lost and none twice.
import { el, narrate } from "./cards.js";

// The feed items that change what the table shows, and so can be its last move (contracts/feed.py).
const TOUCHES = new Set(["discarded", "laid_off", "joker_swapped", "went_down", "discard_taken", "claim_won",
  "stock_drawn", "stock_reshuffled", "hand_dealt"]);

const touched = new Map();   // a batch's seq -> the last of its items that touched the table
let listed = -1;             // the newest batch listed; -1: none yet

export const lastListed = () => listed;

// One feed batch at the end of `list`, scrolled into view unless `scroll` is false (a page of history scrolls
// once); false for a batch listed already (a repeat).
export function listBatch(list, batch, scroll = true) {
  if (batch.seq <= listed) return false;
  listed = batch.seq;
  for (const item of batch.items) {
    const told = narrate(item);
    if (told.length) list.append(el("li", { "data-seq": batch.seq }, told));   // some items are told by the table alone
  }
  const touch = batch.items.findLast((item) => TOUCHES.has(item.type));
  if (touch) touched.set(batch.seq, touch);
  if (scroll) list.scrollTop = list.scrollHeight;
  return true;
}

// Every batch the feed holds, into `list`, a page at a time. Stops quietly on a failure: the live stream then
// resumes from the last batch listed, and the gateway sends every batch past it. A seat's `token` goes along: a
// game its start kept private shows its feed to its seats only.
export async function loadHistory(game, list, token = null) {
  let from = 0;
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  for (;;) {
    let page;
    try {
      const response = await fetch(`/games/${encodeURIComponent(game)}/feed?from=${from}`, { headers });
      if (!response.ok) return;
      page = await response.json();
    } catch {
      return;
    }
    for (const batch of page.batches) listBatch(list, batch, false);
    list.scrollTop = list.scrollHeight;
    if (!page.more || page.next <= from) return;
    from = page.next;
  }
}

// What the last move touched on the table drawn in `root` (its data-seq: the view's): the discard it made, the
// meld it laid on, swapped in or went down with, the pile it took from or the stock it drew from. Nothing once
// a new hand is dealt. Call it after each drawing of the table and after each batch listed.
export function markLast(root) {
  for (const node of root.querySelectorAll(".last-move")) node.classList.remove("last-move");
  delete root.dataset.last;
  const seq = Number(root.dataset.seq);
  let last = null, at = -1;
  for (const [s, item] of touched) if (s <= seq && s > at) [last, at] = [item, s];
  if (!last) return;
  const one = (selector) => [root.querySelector(selector)];
  const nodes = {
    discarded: () => one(".pile.discard .cards > .card:last-child"),
    discard_taken: () => one(".pile.discard"),
    claim_won: () => one(".pile.discard"),
    stock_drawn: () => one(".pile.stock"),
    stock_reshuffled: () => one(".pile.stock"),
    laid_off: () => one(`.meld[data-meld="${last.owner}.${last.index + 1}"]`),
    joker_swapped: () => one(`.meld[data-meld="${last.owner}.${last.index + 1}"]`),
    went_down: () => [...root.querySelectorAll(`.meld[data-meld^="${last.seat}."]`)],
  }[last.type];
  const found = nodes ? nodes().filter(Boolean) : [];
  if (!found.length) return;
  root.dataset.last = last.type;
  for (const node of found) node.classList.add("last-move");
}
