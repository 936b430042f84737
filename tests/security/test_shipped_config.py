"""deploy/single.conf, as shipped, with logins made by `zioncheck credentials --deploy`: the same roles
and permissions as the embedded server, refusing what they refuse."""
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nats
import pytest
from attacker import Attacker
from nats.errors import TimeoutError as NatsTimeout

from zioncheck.application.scenario import load, run
from zioncheck.cli.scenario_over_nats import play
from zioncheck.services.bus.access import Access
from zioncheck.services.bus.embedded import free_port, reachable, server_binary
from zioncheck.services.bus.topology import log_stream, log_subject
from zioncheck.services.wiring import SERVICES, Services

pytestmark = pytest.mark.security
DEPLOY = Path(__file__).parent.parent.parent / "deploy"
EXAMPLE = Path(__file__).parent.parent / "scenarios" / "example.json"


@pytest.fixture
def shipped(tmp_path):
    deploy = shutil.copytree(DEPLOY, tmp_path / "deploy", ignore=shutil.ignore_patterns("secrets"))
    made = subprocess.run([sys.executable, "-m", "zioncheck.cli.main", "credentials",
                           "--deploy", str(deploy / "secrets")],
                          capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    port = free_port()
    # Only the ports move (flags override the file); the store is ./.zioncheck/single under the test's folder.
    server = subprocess.Popen([server_binary(), "-c", str(deploy / "single.conf"), "-p", str(port),
                               "-m", str(free_port())],
                              cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"nats://127.0.0.1:{port}"
    deadline = time.monotonic() + 15
    while not reachable(url) and time.monotonic() < deadline:
        assert server.poll() is None, "the shipped configuration did not start"
        time.sleep(0.05)
    yield Access((url,), deploy / "secrets" / "credentials")
    server.terminate()
    server.wait()


async def test_the_shipped_single_node_config_refuses_strangers_and_plays_for_its_roles(shipped):
    # nats-py raises its base Error carrying the server's -ERR, not AuthorizationError, when CONNECT is refused
    with pytest.raises(nats.errors.Error, match="(?i)authorization violation"):
        await nats.connect(shipped.servers[0], allow_reconnect=False, max_reconnect_attempts=0, connect_timeout=2)
    services = await Services().start(SERVICES, shipped)
    platform = await Attacker.login(shipped, "platform")
    try:
        scenario = load(EXAMPLE.read_bytes())
        assert await play(scenario, shipped, services) == run(scenario)
        with pytest.raises(NatsTimeout):
            await platform.js.get_msg(log_stream(0), seq=1, subject=log_subject(0, "*"))
    finally:
        await platform.close()
        await services.stop()
