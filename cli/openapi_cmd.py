"""`zioncheck openapi`: the OpenAPI document of the gateway's HTTP side, generated from contracts/."""
from zioncheck.cli import documents
from zioncheck.services.gateway.openapi import REGENERATE, render


def add(sub) -> None:
    p = sub.add_parser("openapi", help="print the OpenAPI document of the gateway's HTTP routes",
                       description="Print the OpenAPI 3.1 document (JSON) of `zioncheck serve gateway`: each "
                                   "route, its parameters, bodies and answers, with schemas from contracts/. "
                                   f"docs/openapi.json is its committed copy: `{REGENERATE}` regenerates it.")
    p.add_argument("-o", "--output", help="the file to write (default: stdout)")
    p.set_defaults(func=openapi)


def openapi(args) -> int:
    return documents.write(render(), args.output, "openapi")
