// The list of stored games (GET /games), refreshed every few seconds, and a form that opens a bot game.
import { el } from "./cards.js";

const $ = (id) => document.getElementById(id);

function state(game) {
  if (!game.seq) return "waiting for its first view";
  if (game.game_over) return `over: ${game.winners.map((s) => `seat ${s}`).join(" and ")} won`;
  return game.turn === null ? "between hands" : `seat ${game.turn} to play`;
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
      el("td", { text: g.totals.join(" / ") }), el("td", { text: when(g.updated) })));
    $("games").replaceChildren(...(rows.length ? rows : [el("tr", {}, el("td", { colspan: 6, class: "muted", text: "No games yet." }))]));
  } catch (error) {
    $("games").replaceChildren(el("tr", {}, el("td", { colspan: 6, class: "error", text: `Cannot list games: ${error}` })));
  }
}

$("new-game").addEventListener("submit", async (event) => {
  event.preventDefault();
  const players = Number($("players").value);
  const bot = $("bot").value;
  const seats = Array.from({ length: players }, (_, i) => (bot === "mixed" ? (i % 2 ? "random" : "greedy") : bot));
  const response = await fetch("/games", {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ players, seats, pace: Number($("pace").value) }),
  });
  const body = await response.json();
  if (!response.ok) { $("new-game-error").textContent = body.detail; return; }
  location.href = body.watch;
});

refresh();
setInterval(refresh, 3000);
