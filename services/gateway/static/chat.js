// A game's chat: its seats talk, its watchers read. Lines come on the game's public WebSocket (frames of kind
// "chat"), the game's last few first; a seat says one with POST /games/{id}/chat and its token, and the gateway
// names the line's seat from that token. A line is shown as text, never as HTML, and is never stored: a page
// that opens later sees the few lines the gateway keeps, or none.
//
// The page holds the panel: #chat-lines (a list), #chat-none, #chat-form with #chat-text and its button,
// #chat-error and #chat-read-only.
import { el } from "./cards.js";
import { LANGUAGE, WORDS as W } from "./words.js";

const LENGTH = 200;        // the gateway's CHAT_LENGTH: the characters a line may hold
const SHOWN = 200;         // lines the page keeps, the oldest dropped first
const $ = (id) => document.getElementById(id);
const seen = new Set();    // the ids of the lines shown: a line heard again after a reconnect is a repeat
let mine = null;           // the seat this page speaks for; null on the watch page

const clock = (at) => new Date(at * 1000).toLocaleTimeString(LANGUAGE, { hour: "2-digit", minute: "2-digit" });

// One line at the end of the list, unless it is there already.
export function chatLine(line) {
  if (seen.has(line.id)) return;
  seen.add(line.id);
  const list = $("chat-lines");
  list.append(el("li", { "data-seat": line.seat, class: line.seat === mine ? "mine" : "" },
    el("span", { class: "when muted", text: clock(line.at) }), " ",
    el("b", { class: "who", text: `${W.Seat(line.seat)}:` }), " ",
    el("bdi", { class: "what", text: line.text })));
  while (list.children.length > SHOWN) list.firstElementChild.remove();
  list.scrollTop = list.scrollHeight;
  $("chat-none").hidden = true;
}

function refuse(text) {
  $("chat-error").textContent = text;
  $("chat-error").hidden = !text;
}

// A line on its way: a line said meanwhile (Enter pressed again before the gateway answered, while the line
// may already show, heard on the socket) goes once the first is answered, so no Enter is lost and no line sent
// twice (a disabled button would drop the Enter: a form with one does not submit).
let sending = false;
let again = false;

async function say(game, token) {
  const input = $("chat-text");
  const text = input.value.trim();
  if (!text) { refuse(W.chatEmpty); return; }
  if (sending) { again = true; return; }
  sending = true;
  try {
    const response = await fetch(`/games/${encodeURIComponent(game)}/chat`, {
      method: "POST", headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body: JSON.stringify({ text }),
    });
    const body = await response.json();
    if (response.ok) {
      if (input.value.trim() === text) input.value = "";   // what was typed meanwhile stays, to go next
      refuse("");
      chatLine(body);
    } else if (response.status === 429) {
      refuse(W.chatTooFast(response.headers.get("Retry-After") || "1"));
    } else if (body.error === "chat_too_long") {
      refuse(W.chatTooLong(LENGTH));
    } else if (body.error === "chat_empty") {
      refuse(W.chatEmpty);
    } else {
      refuse(W.problem(body.error));
    }
  } catch {
    refuse(W.cannotReach);
  } finally {
    sending = false;
    input.focus();
    if (again) {   // said while this one was on its way: sent now, unless what it held went with this one
      again = false;
      if (input.value.trim()) say(game, token);
    }
  }
}

// The chat panel of `game`: with a seat's token the page may speak, without one it reads.
export function startChat(game, { token = null, seat = null } = {}) {
  mine = seat;
  $("chat-text").placeholder = W.chatLine;
  $("chat-text").maxLength = LENGTH;
  $("chat-form").hidden = !token;
  $("chat-read-only").hidden = Boolean(token);
  if (!token) return;
  $("chat-form").addEventListener("submit", (event) => {
    event.preventDefault();
    say(game, token);
  });
}
