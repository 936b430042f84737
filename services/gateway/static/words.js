// Every sentence the page writes, in one place. Melds are numbered from 1, as the terminal numbers them.
const seat = (s) => `seat ${s}`;
const seats = (list) => list.map(seat).join(" and ");

export const WORDS = {
  seat,
  Seat: (s) => `Seat ${s}`,
  meld: (index) => `#${index + 1}`,

  // the list of games
  waitingForView: "waiting for its first view",
  over: (winners) => `over: ${seats(winners)} won`,
  abandoned: (hand) => `abandoned in hand ${hand}: no one was left`,
  betweenHands: "between hands",
  toPlay: (turn) => `${seat(turn)} to play`,
  noGames: "No games yet.",
  cannotList: (error) => `Cannot list games: ${error}`,

  // one game: its header
  connecting: "Connecting...",
  live: "live",
  finished: "finished",
  reconnecting: (why) => `reconnecting (${why || "connection closed"})`,
  noSuchGame: (game) => `No game ${game} is stored.`,
  gameOver: (winners) => `Game over \u00b7 ${seats(winners)} won`,
  firstDeal: "Waiting for the first deal",
  handOf: (hand, contract) => `Hand ${hand} of 6${contract ? ` \u00b7 ${contract}` : ""}`,
  handOver: "hand over, waiting for the next deal",
  turn: (s, drawn) => `${seat(s)} ${drawn ? "to meld or discard" : "to draw"}`,

  // the table
  joker: "joker",
  playing: "playing",
  toDraw: "to draw",
  down: "down",
  claims: "claims",
  dealer: "dealer",
  winner: "winner",
  cards: (n) => `${n} card${n === 1 ? "" : "s"}`,
  total: (n) => ` \u00b7 total ${n}`,
  noDiscard: "no discard",
  noStock: "no stock",
  stock: "stock: ",
  pile: "pile: ",
  topFrom: (s) => ` (top from ${seat(s)})`,
  noMelds: "No melds on the table yet.",
  meldsOf: (owner) => `Seat ${owner}'s melds`,
  openToClaims: "Open to claims: ",
  claimedBy: (list) => ` claimed by ${list.map(seat).join(", ")}`,
  noClaimYet: " (no claim yet)",
  lastClaims: "Last claims on ",
  claimOutcome: { won: "won it", turn_player_took: "lost: the turn player took it",
    nearer_claimant: "lost to a nearer claimant" },
  hand: "hand",
  dry: " (dry)",
  out: "out",
  totalRow: "total",

  // the replay
  play: "Play",
  pause: "Pause",
  step: (n, of) => `step ${n} of ${of}`,
  handOption: (hand) => `hand ${hand}`,

  // the moves, one feed item (contracts/feed.py) each
  failedWhy: { turn_player_took: "the turn player took it", nearer_claimant: "a nearer claimant won it" },
  gameStarted: (players, decks) => `Game started: ${players} players, ${decks} decks`,
  handDealt: (hand, dealer, size, stock) => `Hand ${hand} dealt by ${seat(dealer)}: ${size} cards each, `
    + `${stock} in the stock`,
  reshuffled: (stock) => `The pile became the stock: ${stock} cards`,
  seedRevealed: (hand) => `Hand ${hand}'s seed revealed`,
  drew: (s) => `${seat(s)} drew from the stock`,
  noCardToDraw: (s) => `${seat(s)} found no card to draw`,
  took: (s) => `${seat(s)} took `,
  fromThePile: " from the pile",
  claimsCard: (s) => `${seat(s)} claims `,
  wonClaim: (s) => `${seat(s)} won the claim on `,
  lostClaim: (s) => `${seat(s)} lost the claim on `,
  wentDown: (s) => `${seat(s)} went down: `,
  laidOff: (s) => `${seat(s)} laid off `,
  onMeld: (owner, index) => ` on ${seat(owner)}'s meld ${index + 1}`,
  swapped: (s) => `${seat(s)} swapped `,
  forJoker: (owner, index) => ` for the joker in ${seat(owner)}'s meld ${index + 1}`,
  discarded: (s) => `${seat(s)} discarded `,
  handDry: (hand) => `Hand ${hand} ended with no winner: the stock ran dry`,
  handWon: (hand, winner) => `Hand ${hand} ended: ${seat(winner)} went out`,
  gameEnded: (winners) => `Game over: ${seats(winners)} ${winners.length > 1 ? "share the win" : "wins"}`,
};
