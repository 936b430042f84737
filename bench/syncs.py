"""Counting the machine's fsyncs over a stretch of a benchmark, with Linux `perf` and the kernel's
syscall tracepoints (every process: the NATS server syncs from whichever of its threads stores).

A bench that asks for the count and cannot have it fails, saying why; it never reports a guess.
"""
import contextlib
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

EVENTS = ("syscalls:sys_enter_fsync", "syscalls:sys_enter_fdatasync")


class Count:
    """The fsyncs counted, once the stretch is over."""
    total: int | None = None


@contextlib.contextmanager
def counting() -> Iterator[Count]:
    perf = shutil.which("perf")
    if perf is None:
        raise RuntimeError("counting fsyncs needs Linux perf (Debian: linux-perf)")
    count = Count()
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "perf.csv"
        process = subprocess.Popen([perf, "stat", "-x,", "-o", str(out), "-a", *(f"-e{e}" for e in EVENTS)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            yield count
        finally:
            process.send_signal(signal.SIGINT)
            _, problem = process.communicate(timeout=30)
        counted = [line.split(",") for line in out.read_text().splitlines() if line and not line.startswith("#")]
        try:
            count.total = sum(int(fields[0]) for fields in counted if fields[2] in EVENTS)
        except (IndexError, ValueError):
            raise RuntimeError(f"perf counted no fsyncs ({problem.decode()[-200:]!r}, {out.read_text()[-200:]!r}); "
                               "it needs the kernel's syscall tracepoints and the right to read them") from None
