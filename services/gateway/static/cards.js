// Drawing cards and telling moves: shared by the list of games and the table.
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
    return el("span", { class: `card joker ${size}`, title: "joker" },
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

const seatName = (seat) => `seat ${seat}`;
const cards = (list) => list.map((c) => card(c, "mini"));
const WHY = { turn_player_took: "the turn player took it", nearer_claimant: "a nearer claimant won it" };

// One feed item (contracts/feed.py) as a line a person reads: a list of nodes and text.
export function narrate(item) {
  switch (item.type) {
    case "game_started": return [`Game started: ${item.players} players, ${item.decks} decks`];
    case "hand_dealt": return [`Hand ${item.hand} dealt by ${seatName(item.dealer)}: `
      + `${item.hand_sizes[0]} cards each, ${item.stock} in the stock`];
    case "stock_reshuffled": return [`The pile became the stock: ${item.stock} cards`];
    case "seed_revealed": return [`Hand ${item.hand}'s seed revealed`];
    case "stock_drawn": return [`${seatName(item.seat)} drew from the stock`];
    case "stock_exhausted": return [`${seatName(item.seat)} found no card to draw`];
    case "discard_taken": return [`${seatName(item.seat)} took `, card(item.card, "mini"), " from the pile"];
    case "discard_claimed": return [`${seatName(item.seat)} claims `, card(item.card, "mini")];
    case "claim_won": return [`${seatName(item.seat)} won the claim on `, card(item.card, "mini")];
    case "claim_failed": return [`${seatName(item.seat)} lost the claim on `, card(item.card, "mini"),
      `: ${WHY[item.why] || item.why}`];
    case "went_down": return [`${seatName(item.seat)} went down: `,
      ...item.melds.flatMap((m, i) => [i ? " | " : "", ...cards(m.cards)])];
    case "laid_off": return [`${seatName(item.seat)} laid off `, card(item.card, "mini"),
      ` on ${seatName(item.owner)}'s meld ${item.index + 1}`];
    case "joker_swapped": return [`${seatName(item.seat)} swapped `, card(item.card, "mini"),
      ` for the joker in ${seatName(item.owner)}'s meld ${item.index + 1}`];
    case "discarded": return [`${seatName(item.seat)} discarded `, card(item.card, "mini")];
    case "hand_ended": return [item.winner === null
      ? `Hand ${item.hand} ended with no winner: the stock ran dry`
      : `Hand ${item.hand} ended: ${seatName(item.winner)} went out`];
    case "game_ended": return [`Game over: ${item.winners.map(seatName).join(" and ")} `
      + `${item.winners.length > 1 ? "share the win" : "wins"}`];
    default: return [item.type];
  }
}
