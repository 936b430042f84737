"""`zioncheck openapi`: the OpenAPI document of the gateway's HTTP side, generated from contracts/."""
from zioncheck.cli import documents, words
from zioncheck.services.gateway.openapi import REGENERATE, render


def add(sub) -> None:
    p = sub.add_parser("openapi", help=words.OPENAPI_HELP, description=words.OPENAPI_DESCRIPTION.format(
        regenerate=REGENERATE))
    p.add_argument("-o", "--output", metavar=words.METAVAR_FILE, help=words.OUTPUT_HELP)
    p.set_defaults(func=openapi)


def openapi(args) -> int:
    return documents.write(render(), args.output)
