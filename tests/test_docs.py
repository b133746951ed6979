"""The docs name only what exists: repository paths, link anchors, modules, `banco` commands and flags,
`python3 dev.py` tasks. Reads README.md and docs/*.md as text; builds the real `banco` parser."""

from __future__ import annotations

import argparse
import ast
import functools
import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# History pages name what was removed or renamed since, on purpose; they are not checked.
HISTORY = {"CHANGELOG.md", "benchmarks-history.md"}
DOCS = [
    ROOT / "README.md",
    ROOT / "data" / "samples" / "README.md",
    *(p for p in sorted((ROOT / "docs").glob("*.md")) if p.name not in HISTORY),
]

# Paths that exist only once something has run or someone has configured it (all ignored by git): logs
# landing, the warehouse's files, filed reports, `banco cluster up`'s servers, benchmark results, the
# browser test's screenshots, and the sign-in secrets an operator writes. A doc may name them, or
# files in them, without the repository holding them.
CREATED_AT_RUN_TIME = (
    "data/landing/",
    "data/warehouse/",
    "data/reports/",
    "data/cluster/",
    "benchmarks/results/",
    "tests/artifacts/",
    ".streamlit/secrets.toml",
)

TOP = ("models", "pipelines", "dashboards", "benchmarks", "tests", "docs", "data", "deploy", ".ci", ".streamlit")
# A path from the repository's root: not inside a URL or an absolute path, ending before punctuation.
PATH = re.compile(r"(?<![\w./:-])((?:" + "|".join(map(re.escape, TOP)) + r")/[\w./*-]*)")
# A Markdown file named by itself, as in "(see warehouse.md)": beside the doc or at the root.
MD_NAME = re.compile(r"(?<![\w./-])([\w-]+\.md)\b")
# A Python file named by itself, as in "`app.py` (navigation)": some module of the repository.
PY_NAME = re.compile(r"(?<![\w./-])([\w-]+\.py)\b")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
# A module named by its dotted path, possibly with one name in it: `models.metrics.roads.ask` (not a
# file such as benchmarks.md).
MODULE = re.compile(r"(?<![\w.])((?:models|pipelines|dashboards|benchmarks)(?:\.\w+)+)(?!\w|\.\w)")
FILE_SUFFIX = re.compile(r"\.(md|py|json|toml|ya?ml|svg|csv|txt|duckdb|db)$")
# These words in capitals stand for any name, as in `benchmarks/bench_NAME.py`.
PLACEHOLDER = re.compile(r"(?<![A-Z])(?:NAME|FILE|PATH)(?![A-Z])")
FENCE = re.compile(r"^\s*(```|~~~)")
SPAN = re.compile(r"`([^`\n]+)`")


def _split(text: str) -> tuple[str, list[str]]:
    """The doc's prose (fenced blocks blanked) and its fenced lines, continuation lines joined."""
    prose, code, fenced = [], [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            prose.append("")
        elif fenced:
            if code and code[-1].endswith("\\"):
                code[-1] = code[-1][:-1] + " " + line
            else:
                code.append(line)
            prose.append("")
        else:
            prose.append(line)
    return "\n".join(prose), code


def _exists(path: str) -> bool:
    path = PLACEHOLDER.sub("*", path.rstrip("."))
    if any(path.startswith(prefix) or path + "/" == prefix for prefix in CREATED_AT_RUN_TIME):
        return True
    if any(c in path for c in "*?"):
        return any(ROOT.glob(path))
    return (ROOT / path).exists()


@functools.cache
def python_files() -> frozenset[str]:
    """The names of the repository's Python files (not under data/, which may hold a large warehouse)."""
    return frozenset(p.name for top in TOP if top != "data" for p in (ROOT / top).rglob("*.py")) | {"dev.py"}


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text lower-cased, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link reads as its text
    text = text.replace("`", "").replace("*", "").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


@functools.cache
def anchors(doc: Path) -> frozenset[str]:
    """Every heading's anchor in a Markdown file, repeats numbered as GitHub numbers them."""
    prose, _ = _split(doc.read_text())
    seen: dict[str, int] = {}
    out = set()
    for match in re.finditer(r"^#{1,6}\s+(.+?)\s*#*\s*$", prose, flags=re.MULTILINE):
        base = slug(match.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        out.add(base if count == 0 else f"{base}-{count}")
    return frozenset(out)


def _defined(module: Path, name: str) -> bool:
    tree = ast.parse(module.read_text())
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return True
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return True
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any(
            (a.asname or a.name.split(".")[0]) == name for a in node.names
        ):
            return True
    return False


def _module_missing(dotted: str) -> bool:
    """Whether a dotted name is no module of the repository, nor a name defined in one."""
    if PLACEHOLDER.search(dotted):
        return not _exists(dotted.replace(".", "/") + ".py")
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        base = ROOT.joinpath(*parts[:cut])
        rest = parts[cut:]
        for module in (base.with_suffix(".py"), base / "__init__.py"):
            if module.exists():
                if not rest:
                    return False
                return len(rest) > 1 or not _defined(module, rest[0])
    return True


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_named_paths_and_modules_exist(doc: Path) -> None:
    text = doc.read_text()
    missing = {p for p in PATH.findall(text) if not _exists(p)}
    missing |= {m for m in MD_NAME.findall(text) if not (doc.parent / m).exists() and not (ROOT / m).exists()}
    missing |= {m for m in PY_NAME.findall(text) if m not in python_files()}
    missing |= {m for m in MODULE.findall(text) if not FILE_SUFFIX.search(m) and _module_missing(m)}
    assert not missing, f"{doc.name} names what the repository does not hold: {sorted(missing)}"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_links_and_anchors_resolve(doc: Path) -> None:
    prose, _ = _split(doc.read_text())
    broken = []
    for target in LINK.findall(prose):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto: ...
            continue
        path, _, anchor = target.partition("#")
        file = (doc.parent / path).resolve() if path else doc
        if not file.exists() or (anchor and file.suffix == ".md" and anchor not in anchors(file)):
            broken.append(target)
    assert not broken, f"{doc.name} links to what does not exist: {broken}"


@functools.cache
def banco() -> argparse.ArgumentParser:
    from models.settings import DEFAULTS
    from pipelines.cli import build_parser

    return build_parser(DEFAULTS)


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _flags(parser: argparse.ArgumentParser) -> set[str]:
    """The long options a parser takes, with those of its sub-commands (`banco users --role`)."""
    own = {s for action in parser._actions for s in action.option_strings}
    return own.union(*(_flags(child) for child in _subparsers(parser).values()))


def _tokens(command: str, shell: bool) -> list[str]:
    """A command's words; in a shell line also `|`, `&&`, `;` as words of their own, and no comment."""
    try:
        if not shell:
            return shlex.split(command)
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        return list(lexer)
    except ValueError:  # a quote left open in a span of prose
        return command.split()


def _banco_problems(tokens: list[str]) -> list[str]:
    """What is wrong in each `banco ...` of a command's tokens: an unknown command, a flag it refuses."""
    problems = []
    for i, token in enumerate(tokens):
        if token != "banco" and not token.endswith("/banco"):
            continue
        words = []
        for word in tokens[i + 1 :]:
            if word and set(word) <= set("|&;<>"):  # the end of this command in a shell line
                break
            words.append(word.strip("[](),."))
        if not words or not re.fullmatch(r"[a-z][a-z-]*", words[0]):
            continue  # `banco` named alone, or followed by a placeholder such as COMMAND
        parser, path = banco(), ["banco"]
        for word in words:
            if word.startswith("-"):
                break
            children = _subparsers(parser)
            if not children:
                break
            if word not in children:
                problems.append(f"{' '.join(path)} has no command {word!r}")
                break
            parser, path = children[word], [*path, word]
        accepted = _flags(parser)
        for word in words:
            flag = word.split("=", 1)[0]
            if flag.startswith("--") and len(flag) > 2 and flag not in accepted:
                problems.append(f"{' '.join(path)} takes no {flag}")
    return problems


@functools.cache
def dev_tasks() -> frozenset[str]:
    """The words `python3 dev.py` answers to: the string constants of its `main`."""
    tree = ast.parse((ROOT / "dev.py").read_text())
    main = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "main")
    return frozenset(n.value for n in ast.walk(main) if isinstance(n, ast.Constant) and isinstance(n.value, str))


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_named_commands_exist(doc: Path) -> None:
    prose, code = _split(doc.read_text())
    commands = [(span, False) for span in SPAN.findall(prose)] + [(line, True) for line in code]
    problems = []
    for command, shell in commands:
        if "banco" in command:
            problems += _banco_problems(_tokens(command, shell))
        for task in re.findall(r"\bdev\.py\s+([a-z][\w-]*)", command):
            if task not in dev_tasks():
                problems.append(f"dev.py has no task {task!r}")
    assert not problems, f"{doc.name}: {sorted(set(problems))}"
