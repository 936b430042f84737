"""Short typed moves for a person at the terminal, to commands and back.

A person names a meld SEAT.MELD with its melds counted from 1, as the table shows them
(`lay 7C on 1.1` is seat 1's first meld); the command's target is 0-based, as on the wire.
"""
from zioncheck.cli import words
from zioncheck.contracts.commands import (
    ClaimDiscard,
    Command,
    Discard,
    DrawStock,
    GoDown,
    LayOff,
    Ready,
    SwapJoker,
    TakeDiscard,
)
from zioncheck.contracts.views import SeatMoves


class NotAMove(ValueError):
    pass


def parse(line: str, seat: int) -> Command:
    """The command a typed line asks for; NotAMove with a reason if it asks for none."""
    typed = _letters(line).replace(",", " ").split()
    if not typed:
        raise NotAMove(words.TYPE_A_MOVE)
    verb, rest = typed[0].lower(), typed[1:]
    if verb in ("draw", "d"):
        return DrawStock(seat=seat)
    if verb in ("take", "t"):
        return TakeDiscard(seat=seat)
    if verb in ("claim", "c"):
        return ClaimDiscard(seat=seat)
    if verb in ("ready", "r"):
        return Ready(seat=seat)
    if verb in ("discard", "x"):
        return Discard(seat=seat, card=_one_card(rest, "discard 7C"))
    if verb == "down":
        melds = [m.split() for m in " ".join(rest).split("/")]
        if not all(melds):
            raise NotAMove(words.SAY_WHICH_MELDS)
        return GoDown(seat=seat, melds=melds)
    if verb in ("lay", "swap"):
        if len(rest) < 3 or rest[1].lower() != "on":
            raise NotAMove(words.SAY_WHERE.format(verb=verb))
        target = _target(rest[2])
        if verb == "swap":
            return SwapJoker(seat=seat, target=target, card=rest[0])
        end = rest[3].lower() if len(rest) > 3 else None
        if end not in (None, "low", "high"):
            raise NotAMove(words.WHICH_END)
        return LayOff(seat=seat, target=target, card=rest[0], end=end)
    raise NotAMove(words.NO_SUCH_MOVE.format(verb=verb))


def _one_card(rest: list[str], example: str) -> str:
    if len(rest) != 1:
        raise NotAMove(words.NAME_ONE_CARD.format(example=example))
    return rest[0]


def _target(text: str) -> tuple[int, int]:
    """SEAT.MELD, melds counted from 1, as the wire's (seat, index from 0)."""
    owner, _, number = text.partition(".")
    if not (owner.isdigit() and number.isdigit()):
        raise NotAMove(words.NOT_A_MELD.format(text=text))
    if int(number) < 1:
        raise NotAMove(words.MELDS_FROM_ONE.format(owner=int(owner), text=text))
    return int(owner), int(number) - 1


def _letters(line: str) -> str:
    """Suit symbols typed or pasted from the table (10\u2665) as the letters of a card code (10H)."""
    for letter, symbol in words.SUIT_SYMBOLS.items():
        line = line.replace(symbol, letter)
    return line


def meld(target: tuple[int, int]) -> str:
    """A command's target as a person names it: (1, 0) is 1.1."""
    return f"{target[0]}.{target[1] + 1}"


def spell(command: Command) -> str:
    """The line a person would type for a command."""
    match command:
        case DrawStock():
            return "draw"
        case TakeDiscard():
            return "take"
        case ClaimDiscard():
            return "claim"
        case Discard():
            return f"discard {command.card}"
        case GoDown():
            return "down " + " / ".join(" ".join(m) for m in command.melds)
        case LayOff():
            return f"lay {command.card} on {meld(command.target)}" + (
                f" {command.end}" if command.end else "")
        case SwapJoker():
            return f"swap {command.card} on {meld(command.target)}"
        case Ready():
            return "ready"
    raise TypeError(f"no spelling for {command!r}")


def offered(moves: SeatMoves, seat: int) -> list[Command]:
    """The commands a seat's moves (SeatView.moves, worked out by the rules) offer it now: each one the
    table accepts."""
    commands: list[Command] = [DrawStock(seat=seat)] * moves.draw_stock + [TakeDiscard(seat=seat)] * moves.take_discard
    commands += [ClaimDiscard(seat=seat)] * moves.claim
    if moves.go_down:
        commands.append(GoDown(seat=seat, melds=moves.go_down))
    commands += [LayOff(seat=seat, target=(m.owner, m.index), card=m.card, end=m.end) for m in moves.lay_off]
    commands += [SwapJoker(seat=seat, target=(m.owner, m.index), card=m.card) for m in moves.swap_joker]
    commands += [Discard(seat=seat, card=card) for card in moves.discard]
    return commands + [Ready(seat=seat)] * moves.ready


def typed_moves(moves: SeatMoves, seat: int) -> list[str]:
    """The lines that ask for what a seat may do now, its discards in one (`discard 7C|QH`)."""
    typed = [spell(command) for command in offered(moves, seat) if not isinstance(command, Discard)]
    if moves.discard:
        typed.insert(len(typed) - moves.ready, "discard " + "|".join(moves.discard))
    return typed
