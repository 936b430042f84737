"""`zioncheck play`: a person at the terminal against bots, over the real services."""
import asyncio
import sys
import threading

from zioncheck.cli import words
from zioncheck.cli.live import Face, contract_words, letters, narrate, table_lines
from zioncheck.cli.moves import NotAMove, parse, typed_moves
from zioncheck.cli.options import (
    DEFAULT_LIMITS,
    CommandFailed,
    Opened,
    add_bus,
    add_pace,
    add_seats,
    check_pace,
    game_rules,
    replay_hint,
    seat_bots,
    start_game,
    whole,
)
from zioncheck.cli.terminal import Terminal
from zioncheck.client import Follower, GameClient
from zioncheck.contracts.commands import DEFAULT_RULES, PERSON, Command, LayOff, Limits, Rules, SwapJoker
from zioncheck.contracts.events import Discarded, HandDealt, Rejected
from zioncheck.contracts.reasons import explain, explain_refusal
from zioncheck.domain import GameState, evolve
from zioncheck.domain.cards import RANK_VALUE, SUITS, rank, suit
from zioncheck.domain.legal import legal_moves
from zioncheck.domain.refusal import refusal_of
from zioncheck.services.bus.access import Access
from zioncheck.services.bus.embedded import bus
from zioncheck.services.bus.topology import new_game_id
from zioncheck.services.observability import configure_logging
from zioncheck.services.wiring import HOUSE, Services


def add(sub) -> None:
    p = sub.add_parser("play", help=words.PLAY_HELP, description=words.PLAY_DESCRIPTION)
    add_seats(p)
    p.add_argument("--seat", type=whole, default=0, metavar=words.METAVAR_SEAT, help=words.SEAT_HELP)
    add_pace(p, 1.0, words.PLAY_PACE_HELP)
    add_bus(p)
    p.set_defaults(func=main)


def main(args) -> int:
    names = seat_bots(args.bots, args.players)   # every option is checked before anything starts
    rules = game_rules(args.rules)
    if not 0 <= args.seat < args.players:
        raise CommandFailed(words.SEAT_OUT_OF_RANGE.format(last=args.players - 1, players=args.players,
                                                           seat=args.seat))
    check_pace(args.pace)
    configure_logging("warning")
    lines: asyncio.Queue = asyncio.Queue()
    game, out = Opened(new_game_id("play")), Terminal()
    try:
        with bus(args.nats_url, args.credentials) as access:
            final = asyncio.run(_run(access, args.seat, names, args.pace, lines, out, game, rules))
    except KeyboardInterrupt:
        if game.started:
            out.farewell(words.GAME_LEFT.format(game=game.id) + "\n" + replay_hint(game.id))
        raise
    left = "" if final.game_over else words.GAME_LEFT.format(game=game.id) + "\n"
    out.farewell(left + replay_hint(game.id))
    return 0


async def _run(access: Access, seat: int, names: list[str], pace: float, lines: asyncio.Queue, out: Terminal,
               game: Opened, rules: Rules = DEFAULT_RULES) -> GameState:
    loop = asyncio.get_running_loop()
    threading.Thread(target=_read_stdin, args=(loop, lines), daemon=True).start()
    services = await Services().start(HOUSE, access)
    try:
        return await session(access, seat, names, pace, lines, out, game.id, opened=game, rules=rules)
    finally:
        await services.stop()


def _read_stdin(loop, lines: asyncio.Queue) -> None:
    for line in sys.stdin:
        loop.call_soon_threadsafe(lines.put_nowait, line.strip())
    loop.call_soon_threadsafe(lines.put_nowait, None)


async def session(access: Access, seat: int, names: list[str], pace: float, lines: asyncio.Queue, out: Terminal,
                  game: str | None = None, opened: Opened | None = None, limits: Limits = DEFAULT_LIMITS,
                  rules: Rules = DEFAULT_RULES) -> GameState:
    """One game: the person's typed lines for `seat`, bots for the others, told on `out`, its clock
    `limits` (R19-R23), the game `rules` (R24). Returns the state when the game is over or the person
    quits (`quit`, or the end of their input).

    This program plays the other seats (no bots service sits down at them); it logs in as the gateway's
    role, which serves people and follows the log (the bots' own login reads no log). `opened` is marked
    once the table has started the game."""
    client = await GameClient.connect(access, "gateway")
    game = game or new_game_id("play")
    follower = await client.follow(game)
    tasks: list[asyncio.Task] = []
    bots = None
    try:
        seats = [PERSON if s == seat else name for s, name in enumerate(names)]
        bots = await start_game(client, follower, game, len(names), seats=seats, pace=pace, opened=opened,
                                limits=limits, rules=rules)
        out.say(words.WELCOME.format(seat=seat, game=game))
        shown = asyncio.create_task(_show(follower, seat, out))
        over = asyncio.create_task(follower.wait_until(lambda f: f.state.game_over, timeout=None))
        tasks = [shown, over]
        while True:
            typed = asyncio.create_task(lines.get())
            await asyncio.wait({typed, over}, return_when=asyncio.FIRST_COMPLETED)
            if not typed.done():
                typed.cancel()
                await asyncio.wait({shown}, timeout=5)   # the last moves and the standings are told
                break
            line = typed.result()
            if line is None or line.lower() in ("quit", "q"):
                break
            out.heard()
            if line.lower() in ("help", "h", "?"):   # the moves, then what this seat may type now
                out.reply(words.HELP + "\n" + words.MAY_NOW.format(moves=" | ".join(typed_moves(
                    legal_moves(follower.state, seat), seat)) or words.NOTHING_NOW))
                continue
            try:
                command = parse(line, seat)
            except NotAMove as reason:
                out.reply(words.NOT_UNDERSTOOD.format(reason=reason))
                continue
            if rejected := refusal_of(await client.play(follower, command)):
                out.reply(words.REFUSED.format(why=_why(rejected, command)))
        return follower.state
    finally:
        for task in tasks:
            task.cancel()
        if bots is not None:
            await bots.stop()
        await follower.stop()
        await client.close()


def _why(refusal: Rejected, command: Command) -> str:
    """R18's sentence and detail, in the person's language; a missing meld is named as the person named it,
    counted from 1."""
    if refusal.reason == "no_such_meld" and isinstance(command, LayOff | SwapJoker):
        named = words.NO_SUCH_MELD.format(owner=command.target[0], number=command.target[1] + 1)
        return f"{explain(refusal.reason, words.language)}: {named}"
    return explain_refusal(refusal.reason, refusal.detail, words.language)


async def _show(follower: Follower, seat: int, out: Terminal) -> None:
    """Tell every move but the person's own refusals (their answer tells those), and show the table.

    Piped, the whole table is written when it is the person's move or a discard lands; on a
    terminal it is redrawn after every move. Returns once the game is over and told."""
    state, told = GameState(), 0
    while True:
        worth_a_look = False
        while told < len(follower.batches):
            for event in follower.batches[told].events:
                state = evolve(state, event)
                worth_a_look |= isinstance(event, Discarded | HandDealt) or (state.turn == seat and state.drawn)
                if isinstance(event, Rejected) and event.seat == seat:
                    continue
                for line in narrate(event, state, hide_draws_from=seat, face=out.face):
                    out.say(line)
            told += 1
        in_play = state.started and not state.hand_over
        out.show(screen(state, seat, out.face) if in_play else "", worth_a_look and in_play)
        if state.game_over:
            return
        await follower.changed(timeout=None)


def screen(state: GameState, seat: int, face: Face = letters) -> str:
    """What seat `seat` may see: the table, the pile, hand sizes, and its own cards."""
    sizes = "  ".join(words.CARDS_HELD.format(seat=s, count=len(h)) for s, h in enumerate(state.hands) if s != seat)
    top = words.NO_PILE if state.top is None else face(state.top)
    if state.top is not None and state.top_discarder is not None:
        top = words.PILE_TOP.format(card=top, seat=state.top_discarder)
    mine = " ".join(map(face, sorted(state.hands[seat], key=_order)))
    if state.turn == seat:
        todo = words.YOUR_MOVE if state.drawn else words.YOUR_TURN
    else:
        todo = words.THEIR_TURN.format(seat=state.turn)
    return "\n".join([table_lines(state, face), words.TABLE_FACTS.format(top=top, stock=len(state.stock), sizes=sizes),
                      words.HAND_LINE.format(hand=state.hand, contract=contract_words(state, state.hand)),
                      words.YOUR_CARDS.format(cards=mine), todo])


def _order(card: str) -> tuple:
    return (card == "JK", SUITS.index(suit(card)) if card != "JK" else 0, RANK_VALUE.get(rank(card), 0))
