// The list of stored games (GET /games), refreshed every few seconds, and a form that opens a bot game.
// Opening a game takes a platform key (X-Platform-Key): the operator pastes one of the gateway's
// keys into the form once, and this browser keeps it (localStorage, this origin only).
import { el } from "./cards.js";
import { WORDS as W } from "./words.js";

const $ = (id) => document.getElementById(id);
const KEY = "zioncheck.platformKey";

$("key").value = localStorage.getItem(KEY) || "";

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
    const rows = games.map((g) => el("tr", { "data-game": g.game_id },
      el("td", {}, el("a", { href: `/watch/${encodeURIComponent(g.game_id)}`, text: g.game_id })),
      el("td", { text: g.players || "" }), el("td", { text: g.hand || "" }), el("td", { text: state(g) }),
      el("td", { class: "wide", text: g.totals.join(" / ") }), el("td", { class: "wide", text: when(g.updated) })));
    $("games").replaceChildren(...(rows.length ? rows : [el("tr", {}, el("td", { colspan: 6, class: "muted", text: W.noGames }))]));
  } catch (error) {
    $("games").replaceChildren(el("tr", {}, el("td", { colspan: 6, class: "error", text: W.cannotList(error) })));
  }
}

$("new-game").addEventListener("submit", async (event) => {
  event.preventDefault();
  const players = Number($("players").value);
  const bot = $("bot").value;
  const seats = Array.from({ length: players }, (_, i) => (bot === "mixed" ? (i % 2 ? "random" : "greedy") : bot));
  const key = $("key").value.trim();
  const response = await fetch("/games", {
    method: "POST", headers: { "Content-Type": "application/json", "X-Platform-Key": key },
    body: JSON.stringify({ players, seats, pace: Number($("pace").value) }),
  });
  const body = await response.json();
  if (!response.ok) {
    if (response.status === 401) localStorage.removeItem(KEY);
    $("new-game-error").textContent = body.detail;
    return;
  }
  localStorage.setItem(KEY, key);
  location.href = body.watch;
});

refresh();
setInterval(refresh, 3000);
