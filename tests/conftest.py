"""Session-wide: which backend runs the tests' NATS servers (tests/nats_backends.py), said at the start."""
import pytest

import nats_backends


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
