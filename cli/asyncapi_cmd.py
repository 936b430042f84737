"""`zioncheck asyncapi`: the AsyncAPI document of the NATS side, generated from contracts/."""
from zioncheck.cli import documents
from zioncheck.cli.asyncapi import REGENERATE, render


def add(sub) -> None:
    p = sub.add_parser("asyncapi", help="print the AsyncAPI document of the NATS subjects",
                       description="Print the AsyncAPI 3.0 document (JSON) of the NATS side: each subject, "
                                   "its messages' schemas from contracts/ and their headers. "
                                   f"docs/asyncapi.json is its committed copy: `{REGENERATE}` "
                                   "regenerates it after a contract changes.")
    p.add_argument("-o", "--output", help="the file to write (default: stdout)")
    p.set_defaults(func=asyncapi)


def asyncapi(args) -> int:
    return documents.write(render(), args.output, "asyncapi")
