"""Fixtures for the tests that talk to a real nats-server: each server has its own port, store and
logins, and runs with the shipped users and permissions (services/bus/access.py). Which backend runs the
servers (tests/nats_backends.py: processes or containers) is said at the start of the run."""
import asyncio
import inspect
import os
import sys

import nats_backends
import pytest
from nats_backends import start_nats

from zioncheck.client import GameClient
from zioncheck.services.observability import configure_logging
from zioncheck.services.wiring import SERVICES, Services

configure_logging("warning")
# The tests read English, whatever the machine's locale; tests/test_words.py tries the others.
os.environ["LANGUAGE"] = "en"
# Every test server spreads games over 2 partitions unless the run says otherwise: the whole suite
# goes through the partitioned path (ZIONCHECK_PARTITIONS=1 or 3 runs it with another P).
os.environ.setdefault("ZIONCHECK_PARTITIONS", "2")


def pytest_sessionstart(session):
    try:
        backend = nats_backends.chosen()
    except (ValueError, RuntimeError) as trouble:
        raise pytest.UsageError(str(trouble)) from trouble
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None and not reporter.showheader:  # -q shows no header: say it anyway
        reporter.write_line(backend.describe())


def pytest_report_header(config):
    return [nats_backends.chosen().describe()]


def pytest_sessionfinish(session):
    if nats_backends.chosen.cache_info().currsize and nats_backends.containers_in_use():
        nats_backends.sweep()


CHROMIUM = "/usr/bin/chromium"   # the browser tests drive Debian's Chromium (Playwright cannot fetch its own here)


def pytest_terminal_summary(terminalreporter):
    """A run on a machine without Chromium skips the browser, phone and language tests: said at the end of
    the run, with how to install it, so a green run cannot pass for a run of every test."""
    skipped = [report for report in terminalreporter.stats.get("skipped", [])
               if "chromium" in str(getattr(report, "longrepr", "")).lower()]
    if skipped and not os.path.exists(CHROMIUM):
        terminalreporter.write_sep("!", f"{len(skipped)} browser tests SKIPPED: Chromium is not installed "
                                        f"({CHROMIUM})", red=True)
        terminalreporter.write_line("Install it (Debian: apt-get install chromium) and run make test again; "
                                    ".ci/run installs it.", red=True)


def pytest_collection_modifyitems(config, items):
    for item in items:
        if inspect.iscoroutinefunction(getattr(item, "obj", None)):
            item.fixturenames.insert(0, "_stacks_before_the_timeout")


@pytest.fixture
async def _stacks_before_the_timeout(request):
    """An async test that is about to pass the run's timeout prints where each of its tasks waits (the
    timeout's own report shows only the event loop's select)."""
    marker = request.node.get_closest_marker("timeout")
    limit = float(marker.args[0]) if marker and marker.args else float(request.config.getini("timeout") or 0)
    if not limit:
        yield
        return

    def dump() -> None:
        print(f"\n--- tasks of {request.node.nodeid} at {limit - 5:g} s ---", file=sys.stderr)
        for task in asyncio.all_tasks():
            print(f"{task.get_name()}:", file=sys.stderr)
            step = task.get_coro()
            while step is not None:   # down the awaits: a task's own stack shows only its top frame
                frame = getattr(step, "cr_frame", None) or getattr(step, "gi_frame", None)
                if frame is not None:
                    print(f"  {frame.f_code.co_filename}:{frame.f_lineno} {frame.f_code.co_name}", file=sys.stderr)
                step = getattr(step, "cr_await", None) or getattr(step, "gi_yieldfrom", None)
    timer = asyncio.get_running_loop().call_later(max(limit - 5, 1), dump)
    yield
    timer.cancel()


@pytest.fixture
def nats_server(tmp_path):
    server = start_nats(tmp_path / "jetstream", log=tmp_path / "nats-server.log")
    yield server
    server.stop()


@pytest.fixture
async def services(nats_server):
    running = await Services().start(SERVICES, nats_server.access)
    yield running
    await running.stop()


@pytest.fixture
async def client(nats_server):
    """The operator's client: the tests stack deals and read seeds as only the operator may."""
    c = await GameClient.connect(nats_server.access, "operator")
    yield c
    await c.close()
