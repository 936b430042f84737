// The table drawn from a public view (contracts/views.py PublicView).
import { back, card, el, empty } from "./cards.js";
import { clock } from "./clock.js";
import { WORDS as W } from "./words.js";

const MAX_BACKS = 14;        // a long hand is drawn as this many backs and a count
const PILE_SHOWN = 4;        // the top discard and the few under it

function seatBox(view, seat) {
  const size = view.hand_sizes[seat] ?? 0;
  const badges = [];
  if (view.turn === seat) badges.push(el("span", { class: "badge turn", text: view.drawn ? W.playing : W.toDraw }));
  if (view.down[seat]) badges.push(el("span", { class: "badge down", text: W.down }));
  if (view.claims.includes(seat)) badges.push(el("span", { class: "badge claim", text: W.claims }));
  if (view.dealer === seat && view.hand) badges.push(el("span", { class: "badge", text: W.dealer }));
  if (view.game_over && view.winners.includes(seat)) badges.push(el("span", { class: "badge winner", text: W.winner }));
  if ((view.idle || []).includes(seat)) badges.push(el("span", { class: "badge away", text: W.away, title: W.awayHint }));
  if ((view.ready || []).includes(seat)) badges.push(el("span", { class: "badge ready", text: W.readyBadge }));
  if (view.turn === seat) badges.push(clock(view, "turn"));
  // R15, R23: once a hand has ended every seat's cards left are shown face up.
  const shown = (view.revealed || [])[seat];
  const cards = shown ? shown.map((c) => card(c, "small"))
    : Array.from({ length: Math.min(size, MAX_BACKS) }, () => back("small"));
  return el("div", { class: `seat${view.turn === seat ? " turn" : ""}`, "data-seat": seat },
    el("h3", {}, el("span", { class: "name", text: W.Seat(seat) }), ...badges),
    el("div", { class: `hand${shown ? " revealed" : ""}`, style: `--backs: ${cards.length}` }, cards),
    el("div", { class: "facts" },
      el("span", { class: "hand-size", text: W.cards(size) }), W.total(view.totals[seat] ?? 0)));
}

function centre(view) {
  const pile = view.discard;
  const top = pile.length ? card(pile[pile.length - 1]) : empty(W.noDiscard);
  const under = pile.slice(-PILE_SHOWN, -1).map((c) => card(c, "small"));
  return el("div", { class: "centre" },
    el("div", { class: "pile stock" },
      el("div", { class: "cards" }, view.stock ? back() : empty(W.noStock)),
      el("div", { class: "label" }, W.stock, el("b", { id: "stock-count", text: String(view.stock) }))),
    el("div", { class: "pile discard" },
      el("div", { class: "cards" }, el("span", { class: "under" }, under), top),
      el("div", { class: "label" }, W.pile, el("b", { id: "discard-count", text: String(pile.length) }),
        view.discarder !== null ? W.topFrom(view.discarder) : "")));
}

// Each owner's melds, numbered from 1 as the terminal numbers them (the wire's index is from 0).
function melds(view) {
  const owners = [...new Set(view.table.map((m) => m.owner))].sort((a, b) => a - b);
  if (!owners.length) return el("div", { class: "melds muted", text: W.noMelds });
  return el("div", { class: "melds" }, owners.map((owner) =>
    el("div", { class: "meld-group" }, el("h4", { text: W.meldsOf(owner) }),
      view.table.filter((m) => m.owner === owner).map((m) =>
        el("span", { class: "meld", "data-meld": `${m.owner}.${m.index + 1}` },
          el("span", { class: "number", text: W.meld(m.index) }), m.cards.map((c) => card(c, "small")),
          el("span", { class: "kind", text: W.kind(m.kind) }))))));
}

function claims(view) {
  const parts = [];
  if (view.window_open && view.discard.length) {
    const top = view.discard[view.discard.length - 1];
    parts.push(el("span", {}, W.openToClaims, card(top, "mini"),
      view.claims.length ? W.claimedBy(view.claims) : W.noClaimYet));
    if (view.held) parts.push(el("span", { class: "held" }, W.heldForPeople, clock(view, "claim")));   // R22
  }
  if (view.last_claims) {
    const c = view.last_claims;
    parts.push(el("span", {}, parts.length ? " \u00b7 " : "", W.lastClaims, card(c.card, "mini"), ": ",
      c.outcomes.map((o) => `${W.seat(o.seat)} ${W.claimOutcome[o.outcome] || o.outcome}`).join("; ")));
  }
  return el("div", { class: "claims" }, parts);
}

// Whether `box` (a panel's scrolling part) is wider than the screen lets it be: it and its `hint` then say so, that a
// sideways swipe shows the rest. Call it once what it holds is drawn.
export function markOverflow(box, hint) {
  const wider = box.scrollWidth > box.clientWidth + 1;
  box.classList.toggle("wider", wider);
  if (hint) hint.hidden = !wider;
}

export function scores(view) {
  const seats = Array.from({ length: view.players }, (_, s) => s);
  const head = el("tr", {}, el("th", { text: W.hand }), seats.map((s) => el("th", { text: W.seat(s) })));
  const rows = view.scores.map((h) => el("tr", {}, el("td", { text: `${h.hand}${h.winner === null ? W.dry : ""}` }),
    seats.map((s) => el("td", { text: h.winner === s ? W.out : String(h.scores[s]) }))));
  const totals = el("tr", { class: "totals" }, el("td", { text: W.totalRow }),
    seats.map((s) => el("td", { text: String(view.totals[s] ?? 0) })));
  return el("table", { class: "scores" }, head, rows, totals);
}

// R24: a game other than Zioncheck's six hands names itself and every hand's contract (the status line's tooltip).
export function gameLine(view) {
  return view.contracts && view.contracts.length ? W.gameOf(view.game, view.contracts) : "";
}

export function status(view) {
  if (view.game_over) return W.gameOver(view.winners);
  if (!view.hand) return W.firstDeal;
  const game = view.game && view.game !== "zioncheck" ? `${W.gameName(view.game)} \u00b7 ` : "";   // R24
  const hand = game + W.handOf(view.hand, view.contract && W.contract(view.contract), view.hands || 6);
  if (view.due === "abandon") return `${hand} \u00b7 ${W.gameWaits}`;
  if (view.hand_over) return `${hand} \u00b7 ${view.due === "pause" ? W.pauseBeforeNext : W.handOver}`;
  return `${hand} \u00b7 ${W.turn(view.turn, view.drawn)}`;
}

// What the game waits for, said above the table: the pause between hands (R23), or its people all away (R21).
function banner(view) {
  if (view.game_over) return null;
  if (view.due === "abandon" || (view.due === "" && view.idle && view.idle.length && view.seats
      && view.seats.every((who, s) => who !== "person" || view.idle.includes(s)))) {
    return el("div", { class: "banner away", role: "status" }, W.gameWaitsLong, " ", clock(view, "abandon"));
  }
  if (view.due === "pause") {
    return el("div", { class: "banner pause", role: "status" }, W.pauseBanner(view.hand), clock(view, "pause"),
      W.pauseReadyHint);
  }
  return null;
}

// The whole table into `root`, replacing what was there.
export function drawTable(root, view) {
  root.dataset.seq = view.seq;
  root.replaceChildren(...[banner(view),
    el("div", { class: "seats" }, view.hand_sizes.map((_, seat) => seatBox(view, seat))),
    centre(view), claims(view), melds(view)].filter(Boolean));
}
