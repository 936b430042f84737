"""A service's stop ends its tasks for sure, even one that lost a cancellation (Python 3.11's
asyncio.wait_for returns a result that came with the cancellation, and the task goes on)."""
import asyncio

from zioncheck.services.bus import tasks


async def test_a_task_that_lost_its_cancellation_is_stopped_all_the_same():
    lost = 0

    async def loses_one_cancellation():
        nonlocal lost
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                if lost:
                    raise
                lost += 1   # as wait_for does when its answer comes with the cancellation

    task = asyncio.create_task(loses_one_cancellation())
    await asyncio.sleep(0)
    await asyncio.wait_for(tasks.stop([task], again=0.05), timeout=5)
    assert task.cancelled() and lost == 1


async def test_stop_takes_ended_and_failed_tasks_and_none_alike():
    async def fails():
        raise ValueError("its own business")

    failed = asyncio.create_task(fails())
    await asyncio.sleep(0)
    await tasks.stop([failed, None])
    assert failed.done() and isinstance(failed.exception(), ValueError)
