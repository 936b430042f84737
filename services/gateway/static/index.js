// The list of stored games (GET /games), refreshed every few seconds, each a link to watch it; and a form
// that opens a game with people and bot seats in a lobby (POST /lobbies), then goes to the lobby's page.
// Where the gateway asks for a platform key (its lobby is not public), the form shows a key field; the
// browser keeps the key (localStorage, this origin only) and forgets one the gateway refuses. Under the game's choice,
// its rules: every hand's contract and the clock the form sets (rules.js). What the form holds is kept for this tab
// (sessionStorage), so a language switch (which reloads the page) or a reload changes nothing in it.
import { el } from "./cards.js";
import { presetContracts, showRules } from "./rules.js";
import { WORDS as W } from "./words.js";

const $ = (id) => document.getElementById(id);
const KEY = "zioncheck.platformKey";
const CHOICES = ["person", "easy", "normal", "hard", "expert"];   // a bot by its level, the expert by name (NewGame.seats)
const GAMES = ["zioncheck", "contract", "liverpool"];   // R24: the presets (contracts/commands.py PRESETS)
const FORM = "zioncheck.newGame";

function state(game) {
  if (!game.seq) return W.waitingForView;
  if (game.abandoned) return W.abandoned(game.hand);
  if (game.game_over) return W.over(game.winners);
  return game.turn === null ? W.betweenHands : W.toPlay(game.turn);
}

function when(seconds) {
  return seconds ? new Date(seconds * 1000).toLocaleTimeString() : "";
}

async function refresh() {
  try {
    const response = await fetch("/games");
    const games = await response.json();
    const rows = games.map((g) => el("tr", { "data-game": g.game_id, class: g.game_over ? "over" : "live" },
      el("td", {}, el("a", { href: `/watch/${encodeURIComponent(g.game_id)}`, text: g.game_id }),
        g.game_over ? [" \u00b7 ", el("a", { class: "replay-link", href: `/replay/${encodeURIComponent(g.game_id)}`,
          title: W.replayItTitle, text: W.replayIt })] : null),
      el("td", { text: g.players || "" }), el("td", { text: g.hand || "" }), el("td", { text: state(g) }),
      el("td", { class: "wide", text: g.totals.join(" / ") }), el("td", { class: "wide", text: when(g.updated) })));
    $("games").replaceChildren(...(rows.length ? rows : [el("tr", {}, el("td", { colspan: 6, class: "muted", text: W.noGames }))]));
  } catch (error) {
    $("games").replaceChildren(el("tr", {}, el("td", { colspan: 6, class: "error", text: W.cannotList(error) })));
  }
}

// One choice a seat: seat 0 is a person (whoever opens the game), the others bots until changed.
function seatChoices() {
  const players = Math.max(2, Math.min(64, Number($("players").value) || 2));
  const kept = [...document.querySelectorAll("#seat-choices select")].map((s) => s.value);
  $("seat-choices").replaceChildren(...Array.from({ length: players }, (_, i) => {
    const select = el("select", { "data-seat": i, "aria-label": W.Seat(i) },
      CHOICES.map((c) => el("option", { value: c, text: W.seatChoice[c] })));
    select.value = kept[i] || (i === 0 ? "person" : "normal");
    return el("label", {}, `${W.Seat(i)} `, select);
  }));
}

$("players").addEventListener("input", seatChoices);

// The game's clock (R19-R23), as the form sets it: each field is named as NewGame names the limit.
const LIMITS = ["turn_seconds", "claim_seconds", "pause_seconds", "idle_turns", "abandon_seconds", "delay_seconds"];
const FIELDS = ["rules", "players", "pace", ...LIMITS];

// The chosen game's rules under the form: its hands' contracts and the clock as the form now sets it.
async function rules() {
  const game = $("rules").value;
  const limits = Object.fromEntries(LIMITS.map((name) => [name, Number($(name).value)]));
  showRules($("rules-shown"), { game, contracts: await presetContracts(game), limits: { ...limits,
    bot_seconds: Number($("pace").value) }, open: true });
}

// What the form holds, kept for this tab and put back when the page opens again.
function keep() {
  const seats = [...document.querySelectorAll("#seat-choices select")].map((s) => s.value);
  sessionStorage.setItem(FORM, JSON.stringify({ ...Object.fromEntries(FIELDS.map((id) => [id, $(id).value])), seats }));
}

function restore() {
  let kept;
  try { kept = JSON.parse(sessionStorage.getItem(FORM)); } catch { kept = null; }
  if (!kept) return;
  for (const id of FIELDS) if (typeof kept[id] === "string" && kept[id] !== "") $(id).value = kept[id];
  seatChoices();
  document.querySelectorAll("#seat-choices select").forEach((select, i) => {
    if (kept.seats && CHOICES.includes(kept.seats[i])) select.value = kept.seats[i];
  });
}

$("new-game").addEventListener("submit", async (event) => {
  event.preventDefault();
  const seats = [...document.querySelectorAll("#seat-choices select")].map((s) => s.value);
  const key = $("key").value.trim();
  const headers = { "Content-Type": "application/json" };
  if (key) headers["X-Platform-Key"] = key;
  const response = await fetch("/lobbies", {
    method: "POST", headers, body: JSON.stringify({ players: seats.length, seats, pace: Number($("pace").value),
      rules: { preset: $("rules").value },
      ...Object.fromEntries(LIMITS.map((name) => [name, Number($(name).value)])) }),
  });
  const body = await response.json();
  if (!response.ok) {
    if (response.status === 401) {
      localStorage.removeItem(KEY);
      $("key-field").hidden = false;
      $("new-game-error").textContent = W.problem(body.error);
    } else {
      $("new-game-error").textContent = W.problem(body.error);
    }
    return;
  }
  if (key) localStorage.setItem(KEY, key);
  location.href = body.host;
});

$("rules").replaceChildren(...GAMES.map((g) => el("option", { value: g, text: W.gameName(g) })));
$("key").value = localStorage.getItem(KEY) || "";
$("key-field").hidden = !$("key").value;
seatChoices();
restore();
rules();
for (const kind of ["input", "change"]) {
  $("new-game").addEventListener(kind, (event) => {
    if (event.target.id !== "key") keep();
    if (event.target.id === "rules" || event.target.id === "pace" || LIMITS.includes(event.target.id)) rules();
  });
}
refresh();
setInterval(refresh, 3000);
document.documentElement.dataset.ready = "true";   // the form is filled from what this browser kept
