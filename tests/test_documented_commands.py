"""Every command README.md, deploy/README.md and docs/*.md tell a reader to type runs, as written.

The shell commands are read out of the documents' fenced blocks. A block is a shell block when its fence says so
(`sh`, `shell`, `bash`, `console`), or when it has no language and its first command starts with a program a
reader runs here (PROGRAMS: `make`, `zioncheck`, `.venv/bin/...`, `nats-server`, `docker`, `for`, `NAME=`, ...);
a block of another language (`python`, `json`, `sql`, `text`) is not. The Python of docs/integration.md and the
SQL of docs/history.md are run by their own tests (tests/integration/test_integration_doc.py,
tests/test_history_doc.py); output shown to a reader is fenced `text`.

Each document runs in a fresh copy of the repository (the tracked files and the untracked ones git does not
ignore, with the shared `.venv` linked in, so nothing is installed again; the `zioncheck` it runs is the one
installed from this tree, editable), its commands in the order written
(RUNS: deploy/README.md's alternative deployments each in a copy of their own, after its logins), each with
a bounded time, in bash, with `.venv/bin` on PATH and English asked for. A command must end with status 0
and no Python traceback. A server a reader leaves running in the foreground (`zioncheck serve ...`) must come
up (its `serving` line; its metrics and its gateway's page answer; every service the gateway can tell of
answers it), and then stop cleanly on Ctrl-C (SIGINT, status 0), as a reader stops it before typing the next
command. A command sent to the background (`&`) must come up the same way, is left running, and must still
run when the document's commands are done; then its process group is stopped.

What the docs name as the reader's own (a game id `make run` printed, `FILE.json`, another host's server, a
folder of theirs) is put in place by PLACEHOLDERS; what a command runs beside is started first (BESIDE); what
cannot run here is in SKIPPED, each with its reason, most with a command that checks it instead.

The command line's side is checked without running anything: every `zioncheck` command of the documents, in
a fenced block or in `code` in the text, names a subcommand, options and (for `zioncheck serve`) services the
command line has, read from its own parser (what `zioncheck <sub> --help` prints).
"""
import contextlib
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from zioncheck.contracts.languages import ENGLISH, template
from zioncheck.services.bus.embedded import NatsServer
from zioncheck.services.wiring import SERVICES

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = ("README.md", "deploy/README.md", *sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")))
SHELL_TAGS = {"sh", "shell", "bash", "console"}
PROGRAMS = {"make", "zioncheck", "nats-server", "docker", "pip", "for", "mkdir", "cp", "cd", "curl", "python",
            "python3", "export"}
ASSIGNMENT = re.compile(r"(?:^|&&|;)\s*([A-Za-z_]\w*)=")
TRACEBACK = "Traceback (most recent call last)"
FENCE = re.compile(r"^( *)```(\S*)[ \t]*\n(.*?)^\1```[ \t]*$", re.M | re.S)
COMMAND_SECONDS = 180      # a command that has not ended by then fails
UP_SECONDS = 90            # a server that has not come up by then fails
STOP_SECONDS = 20          # a server still running that long after Ctrl-C is killed, and fails


# ---------------------------------------------------------------------------------------------------------------
# Reading the documents

@dataclass(frozen=True)
class Block:
    document: str
    line: int          # of the opening fence
    section: str       # the `## ` heading it stands under
    tag: str
    text: str


@dataclass(frozen=True)
class Command:
    document: str
    line: int
    section: str
    text: str          # as written, continuation lines joined

    @property
    def words(self) -> list[str]:
        """The words as the shell splits them, the comment left out (expansions stay as written)."""
        try:
            return shlex.split(self.text, comments=True)
        except ValueError:
            return self.text.split()

    @property
    def bare(self) -> str:
        return " ".join(self.words)

    def __str__(self) -> str:
        return f"{self.document}:{self.line}: {self.text}"


def first_word(line: str) -> str:
    word = line.split()[0] if line.split() else ""
    return word.removeprefix(".venv/bin/")


def is_program(line: str) -> bool:
    word = first_word(line)
    return word in PROGRAMS or line.startswith(".venv/bin/") or bool(re.match(r"[A-Za-z_]\w*=", word))


def blocks(document: str, text: str | None = None) -> list[Block]:
    text = (ROOT / document).read_text(encoding="utf-8") if text is None else text
    found = []
    for match in FENCE.finditer(text):
        before = text[:match.start()]
        headings = re.findall(r"^## (.+)$", before, re.M)
        indent = len(match.group(1))
        body = "\n".join(line[indent:] for line in match.group(3).splitlines())
        found.append(Block(document, before.count("\n") + 1, headings[-1].strip() if headings else "",
                           match.group(2).lower(), body))
    return found


def lines_of(block: Block) -> list[tuple[int, str]]:
    """(line, command) for each command of a block: continuations joined, blank lines and comments left out."""
    out, pending, start = [], "", 0
    for offset, line in enumerate(block.text.splitlines(), block.line + 1):
        if not pending:
            start = offset
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        whole, pending = (pending + line).strip(), ""
        if whole and not whole.startswith("#"):
            out.append((start, whole))
    return out


def is_shell(block: Block) -> bool:
    if block.tag:
        return block.tag in SHELL_TAGS
    lines = lines_of(block)
    return bool(lines) and is_program(lines[0][1])


def commands(document: str, text: str | None = None) -> list[Command]:
    return [Command(block.document, line, block.section, whole)
            for block in blocks(document, text) if is_shell(block) for line, whole in lines_of(block)]


# ---------------------------------------------------------------------------------------------------------------
# What runs where

@dataclass(frozen=True)
class Run:
    document: str
    sections: tuple[str, ...] = ()   # the sections run, in order; () every one
    shared_server: bool = False      # one embedded server the commands find, as the docs say they do
    ports: tuple[int, ...] = ()      # fixed ports its commands listen on
    long: bool = False

    def commands(self) -> list[Command]:
        every = commands(self.document)
        return [c for section in self.sections for c in every if c.section == section] if self.sections else every


CLUSTER_PORTS = (4221, 4222, 4223, 8221, 8222, 8223, 6231, 6232, 6233, *range(9101, 9110))
RUNS = {
    # `make run` plays a whole game at the pace a person can follow (0.15 s a move): three minutes.
    "README": Run("README.md", long=True),
    "deploy-single": Run("deploy/README.md", ("Logins first", "Single node", "Giving each party its login"),
                         ports=(4222, 8222, 9100)),
    "deploy-cluster": Run("deploy/README.md", ("Logins first", "Three-node cluster on loopback"),
                          ports=CLUSTER_PORTS, long=True),
    "deploy-container": Run("deploy/README.md", ("Logins first", "The server in a container"), ports=(4222, 8222),
                            long=True),
    "gateway": Run("docs/gateway.md", shared_server=True, ports=(8080,)),
    "history": Run("docs/history.md", shared_server=True),
    "scenarios": Run("docs/scenarios.md", shared_server=True),
}


def docker_answers() -> str | None:
    """None when a Docker engine answers; else why not."""
    if shutil.which("docker") is None:
        return "no `docker` client on PATH"
    try:
        answered = subprocess.run(["docker", "info"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"`docker info`: {error}"
    return None if answered.returncode == 0 else "`docker info`: " + (answered.stderr.strip().splitlines() or ["?"])[-1]


@dataclass(frozen=True)
class Skip:
    reason: str
    instead: str | None = None                        # run in its place, and held to the same
    only_when: Callable[[], str | None] | None = None   # skipped only when this says why (None: it runs)


# Commands that cannot run here, by their words as written (the comment left out).
SKIPPED = {
    "make test": Skip("runs every test, this module among them: its recipe is checked instead", "make -n test"),
    "make test-long": Skip("runs the long tests, this module's among them: its recipe is checked instead",
                           "make -n test-long"),
    "pip install zioncheck[history]": Skip(
        "would install into the .venv every test shares: the extra's package is checked to import instead",
        ".venv/bin/python -c 'import pyarrow.parquet'"),
}
SKIPPED_BY_PROGRAM = {
    "docker": Skip("needs a Docker engine, and none answers here", only_when=docker_answers),
}


def nats_server_version() -> str:
    out = subprocess.run([str(ROOT / ".venv/bin/nats-server"), "--version"], capture_output=True, text=True).stdout
    return out.strip().rsplit(" v", 1)[-1]


# What the docs name as the reader's own, by document: what stands in for it here.
PLACEHOLDERS: dict[str, dict[str, Callable[["Session"], str]]] = {
    "README.md": {"game-1a2b3c4d5e6f": lambda s: s.found(r"zioncheck replay (game-[0-9a-f]{12})")},
    "deploy/README.md": {"<version>": lambda s: nats_server_version()},
    "docs/gateway.md": {"nats://host:4222": lambda s: s.server_url()},
    "docs/history.md": {"/srv/archive": lambda s: str(s.work / "srv-archive")},
    "docs/scenarios.md": {"FILE.json": lambda s: "tests/scenarios/example.json",
                          "nats://host:4222": lambda s: s.server_url()},
}
# What a command runs beside, as its document says: started first, in the background, for the rest of the run.
BESIDE = {
    "zioncheck serve gateway --nats-url nats://host:4222 --port 8080":
        "zioncheck serve --nats-url {url}",   # "the gateway alone, beside the services"
}


# ---------------------------------------------------------------------------------------------------------------
# A copy of the repository

def git_files(*args: str) -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z", *args], cwd=ROOT, capture_output=True, check=True).stdout
    return [name for name in out.decode().split("\0") if name]


def copy_of_repository(into: Path) -> Path:
    """The tracked files and the untracked ones git does not ignore, as they are now; `.venv` linked, not copied.
    pyproject.toml keeps no time later than the venv's install stamp, so `make` never installs into it again."""
    into.mkdir(parents=True)
    for name in dict.fromkeys(git_files() + git_files("--others", "--exclude-standard")):
        source = ROOT / name
        if not (source.exists() or source.is_symlink()) or source.is_dir():
            continue
        (into / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, into / name, follow_symlinks=False)
    (into / ".venv").symlink_to(ROOT / ".venv")
    stamp = ROOT / ".venv" / ".installed"
    if stamp.exists() and (into / "pyproject.toml").stat().st_mtime > stamp.stat().st_mtime:
        os.utime(into / "pyproject.toml", (stamp.stat().st_mtime, stamp.stat().st_mtime))
    return into


def listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.3)
        return s.connect_ex(("127.0.0.1", port)) == 0


# ---------------------------------------------------------------------------------------------------------------
# Running them

def roll_call_silent() -> re.Pattern:
    """A line of `zioncheck serve gateway`'s roll call saying a service does not answer (English)."""
    before = template(ENGLISH, "cli.ROLL_CALL_SILENT").split("{missed}")[0]
    return re.compile("^" + re.escape(before).replace(re.escape("{service}"), r"(\w+)"), re.M)


def roll_call_line() -> re.Pattern:
    """Any line of the roll call, whatever it says: the service's name begins it."""
    starts = [template(ENGLISH, key).split("{service}")[1][:6] for key in
              ("cli.ROLL_CALL_ANSWERS", "cli.ROLL_CALL_SILENT", "cli.ROLL_CALL_UNSEEN")]
    return re.compile(rf"^(?:{'|'.join(SERVICES)})(?:{'|'.join(map(re.escape, starts))})", re.M)


@dataclass
class Started:
    command: str
    process: subprocess.Popen
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def alive(self) -> bool:
        """Whether any process of its group runs (its shell reaped first, should it have ended)."""
        self.process.poll()
        try:
            os.killpg(self.process.pid, 0)
            return True
        except ProcessLookupError:
            return False

    def stop(self) -> int | None:
        """Ctrl-C to its process group; killed if it outlives STOP_SECONDS. The status of its shell when it was
        still running, else None."""
        ours = self.process.poll() is None
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGINT)
        deadline = time.monotonic() + STOP_SECONDS
        while self.alive() and time.monotonic() < deadline:
            time.sleep(0.1)
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            raise AssertionError(f"still running {STOP_SECONDS} s after Ctrl-C: {self.command}\n{tail(self.output())}")
        return self.process.wait() if ours else None


def tail(text: str, lines: int = 40) -> str:
    return "\n".join(text.splitlines()[-lines:])


@dataclass
class Session:
    run: Run
    copy: Path
    work: Path
    server: NatsServer | None = None
    background: list[Started] = field(default_factory=list)
    containers: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    count: int = 0

    @property
    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ZIONCHECK_", "PYTEST_", "LC_", "LANG"))}
        return env | {"PATH": f"{self.copy / '.venv' / 'bin'}:{os.environ.get('PATH', '/usr/bin:/bin')}",
                      "LANGUAGE": "en", "LC_ALL": "C.UTF-8", "TMPDIR": str(self.work), "PWD": str(self.copy)}

    def server_url(self) -> str:
        assert self.server is not None, f"{self.run.document} names another host's server, and none is shared"
        return self.server.url

    def found(self, pattern: str) -> str:
        for output in reversed(self.outputs):
            if match := re.search(pattern, output):
                return match.group(1)
        raise AssertionError(f"no earlier command printed what {pattern!r} looks for")

    def start(self) -> None:
        if self.run.shared_server:
            home = self.copy / ".zioncheck"
            self.server = NatsServer(home / "jetstream", log=home / "nats-server.log", credentials=home / "credentials")
            (home / "nats.url").write_text(self.server.url)

    def close(self) -> None:
        try:
            for started in reversed(self.background):   # the services before the servers they use
                with contextlib.suppress(AssertionError):   # the run's own failure, if any, is the one to read
                    started.stop()
            for container in self.containers:
                subprocess.run(["docker", "rm", "-f", container], capture_output=True, timeout=60)
        finally:
            if self.server is not None:
                self.server.stop()

    # -- one command ------------------------------------------------------------------------------------------

    def script(self, text: str) -> str:
        state = self.work / "variables.sh"
        assigned = ASSIGNMENT.findall(text.split(" #")[0])
        keep = "".join(f'printf "%s=%q\\n" {name} "${name}" >> {shlex.quote(str(state))}\n' for name in assigned)
        return (f"[ -f {shlex.quote(str(state))} ] && . {shlex.quote(str(state))}\n{text}\n__status=$?\n"
                f"{keep}exit $__status\n")

    def popen(self, text: str) -> Started:
        self.count += 1
        log = self.work / f"{self.count:02d}.log"
        with open(log, "wb") as out:
            process = subprocess.Popen(["bash", "-c", self.script(text)], cwd=self.copy, env=self.env,
                                       stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                       start_new_session=True)
        return Started(text, process, log)

    def placed(self, command: Command) -> str:
        text = command.text
        for placeholder, value in PLACEHOLDERS.get(command.document, {}).items():
            if placeholder in text:
                text = text.replace(placeholder, value(self))
        return text

    def execute(self, command: Command) -> None:
        assert not signals_naming_no_server([command]), f"{command}\nnot run: it names no server to signal, and " \
                                                        "could reach another's on this machine"
        skip = SKIPPED.get(command.bare) or SKIPPED_BY_PROGRAM.get(first_word(command.text))
        if skip is not None:
            why = skip.only_when() if skip.only_when else skip.reason
            if why is not None:
                if skip.instead is None:
                    self.skipped.append(f"{command}: {skip.reason}" + (f" ({why})" if skip.only_when else ""))
                    return
                self.finite(Command(command.document, command.line, command.section, skip.instead), str(command))
                return
        if command.bare in BESIDE:
            beside = BESIDE[command.bare].format(url=self.server_url())
            self.background.append(self.up(self.popen(beside), beside))
        text = self.placed(command)
        kind = server_kind(text)
        if text.rstrip().endswith("&") or " & done" in text:   # sent to the background
            self.background.append(self.up(self.popen(text), text))
        elif kind in ("zioncheck", "nats-server"):
            started = self.up(self.popen(text), text)
            status = started.stop()
            output = started.output()
            self.outputs.append(output)
            assert status == 0, f"{command}\nended with status {status} on Ctrl-C\n{tail(output)}"
            assert TRACEBACK not in output, f"{command}\nstopped with a traceback\n{tail(output)}"
        else:
            reloads = self.reloads()
            output = self.finite(Command(command.document, command.line, command.section, text), str(command))
            if any(match.group(1) == "reload" for match in SIGNAL.finditer(text)):
                wait_for(lambda: self.reloads() > reloads, f"{command}: a server of the run saying it reloaded",
                         lambda: "\n".join(tail(b.output(), 5) for b in self.background), seconds=15)
            if command.words[:3] == ["docker", "run", "-d"]:
                self.containers.append(output.strip().splitlines()[-1])
                conf = next(w for w in reversed(command.words) if w.endswith(".conf"))
                port = int(re.search(r'listen: "[\d.]+:(\d+)"', (self.copy / "deploy" / Path(conf).name)
                                     .read_text()).group(1))
                wait_for(lambda: listening(port), f"the container of {command} to listen on {port}", output)

    def finite(self, command: Command, named: str) -> str:
        started = self.popen(command.text)
        try:
            status = started.process.wait(timeout=command_seconds(command.text))
        except subprocess.TimeoutExpired:
            started.stop()
            raise AssertionError(f"{named}\ndid not end within {command_seconds(command.text)} s\n"
                                 f"{tail(started.output())}") from None
        output = started.output()
        self.outputs.append(output)
        deadline = time.monotonic() + STOP_SECONDS
        while started.alive() and time.monotonic() < deadline:
            time.sleep(0.1)
        if started.alive():
            started.stop()
            raise AssertionError(f"{named}\nended, and left processes running\n{tail(output)}")
        assert status == 0, f"{named}\nended with status {status}\n{tail(output)}"
        assert TRACEBACK not in output, f"{named}\nprinted a traceback\n{tail(output)}"
        return output

    def up(self, started: Started, text: str) -> Started:
        """`started` once what it runs has come up; AssertionError saying what did not."""
        try:
            come_up(started, text)
        except BaseException:
            with contextlib.suppress(AssertionError):
                started.stop()
            raise
        return started

    def reloads(self) -> int:
        """How often the servers sent to the background have said they read their configuration again."""
        return sum(started.output().count("Reloaded server configuration") for started in self.background)

    def finish(self) -> None:
        """Every server sent to the background still runs, and printed no traceback."""
        for started in self.background:
            output = started.output()
            assert started.alive(), f"{started.command}\nstopped before the document's commands were done\n" \
                                    f"{tail(output)}"
            assert TRACEBACK not in output, f"{started.command}\nprinted a traceback\n{tail(output)}"


def server_kind(text: str) -> str | None:
    """What long-running server a command starts: `zioncheck` (serve), `nats-server`, or None. Only the program
    each simple command runs counts (`cp .venv/bin/nats-server DIR` starts none)."""
    for simple in re.split(r"&&|\|\||[;|&]|\bdo\b|\bthen\b", text.split(" #")[0]):
        words = [w for w in simple.split() if not re.match(r"[A-Za-z_]\w*=", w)]
        name = words[0].rsplit("/", 1)[-1] if words else ""
        if name == "zioncheck" and "serve" in words[1:4]:
            return "zioncheck"
        if name == "nats-server" and not any(w.startswith(("--signal", "--version", "-sl", "-v")) for w in words):
            return "nats-server"
    return None


def command_seconds(text: str) -> int:
    return 480 if text.split()[:2] == ["make", "run"] else COMMAND_SECONDS


def wait_for(check: Callable[[], bool], what: str, output: Callable[[], str] | str = "",
             seconds: float = UP_SECONDS) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    shown = output() if callable(output) else output
    raise AssertionError(f"{what}: not within {seconds:.0f} s\n{tail(shown)}")


def answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def come_up(started: Started, text: str) -> None:
    """The servers `text` starts are up: each nats-server ready, each `zioncheck serve` serving, its metrics and
    its gateway's page answering, every service its gateway can tell of answering."""

    def running() -> bool:
        if not started.alive():
            raise AssertionError(f"{text}\nended before it came up (status {started.process.returncode})\n"
                                 f"{tail(started.output())}")
        if TRACEBACK in started.output():
            raise AssertionError(f"{text}\nprinted a traceback while starting\n{tail(started.output())}")
        return True

    if "nats-server" in text and server_kind(text) == "nats-server":
        def ready() -> bool:
            out = started.output()
            return running() and 0 < out.count("Starting nats-server") == out.count("Server is ready")
        wait_for(ready, f"{text}: every nats-server it starts ready", started.output)
    if server_kind(text) != "zioncheck":
        return
    wait_for(lambda: running() and re.search(r"^serving ", started.output(), re.M) is not None,
             f"{text}: its `serving` line", started.output)
    if metrics := re.search(r"--metrics-port[ =](\d+)", text):
        wait_for(lambda: running() and answers(f"http://127.0.0.1:{metrics.group(1)}/metrics"),
                 f"{text}: its metrics on port {metrics.group(1)}", started.output)
    names = text.split("serve", 1)[1].split("--")[0].split()
    if "gateway" in names:
        wait_for(lambda: running() and re.search(r"^gateway on http", started.output(), re.M) is not None,
                 f"{text}: its `gateway on` line", started.output)
        at = re.search(r"^gateway on (http://\S+?)/? ", started.output(), re.M)
        wait_for(lambda: running() and answers(at.group(1) + "/"), f"{text}: its page at {at.group(1)}/",
                 started.output)
        wait_for(lambda: running() and len(roll_call_line().findall(started.output())) == len(SERVICES),
                 f"{text}: a line for each service", started.output)
        silent = roll_call_silent().findall(started.output())
        assert not silent, f"{text}\nserves a gateway beside which {', '.join(silent)} do not answer:\n" \
                           + "\n".join(roll_call_line_text(started.output()))


def roll_call_line_text(output: str) -> list[str]:
    return [line for line in output.splitlines() if roll_call_line().match(line)]


# ---------------------------------------------------------------------------------------------------------------
# The tests

def run_params():
    for name, run in RUNS.items():
        marks = [pytest.mark.long, pytest.mark.timeout(1200)] if run.long else [pytest.mark.timeout(600)]
        yield pytest.param(name, marks=marks, id=name)


@pytest.mark.parametrize("name", list(run_params()))
def test_the_documents_commands_run_as_written(name, tmp_path):
    run = RUNS[name]
    if busy := [port for port in run.ports if listening(port)]:
        pytest.skip(f"{run.document}: ports {busy} are in use by another program on this machine, and its "
                    "commands listen there")
    session = Session(run, copy_of_repository(tmp_path / "repository"), tmp_path)
    session.start()
    try:
        for command in run.commands():
            session.execute(command)
        session.finish()
    finally:
        session.close()
    if session.skipped:
        pytest.skip("NOT RUN here, each for its reason:\n" + "\n".join(session.skipped))


def test_every_shell_command_of_the_documents_is_run_by_one_of_the_runs():
    run = {(c.document, c.line) for r in RUNS.values() for c in r.commands()}
    left = [str(c) for document in DOCUMENTS for c in commands(document) if (c.document, c.line) not in run]
    assert left == [], "documented commands no run covers (RUNS):\n" + "\n".join(left)


def test_every_skipped_command_is_still_in_the_documents():
    documented = {c.bare for document in DOCUMENTS for c in commands(document)}
    assert set(SKIPPED) <= documented, f"SKIPPED names commands no document has: {set(SKIPPED) - documented}"
    assert set(BESIDE) <= documented, f"BESIDE names commands no document has: {set(BESIDE) - documented}"


def test_every_block_that_is_not_shell_is_fenced_with_its_language_or_holds_no_command():
    """An untagged block read as shell starts every line with a program; one that only starts like one (output
    that begins with `zioncheck`, say) must be fenced `text`."""
    mixed = []
    for document in DOCUMENTS:
        for block in blocks(document):
            if is_shell(block) and not block.tag:
                mixed += [f"{document}:{line}: {text}" for line, text in lines_of(block) if not is_program(text)]
    assert mixed == [], "lines of a shell block that run no program (fence the block `text` if it is output):\n" \
                        + "\n".join(mixed)


SAMPLE = """
## Running
```
make run    # a game
.venv/bin/zioncheck serve --nats-url nats://127.0.0.1:4222 \\
    --metrics-port 9100
```
```text
zioncheck scenario: hand7.json: hand must be 1..6, not 7
```
```
contracts/    the wire contract
```
  ```
  URL=nats://127.0.0.1:4221
  ```
```python
print("not shell")
```
"""


def test_shell_blocks_are_told_from_output_trees_and_other_languages(tmp_path):
    found = commands("<sample>.md", SAMPLE)
    assert [c.text for c in found] == [
        "make run    # a game",
        ".venv/bin/zioncheck serve --nats-url nats://127.0.0.1:4222      --metrics-port 9100",
        "URL=nats://127.0.0.1:4221"]
    assert found[0].bare == "make run" and found[0].section == "Running" and found[1].line == 5


def test_a_server_is_told_by_the_program_a_command_runs_not_by_its_arguments():
    assert server_kind("for n in 1 2; do .venv/bin/nats-server -c n$n.conf & done") == "nats-server"
    assert server_kind(".venv/bin/zioncheck serve --nats-url $URL &") == "zioncheck"
    assert server_kind('ctx=$(mktemp -d) && cp .venv/bin/nats-server Dockerfile "$ctx"') is None
    assert server_kind(".venv/bin/nats-server --signal reload=a.pid") is None
    assert server_kind("zioncheck history --tenant acme") is None


# -- the command line's side: subcommands, options, services ------------------------------------------------------

def command_line():
    """{subcommand: its option strings}, the options every subcommand takes, and the services serve knows."""
    from zioncheck.cli.main import parser
    from zioncheck.cli.serve_cmd import CHOICES
    root = parser()
    [subparsers] = [action for action in root._actions if action.choices and isinstance(action.choices, dict)]
    options = {name: set(sub._option_string_actions) for name, sub in subparsers.choices.items()}
    return options, set(root._option_string_actions), set(CHOICES)


INLINE = re.compile(r"(?<!`)`((?:\.venv/bin/)?zioncheck [^`]+)`")


def invocations(document: str, text: str | None = None) -> list[tuple[int, str]]:
    """(line, command) for every `zioncheck` command of a document: in its shell blocks and in its `code`."""
    text = (ROOT / document).read_text(encoding="utf-8") if text is None else text
    found = [(c.line, c.text) for c in commands(document, text)]
    fenced = {n for block in blocks(document, text)
              for n in range(block.line, block.line + block.text.count("\n") + 2)}
    for number, line in enumerate(text.splitlines(), 1):
        if number not in fenced:
            found += [(number, match.group(1)) for match in INLINE.finditer(line)]
    return found


def problems_of(command: str, known) -> list[str]:
    """What a command names that the command line does not have (a synopsis's [ ] and | allowed)."""
    options, everywhere, services = known
    words = re.sub(r"\\\||[\[\]|]|\.\.\.", " ", command.split(" #")[0]).split()
    at = next((i for i, w in enumerate(words) if w.rsplit("/", 1)[-1] == "zioncheck"), None)
    if at is None:
        return []
    words = words[at + 1:]
    while words and words[0].startswith("--lang"):
        words = words[1 if "=" in words[0] else 2:]
    if not words:
        return []
    subs, rest = words[0].split("/"), words[1:]   # `zioncheck run/serve/play`: each of them
    if unknown := [sub for sub in subs if sub not in options]:
        return [f"no subcommand {sub!r}" for sub in unknown]
    found = [f"`zioncheck {sub}` has no option {flag}" for sub in subs for word in rest
             if re.match(r"--?[A-Za-z]", word) and (flag := word.split("=")[0]) not in options[sub] | everywhere]
    sub = subs[0]
    if sub == "serve":
        named = [w for w in rest[:next((i for i, w in enumerate(rest) if w.startswith("-")), len(rest))]
                 if re.fullmatch(r"[a-z]+", w)]
        found += [f"`zioncheck serve` knows no service {name!r}" for name in named if name not in services]
    return found


def test_every_documented_zioncheck_command_names_options_and_services_the_command_line_has():
    known = command_line()
    wrong = [f"{document}:{line}: {command}: {problem}" for document in DOCUMENTS
             for line, command in invocations(document) for problem in problems_of(command, known)]
    assert wrong == [], "documented commands the command line would refuse:\n" + "\n".join(wrong)


def test_the_check_finds_an_unknown_subcommand_option_and_service_and_passes_a_synopsis():
    known = command_line()
    assert problems_of("zioncheck serve tabel dealer --nats-url URL", known) == [
        "`zioncheck serve` knows no service 'tabel'"]
    assert problems_of(".venv/bin/zioncheck replay game.jsonl --no-such-flag", known) == [
        "`zioncheck replay` has no option --no-such-flag"]
    assert problems_of("zioncheck replays x", known) == ["no subcommand 'replays'"]
    assert problems_of("zioncheck run/serve/plays --nats-url URL", known) == ["no subcommand 'plays'"]
    assert problems_of("zioncheck serve [table dealer] gateway [--port 8080] [--host 127.0.0.1]", known) == []
    assert problems_of("zioncheck --lang ru history --seat N\\|NAME", known) == []
    found = invocations("<sample>.md", "Run `zioncheck games`, then\n```\nzioncheck view G --sat 1\n```\n")
    assert [problem for _, command in found for problem in problems_of(command, known)] == [
        "`zioncheck view` has no option --sat"]


SIGNAL = re.compile(r"(?:--signal|-sl)[ =](\w+)(=\S+)?")


def signals_naming_no_server(found: list[Command]) -> list[str]:
    return [str(c) for c in found if first_word(c.text) == "nats-server"
            for match in SIGNAL.finditer(c.text) if not match.group(2)]


def test_a_documented_signal_names_the_server_it_is_for():
    """`nats-server --signal reload` with no pid signals whichever nats-server runs on the machine, and refuses
    when several do (it is never run here: it could reach another's server): a document names its server's pid
    file."""
    bare = signals_naming_no_server([c for document in DOCUMENTS for c in commands(document)])
    assert bare == [], "signals that name no server:\n" + "\n".join(bare)
    sample = commands("<sample>.md", "```\nnats-server --signal reload\nnats-server --signal reload=a.pid\n```\n")
    assert signals_naming_no_server(sample) == ["<sample>.md:2: nats-server --signal reload"]
