"""`zioncheck asyncapi`: the AsyncAPI document of the NATS side, generated from contracts/."""
from zioncheck.cli import documents, words
from zioncheck.cli.asyncapi import REGENERATE, render


def add(sub) -> None:
    p = sub.add_parser("asyncapi", help=words.ASYNCAPI_HELP, description=words.ASYNCAPI_DESCRIPTION.format(
        regenerate=REGENERATE))
    p.add_argument("-o", "--output", metavar=words.METAVAR_FILE, help=words.OUTPUT_HELP)
    p.set_defaults(func=asyncapi)


def asyncapi(args) -> int:
    return documents.write(render(), args.output)
