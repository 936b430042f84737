"""What the terminal says to a person, in one place: option help, one-line failures, and the words of
`zioncheck play` (its moves, its screen, its answers). Each is a str.format template.

Melds are numbered from 1 for people, as the web page numbers them; the wire (LayOff.target,
SwapJoker.target) stays 0-based, and cli/moves.py converts.
"""

# --- options and failures ------------------------------------------------------------
NATS_URL_HELP = "an existing NATS server or cluster, comma-separated (default: {default})"
CREDENTIALS_HELP = ("the folder of login files, one per user (default .zioncheck/credentials, made on first start "
                    "of the embedded server; `zioncheck credentials` lists and adds them)")
PLAYERS_HELP = "seats at the table, {low}..{high} (default {default})"
BOTS_HELP = "bot per seat, comma-separated, repeated to fill the seats; one of {names} (default {default})"
PLAYERS_OUT_OF_RANGE = "--players must be {low}..{high}, not {players}"
UNKNOWN_BOT = "unknown bot {name!r}: the bots are {names}"
SEAT_HELP = "your seat, 0 to one less than --players (default 0)"
SEAT_OUT_OF_RANGE = "--seat must be 0..{last} at a table of {players}, not {seat}"
GAMES_TOO_FEW = "--games must be at least 1, not {games}"
TURN_TIMED_OUT = "  seat {seat}'s time ran out: a bot plays this turn"
SEAT_IDLE = "  seat {seat} is away: a bot keeps the seat until its player sends a move"
SEAT_BACK = "  seat {seat} is back"
GAME_ABANDONED_LIVE = "=== Game abandoned in hand {hand}: no player was left at the table."
GAME_OVER = "over, winners {winners}"
GAME_ABANDONED = "abandoned after {hands} hand(s), no one left; lowest {winners}"
GAME_IN_PLAY = "in play"
GAME_NOT_SCORED = "not scored"
START_REFUSED = "the table refused to start the game: {why}"
INTERRUPTED = "interrupted"

# --- zioncheck play: the moves a person types --------------------------------------
HELP = """moves (cards like 10C, AS, QH, JK; a meld is SEAT.MELD as the table shows it, its melds counted from 1):
  draw | d                       draw from the stock
  take | t                       take the top discard
  claim | c                      claim the top discard out of turn (R11a)
  down 8C 8D 8H / 5S 5H 5D       go down with these melds, runs ascending
  lay 7C on 1.1 [low|high]       lay a card off on seat 1's first meld
  swap 6C on 0.2                 swap a card for the joker it stands for in a run (any time)
  discard 7C | x 7C              discard, ending your turn
  help | h, quit | q"""
TYPE_A_MOVE = "type a move, or help"
NAME_ONE_CARD = "name one card: {example}"
SAY_WHICH_MELDS = "say which melds: down 8C 8D 8H / 5S 5H 5D"
SAY_WHERE = "say {verb} CARD on SEAT.MELD, e.g. {verb} 7C on 1.1"
WHICH_END = "the end is low or high"
NOT_A_MELD = "a meld is SEAT.MELD, like 1.1 (seat 1's first meld), not {text}"
MELDS_FROM_ONE = "melds are numbered from 1: seat {owner}'s first meld is {owner}.1, not {text}"
NO_SUCH_MOVE = "no such move: {verb} (type help)"

# --- zioncheck play: its screen and its answers --------------------------------------
WELCOME = "You are seat {seat} in game {game}. Type help for the moves."
NOT_UNDERSTOOD = "  ? {reason}"
REFUSED = "  refused: {why}"
NO_SUCH_MELD = "seat {owner} has no meld {number} on the table"
PILE_TOP = "{card} (seat {seat}'s)"
NO_PILE = "(empty)"
TABLE_FACTS = "  pile top: {top}   stock: {stock}   cards held: {sizes}"
CARDS_HELD = "seat {seat}: {count}"
HAND_LINE = "  hand {hand}: {contract}"
YOUR_CARDS = "  YOUR CARDS: {cards}"
YOUR_MOVE = "  > your move: play, lay off, swap or discard"
YOUR_TURN = "  > your turn: draw or take"
THEIR_TURN = "  > seat {seat}'s turn (you may claim or swap)"
PROMPT = "> "

# Suits as a terminal shows them, when its encoding carries these symbols (else the letters).
SUIT_SYMBOLS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
