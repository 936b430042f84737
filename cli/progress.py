"""A one-line progress bar on stderr, redrawn in place; silent when stderr is not a terminal."""
import sys
import time


class Progress:
    def __init__(self, total: int, label: str, stream=sys.stderr):
        self.total, self.label, self.stream = total, label, stream
        self.done = 0
        self.started = time.perf_counter()
        self.live = stream.isatty()

    def step(self, n: int = 1) -> None:
        self.done += n
        if self.live:
            width = 30
            filled = width * self.done // max(self.total, 1)
            rate = self.done / max(time.perf_counter() - self.started, 1e-9)
            self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] "
                              f"{self.done}/{self.total} {rate:.1f}/s")
            self.stream.flush()

    def close(self) -> None:
        if self.live:
            self.stream.write("\n")
            self.stream.flush()
