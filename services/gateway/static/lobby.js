// A lobby's host page: /lobby/{id}#host=<the host's token>. It lists the seats with each person's link
// (a link admits its own seat and nothing else), shows who has joined, and starts the game. The host
// token is kept in this browser (localStorage, per game) and taken out of the address.
import { el } from "./cards.js";
import { showRules } from "./rules.js";
import { WORDS as W } from "./words.js";

const game = decodeURIComponent(location.pathname.split("/").pop());
const $ = (id) => document.getElementById(id);
const STORE = `zioncheck.host.${game}`;
const SEAT_STORE = `zioncheck.seat.${game}`;   // play.js keeps a seat's token under this name
const MINE = `zioncheck.hostSeat.${game}`;

function takeToken() {
  const given = new URLSearchParams(location.hash.slice(1)).get("host");
  if (given) {
    localStorage.setItem(STORE, given);
    history.replaceState(null, "", location.pathname + location.search);
  }
  return given || localStorage.getItem(STORE);
}

const token = takeToken();
const tokenOf = (link) => new URLSearchParams(link.split("#")[1] || "").get("token");
let timer = null;

function seatRow(seat) {
  const mine = localStorage.getItem(MINE) === String(seat.seat);
  const who = seat.player === "person" ? (mine ? W.yourSeat : W.personSeat) : W.botOf(seat.player);
  const parts = [el("b", { text: W.Seat(seat.seat) }), who];
  if (seat.player === "person") {
    const link = new URL(seat.link, location.origin).href;
    const input = el("input", { type: "text", readonly: "", value: link, "aria-label": W.Seat(seat.seat) });
    const copy = el("button", { type: "button", class: "quiet copy", text: W.copyLink });
    copy.addEventListener("click", async () => {
      input.select();
      try { await navigator.clipboard.writeText(link); } catch { document.execCommand("copy"); }
      copy.textContent = W.copied;
    });
    const take = el("button", { type: "button", class: "quiet take", text: W.takeSeat });
    take.addEventListener("click", () => takeSeat(seat));
    parts.push(el("span", { class: "badge", text: seat.joined ? W.joinedMark : W.notJoinedYet }), input, copy,
      mine || seat.joined ? "" : take);   // a seat someone has joined is theirs
  }
  return el("li", { "data-seat": seat.seat, class: seat.joined ? "joined" : "" }, parts);
}

// The host plays this seat from this browser; the gateway says no if its link was opened meanwhile.
async function takeSeat(seat) {
  $("error").textContent = "";
  let response;
  try {
    response = await fetch(`/lobbies/${encodeURIComponent(game)}/seats/${seat.seat}/take`, {
      method: "POST", headers: { Authorization: `Bearer ${token}` } });
  } catch {
    $("error").textContent = W.cannotReach;
    return;
  }
  if (response.ok) {
    localStorage.setItem(SEAT_STORE, tokenOf(seat.link));
    localStorage.setItem(MINE, String(seat.seat));
  } else {
    const body = await response.json();
    $("error").textContent = response.status === 409 ? W.seatTaken(seat.seat) : W.problem(body.error);
  }
  refresh();
}

function gone() {
  clearTimeout(timer);
  $("start").hidden = true;
  $("after").hidden = false;
  $("watch-link").href = `/watch/${encodeURIComponent(game)}`;
  if (localStorage.getItem(MINE) !== null) {
    $("play-link").hidden = false;
    $("play-link").href = `/play/${encodeURIComponent(game)}`;
  }
}

async function refresh() {
  clearTimeout(timer);
  const response = await fetch(`/lobbies/${encodeURIComponent(game)}`, { headers: { Authorization: `Bearer ${token}` } });
  const body = await response.json();
  if (response.status === 404) {
    $("status").textContent = W.lobbyGone;
    gone();
    return;
  }
  if (!response.ok) {
    $("status").textContent = W.hostRefused(W.problem(body.error));
    $("status").classList.add("error");
    $("start").hidden = true;
    return;
  }
  $("status").textContent = W.notStarted;
  showRules($("rules"), { game: body.game, contracts: body.contracts, limits: body.limits, open: true });
  $("seats").replaceChildren(...body.seats.map(seatRow));
  const people = body.seats.filter((s) => s.player === "person");
  $("joined").textContent = W.joinedCount(people.filter((s) => s.joined).length, people.length);
  timer = setTimeout(refresh, 2000);
}

$("start").addEventListener("click", async () => {
  $("start").disabled = true;
  const response = await fetch(`/lobbies/${encodeURIComponent(game)}/start`, {
    method: "POST", headers: { Authorization: `Bearer ${token}` } });
  const body = await response.json();
  $("start").disabled = false;
  if (!response.ok) {
    // A service the game needs is away: the gateway's detail names it and the command that starts it.
    const which = body.error === "service_unavailable" && body.detail ? ` (${body.detail})` : "";
    $("error").textContent = W.problem(body.error) + which;
    return;
  }
  $("status").textContent = W.started;
  gone();
  location.href = localStorage.getItem(MINE) !== null ? `/play/${encodeURIComponent(game)}` : body.watch;
});

document.title = W.lobbyTitle(game);
$("game-id").textContent = game;
if (!token) $("status").textContent = W.noHostToken;
else refresh();
