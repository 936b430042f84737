"""`zioncheck openapi`: the OpenAPI document of the gateway's HTTP side, generated from contracts/."""
import sys

from services.gateway.openapi import REGENERATE, render


def add(sub) -> None:
    p = sub.add_parser("openapi", help="print the OpenAPI document of the gateway's HTTP routes",
                       description="Print the OpenAPI 3.1 document (JSON) of `zioncheck serve gateway`: each "
                                   "route, its parameters, bodies and answers, with schemas from contracts/. "
                                   f"docs/openapi.json is its committed copy: `{REGENERATE}` regenerates it.")
    p.add_argument("-o", "--output", help="the file to write (default: stdout)")
    p.set_defaults(func=openapi)


def openapi(args) -> int:
    text = render()
    if not args.output:
        sys.stdout.write(text)
        return 0
    try:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as error:
        print(f"zioncheck openapi: cannot write {args.output}: {error.strerror}", file=sys.stderr)
        return 2
    print(f"wrote {args.output}", file=sys.stderr)
    return 0
