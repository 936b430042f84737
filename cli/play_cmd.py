"""`zioncheck play`: a person at the terminal against bots, over the real services."""
import asyncio
import random
import sys
import threading

from zioncheck.bots import make_bot
from zioncheck.cli.live import narrate, table_lines
from zioncheck.cli.moves import HELP, NotAMove, parse
from zioncheck.cli.options import add_bus
from zioncheck.cli.simulate_cmd import seat_bots
from zioncheck.client import Follower, GameClient
from zioncheck.contracts.commands import StartGame
from zioncheck.contracts.events import Discarded, HandDealt
from zioncheck.contracts.reasons import explain_refusal
from zioncheck.domain import GameState, evolve
from zioncheck.domain.cards import RANK_VALUE, SUITS, rank, suit
from zioncheck.domain.hands import describe
from zioncheck.domain.refusal import refusal_of
from zioncheck.services.bots.seats import play_seats
from zioncheck.services.bus.access import Access
from zioncheck.services.bus.embedded import bus
from zioncheck.services.bus.topology import new_game_id
from zioncheck.services.observability import configure_logging
from zioncheck.services.wiring import SERVICES, Services


def add(sub) -> None:
    p = sub.add_parser("play", help="play a game yourself against bots, over the real services",
                       description="Take a seat against bots. Type moves at the prompt (help lists them); "
                                   "you may claim a discard or swap a joker at any moment while the bots play.")
    p.add_argument("--players", type=int, default=4, help="seats, 2..20 (default 4)")
    p.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    p.add_argument("--bots", default="greedy", help="bots for the other seats (default greedy)")
    p.add_argument("--pace", type=float, default=1.0, help="seconds per bot move (default 1.0)")
    add_bus(p, "start an embedded one")
    p.set_defaults(func=main)


def main(args) -> int:
    if not 2 <= args.players <= 20 or not 0 <= args.seat < args.players:
        print("zioncheck play: need 2..20 players and a seat among them", file=sys.stderr)
        return 2
    configure_logging("warning")
    lines: asyncio.Queue = asyncio.Queue()
    with bus(args.nats_url, args.credentials) as access:
        asyncio.run(_run(access, args, lines))
    return 0


async def _run(access: Access, args, lines: asyncio.Queue) -> None:
    loop = asyncio.get_running_loop()
    threading.Thread(target=_read_stdin, args=(loop, lines), daemon=True).start()
    services = await Services().start(SERVICES, access)
    try:
        names = seat_bots(args.bots, args.players)
        await session(access, args.seat, names, args.pace, lines, print)
    finally:
        await services.stop()


def _read_stdin(loop, lines: asyncio.Queue) -> None:
    for line in sys.stdin:
        loop.call_soon_threadsafe(lines.put_nowait, line.strip())
    loop.call_soon_threadsafe(lines.put_nowait, None)


async def session(access: Access, seat: int, names: list[str], pace: float, lines: asyncio.Queue, say,
                  game: str | None = None) -> GameState:
    """One game: the person's typed lines for `seat`, bots for the others. Returns the final state.

    It logs in as the bots' role, which hosts the bot seats and follows the log."""
    client = await GameClient.connect(access, "bots")
    game = game or new_game_id("play")
    rng = random.Random()
    follower = await client.follow(game)
    bots = {s: make_bot(name, rng) for s, name in enumerate(names) if s != seat}
    await client.send(game, StartGame(game_id=game, players=len(names)))
    say(f"You are seat {seat} in game {game}. Type help for the moves.")
    tasks = [asyncio.create_task(play_seats(client, follower, bots, rng, pace, patience=None)),
             asyncio.create_task(_show(follower, seat, say))]
    over = asyncio.create_task(follower.wait_until(lambda f: f.state.game_over, timeout=None))
    tasks.append(over)
    try:
        while True:
            typed = asyncio.create_task(lines.get())
            await asyncio.wait({typed, over}, return_when=asyncio.FIRST_COMPLETED)
            if not typed.done():
                typed.cancel()
                break
            line = typed.result()
            if line is None or line.lower() in ("quit", "q"):
                break
            if line.lower() in ("help", "h", "?"):
                say(HELP)
                continue
            try:
                command = parse(line, seat)
            except NotAMove as reason:
                say(f"  ? {reason}")
                continue
            if rejected := refusal_of(await follower.outcome(await client.send(game, command))):
                say(f"  refused: {explain_refusal(rejected.reason, rejected.detail)}")
        return follower.state
    finally:
        for task in tasks:
            task.cancel()
        await follower.stop()
        await client.close()


async def _show(follower: Follower, seat: int, say) -> None:
    """Narrate every move; show the whole screen when it is the person's move or a discard lands."""
    state, told = GameState(), 0
    while True:
        worth_a_screen = False
        while told < len(follower.batches):
            for event in follower.batches[told].events:
                state = evolve(state, event)
                worth_a_screen |= isinstance(event, Discarded | HandDealt) or (state.turn == seat and state.drawn)
                for line in narrate(event, state, hide_draws_from=seat):
                    say(line)
            told += 1
        if worth_a_screen and state.started and not state.hand_over:
            say(screen(state, seat))
        await follower.changed(timeout=None)


def screen(state: GameState, seat: int) -> str:
    """What seat `seat` may see: the table, the pile, hand sizes, and its own cards."""
    sizes = "  ".join(f"seat {s}: {len(h)}" for s, h in enumerate(state.hands) if s != seat)
    top = f"{state.top}" + (f" (seat {state.top_discarder}'s)" if state.top_discarder is not None else "")
    mine = " ".join(sorted(state.hands[seat], key=_order))
    if state.turn == seat:
        todo = "your move: play, lay off, swap or discard" if state.drawn else "your turn: draw or take"
    else:
        todo = f"seat {state.turn}'s turn (you may claim or swap)"
    return "\n".join([table_lines(state), f"  pile top: {top}   stock: {len(state.stock)}   cards held: {sizes}",
                      f"  hand {state.hand}: {describe(state.hand)}", f"  YOUR CARDS: {mine}", f"  > {todo}"])


def _order(card: str) -> tuple:
    return (card == "JK", SUITS.index(suit(card)) if card != "JK" else 0, RANK_VALUE.get(rank(card), 0))
