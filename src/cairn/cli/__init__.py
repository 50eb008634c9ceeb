"""The ``cairn`` command line: a thin adapter over :class:`cairn.Cairn`.

``cairn [--db PATH] [--space NAME] [--now ISO-8601] [--json] COMMAND …``

Exit status: 0 done; 1 refused or invalid (one line on stderr, nothing written; with
``--json`` also ``{"error": {"code", "message"}}`` on stdout, the code being the error's
stable ``error_code``); 2 usage error (argparse). Errors are translated to exit codes here
and nowhere else. Commands live in one module per group; each module has
``register(subparsers)``.

Which database a command may touch:

* a command in :data:`CREATES` (it can add records) creates a missing database; a
  ``--db`` file's folder must exist (a typo is not silently made a new folder tree), the
  default (``$CAIRN_DB``, else the data folder) is created with its folders. A refused
  command removes the empty database it created, so nothing is left behind;
* a command in :data:`READS` never creates one and never changes the file's mode or
  journal ("no such database: PATH" for a mistyped path);
* every other command changes existing records: it needs an existing database too.

Output that the reader stops reading (``cairn export | head -1``) ends quietly, exit 0.

Start-up cost. A host hook runs one ``cairn`` process per user prompt, so a command
imports only what it needs: :data:`GROUPS` names the group modules, :data:`ROUTES`
says which group holds each command, and :func:`main` imports and registers only the
group of the command on the line (``cairn recall`` never imports the benchmarks, the MCP
server or the host adapters). The engine is imported when a handler needs a database.
Without a command, with ``--help`` or with a command no route names, every group is
registered, so help and argparse's error messages list every command. A group missing
from :data:`ROUTES` is registered for every command: correct, only slower.
"""

from __future__ import annotations

import argparse
import functools
import gc
import importlib
import json
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, NoReturn

from ..errors import CairnError, InvalidInput, StoreUnavailable

if TYPE_CHECKING:
    from ..engine import Cairn
    from .common import Output

# Group modules of this package, in help order.
GROUPS = ("records", "learn", "recall", "ingest", "relations", "host", "bench", "mcp", "trace", "embed", "archive", "labels",
          "trust", "ui", "migrate")

# Command -> the group module that registers it (kept whole by tests/speed/test_startup.py).
ROUTES = {
    **dict.fromkeys(("remember", "show", "list", "forget", "pin", "unpin", "history", "undo", "export", "import",
                     "status", "alias", "confirm"), "records"),
    **dict.fromkeys(("learn", "reinforce", "apply", "candidates", "correct", "feedback"), "learn"),
    **dict.fromkeys(("recall", "search", "explain"), "recall"),
    "ingest": "ingest",
    **dict.fromkeys(("relate", "timeline"), "relations"),
    **dict.fromkeys(("triage", "hook", "setup"), "host"),
    "bench": "bench",
    "mcp": "mcp",
    "trace": "trace",
    "embed": "embed",
    "archive": "archive",
    "labels": "labels",
    **dict.fromkeys(("report", "maintain", "retention"), "trust"),
    "ui": "ui",
    "migrate": "migrate",
}

_GLOBAL_VALUED = ("--db", "--space", "--now")

# Commands that may add records, and so may create the database (the MCP server serves
# memory_remember: an agent's first session starts on no database at all).
CREATES = frozenset({"remember", "import", "apply", "ingest", "learn", "mcp"})
# Commands a running `cairn mcp` may answer for this process (cli/warm.py): they only read
# (a recall may add its trace), take no file or standard input, and print no path.
WARM_COMMANDS = frozenset({"recall", "search", "explain", "show", "list", "history", "timeline", "trace"})
# Commands that only read (recall and search may add a trace to an existing database).
READS = frozenset({"show", "list", "history", "export", "status", "recall", "search", "explain", "timeline", "candidates"})


class _Parser(argparse.ArgumentParser):
    """argparse with two changes: under ``--json`` a usage error (exit 2) also prints
    ``{"error": {"code": "usage", "message"}}`` on stdout, as every other error does; and
    its help formatter reads the terminal's width when it first lays out text
    (:func:`_deferred`), not each time one is made."""

    json_errors = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["formatter_class"] = _deferred(kwargs.get("formatter_class", argparse.HelpFormatter))
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        if _Parser.json_errors:
            print(json.dumps({"error": {"code": "usage", "message": f"{self.prog}: {message}"}}, ensure_ascii=False))
        super().error(message)


@functools.cache
def _deferred(base: type[argparse.HelpFormatter]) -> type[argparse.HelpFormatter]:
    """``base`` with the terminal's width read when the formatter first lays out text.

    argparse makes a formatter for every ``add_argument`` (to check a metavar against
    nargs) and the stock one asks the terminal for its width as it is made, importing
    ``shutil`` (and with it ``bz2``, ``lzma`` and ``zlib``) on the way: about 2 ms of every
    command's start-up, for help that is rarely printed. The width is the one the stock
    formatter reads (``shutil.get_terminal_size()``, less 2), read at most once a formatter."""

    class Deferred(base):  # type: ignore[valid-type,misc]  # a subclass of the class given
        def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                     width: int | None = None, **more: Any) -> None:
            self._given = [width, max_help_position]
            # A placeholder width keeps the base class from asking; the properties answer.
            super().__init__(prog, indent_increment, max_help_position, 0 if width is None else width, **more)

        @property
        def _width(self) -> int:
            width = self._given[0]
            if width is None:
                import shutil

                width = self._given[0] = shutil.get_terminal_size().columns - 2
            return width

        @_width.setter
        def _width(self, value: int) -> None:
            pass  # the base class's assignment of the placeholder: the getter reads the width

        @property
        def _max_help_position(self) -> int:
            return min(self._given[1], max(self._width - 20, self._indent_increment * 2))

        @_max_help_position.setter
        def _max_help_position(self, value: int) -> None:
            pass  # as for _width: derived from the width when read

    return Deferred


def group(name: str) -> ModuleType:
    """The command group module ``name`` (imported on first use)."""
    return importlib.import_module(f"{__name__}.{name}")


def build_parser(command: str | None = None, parser_class: type[_Parser] | None = None) -> argparse.ArgumentParser:
    """The parser: every group, or only the group that routes ``command``."""
    parser = (parser_class or _Parser)(
        prog="cairn",
        description="Cairn: long-term memory for AI agents, with evidence, time and corrections.",
        epilog="Run `cairn COMMAND --help` for a command's options.",
    )
    # The resolved default path is shown only where this parser's own help can be printed
    # (no command on the line: `cairn --help`); a command's help has its own --db line.
    shown = _default_shown() if command is None else "the data folder"
    parser.add_argument("--db", help=f"database file (default: $CAIRN_DB, else {shown})")
    parser.add_argument("--space", default=os.environ.get("CAIRN_SPACE", "default"), help="isolation space (default: default)")
    parser.add_argument("--now", help="fix the clock to this ISO-8601 time")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object on stdout")
    parser.add_argument("--version", action=_Version, help="print the version and exit")
    # prog given: argparse would lay out the usage up to here to make it, reading the
    # terminal's width for that ("cairn": no positional argument comes before the command).
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True, prog=parser.prog)
    for name in _groups_for(command):
        module = group(name)
        if command is not None and ROUTES.get(command) == name and hasattr(module, "register_one"):
            # The command's own parser only: its siblings' would be built and never used
            # (a third of a recall's parser building, and argparse lists no choices here).
            module.register_one(sub, command)
        else:
            module.register(sub)
    return parser


def _groups_for(command: str | None) -> tuple[str, ...]:
    if command is None or command not in ROUTES:
        return GROUPS
    routed = set(ROUTES.values())
    return tuple(name for name in GROUPS if name == ROUTES[command] or name not in routed)


def command_in(argv: list[str]) -> str | None:
    """The command word of ``argv`` (the first word that is not a global option or its
    value), or None when there is none or help is asked for before it."""
    skip = False
    for word in argv:
        if skip:
            skip = False
            continue
        if word in ("-h", "--help"):
            return None
        if word in _GLOBAL_VALUED:
            skip = True
            continue
        if word.startswith("-"):
            continue
        return word
    return None


class _Version(argparse.Action):
    """``--version``, reading the installed version only when asked (start-up stays lean)."""

    def __init__(self, option_strings, dest, **kwargs) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            found = version("cairn-memory")  # the distribution's name (pyproject.toml)
        except PackageNotFoundError:
            found = "unknown (not installed)"
        print(f"cairn {found}")
        parser.exit()


def _default_shown() -> str:
    from ..engine.paths import default_db_path

    try:
        return str(default_db_path())
    except CairnError:
        return "the data folder"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    command = command_in(argv)
    if command in WARM_COMMANDS:
        from .warm import ask  # a running `cairn mcp` may answer it: no engine imported here

        try:
            answered = ask(argv)
        except KeyboardInterrupt:  # waiting for the server: as interrupted as any command
            return _write(*rendered(argparse.Namespace(json="--json" in argv), None, _Interrupted()))
        if answered is not None:
            return _write(*answered)
    parser = build_parser(command)
    _Parser.json_errors = "--json" in argv
    args = parser.parse_args(argv)
    if _collecting_after_start:
        # The command's group is imported (run() paused the collector for it): what the
        # command itself builds is collected as usual, however long it runs. What the
        # imports built is frozen first (moved out of the collector's generations): it lives
        # as long as the process, and while the collector was paused all of it piled up in
        # the youngest generation, which the first collection after the pause would walk
        # whole (about 3 ms of a recall process, to free a few hundred objects).
        gc.freeze()
        gc.enable()
        _resumed()
    try:
        output, error = execute(args)
    except BrokenPipeError:
        return _quiet_pipe()
    return _write(*rendered(args, output, error))


def execute(args: argparse.Namespace) -> tuple[Output | None, CairnError | None]:
    """Run a parsed command: its output, or the error to report (a database the refused
    command created is removed first). Prints nothing, except what a handler streams
    itself (``export``): a closed pipe there raises :class:`BrokenPipeError`."""
    fresh: list[str] = []  # the database a refused command opened, removed if it created it
    try:
        try:
            _check_arguments(args)
            if args.needs_db:
                with _open(args) as cairn:
                    try:
                        output: Output = args.handler(cairn, args)
                    except BaseException:
                        fresh.append(cairn.path)
                        raise
                    skipped = cairn.skipped_rows
                if skipped:
                    output.stderr.append(f"cairn: skipped {skipped} malformed stored rows (listed by `cairn status`)")
            else:
                output = args.handler(None, args)
        except (UnicodeError, RecursionError, OverflowError) as err:
            # Only a caller's input reaches these: text that is not UTF-8 (lone surrogates),
            # JSON nested beyond Python's stack, numbers beyond what SQLite or dates hold.
            raise _input_error(err) from None
    except BrokenPipeError:
        raise
    except CairnError as err:
        _discard(fresh, args)
        return None, err
    except KeyboardInterrupt:
        _discard(fresh, args)
        return None, _Interrupted()
    except Exception as err:  # noqa: BLE001 - one line, never a traceback, for users
        _discard(fresh, args)
        if os.environ.get("CAIRN_DEBUG"):
            raise
        return None, _Internal(err)
    return output, None


def rendered(args: argparse.Namespace, output: Output | None, error: CairnError | None) -> tuple[int, str, str]:
    """What the command prints: (exit status, standard output, standard error). An error
    is one line on stderr (and, under ``--json``, ``{"error": {"code", "message"}}``)."""
    if error is not None or output is None:
        err = error if error is not None else _Internal(RuntimeError("no output"))
        message = " ".join(str(err).split())
        if len(message) > 400:
            message = message[:400] + "…"
        doc: dict[str, Any] = {"error": {"code": err.error_code, "message": message}}
        out = json.dumps(doc, ensure_ascii=False) + "\n" if getattr(args, "json", False) else ""
        return 1, out, f"cairn: {message}\n"
    err_text = "".join(line + "\n" for line in output.stderr)
    if args.json:
        out = json.dumps(output.doc, ensure_ascii=False, sort_keys=False) + "\n"
    else:
        out = output.text + "\n" if output.text else ""
    return output.exit_code, out, err_text


def _write(code: int, out: str, err: str) -> int:
    """Print a command's outcome: stderr first, then stdout; a closed pipe ends quietly."""
    try:
        if err:
            sys.stderr.write(err)
            sys.stderr.flush()
        if out:
            sys.stdout.write(out)
        sys.stdout.flush()
    except BrokenPipeError:
        return _quiet_pipe()
    return code


def _open(args) -> Cairn:
    """The engine for this command, on a database it is allowed to touch (module docstring)."""
    from ..engine import Cairn, default_db_path
    from ..engine.scope import is_database_url

    if args.db is not None and not args.db.strip():
        raise InvalidInput("--db", "empty; give a database path")
    creates = args.command in CREATES or getattr(args, "creates_db", False)  # a group's creating subcommand
    url = args.db if args.db is not None else os.environ.get("CAIRN_DB")
    if is_database_url(url):  # a PostgreSQL database: no file or folder to check
        return Cairn(url, space=args.space, now=args.now, create=creates)
    path = Path(args.db) if args.db is not None else default_db_path()
    if creates and not path.exists():
        if args.db is not None and not path.parent.is_dir():
            raise StoreUnavailable(str(path), f"the folder {path.parent} does not exist; create it first")
        args.created = True
    return Cairn(path, space=args.space, now=args.now, create=creates)


def _discard(opened: list[str], args: argparse.Namespace) -> None:
    """Remove the database this refused command created, if it is still empty."""
    if opened and getattr(args, "created", False):
        from ..engine.scope import discard_new_store

        discard_new_store(opened[0])


def _check_arguments(args: argparse.Namespace) -> None:
    """Refuse command-line text that is not UTF-8 before anything is opened: the shell
    hands such bytes to Python as lone surrogates, which nothing can store."""
    for name, value in vars(args).items():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str):
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError:
                    raise InvalidInput(name.replace("_", "-"), "not valid UTF-8 text") from None


def _input_error(err: BaseException) -> InvalidInput:
    if isinstance(err, UnicodeError):
        return InvalidInput("text", "not valid UTF-8 (a lone surrogate or undecodable bytes)")
    if isinstance(err, RecursionError):
        return InvalidInput("input", "nested too deeply")
    return InvalidInput("number", "too large (a count, a size or a date beyond what Cairn holds)")


class _Interrupted(CairnError):
    error_code = "interrupted"

    def __init__(self) -> None:
        super().__init__("interrupted; nothing was written by the unfinished operation")


class _Internal(CairnError):
    error_code = "internal"

    def __init__(self, err: Exception) -> None:
        super().__init__(f"internal error: {type(err).__name__}: {str(err)[:200]} (set CAIRN_DEBUG=1 for a traceback)")


def _quiet_pipe() -> int:
    """The reader closed our output (``| head``): stop quietly, as Unix tools do."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except OSError:
        pass
    return 0


# Set by run() while the garbage collector is paused for start-up, for main() to resume it.
_collecting_after_start = False


def _resumed() -> None:
    """The collector is back on: a later main() in this process (a test's) leaves it be."""
    global _collecting_after_start
    _collecting_after_start = False


def run(*, paused: bool = False) -> None:
    """The ``cairn`` executable (and ``python -m cairn``). ``paused``: the caller paused
    the garbage collector for its own imports (``cairn.__main__``), to be resumed here as
    if this function had paused it."""
    global _collecting_after_start
    _collecting_after_start = paused
    # Importing a command's modules allocates tens of thousands of objects that live as
    # long as the process (classes, functions, constants), and the collector would walk
    # them several times over for nothing: about a twentieth of a short command's time
    # (docs/benchmarks.md, "Process start-up"). main() resumes it once the command's group
    # is imported, before the command runs.
    if gc.isenabled():
        gc.disable()
        _collecting_after_start = True
    code = main()
    # What is left is about to go with the process (files and the database are closed by
    # their `with` blocks, the output flushed): spare the interpreter its last full garbage
    # collection of everything the imports built, about a tenth of a short command's CPU
    # (docs/benchmarks.md, "Process start-up").
    gc.freeze()
    sys.exit(code)
