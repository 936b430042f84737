"""Every service is declared once (services/wiring.py), and what it declares agrees with its login's rights."""
from fnmatch import fnmatchcase

import pytest

from zioncheck.services.bus.access import PERMISSIONS, permissions
from zioncheck.services.bus.topology import kv_stream
from zioncheck.services.wiring import SERVICES, SPECS


def may_read_stream(role: str, stream: str) -> bool:
    return f"$JS.API.CONSUMER.CREATE.{stream}" in PERMISSIONS[role].publish


def test_each_service_logs_in_as_a_role_of_its_own_name():
    assert set(SERVICES) <= set(PERMISSIONS)
    assert len(set(SERVICES)) == len(SPECS)


@pytest.mark.parametrize("partitions", [1, 2, 5])
def test_what_a_service_takes_in_is_what_its_login_may_read_in_every_partition(partitions):
    rights = permissions(partitions)
    for spec in SPECS:
        for takes in spec.takes:
            for p in range(partitions):
                if takes.stream:
                    stream = takes.stream(p)
                    assert f"$JS.API.CONSUMER.CREATE.{stream}.{takes.group}" in rights[spec.name].publish, \
                        f"{spec.name} may not make its consumer {takes.group} on {stream}"
                    pull = f"$JS.API.CONSUMER.MSG.NEXT.{stream}.{takes.group}"
                    assert pull in rights[spec.name].publish, f"{spec.name} may not pull from {takes.group} on {stream}"
                else:
                    assert any(fnmatchcase(takes.subject(p), allowed) for allowed in rights[spec.name].subscribe), \
                        f"{spec.name} may not subscribe to {takes.subject(p)}"
            if takes.stream and takes.stream(0) != takes.stream(1):   # a stream of each partition
                past = f"$JS.API.CONSUMER.CREATE.{takes.stream(partitions)}"
                assert not [right for right in rights[spec.name].publish if right.split(".")[:5] == past.split(".")], \
                    "a partition past P"


def test_no_service_but_the_dealer_may_read_the_seeds():
    for role in PERMISSIONS:
        if role not in ("dealer", "operator"):
            assert not may_read_stream(role, kv_stream("zc_dealer_seeds")), role


def test_every_service_declares_the_metrics_it_counts():
    for spec in SPECS:
        assert spec.metrics, f"{spec.name} declares no metric"
        assert all(metric._name.startswith("zc_") for metric in spec.metrics)


def test_only_the_services_may_keep_durable_consumers_and_none_may_delete_one():
    for role, rights in PERMISSIONS.items():
        if role == "operator":
            continue
        assert not any(".CONSUMER.DELETE." in subject for subject in rights.publish), role
        durable = [subject for subject in rights.publish if ".CONSUMER.DURABLE.CREATE." in subject]
        consumes = any(takes.stream for spec in SPECS if spec.name == role for takes in spec.takes)
        assert bool(durable) == consumes, role
