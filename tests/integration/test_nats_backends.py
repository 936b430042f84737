"""The tests' NATS server, on whichever backend this run uses (tests/nats_backends.py)."""
from pathlib import Path

import nats
import nats.errors
import pytest
from nats_backends import CONFIG_INSIDE, chosen, containers_in_use

needs_containers = pytest.mark.skipif(not containers_in_use(),
                                      reason=f"needs NATS in containers: {chosen().describe()}")


def listening(port: int) -> set[str]:
    """The local addresses with a socket listening on this TCP port (from the host's /proc/net)."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.rsplit(":", 1)
            if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                found.add(address)
    return found


async def test_a_jetstream_publish_to_the_server_is_acknowledged(nats_server):
    nc = await nats.connect(**nats_server.access.connect_options("operator"))
    try:
        js = nc.jetstream()
        await js.add_stream(name="ZC_PROBE", subjects=["probe.>"])
        ack = await js.publish("probe.one", b"stored?")
        assert (ack.stream, ack.seq) == ("ZC_PROBE", 1)
        assert (await js.get_msg("ZC_PROBE", 1)).data == b"stored?"
    finally:
        await nc.close()


def test_the_server_listens_on_the_loopback_address_only(nats_server):
    assert listening(nats_server.port) == {"0100007F"}  # 127.0.0.1, as /proc/net/tcp writes it


@needs_containers
def test_a_container_shares_the_host_network_and_gets_no_address_of_its_own(nats_server):
    attrs = nats_server.container.get_wrapped_container().attrs
    assert attrs["HostConfig"]["NetworkMode"] == "host"
    networks = attrs["NetworkSettings"]["Networks"]
    assert set(networks) == {"host"} and not any(n.get("IPAddress") for n in networks.values())
    mounts = {m["Destination"]: m for m in attrs["Mounts"]}
    assert mounts[CONFIG_INSIDE]["RW"] is False
    assert len(mounts) == 2 and all(m["Type"] == "bind" for m in mounts.values())


@needs_containers
async def test_a_frozen_container_acknowledges_nothing_until_it_is_thawed(nats_server):
    nc = await nats.connect(**nats_server.access.connect_options("operator"))
    try:
        js = nc.jetstream()
        await js.add_stream(name="ZC_PROBE", subjects=["probe.>"])
        nats_server.pause()
        try:
            with pytest.raises(nats.errors.TimeoutError):
                await js.publish("probe.frozen", b"1", timeout=1)
        finally:
            nats_server.unpause()
        ack = await js.publish("probe.thawed", b"2", timeout=10)
        assert ack.seq == 2  # the publish sent while frozen was stored once it thawed
    finally:
        await nc.close()
