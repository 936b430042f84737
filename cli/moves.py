"""Short typed moves for a person at the terminal, to commands and back."""
from zioncheck.contracts.commands import (
    ClaimDiscard,
    Command,
    Discard,
    DrawStock,
    GoDown,
    LayOff,
    SwapJoker,
    TakeDiscard,
)

HELP = """moves (cards like 10C, AS, QH, JK; a meld is OWNER.INDEX as the table shows it):
  draw | d                       draw from the stock
  take | t                       take the top discard
  claim | c                      claim the top discard out of turn (R11a)
  down 8C 8D 8H / 5S 5H 5D       go down with these melds, runs ascending
  lay 7C on 1.0 [low|high]       lay a card off on seat 1's meld 0
  swap 6C on 0.1                 swap a card for the joker it stands for in a run (any time)
  discard 7C | x 7C              discard, ending your turn
  help | h, quit | q"""


class NotAMove(ValueError):
    pass


def parse(line: str, seat: int) -> Command:
    """The command a typed line asks for; NotAMove with a reason if it asks for none."""
    words = line.replace(",", " ").split()
    if not words:
        raise NotAMove("type a move, or help")
    verb, rest = words[0].lower(), words[1:]
    if verb in ("draw", "d"):
        return DrawStock(seat=seat)
    if verb in ("take", "t"):
        return TakeDiscard(seat=seat)
    if verb in ("claim", "c"):
        return ClaimDiscard(seat=seat)
    if verb in ("discard", "x"):
        return Discard(seat=seat, card=_one_card(rest, "discard 7C"))
    if verb == "down":
        melds = [m.split() for m in " ".join(rest).split("/")]
        if not all(melds):
            raise NotAMove("say which melds: down 8C 8D 8H / 5S 5H 5D")
        return GoDown(seat=seat, melds=melds)
    if verb in ("lay", "swap"):
        if len(rest) < 3 or rest[1].lower() != "on":
            raise NotAMove(f"say {verb} CARD on OWNER.INDEX, e.g. {verb} 7C on 1.0")
        target = _target(rest[2])
        if verb == "swap":
            return SwapJoker(seat=seat, target=target, card=rest[0])
        end = rest[3].lower() if len(rest) > 3 else None
        if end not in (None, "low", "high"):
            raise NotAMove("the end is low or high")
        return LayOff(seat=seat, target=target, card=rest[0], end=end)
    raise NotAMove(f"no such move: {verb} (type help)")


def _one_card(rest: list[str], example: str) -> str:
    if len(rest) != 1:
        raise NotAMove(f"name one card: {example}")
    return rest[0]


def _target(text: str) -> tuple[int, int]:
    owner, _, index = text.partition(".")
    if not (owner.isdigit() and index.isdigit()):
        raise NotAMove(f"a meld is OWNER.INDEX, like 1.0, not {text}")
    return int(owner), int(index)


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
            return f"lay {command.card} on {command.target[0]}.{command.target[1]}" + (
                f" {command.end}" if command.end else "")
        case SwapJoker():
            return f"swap {command.card} on {command.target[0]}.{command.target[1]}"
    raise ValueError(f"no spelling for {command}")
