"""Every scenario under tests/scenarios plays the same through the real services as in process."""
from pathlib import Path

from zioncheck.application.scenario import load, run
from zioncheck.cli.scenario_over_nats import play

SCENARIOS = sorted((Path(__file__).parent.parent / "scenarios").glob("*.json"))
SCENARIOS = [p for p in SCENARIOS if not p.name.endswith(".expected.json")]


async def test_every_scenario_prints_the_same_json_over_nats_as_in_process(nats_server, services):
    assert SCENARIOS, "no scenarios found"
    differ = []
    for path in SCENARIOS:
        scenario = load(path.read_bytes())
        if run(scenario) != await play(scenario, nats_server.access, services):
            differ.append(path.name)
    assert differ == []
