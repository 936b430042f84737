// What the seat page needs to know of the rules to offer moves: card ranks (R2), a run's places (R5, R6),
// which ends of a run a card fits (R13), which joker a card can swap (R14). The table decides every move;
// this only saves a person from choosing what cannot be meant.

const FACES = { A: 1, J: 11, Q: 12, K: 13 };
const SUIT_ORDER = "CDHS";

export const JOKER = "JK";
export const suitOf = (code) => code.slice(-1);
export const rankOf = (code) => FACES[code.slice(0, -1)] ?? Number(code.slice(0, -1));   // an ace is 1 here

// The hand in a person's order: by suit then rank, or by rank then suit; jokers last. Returns the indices.
export function sortHand(cards, byRank) {
  const key = (code) => {
    if (code === JOKER) return [99, 99];
    const rank = rankOf(code) === 1 ? 14 : rankOf(code), suit = SUIT_ORDER.indexOf(suitOf(code));
    return byRank ? [rank, suit] : [suit, rank];
  };
  return cards.map((code, i) => [key(code), i])
    .sort(([a, i], [b, j]) => a[0] - b[0] || a[1] - b[1] || i - j).map(([, i]) => i);
}

// R5, R6: cards picked for a run, in the order the run is laid: naturals upwards, jokers in the gaps, any
// jokers left over above the top card (below the bottom one once the top is an ace). An ace goes low or
// high, whichever needs fewer jokers.
export function arrangeRun(cards) {
  const naturals = cards.filter((c) => c !== JOKER);
  let jokers = cards.length - naturals.length;
  if (!naturals.length) return cards.slice();
  const placed = (aceHigh) => naturals.map((c) => [rankOf(c) === 1 && aceHigh ? 14 : rankOf(c), c])
    .sort((a, b) => a[0] - b[0]);
  const gaps = (list) => list[list.length - 1][0] - list[0][0] + 1 - list.length;
  const low = placed(false), high = placed(true);
  const list = gaps(high) < gaps(low) ? high : low;
  const run = [];
  list.forEach(([value, code], i) => {
    if (i) for (let v = list[i - 1][0] + 1; v < value && jokers > 0; v += 1, jokers -= 1) run.push(JOKER);
    run.push(code);
  });
  let top = list[list.length - 1][0];
  while (jokers > 0 && top < 14) { run.push(JOKER); jokers -= 1; top += 1; }
  while (jokers > 0) { run.unshift(JOKER); jokers -= 1; }
  return run;
}

// A run on the table (ascending, jokers where they stand): its suit and the value of its lowest place.
export function runShape(cards) {
  const i = cards.findIndex((c) => c !== JOKER && rankOf(c) !== 1);
  if (i >= 0) return { suit: suitOf(cards[i]), low: rankOf(cards[i]) - i, length: cards.length };
  const ace = cards.findIndex((c) => c !== JOKER);   // only aces and jokers: an ace first is low, else high
  return { suit: suitOf(cards[ace]), low: ace === 0 ? 1 : 14 - ace, length: cards.length };
}

// R13: the ends of a table meld a card could go on: [] (none, or a set: no end to name), or "low"/"high".
export function runEnds(meld, code) {
  if (meld.kind !== "run") return [];
  const { suit, low, length } = runShape(meld.cards);
  const high = low + length - 1;
  const fits = (value) => code === JOKER || (suitOf(code) === suit && (rankOf(code) === value
    || (value === 14 && rankOf(code) === 1)));
  const ends = [];
  if (low > 1 && fits(low - 1)) ends.push("low");
  if (high < 14 && fits(high + 1)) ends.push("high");
  return ends;
}

// R14: whether a natural card is what one of a run's jokers stands for.
export function swapsJoker(meld, code) {
  if (meld.kind !== "run" || code === JOKER || !meld.cards.includes(JOKER)) return false;
  const { suit, low } = runShape(meld.cards);
  return suitOf(code) === suit && meld.cards.some((c, i) => c === JOKER
    && (low + i === rankOf(code) || (low + i === 14 && rankOf(code) === 1)));
}
