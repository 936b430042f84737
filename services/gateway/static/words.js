// Every sentence the pages write, in the reader's language: English, Russian or Spanish, from the catalogue the
// gateway serves at /words/<language> (contracts/words/<language>.json; README.md there says how to add a word).
// The language is the one chosen on the page (the switch in the header, remembered in this browser), else the
// browser's first language that is one of ours, else English.
//
// `WORDS.<name>` is the catalogue's `web.<name>`: a string when it has no placeholders, else a function. A template with
// one placeholder takes its value alone (`W.toPlay(2)`), with more an object of names (`W.titleGame({ game })`).
// The few words below that compose others (lists of seats, plural counts, meld numbers from 1) are written here.
// Static text in the pages names its word in data-words (text), data-words-title or data-words-label (aria-label).
export const LANGUAGES = { en: "English", ru: "Русский", es: "Español" };
const STORED = "zioncheck.language";

function chosen() {
  const stored = localStorage.getItem(STORED);
  if (stored in LANGUAGES) return stored;
  for (const tag of navigator.languages || [navigator.language || ""]) {
    const primary = String(tag).toLowerCase().split(/[-_]/)[0];
    if (primary in LANGUAGES) return primary;
  }
  return "en";
}

export const LANGUAGE = chosen();

async function load(language) {
  const response = await fetch(`/words/${language}`);
  if (!response.ok) throw new Error(`no words for ${language}: ${response.status}`);
  return response.json();
}

const catalogue = await load(LANGUAGE).catch(() => (LANGUAGE === "en" ? {} : load("en")));
const plurals = new Intl.PluralRules(LANGUAGE);
const lists = new Intl.ListFormat(LANGUAGE, { type: "conjunction" });
const numbers = new Intl.NumberFormat(LANGUAGE, { maximumFractionDigits: 1 });   // 0.5 in English, 0,5 in Russian

// A word of the catalogue with its placeholders filled; `values.count` picks a plural form.
export function say(key, values = {}) {
  let entry = catalogue[key];
  if (entry === undefined) return key;
  if (typeof entry === "object") entry = entry[plurals.select(values.count ?? 0)] ?? entry.other ?? entry.many;
  return entry.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

const names = (entry) => [...new Set([...JSON.stringify(entry).matchAll(/\{(\w+)\}/g)].map((m) => m[1]))];

function word(name) {
  const key = `web.${name}`;
  const entry = catalogue[key];
  if (entry === undefined) return undefined;
  const wanted = names(entry);
  if (!wanted.length && typeof entry === "string") return entry;
  const named = (value) => value !== null && Object.getPrototypeOf(value) === Object.prototype;
  return (value = {}) => say(key, wanted.length === 1 && !named(value) ? { [wanted[0]]: value } : value);
}

const seat = (s) => say("web.seat", { seat: s });
const seats = (list) => lists.format(list.map(seat));
const winners = (key) => (list) => say(key, { seats: seats(list), count: list.length });

const COMPOSED = {
  seats,
  meld: (index) => say("web.meld", { meld: index + 1 }),
  cards: (n) => say("web.cards", { count: n }),
  total: (n) => say("web.total", { total: n }),
  over: winners("web.over"),
  gameOver: winners("web.gameOver"),
  gameEnded: winners("web.gameEnded"),
  claimedBy: (list) => say("web.claimedBy", { seats: lists.format(list.map(seat)) }),
  reconnecting: (why) => say("web.reconnecting", { why: why || say("web.connectionClosed") }),
  handOf: (hand, contract, hands = 6) => say("web.handOf", { hand, hands }) + (contract ? ` \u00b7 ${contract}` : ""),
  // R24: the game played, by its preset's name, and how many hands it has; a hand's contract and its deal (R7, R24.1)
  gameName: (preset) => say(`game.${preset}`),
  gameOf: (preset, contracts) => say("web.gameOf", { name: say(`game.${preset}`), contracts: contracts.map(WORDS.contract).join(", ") }),
  rulesOf: (preset, hands) => say("web.rulesOf", { game: say(`game.${preset}`), count: hands }),
  handContract: (hand, c) => say("web.handContract", { hand, contract: WORDS.contract(c), cards: WORDS.cards(c.dealt) }),
  // the game's clock (R19-R23): a length of time as "45 s", "10 min" or "2 h"; turns missed before a bot keeps a seat
  duration: (seconds) => (seconds < 120 ? say("web.secondsLeft", { seconds: numbers.format(seconds) })
    : seconds < 7200 ? say("web.minutes", { minutes: numbers.format(Math.round(seconds / 60)) })
      : say("web.hours", { hours: numbers.format(seconds / 3600) })),
  clockIdle: (n) => say("web.clockIdle", { count: n }),
  turn: (s, drawn) => say(drawn ? "web.turnToMeld" : "web.turnToDraw", { seat: s }),
  step: (n, of) => say("web.step", { step: n, steps: of }),
  gameStarted: (players, decks) => say("web.gameStarted", { players, decks }),
  handDealt: (hand, dealer, size, stock) => say("web.handDealt", { hand, dealer, size, stock }),
  reshuffled: (stock) => say("web.reshuffled", { count: stock }),
  onMeld: (owner, index) => say("web.onMeld", { owner, meld: index + 1 }),
  forJoker: (owner, index) => say("web.forJoker", { owner, meld: index + 1 }),
  handWon: (hand, winner) => say("web.handWon", { hand, seat: winner }),
  // R7: a hand's contract from its counts, "1 set + 1 run"; a meld's kind, "set" or "run"
  contract: (c) => [c.sets ? say("contract.sets", { count: c.sets }) : "", c.runs ? say("contract.runs", { count: c.runs }) : ""]
    .filter(Boolean).join(say("contract.and")) + (c.whole ? say("contract.whole") : ""),
  kind: (kind) => say(`kind.${kind}`),
  // R18: a refusal's reason in words (contracts/reasons.py); the wire keeps the reason's name
  reason: (name) => say(`reason.${name}`),
  // one seat's page and the lobby
  playTitle: (game, s) => say("web.playTitle", { game, seat: s }),
  layOffOn: (owner, index) => say("web.layOffOn", { owner, meld: index + 1 }),
  swapFor: (owner, index) => say("web.swapFor", { owner, meld: index + 1 }),
  joinedCount: (n, of) => say("web.joinedCount", { count: n, of }),
  // a refusal of the gateway's own (a Problem, or a WebSocket's close reason, which starts with its code) by its code
  problem: (code) => say(`problem.${code}` in catalogue ? `problem.${code}` : "problem.other", { error: code }),
  // who may sit in a seat, as the new-game form offers it: a person, or a bot by its level
  seatChoice: { person: say("web.seatPerson"), easy: say("web.botEasy"), normal: say("web.botNormal"),
    hard: say("web.botHard"), expert: say("web.botExpert") },
  // a bot seat, by the level its bot plays at (the random, greedy and strong bots); another bot by its name
  botOf: (name) => ({ random: say("web.botEasy"), greedy: say("web.botNormal"), strong: say("web.botHard"),
    expert: say("web.botExpert") }[name]
    || say("web.botSeat", { name })),
  reasons: new Proxy({}, { get: (_, name) => say(`reason.${String(name)}`) }),
  claimOutcome: { won: say("web.claimWon"), turn_player_took: say("web.claimTurnPlayerTook"),
    nearer_claimant: say("web.claimNearerClaimant") },
  failedWhy: { turn_player_took: say("web.failedTurnPlayerTook"), nearer_claimant: say("web.failedNearerClaimant") },
};

export const WORDS = new Proxy(COMPOSED, {
  get: (composed, name) => (name in composed ? composed[name] : word(String(name))),
});

// The page's own text, its language, and a switch in its header that remembers the choice and reloads.
function translatePage() {
  document.documentElement.lang = LANGUAGE;
  for (const node of document.querySelectorAll("[data-words]")) node.textContent = say(`web.${node.dataset.words}`);
  for (const node of document.querySelectorAll("[data-words-title]")) node.title = say(`web.${node.dataset.wordsTitle}`);
  for (const node of document.querySelectorAll("[data-words-label]")) {
    node.setAttribute("aria-label", say(`web.${node.dataset.wordsLabel}`));
  }
  const header = document.querySelector("header.top");
  if (!header || document.getElementById("language")) return;
  const select = document.createElement("select");
  select.id = "language";
  select.className = "language";
  select.setAttribute("aria-label", say("web.language"));
  select.title = say("web.language");
  for (const [code, name] of Object.entries(LANGUAGES)) select.append(new Option(name, code, false, code === LANGUAGE));
  select.addEventListener("change", () => {
    localStorage.setItem(STORED, select.value);
    location.reload();
  });
  header.append(select);
}

translatePage();
