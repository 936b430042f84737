// What a game is played by, where people decide to sit down and while they play: the game (R24), every hand's
// contract in order with the hand in play marked (R7, R24.1), and the game's clock (R19-R23). A box that a tap opens
// and closes (<details>), so a phone reaches all of it: nothing is said in a tooltip alone.
import { el } from "./cards.js";
import { WORDS as W } from "./words.js";

let presets = null;

// Each hand's contract in a game of `preset` as the table plays it (GET /presets, read once a page): a view names
// them for a game other than Zioncheck; Zioncheck's own six every face knows, and this page reads them there.
export async function presetContracts(preset) {
  presets = presets || fetch("/presets").then((r) => (r.ok ? r.json() : {})).catch(() => ({}));
  return (await presets)[preset] || [];
}

// The clock's lines: a turn, the claim window held for people, the pause between hands, the turns missed before a
// bot keeps a seat, how long a game with everyone away waits, and the bots' pace (where they pause at all).
function clockLines(limits) {
  const lines = [W.clockTurn(W.duration(limits.turn_seconds)), W.clockClaim(W.duration(limits.claim_seconds)),
    W.clockPause(W.duration(limits.pause_seconds)), W.clockIdle(limits.idle_turns),
    W.clockAbandon(W.duration(limits.abandon_seconds))];
  if (limits.bot_seconds) lines.push(W.clockBots(W.duration(limits.bot_seconds)));
  return lines;
}

// The box: `game` a preset, `contracts` every hand's (Contract), `limits` the clock (Limits; none: not shown),
// `hand` the hand in play (0: none yet), `open` whether it starts open.
export function rulesBox({ game, contracts, limits = null, hand = 0, open = false }) {
  const hands = contracts.map((c, i) => el("li", i + 1 === hand ? { class: "now", "aria-current": "step" } : {},
    W.handContract(i + 1, c), i + 1 === hand ? [" ", el("span", { class: "badge", text: W.nowHand })] : null));
  const box = el("details", { class: "rules", "data-game": game },
    el("summary", {}, el("b", { text: `${W.rules}: ` }), W.rulesOf(game, contracts.length)),
    el("div", { class: "rules-body" },
      el("h4", { text: W.contractsHead }), el("ol", { class: "contracts" }, hands),
      limits ? [el("h4", { text: W.clockSettings }), el("ul", { class: "clock-rules" },
        clockLines(limits).map((line) => el("li", { text: line })))] : null));
  box.open = open;
  return box;
}

// The box in `holder`, drawn anew only when what it says changes: one opened stays open as the game goes on.
export function showRules(holder, rules) {
  const said = JSON.stringify(rules, (key, value) => (key === "open" ? undefined : value));
  if (holder.dataset.said === said) return;
  const before = holder.querySelector("details.rules");
  holder.replaceChildren(rulesBox({ ...rules, open: before ? before.open : rules.open }));
  holder.dataset.said = said;
}

// A game's rules as a view names them: its contracts, or (Zioncheck's six) the preset's.
export async function viewRules(view) {
  const contracts = view.contracts && view.contracts.length ? view.contracts : await presetContracts(view.game);
  return { game: view.game || "zioncheck", contracts, limits: view.limits || null, hand: view.hand };
}
