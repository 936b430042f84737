"""docs/asyncapi.json is what today's contracts generate, names every command and event, and holds together."""
import importlib
import json
import pkgutil
import re
from pathlib import Path

import msgspec
import pytest
from document_checks import assert_committed_is_current, refs_in

import zioncheck.contracts as contracts
from zioncheck.cli.asyncapi import REGENERATE, render
from zioncheck.contracts.commands import Command
from zioncheck.contracts.events import Event
from zioncheck.contracts.log import tag_of

COMMITTED = Path(__file__).parent.parent / "docs" / "asyncapi.json"
# Structs of contracts/ that are no NATS message and so need no place in the document.
OFF_THE_WIRE = {
    "Command": "the base of every command",
    "Event": "the base of every event",
    "Entry": "a line of the JSON-lines export, not a NATS message",
    "Public": "the base of every public feed item",
    "Taken": "what contracts.intake.decode_reply makes of the stream's StreamAck",
    **{name: "inside an archive file (msgpack under zstd, docs/history.md): the bytes the archive channel carries"
       for name in ("StoredCommand", "StoredBatch", "Seed", "GameRecord", "Digests", "Signed", "Archive", "Column",
                    "Packed")},
}


def committed() -> dict:
    return json.loads(COMMITTED.read_text())


def every_subclass(base: type) -> list[type]:
    found = []
    for cls in base.__subclasses__():
        found += [cls, *every_subclass(cls)]
    return found


def resolve(document: dict, ref: str):
    """The target of a local $ref (a JSON pointer), or None when there is none."""
    node = document
    for part in ref.removeprefix("#/").split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node




def test_the_committed_document_is_what_the_contracts_generate_now():
    assert_committed_is_current(COMMITTED, render(), REGENERATE)


def test_every_command_and_event_tag_has_its_schema():
    schemas = committed()["components"]["schemas"]
    for cls in every_subclass(Command) + every_subclass(Event):
        tag = tag_of(cls)
        schema = schemas.get(cls.__name__, {})
        assert schema.get("properties", {}).get("type") == {"enum": [tag]}, \
            f"{cls.__name__} ({tag!r}) has no schema in docs/asyncapi.json: is it in a union the document uses?"


def test_every_struct_of_the_contracts_is_in_the_document():
    schemas = committed()["components"]["schemas"]
    for module_info in pkgutil.iter_modules(contracts.__path__):
        module = importlib.import_module(f"zioncheck.contracts.{module_info.name}")
        for name, obj in vars(module).items():
            if not (isinstance(obj, type) and issubclass(obj, msgspec.Struct)) or obj.__module__ != module.__name__:
                continue
            if name not in schemas and name not in OFF_THE_WIRE:
                pytest.fail(f"{module.__name__}.{name} is not in docs/asyncapi.json: add a line for its message to "
                            f"MESSAGES in cli/asyncapi.py (or to OFF_THE_WIRE here, saying why), then "
                            f"`{REGENERATE}`", pytrace=False)


def test_the_document_is_asyncapi_3_and_every_reference_resolves():
    document = committed()
    assert document["asyncapi"] == "3.0.0"
    assert document["info"]["title"] == "Zioncheck Table"
    for ref in refs_in(document):
        assert ref.startswith("#/") and resolve(document, ref) is not None, f"$ref {ref} points nowhere"


def test_every_channel_has_messages_with_payload_schemas_and_its_parameters():
    document = committed()
    for key, channel in document["channels"].items():
        assert channel["messages"], f"channel {key} has no messages"
        for message in channel["messages"].values():
            target = resolve(document, message["$ref"])
            assert message["$ref"].startswith("#/components/messages/") and target is not None
            assert target["payload"]["$ref"].startswith("#/components/schemas/")
            assert resolve(document, target["payload"]["$ref"]) is not None
        named = set(re.findall(r"\{(\w+)\}", channel["address"] or ""))
        assert named == set(channel.get("parameters", {})), f"channel {key}: parameters do not match its address"


def test_every_operation_sends_or_receives_messages_of_its_own_channel():
    document = committed()
    for key, operation in document["operations"].items():
        assert operation["action"] in ("send", "receive")
        for part in (operation, operation.get("reply")):
            if part is None:
                continue
            channel = part["channel"]["$ref"]
            assert part["messages"], f"operation {key} carries no message"
            for message in part["messages"]:
                assert message["$ref"].startswith(channel + "/messages/"), \
                    f"operation {key}: {message['$ref']} is not a message of {channel}"


def test_the_headers_a_sender_reads_or_sets_are_documented():
    messages = committed()["components"]["messages"]
    assert "Zc-Role" not in messages["DealerCommand"]["headers"]["properties"], "authority never rides in a header"
    assert "Zc-Cause" in messages["Rejected"]["headers"]["required"]
    assert set(messages["SeatCommand"]["headers"]["properties"]) == {"Zc-Key"}, "no header of a sender's is stored"


def test_dealer_commands_have_a_subject_of_their_own_that_seats_do_not_share():
    channels = committed()["channels"]
    assert channels["commands"]["address"] == "zc.in.{tenant}.{game}"
    assert channels["dealerCommands"]["address"] == "zc.cmd.{partition}.{game}.dealer"
