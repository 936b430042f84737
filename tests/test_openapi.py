"""docs/openapi.json is what today's contracts and gateway routes generate, covers every route, and holds together."""
import json
import re
import typing
from pathlib import Path

from document_checks import assert_committed_is_current, refs_in
from openapi_spec_validator import validate
from starlette.routing import Mount, WebSocketRoute

from zioncheck.contracts.commands import SeatCommand
from zioncheck.contracts.log import tag_of
from zioncheck.services.gateway.app import ROUTES
from zioncheck.services.gateway.openapi import REGENERATE, render

COMMITTED = Path(__file__).parent.parent / "docs" / "openapi.json"


def committed() -> dict:
    return json.loads(COMMITTED.read_text())




def test_the_committed_document_is_what_the_gateway_generates_now():
    assert_committed_is_current(COMMITTED, render(), REGENERATE)


def test_every_route_of_the_gateway_is_documented_and_nothing_else():
    served = set()
    for route in ROUTES:
        if isinstance(route, Mount):
            continue   # /static: the page's own files
        methods = {"get"} if isinstance(route, WebSocketRoute) else {m.lower() for m in route.methods} - {"head"}
        served |= {(route.path, method) for method in methods}
    documented = {(path, method) for path, item in committed()["paths"].items() for method in item}
    assert served == documented


def test_the_document_is_valid_openapi_3_1_and_every_reference_resolves():
    document = committed()
    assert document["openapi"] == "3.1.0"
    validate(document)
    schemas = document["components"]["schemas"]
    for ref in refs_in(document):
        assert re.fullmatch(r"#/components/schemas/\w+", ref) and ref.rsplit("/", 1)[1] in schemas, ref


def test_every_path_parameter_is_declared_and_every_refusal_is_a_problem():
    for path, item in committed()["paths"].items():
        named = set(re.findall(r"\{(\w+)\}", path))
        for method, operation in item.items():
            declared = {p["name"] for p in operation.get("parameters", []) if p["in"] == "path"}
            assert declared == named, f"{method} {path}"
            for status, response in operation["responses"].items():
                if int(status) >= 400:
                    assert response["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Problem"}


def test_a_seat_command_body_takes_each_of_the_seven_moves():
    schemas = committed()["components"]["schemas"]
    mapping = schemas["SeatCommand"]["discriminator"]["mapping"]
    assert set(mapping) == {tag_of(cls) for cls in typing.get_args(SeatCommand)}
    body = committed()["paths"]["/games/{game}/commands"]["post"]
    assert body["requestBody"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/SeatCommand"}
    assert body["security"] == [{"seatToken": []}]


def test_opening_a_game_takes_a_platform_key_and_every_429_says_when_to_retry():
    document = committed()
    create = document["paths"]["/games"]["post"]
    assert create["security"] == [{"platformKey": []}]
    assert document["components"]["securitySchemes"]["platformKey"] == {
        "type": "apiKey", "in": "header", "name": "X-Platform-Key",
        "description": document["components"]["securitySchemes"]["platformKey"]["description"]}
    assert {"401", "409", "429"} <= set(create["responses"])
    limited = [(path, method, operation["responses"]["429"]) for path, item in document["paths"].items()
               for method, operation in item.items() if "429" in operation["responses"]]
    assert {(path, method) for path, method, _ in limited} == {("/games", "post"), ("/lobbies", "post"),
                                                               ("/games/{game}/commands", "post"),
                                                               ("/games/{game}/chat", "post")}
    for _, _, response in limited:
        assert response["headers"]["Retry-After"]["schema"]["type"] == "integer"
