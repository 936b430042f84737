// The table drawn from a public view (contracts/views.py PublicView).
import { back, card, el, empty } from "./cards.js";

const MAX_BACKS = 14;        // a long hand is drawn as this many backs and a count
const PILE_SHOWN = 4;        // the top discard and the few under it

function seatBox(view, seat) {
  const size = view.hand_sizes[seat] ?? 0;
  const badges = [];
  if (view.turn === seat) badges.push(el("span", { class: "badge turn", text: view.drawn ? "playing" : "to draw" }));
  if (view.down[seat]) badges.push(el("span", { class: "badge down", text: "down" }));
  if (view.claims.includes(seat)) badges.push(el("span", { class: "badge claim", text: "claims" }));
  if (view.dealer === seat && view.hand) badges.push(el("span", { class: "badge", text: "dealer" }));
  if (view.game_over && view.winners.includes(seat)) badges.push(el("span", { class: "badge winner", text: "winner" }));
  const backs = Array.from({ length: Math.min(size, MAX_BACKS) }, () => back("small"));
  return el("div", { class: `seat${view.turn === seat ? " turn" : ""}`, "data-seat": seat },
    el("h3", {}, `Seat ${seat}`, ...badges),
    el("div", { class: "hand" }, backs),
    el("div", { class: "facts" },
      el("span", { class: "hand-size", text: `${size} card${size === 1 ? "" : "s"}` }),
      ` \u00b7 total ${view.totals[seat] ?? 0}`));
}

function centre(view) {
  const pile = view.discard;
  const top = pile.length ? card(pile[pile.length - 1]) : empty("no discard");
  const under = pile.slice(-PILE_SHOWN, -1).map((c) => card(c, "small"));
  return el("div", { class: "centre" },
    el("div", { class: "pile stock" },
      el("div", { class: "cards" }, view.stock ? back() : empty("no stock")),
      el("div", { class: "label" }, "stock: ", el("b", { id: "stock-count", text: String(view.stock) }))),
    el("div", { class: "pile discard" },
      el("div", { class: "cards" }, el("span", { class: "under" }, under), top),
      el("div", { class: "label" }, "pile: ", el("b", { id: "discard-count", text: String(pile.length) }),
        view.discarder !== null ? ` (top from seat ${view.discarder})` : "")));
}

function melds(view) {
  const owners = [...new Set(view.table.map((m) => m.owner))].sort((a, b) => a - b);
  if (!owners.length) return el("div", { class: "melds muted", text: "No melds on the table yet." });
  return el("div", { class: "melds" }, owners.map((owner) =>
    el("div", { class: "meld-group" }, el("h4", { text: `Seat ${owner}'s melds` }),
      view.table.filter((m) => m.owner === owner).map((m) =>
        el("span", { class: "meld", title: `${m.kind} ${m.index + 1}` }, m.cards.map((c) => card(c, "small")),
          el("span", { class: "kind", text: m.kind }))))));
}

const OUTCOME = { won: "won it", turn_player_took: "lost: the turn player took it", nearer_claimant: "lost to a nearer claimant" };

function claims(view) {
  const parts = [];
  if (view.window_open && view.discard.length) {
    const top = view.discard[view.discard.length - 1];
    parts.push(el("span", {}, "Open to claims: ", card(top, "mini"),
      view.claims.length ? ` claimed by ${view.claims.map((s) => `seat ${s}`).join(", ")}` : " (no claim yet)"));
  }
  if (view.last_claims) {
    const c = view.last_claims;
    parts.push(el("span", {}, parts.length ? " \u00b7 " : "", "Last claims on ", card(c.card, "mini"), ": ",
      c.outcomes.map((o) => `seat ${o.seat} ${OUTCOME[o.outcome] || o.outcome}`).join("; ")));
  }
  return el("div", { class: "claims" }, parts);
}

export function scores(view) {
  const seats = Array.from({ length: view.players }, (_, s) => s);
  const head = el("tr", {}, el("th", { text: "hand" }), seats.map((s) => el("th", { text: `seat ${s}` })));
  const rows = view.scores.map((h) => el("tr", {}, el("td", { text: `${h.hand}${h.winner === null ? " (dry)" : ""}` }),
    seats.map((s) => el("td", { text: h.winner === s ? "out" : String(h.scores[s]) }))));
  const totals = el("tr", { class: "totals" }, el("td", { text: "total" }),
    seats.map((s) => el("td", { text: String(view.totals[s] ?? 0) })));
  return el("table", { class: "scores" }, head, rows, totals);
}

export function status(view) {
  if (view.game_over) return `Game over \u00b7 ${view.winners.map((s) => `seat ${s}`).join(" and ")} won`;
  if (!view.hand) return "Waiting for the first deal";
  const hand = `Hand ${view.hand} of 6${view.contract ? ` \u00b7 ${view.contract.text}` : ""}`;
  if (view.hand_over) return `${hand} \u00b7 hand over, waiting for the next deal`;
  return `${hand} \u00b7 seat ${view.turn} ${view.drawn ? "to meld or discard" : "to draw"}`;
}

// The whole table into `root`, replacing what was there.
export function drawTable(root, view) {
  root.dataset.seq = view.seq;
  root.replaceChildren(
    el("div", { class: "seats" }, view.hand_sizes.map((_, seat) => seatBox(view, seat))),
    centre(view), claims(view), melds(view));
}
