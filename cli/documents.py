"""Writing a generated document (AsyncAPI, OpenAPI) to stdout or a file, for the CLI."""
import sys

from zioncheck.cli import words
from zioncheck.cli.options import CommandFailed


def write(text: str, output: str | None) -> int:
    if not output:
        sys.stdout.write(text)
        return 0
    try:
        with open(output, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as error:
        raise CommandFailed(words.CANNOT_WRITE.format(file=output, reason=words.os_reason(error))) from None
    print(words.WROTE.format(file=output), file=sys.stderr)
    return 0
