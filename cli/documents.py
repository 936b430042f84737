"""Writing a generated document (AsyncAPI, OpenAPI) to stdout or a file, for the CLI."""
import sys


def write(text: str, output: str | None, command: str) -> int:
    if not output:
        sys.stdout.write(text)
        return 0
    try:
        with open(output, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as error:
        print(f"zioncheck {command}: cannot write {output}: {error.strerror}", file=sys.stderr)
        return 2
    print(f"wrote {output}", file=sys.stderr)
    return 0
