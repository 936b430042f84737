"""Stopping tasks for sure.

Python 3.11's asyncio.wait_for returns its inner result when a cancellation comes just as that
result does: a task cancelled at that moment (a NATS request answered as its service stops) goes
on as if it had never been asked to stop, and a stop that cancels once and waits waits for ever.
`stop` asks again, every `again` seconds, until each task has ended.
"""
import asyncio
from collections.abc import Iterable


async def stop(tasks: Iterable[asyncio.Task | None], again: float = 0.5) -> None:
    """Cancel the tasks and wait until every one has ended, cancelling again any still running."""
    every = [task for task in tasks if task is not None]
    running = {task for task in every if not task.done()}
    while running:
        for task in running:
            task.cancel()
        _, running = await asyncio.wait(running, timeout=again)
    for task in every:   # an exception a task ended with is its own business: retrieved, not raised
        if not task.cancelled():
            task.exception()
