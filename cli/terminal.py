"""Where `zioncheck play` writes: on a terminal the table is redrawn in place, piped it is plain lines."""
import os
import shutil
import sys
from collections import deque

from zioncheck.cli import words
from zioncheck.cli.live import Face, face_for

CLEAR = "\x1b[H\x1b[2J"   # cursor home, then clear the screen (ANSI)
MOVES_KEPT = 200


class Terminal:
    """The game's moves, its table and the answers to what the person types.

    On a terminal (`live`) each redraw clears the screen and writes, from the top: the
    latest moves, as many as fit, the table, the answer to the person's last line (help, a
    refusal), and the prompt. Piped, every move and answer is one line written once, in
    order, and the table is written when it is worth a look; no escape codes at all.
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
        below = [line for part in (self.table, self.answer) if part for line in part.split("\n")]
        room = max(3, self._rows() - len(below) - 2)
        self._write(CLEAR + "\n".join([*list(self.moves)[-room:], *below]) + "\n" + words.PROMPT)

    def _rows(self) -> int:
        try:
            rows = os.get_terminal_size(self.stream.fileno()).lines
        except (AttributeError, OSError, ValueError):
            rows = 0
        return rows or shutil.get_terminal_size().lines   # 0 when the terminal does not say

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
