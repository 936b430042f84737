// What the seat page needs to know of cards to arrange them: ranks (R2) and a run's places (R5, R6). Which moves
// the seat may make comes from the table (SeatView.moves, worked out by the rules); the table decides each.

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
