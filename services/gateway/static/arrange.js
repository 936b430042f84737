// The seat's own order of its hand: sorted by suit or by rank, or arranged by hand. A card is moved by dragging it
// onto another (before it or after it, by the half it is dropped on), or with "Move cards": tap a card, then the
// card whose place it should take. The order is kept in this browser, per game and seat (localStorage), so a
// reload or a language switch keeps it; a new hand starts sorted again, and a card the arrangement does not know
// yet (the one just drawn) goes at its end.
import { sortHand } from "./moves.js";
import { WORDS as W } from "./words.js";

const DRAG_FROM = 8;         // pixels a pointer moves with a card held before it drags it
const AFTER_DRAG = 400;      // milliseconds in which a click is a drag's end, not a tap

export class Arrangement {
  constructor(game, seat) {
    this.key = `zioncheck.hand.${game}.${seat}`;
    this.kept = { byRank: false, hand: null, order: null };   // order: the cards' codes, null while sorted
    try { Object.assign(this.kept, JSON.parse(localStorage.getItem(this.key)) || {}); } catch { /* start sorted */ }
    this.moving = false;     // "Move cards" is on: a tap moves a card instead of picking it
    this.picked = null;      // the card a tap picked to move: {i, code}, i an index into the hand
  }

  save() { localStorage.setItem(this.key, JSON.stringify(this.kept)); }

  // The hand's cards in this seat's order, as indices into `cards` (the view's cards, in the order dealt).
  order(cards, hand) {
    if (this.kept.order === null || this.kept.hand !== hand) return sortHand(cards, this.kept.byRank);
    const left = cards.map((_, i) => i);
    const ordered = [];
    for (const code of this.kept.order) {
      const at = left.findIndex((i) => cards[i] === code);
      if (at >= 0) ordered.push(...left.splice(at, 1));
    }
    return [...ordered, ...left];
  }

  // How the hand is in order now: sorted by rank (true) or by suit (false), or arranged by hand (null). The two sort
  // buttons each say what they do and show which one the hand is sorted by: none, once a card is moved.
  sortedBy() { return this.kept.order === null ? this.kept.byRank : null; }

  sort(byRank) {
    this.kept.byRank = byRank;
    this.kept.order = null;
    this.save();
  }

  // Card `from` to just before (or after) card `to`: both indices into `cards`.
  move(cards, hand, from, to, after) {
    if (from === to) return;
    const rest = this.order(cards, hand).filter((i) => i !== from);
    const at = rest.indexOf(to);
    if (at < 0) return;
    rest.splice(after ? at + 1 : at, 0, from);
    Object.assign(this.kept, { hand, order: rest.map((i) => cards[i]) });
    this.save();
  }

  // A tap in "Move cards": the first picks a card, the second puts it in the place of the card tapped.
  tap(cards, hand, i) {
    const from = this.pickedIn(cards);
    if (from === null) { this.picked = { i, code: cards[i] }; return; }
    const shown = this.order(cards, hand);
    this.picked = null;
    this.move(cards, hand, from, i, shown.indexOf(from) < shown.indexOf(i));
  }

  // The card picked to move, while the hand still holds it where it was picked.
  pickedIn(cards) {
    const p = this.picked;
    return p !== null && cards[p.i] === p.code ? p.i : null;
  }
}

// Dragging and tapping in the hand `box` (its cards carry data-i, an index into the hand), the "Move cards"
// `button` that turns tapping to move on and off, and its `hint`: `hand()` is {cards, hand} now, `redraw()` draws
// the hand again. A tap in "Move cards", and the click that ends a drag, stop here: the page's own click (picking
// cards for a move) never sees them.
export function wireArrangement({ box, button, hint }, arrangement, hand, redraw) {
  button.textContent = W.moveCards;
  button.setAttribute("aria-pressed", "false");
  button.addEventListener("click", () => {
    arrangement.moving = !arrangement.moving;
    arrangement.picked = null;
    button.textContent = arrangement.moving ? W.moveDone : W.moveCards;
    button.setAttribute("aria-pressed", String(arrangement.moving));
    hint.hidden = !arrangement.moving;
    redraw();
  });
  let held = null;          // {node, i, x, y, dragging}
  let dropped = 0;          // when the last drag ended
  const cardAt = (event) => {
    const under = document.elementFromPoint(event.clientX, event.clientY);
    const node = under && under.closest(".card[data-i]");
    if (node && box.contains(node) && node !== held.node) return node;
    if (under && box.contains(under)) return [...box.querySelectorAll(".card[data-i]")].filter((n) => n !== held.node).pop();
    return null;
  };
  const clearMarks = () => {
    for (const node of box.querySelectorAll(".drop-before, .drop-after")) node.classList.remove("drop-before", "drop-after");
  };
  const side = (node, event) => {
    const rect = node.getBoundingClientRect();
    return event.clientX > rect.left + rect.width / 2;
  };
  const end = () => {
    if (held) {
      held.node.classList.remove("dragging");
      held.node.style.transform = "";
    }
    clearMarks();
    held = null;
  };

  box.addEventListener("pointerdown", (event) => {
    const node = event.target.closest(".card[data-i]");
    if (!node || event.button !== 0) return;
    held = { node, i: Number(node.dataset.i), x: event.clientX, y: event.clientY, dragging: false };
  });
  box.addEventListener("pointermove", (event) => {
    if (!held) return;
    const dx = event.clientX - held.x, dy = event.clientY - held.y;
    if (!held.dragging) {
      if (Math.hypot(dx, dy) < DRAG_FROM) return;
      held.dragging = true;
      held.node.classList.add("dragging");
      box.setPointerCapture(event.pointerId);
    }
    held.node.style.transform = `translate(${dx}px, ${dy}px)`;
    clearMarks();
    const target = cardAt(event);
    if (target) target.classList.add(side(target, event) ? "drop-after" : "drop-before");
  });
  box.addEventListener("pointerup", (event) => {
    if (!held || !held.dragging) { held = null; return; }
    const target = held.node.isConnected ? cardAt(event) : null;   // a new view may have drawn the hand anew
    const from = held.i;
    end();
    dropped = Date.now();
    if (!target) return;
    const now = hand();
    arrangement.move(now.cards, now.hand, from, Number(target.dataset.i), side(target, event));
    redraw();
  });
  box.addEventListener("pointercancel", end);
  box.addEventListener("click", (event) => {
    if (Date.now() - dropped < AFTER_DRAG) {
      event.stopPropagation();
      return;
    }
    if (!arrangement.moving) return;
    const node = event.target.closest(".card[data-i]");
    event.stopPropagation();
    if (!node) return;
    const now = hand();
    arrangement.tap(now.cards, now.hand, Number(node.dataset.i));
    redraw();
  }, true);
}

// The hand's cards as "Move cards" shows them: the one picked to move is marked.
export function markPicked(box, arrangement, cards) {
  box.classList.toggle("moving", arrangement.moving);
  const i = arrangement.pickedIn(cards);
  const node = i === null ? null : box.querySelector(`.card[data-i="${i}"]`);
  if (node) node.classList.add("picked");
}
