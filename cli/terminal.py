"""Where `zioncheck play` writes: on a terminal the table is redrawn in place, piped it is plain lines."""
import os
import shutil
import sys
from collections import deque

from zioncheck.cli import words
from zioncheck.cli.live import Face, face_for

HOME = "\x1b[H"          # the cursor to the top left (ANSI): each redraw writes over the screen from there
ERASE_LINE = "\x1b[K"    # the rest of the line, after what a redraw wrote on it
ERASE_BELOW = "\x1b[J"   # every line under the last one a redraw wrote
MOVES_KEPT = 200


class Terminal:
    """The game's moves, its table and the answers to what the person types.

    On a terminal (`live`) each redraw writes over the screen from the top, with no blank
    screen between two: the latest moves, the table, the answer to the person's last line
    (help, a refusal), and the prompt. The answer stays, whole, until the person types
    again, however many moves come meanwhile; where the screen is too short for all of
    it, the moves give way first, then the table's top (the hand and whose turn it is
    stay). Piped, every move and answer is one line written once, in order, and the table
    is written when it is worth a look; no escape codes at all.
    Cards show their suits as symbols when the stream's encoding carries them.
    """

    def __init__(self, stream=None, live: bool | None = None, face: Face | None = None):
        self.stream = stream if stream is not None else sys.stdout
        self.live = _is_terminal(self.stream) if live is None else live
        self.face = face_for(self.stream) if face is None else face
        self.moves: deque[str] = deque(maxlen=MOVES_KEPT)
        self.table = ""
        self.answer = ""

    def say(self, text: str) -> None:
        """A move, or anything else that happened: kept for the next redraw, or written now when piped."""
        if self.live:
            self.moves.extend(text.split("\n"))
        else:
            self._write(text + "\n")

    def reply(self, text: str) -> None:
        """The answer to the line the person typed; on a terminal it stays under the table until the next one."""
        if self.live:
            self.answer = text
            self.redraw()
        else:
            self._write(text + "\n")

    def heard(self) -> None:
        """The person typed a line: the answer to the one before is done with."""
        self.answer = ""

    def show(self, table: str, worth_a_look: bool = True) -> None:
        """The table as it is now: on a terminal, redrawn in place; piped, written if `worth_a_look`."""
        if self.live:
            self.table = table
            self.redraw()
        elif worth_a_look and table:
            self._write(table + "\n")

    def farewell(self, text: str) -> None:
        """The last lines, once the game is over or left: under the screen as it stands, which is not redrawn."""
        self._write(("\n" if self.live else "") + text + "\n")

    def redraw(self) -> None:
        columns, rows = self._size()
        room = max(1, rows - 1)   # the prompt has the bottom line
        answer = _fitting(self.answer.split("\n") if self.answer else [], room, columns, first=True)
        room -= _height(answer, columns)
        table = _fitting(self.table.split("\n") if self.table else [], room, columns)
        room -= _height(table, columns)
        moves = _fitting(list(self.moves), room, columns)
        screen = "".join(line + ERASE_LINE + "\n" for line in [*moves, *table, *answer])
        self._write(HOME + screen + ERASE_BELOW + words.PROMPT)

    def _size(self) -> tuple[int, int]:
        """The terminal's columns and rows."""
        try:
            size = os.get_terminal_size(self.stream.fileno())
        except (AttributeError, OSError, ValueError):
            size = os.terminal_size((0, 0))
        fallback = shutil.get_terminal_size()   # 0 when the terminal does not say
        return size.columns or fallback.columns, size.lines or fallback.lines

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()


def _height(lines: list[str], columns: int) -> int:
    """The rows `lines` take on a screen `columns` wide, a long line wrapping onto more."""
    return sum(max(1, -(-len(line) // max(columns, 1))) for line in lines)


def _fitting(lines: list[str], rows: int, columns: int, first: bool = False) -> list[str]:
    """As many of `lines` as fill at most `rows` rows: the last of them, or the first where `first`."""
    kept: list[str] = []
    for line in lines if first else reversed(lines):
        if _height([*kept, line], columns) > rows:
            break
        kept.append(line)
    return kept if first else kept[::-1]


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
