"""Where `zioncheck play` writes: the table redrawn in place on a terminal, plain lines when piped."""
import io

from zioncheck.cli.live import letters, symbols
from zioncheck.cli.terminal import HOME, Terminal

TABLE = "  table:\n    (nothing)\n  > your turn: draw or take"


def test_piped_every_line_is_written_once_in_order_with_no_escape_codes():
    out = io.StringIO()
    terminal = Terminal(out)
    terminal.say("  seat 1 draws from the stock (80 left)")
    terminal.show(TABLE, worth_a_look=False)
    terminal.show(TABLE, worth_a_look=True)
    terminal.reply("  refused: draw a card first")
    assert not terminal.live
    assert out.getvalue() == f"  seat 1 draws from the stock (80 left)\n{TABLE}\n  refused: draw a card first\n"
    assert "\x1b" not in out.getvalue()


def test_on_a_terminal_the_table_is_redrawn_in_place_under_the_latest_moves():
    out = io.StringIO()
    terminal = Terminal(out, live=True)
    terminal.say("  seat 1 draws from the stock (80 left)")
    terminal.show(TABLE)
    terminal.say("  seat 1 discards 7C (10 cards left)")
    terminal.show(TABLE)
    screens = out.getvalue().split(HOME)
    assert screens[0] == "" and len(screens) == 3, "each redraw writes over the screen from the top"
    last = screens[-1]
    assert last.index("draws") < last.index("discards") < last.index("table:")
    assert last.count("table:") == 1


def test_on_a_terminal_an_answer_stays_under_the_table_until_the_person_types_again():
    out = io.StringIO()
    terminal = Terminal(out, live=True)
    terminal.reply("  refused: draw a card first")
    terminal.show(TABLE)
    assert out.getvalue().split(HOME)[-1].count("refused: draw a card first") == 1
    terminal.heard()
    terminal.show(TABLE)
    assert "refused" not in out.getvalue().split(HOME)[-1]


def test_cards_show_suit_symbols_only_where_the_stream_can_encode_them():
    assert Terminal(io.TextIOWrapper(io.BytesIO(), "utf-8")).face is symbols
    assert Terminal(io.TextIOWrapper(io.BytesIO(), "latin-1")).face is letters


def test_on_a_short_terminal_the_whole_answer_stays_and_the_moves_and_the_tables_top_give_way(monkeypatch):
    out = io.StringIO()
    terminal = Terminal(out, live=True)
    monkeypatch.setattr(terminal, "_size", lambda: (80, 12))
    help_ = "\n".join(f"  help line {n}" for n in range(1, 8))
    terminal.reply(help_)
    for n in range(30):
        terminal.say(f"  seat 1 move {n}")
        terminal.show("  table:\n" + "\n".join(f"    meld {m}" for m in range(8)) + "\n  YOUR CARDS: 7C\n  > your turn")
    last = out.getvalue().split(HOME)[-1]
    assert all(f"help line {n}" in last for n in range(1, 8)), "the answer, whole, under every redraw"
    assert "YOUR CARDS: 7C" in last and "> your turn" in last
    assert last.count("\n") <= 11, "nothing scrolls off the top: the prompt keeps the last line"
    assert "\x1b[2J" not in out.getvalue(), "no blank screen between two redraws"
