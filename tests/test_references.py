"""Every reference in the project resolves to a file in the project.

The project's text files are read: those `git ls-files` lists, and new ones not yet
added that .gitignore does not exclude, whose names end in .py, .md, .json or .toml,
and the Makefile. Three kinds of reference are looked for in them:

- project paths: a path that starts with one of the repository's top-level
  directories (`docs/`, `tests/`, `deploy/`, `services/` and the others that hold
  files), such as `docs/rules.md` or `tests/scenarios/`. It is read from the
  repository root and must name a file, or a directory that holds files;
- Markdown links in .md files, outside code blocks: the target is read from the
  file's own directory, as a Markdown viewer reads it. A `#fragment` into a .md file
  must name one of its headings (as GitHub spells their anchors) or an `<a id>` in it;
- bare file names ending in .md, .py or .toml, such as `README.md` or
  `pyproject.toml`: read from the file's own directory or else from the root.

What is not a reference, and so is left alone:

- URLs and HTTP routes: a path right after `/`, `:`, `.`, `@`, `-` or a word character is part
  of something longer (https://example.org/docs/x, the route /static/watch.js), and
  a Markdown link with a scheme (`https:`, `mailto:`) is not followed;
- media types (`application/json`), which look like a path into application/;
- example paths: one holding a placeholder (`{...}`, `<...>`, `$n`, `*`) or a name
  written all in capitals, which the project uses for "any name" (`NAME.json`,
  `FILE.jsonl`, `DIR/`). A Markdown document in capitals (README.md) is no
  placeholder: capitals are the custom for such names, so they are checked;
- names a program builds a path from: a bare name that is a whole string literal
  (ROOT / "docs" / "integration.md") is left to the code that opens it, and to the
  tests of that code;
- Python's dotted module names (`domain.fairness`): imports check them, and in prose
  they cannot be told from attributes;
- directories that are not in the repository (`.venv/`, `.zioncheck/`): their first
  segment is no top-level directory of it;
- what the project makes where it runs, which .gitignore keeps out of the repository
  (`deploy/secrets/`, made by `zioncheck credentials --deploy`).

The rule numbers (R10, R11a, ...) are references too: each must have its anchor in
docs/rules.md.
"""
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import pytest

ROOT = Path(__file__).resolve().parent.parent
SUFFIXES = (".py", ".md", ".json", ".toml")
RULES = "docs/rules.md"

PLACEHOLDER = re.compile(r"[{}<>$*]")
MEDIA_TYPE = re.compile(r"application/[\w.+-]+")   # application/json names a media type, not application/'s file
CAPITALS = re.compile(r"[A-Z][A-Z0-9_]*")
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
BARE = re.compile(r"(?<![\w./@-])([\w-]+\.(?:md|py|toml))(?![\w/-]|\.\w)")
HEADING = re.compile(r"#{1,6}\s+(.*?)\s*#*\s*")
ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")
FENCE = re.compile(r"\s{0,3}(```|~~~)")
RULE = re.compile(r"(?<![\w-])R(\d+[a-z]?)(?!\w)")


def tracked_files() -> list[str]:
    """The repository's files, as `git ls-files` sees them, that are there on disk."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                                cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        pytest.skip(f"no git checkout to list the project's files: {error}")
    return sorted(name for name in listed.split("\0") if name and (ROOT / name).is_file())


def is_text(name: str) -> bool:
    return name.endswith(SUFFIXES) or PurePosixPath(name).name == "Makefile"


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]*>", "", text)
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def outside_code_blocks(text: str):
    """(line number, line) of a Markdown text, leaving out fenced code blocks."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            yield number, line


def is_placeholder(path: str) -> bool:
    if PLACEHOLDER.search(path) or MEDIA_TYPE.fullmatch(path):
        return True
    parts = [part for part in path.split("/") if part and not part.endswith(".md")]
    return any(CAPITALS.fullmatch(part.split(".")[0]) for part in parts)


@dataclass
class Repo:
    """The files a reference may name, and where to read Markdown files for their anchors."""
    files: set[str]
    made: tuple[str, ...] = ()
    root: Path = ROOT
    dirs: set[str] = field(init=False)
    top: re.Pattern = field(init=False)
    _anchors: dict = field(init=False, default_factory=dict)

    def __post_init__(self):
        self.dirs = {str(parent) for name in self.files for parent in PurePosixPath(name).parents} - {"."}
        tops = sorted({name.split("/")[0] for name in self.files if "/" in name}, key=len, reverse=True)
        alternatives = "|".join(map(re.escape, tops))
        self.top = re.compile(rf"(?<![\w./:@-])((?:{alternatives})/[\w./{{}}<>$*-]*)")

    def has(self, path: str) -> bool:
        """A file, or a directory holding files (when the path ends with a slash, only that), or a
        path .gitignore keeps out: the project makes it where it runs."""
        path = path.removeprefix("./")
        if any(path == made or path.startswith(made.rstrip("/") + "/") for made in self.made):
            return True
        if path.endswith("/"):
            return path.rstrip("/") in self.dirs
        return path in self.files or path in self.dirs

    def anchors(self, name: str) -> set[str]:
        if name not in self._anchors:
            text = (self.root / name).read_text(encoding="utf-8")
            found, seen = set(ANCHOR.findall(text)), {}
            for _, line in outside_code_blocks(text):
                if heading := HEADING.fullmatch(line):
                    base = slug(heading.group(1))
                    found.add(base if base not in seen else f"{base}-{seen[base]}")
                    seen[base] = seen.get(base, 0) + 1
            self._anchors[name] = found
        return self._anchors[name]

    def unresolved(self, name: str, text: str) -> list[tuple[int, str]]:
        """(line, reference), once a line, for each reference in `text` (file `name`'s) that names nothing."""
        here = PurePosixPath(name).parent
        broken = []
        for number, line in enumerate(text.splitlines(), 1):
            for match in self.top.finditer(line):
                path = match.group(1).rstrip(".")
                if not is_placeholder(path) and not self.has(path):
                    broken.append((number, path))
            for match in BARE.finditer(line):
                bare, start, end = match.group(1), match.start(1), match.end(1)
                quoted = start > 0 and end < len(line) and line[start - 1] == line[end] and line[end] in "\"'"
                if quoted or is_placeholder(bare):
                    continue
                if not (self.has(str(here / bare)) or self.has(bare)):
                    broken.append((number, bare))
        if name.endswith(".md"):
            for number, line in outside_code_blocks(text):
                for match in LINK.finditer(line):
                    target = match.group(1)
                    if not SCHEME.match(target) and not self.link_resolves(here, name, target):
                        broken.append((number, target))
        return sorted(set(broken))

    def link_resolves(self, here: PurePosixPath, name: str, target: str) -> bool:
        path, _, fragment = target.partition("#")
        resolved = name if not path else _normal(here / path)
        if resolved is None or not self.has(resolved + ("/" if path.endswith("/") else "")):
            return False
        if fragment and resolved.endswith(".md"):
            return fragment in self.anchors(resolved)
        return True


def _normal(path: PurePosixPath) -> str | None:
    """`path` with its `..` and `.` folded, or None when it climbs out of the repository."""
    parts: list[str] = []
    for part in path.parts:
        if part == "..":
            if not parts:
                return None
            parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts)


@pytest.fixture(scope="module")
def repo() -> Repo:
    return Repo(set(tracked_files()), made_where_it_runs())


def made_where_it_runs() -> tuple[str, ...]:
    """The ignored folders .gitignore names by their path (`deploy/secrets/`), not by a pattern."""
    lines = (ROOT / ".gitignore").read_text().splitlines() if (ROOT / ".gitignore").exists() else []
    return tuple(line.strip().strip("/") for line in lines if "/" in line.strip().strip("/") and "*" not in line)


def test_every_reference_in_the_project_names_a_file_in_it(repo):
    broken = [f"{name}:{number}: {reference}"
              for name in sorted(repo.files) if is_text(name)
              for number, reference in repo.unresolved(name, (ROOT / name).read_text(encoding="utf-8"))]
    assert broken == [], "references to nothing in the project:\n" + "\n".join(broken)


def test_every_rule_number_cited_has_its_anchor_in_the_rules(repo):
    anchors = repo.anchors(RULES)
    missing = sorted({f"R{number} ({name})"
                      for name in repo.files if is_text(name)
                      for number in RULE.findall((ROOT / name).read_text(encoding="utf-8"))
                      if f"r{number}" not in anchors})
    assert missing == [], f"rule numbers with no anchor in {RULES}: " + ", ".join(missing)


SAMPLE = """
The rules are in docs/rules.md and [docs/scenarios.md](docs/scenarios.md); the gateway in
docs/gateway.md and [its page](docs/gateway.md); [no such rule](docs/rules.md#r99), [R11a](docs/rules.md#r11a).
Not references: https://example.org/docs/gone, the route /static/watch.js, tests/scenarios/NAME.json,
deploy/cluster/n$n.conf, f"docs/{name}.md", ROOT / "docs" / "integration.md", and `pyproject.toml`.
"""


def test_the_check_finds_a_missing_file_and_a_missing_anchor_and_leaves_urls_and_examples_alone():
    sample = Repo({"docs/rules.md", "docs/scenarios.md", "pyproject.toml", "tests/scenarios/example.json",
                   "deploy/single.conf"})
    found = [reference for _, reference in sample.unresolved("notes.md", SAMPLE)]
    assert found == ["docs/gateway.md", "docs/rules.md#r99"]
