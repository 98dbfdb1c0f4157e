"""Every example in README.md and docs/*.md runs as pasted (the project's rule), from the repository root.

The pages are README.md and every ``docs/*.md`` (not ``docs/_pending/``: other branches' drafts, folded into the
pages before they are run). What is said below of "the README" holds for each page.

``sh`` blocks: each command line, without its trailing ``# comment``, runs with ``bash -c``. The lines of one
block run in order in one temporary directory made for that block, holding a symlink to every top-level entry of
the repository: paths such as ``grammars/examples/tools.json`` or ``tests/data/templates/...`` resolve as from the
repository root, while a file a command writes (``-o hermes.gbnf``) lands in the temporary directory, never in the
checkout (each line also checks that nothing new appeared under ``grammars/`` or ``tests/data/``). A line must
exit 0, or the status its comment names as ``# exit N``. Not run: lines that install packages (``pip install``),
lines that start the long-running server (``toolgram serve``: its arguments are still checked against the CLI's
parser, and the python client block runs against a server this test starts), and ``bash scripts/test.sh`` (the
test suite itself, which would run this file again).

``python`` blocks: executed in page order in one namespace per page (a page's first block defines ``tools``), each
block one test, with the repository layout as working directory. A block whose earlier blocks were not run
(``-k``, or a deselected model block) first runs the earlier ones that need no model. The OpenAI client block uses
``http://127.0.0.1:8000/v1``; this test starts ``toolgram serve --port 0`` (a free port on 127.0.0.1) and rewrites
that URL in the block to the one the server prints, so a busy port 8000 never matters.

``yaml`` blocks (GitHub Actions, pre-commit) are not run: their ``toolgram`` commands must parse with the CLI's
own argument parser, and the extras they install must exist.

Lines and blocks that load the SmolLM2 model (``toolgram generate``, ``toolgram validate`` of a manifest or of an
EBNF/structural-tag grammar, which load it in OpenVINO; ``Generator``, the server, the OpenVINO adapters) are
marked ``model`` and, together well over 30 s on 2 cores, ``slow``: the default run takes a few seconds.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from serving import ServeProcess

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def doc_pages(root: Path = ROOT) -> list[Path]:
    """README.md, then docs/*.md in name order. Subfolders are not pages: docs/_pending/<branch>.md holds other
    branches' drafts, which the coordinator folds into the pages (and so into this test)."""
    docs = root / "docs"
    return [root / "README.md", *sorted(p for p in docs.glob("*.md") if p.parent == docs)]


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()
GUARDED = [ROOT / "grammars", ROOT / "tests" / "data"]  # README commands read these and must not write there
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONUNBUFFERED": "1"}
README_URL = "http://127.0.0.1:8000/v1"
# the installed command, as the README runs it (`python -m` would put the working directory first on sys.path)
TOOLGRAM = [shutil.which("toolgram") or "toolgram"]


@dataclass
class Block:
    page: str  # README.md or docs/NAME.md
    lang: str
    line: int  # 1-based line of the opening fence
    lines: list[tuple[int, str]] = field(default_factory=list)  # (1-based line number, text)

    @property
    def source(self) -> str:
        return "\n".join(text for _, text in self.lines) + "\n"


def page_blocks(path: Path) -> list[Block]:
    blocks: list[Block] = []
    current: Block | None = None
    page = rel(path)
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        fence = re.match(r"^```(\S*)\s*$", text)
        if current is None:
            if fence:
                current = Block(page, fence.group(1), number)
        elif fence and not fence.group(1):
            blocks.append(current)
            current = None
        else:
            current.lines.append((number, text))
    assert current is None, f"{page}: unclosed code block at line {current.line}"
    return blocks


PAGES = doc_pages()
BLOCKS = [b for page in PAGES for b in page_blocks(page)]


def split_comment(line: str) -> tuple[str, str]:
    """``cmd  # comment`` -> (``cmd``, ``comment``): a ``#`` starting a word outside quotes opens the comment."""
    quote = ""
    escaped = False
    for i, ch in enumerate(line):
        if escaped:
            escaped = False
        elif ch == "\\" and quote != "'":
            escaped = True
        elif quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip(), line[i + 1:].strip()
    return line.rstrip(), ""


@dataclass
class Command:
    block: int  # index in BLOCKS
    page: str
    line: int
    command: str
    expect: int
    skip: str = ""  # why it is not run


def uses_model(command: str) -> bool:
    """SmolLM2 gets loaded: generation (also the benchmarks that generate), or a validate that reaches OpenVINO
    (manifests, EBNF, structural tags)."""
    if re.search(r"\btoolgram (generate|serve)\b", command):
        return True
    if re.search(r"\bbenchmarks/bench_(bfcl|generate|serve|llamacpp|memory|ov_compile)\.py\b", command):
        return True
    if re.search(r"\btoolgram validate\b", command):
        dialect = re.search(r"--dialect\s+(\S+)", command)
        return dialect is None or dialect.group(1) not in ("gbnf", "lark")
    return False


def sh_commands() -> list[Command]:
    commands = []
    for index, block in enumerate(BLOCKS):
        if block.lang not in ("sh", "bash", "shell", "console"):
            continue
        lines: list[tuple[int, str]] = []  # a line ending in a backslash continues on the next
        for number, text in block.lines:
            if lines and lines[-1][1].endswith("\\"):
                lines[-1] = (lines[-1][0], lines[-1][1][:-1].rstrip() + " " + text.strip())
            else:
                lines.append((number, text))
        for number, text in lines:
            command, comment = split_comment(text)
            if not command.strip():
                continue
            code = re.match(r"exit (\d+)\b", comment)
            skip = ""
            if re.search(r"\bpip install\b", command):
                skip = "installs packages"
            elif re.search(r"\btoolgram serve\b", command):
                skip = "starts a long-running server (its arguments are checked; the client block runs against one)"
            elif re.search(r"\bscripts/test\.sh\b", command):
                skip = "runs the whole test suite, this file included"
            elif re.search(r"\bvllm serve\b", command):
                skip = "needs vLLM's engine on a GPU (tests/test_vllm_plugin.py drives the plugin's hooks)"
            elif re.search(r"\bscripts/vllm_env\.sh\b|\.venv-vllm/", command):
                skip = "builds or uses the vLLM test venv (.ci/run's vLLM step)"
            elif re.search(r"\bscripts/sglang_env\.sh\b|\.venv-sglang/", command):
                skip = "builds or uses the SGLang test venv (.ci/run's SGLang step)"
            commands.append(Command(index, block.page, number, command, int(code.group(1)) if code else 0, skip))
    return commands


SH = sh_commands()
PY = [i for i, b in enumerate(BLOCKS) if b.lang == "python"]


def test_readme_has_examples() -> None:
    langs = [b.lang for b in BLOCKS if b.page == "README.md"]
    assert langs.count("python") >= 5 and langs.count("sh") >= 4, langs
    assert len([c for c in SH if not c.skip]) >= 15, [b.lang for b in BLOCKS]
    pages = {b.page for b in BLOCKS}
    assert {"docs/engines.md", "docs/parsing.md", "docs/validation.md"} <= pages, sorted(pages)


def test_pending_drafts_are_not_pages(tmp_path: Path) -> None:
    """docs/_pending/<branch>.md drafts are never collected, while a new docs/*.md page is."""
    docs = tmp_path / "docs"
    (docs / "_pending").mkdir(parents=True)
    (tmp_path / "README.md").write_text("# r\n", encoding="utf-8")
    (docs / "page.md").write_text("# p\n", encoding="utf-8")
    (docs / "_pending" / "branch.md").write_text("```sh\nfalse\n```\n", encoding="utf-8")
    pages = [p.relative_to(tmp_path).as_posix() for p in doc_pages(tmp_path)]
    assert pages == ["README.md", "docs/page.md"]


def repo_view(path: Path) -> Path:
    """A directory that looks like the repository root (symlinks to its top-level entries) but is not it."""
    path.mkdir(parents=True, exist_ok=True)
    for entry in ROOT.iterdir():
        if entry.name != ".git" and not (path / entry.name).exists():
            (path / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    return path


def tree() -> set[Path]:
    return {p for root in GUARDED for p in root.rglob("*") if "__pycache__" not in p.parts}


@dataclass
class Workdir:
    path: Path
    done: set[int] = field(default_factory=set)  # page lines already run there


@pytest.fixture(scope="module")
def workdirs() -> dict[int, Workdir]:
    """One repository view per sh block, made when the block's first line runs."""
    return {}


def check_cli_args(command: str) -> None:
    """``toolgram ...`` parses with the CLI's own parser (argparse exits 2 on an unknown command or flag)."""
    from toolgram.cli import build_parser

    argv = shlex.split(command)
    assert argv[0] == "toolgram", command
    try:
        build_parser().parse_args(argv[1:])
    except SystemExit as exc:
        pytest.fail(f"`{command}` does not parse as a toolgram command (argparse exit {exc.code})")


def check_extras(command: str, line: str) -> None:
    """``toolgram[a,b]`` and ``-e ".[a,b]"`` name extras that pyproject.toml defines."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    for wanted in re.findall(r"(?:\btoolgram|\.)\[([^\]]*)\]", command):
        unknown = {e.strip() for e in wanted.split(",")} - set(extras)
        assert not unknown, f"{line}: no extras {sorted(unknown)} in pyproject.toml"


def sh_param(c: Command) -> Any:
    marks = [pytest.mark.model, pytest.mark.slow] if uses_model(c.command) and not c.skip else []
    return pytest.param(c, id=f"{c.page}:L{c.line}", marks=marks)


@pytest.mark.parametrize("cmd", [sh_param(c) for c in SH])
def test_sh_line(cmd: Command, workdirs: dict[int, Workdir], tmp_path_factory: pytest.TempPathFactory) -> None:
    if cmd.skip:  # not run, but what can be checked without running it is
        if re.match(r"\s*toolgram\s", cmd.command):
            check_cli_args(cmd.command)
        check_extras(cmd.command, f"{cmd.page}:{cmd.line}")
        for script in re.findall(r"\bbash (\S+)", cmd.command):
            assert (ROOT / script).is_file(), f"{cmd.page}:{cmd.line}: no {script}"
        return
    if uses_model(cmd.command):
        pytest.importorskip("openvino_genai")
        from toolgram.runtime.models import ModelUnavailable, smollm2_gguf_path

        try:
            smollm2_gguf_path()
        except ModelUnavailable as e:
            pytest.skip(str(e))
    if cmd.block not in workdirs:
        workdirs[cmd.block] = Workdir(repo_view(tmp_path_factory.mktemp(f"readme_block_{cmd.block}")))
    workdir = workdirs[cmd.block]
    # earlier lines of the block that were not run (deselected, -k) may write files this one reads
    for earlier in SH:
        if earlier.block == cmd.block and earlier.line < cmd.line and earlier.line not in workdir.done \
                and not earlier.skip and not uses_model(earlier.command):
            run_line(earlier, workdir)
    run_line(cmd, workdir)


def run_line(cmd: Command, workdir: Workdir) -> None:
    before = tree()
    proc = subprocess.run(["bash", "-c", cmd.command], cwd=workdir.path, env=ENV, capture_output=True,
                          text=True, timeout=600, stdin=subprocess.DEVNULL)
    workdir.done.add(cmd.line)
    assert proc.returncode == cmd.expect, (
        f"{cmd.page}:{cmd.line}: `{cmd.command}` exited {proc.returncode}, expected {cmd.expect}\n"
        f"stdout: {proc.stdout[-2000:]}\nstderr: {proc.stderr[-2000:]}")
    if cmd.expect == 0 and not re.search(r"\s-o\s", cmd.command):
        assert proc.stdout.strip(), f"{cmd.page}:{cmd.line}: `{cmd.command}` printed nothing"
    created = tree() - before
    assert not created, f"{cmd.page}:{cmd.line} wrote into the checkout: {sorted(map(str, created))}"


# ---------------------------------------------------------------- python blocks


def py_uses_model(source: str) -> bool:
    return bool(re.search(r"\bGenerator\(|openvino_genai|\bOpenAI\(", source))


class Server(ServeProcess):
    """``toolgram serve`` as the README's command runs it (the installed ``toolgram`` script)."""

    def __init__(self) -> None:
        super().__init__(TOOLGRAM)


@dataclass
class Session:
    """The python blocks run so far: one namespace per page, one server for every page's client blocks."""

    cwd: Path = ROOT
    namespaces: dict[str, dict[str, Any]] = field(default_factory=dict)
    done: set[int] = field(default_factory=set)
    server: Server | None = None

    def namespace(self, page: str) -> dict[str, Any]:
        return self.namespaces.setdefault(page, {"__name__": "__readme__"})


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    s = Session(cwd=repo_view(tmp_path_factory.mktemp("readme_python")))
    yield s
    s.namespaces.clear()
    if s.server is not None:
        s.server.stop()


def run_block(session: Session, index: int) -> None:
    block = BLOCKS[index]
    source = block.source
    if "OpenAI(" in source:
        assert README_URL in source, f"{block.page}:{block.line}: the client block no longer uses {README_URL}"
        if session.server is None:
            session.server = Server()
        source = source.replace(README_URL, session.server.url)
    code = compile("\n" * block.line + source, f"{block.page} (block at line {block.line})", "exec")
    exec(code, session.namespace(block.page))
    session.done.add(index)


def check_block(session: Session, index: int) -> None:
    """What each block's comments promise, beyond running."""
    ns = session.namespace(BLOCKS[index].page)
    source = BLOCKS[index].source
    if "bundle = toolgram.compile" in source:
        assert ns["bundle"].grammar and ns["bundle"].to_json()["grammar"] == ns["bundle"].grammar
    if "gen.chat(" in source:
        assert ns["out"]["message"]["tool_calls"], ns["out"]
    if "client.chat.completions.create" in source:
        assert ns["r"].choices[0].message.tool_calls, ns["r"]
    if "config.parsers = [parser]" in source:
        result, toolgram = ns["result"], ns["toolgram"]
        assert result.parsed[0]["tool_calls"], result.texts
        assert result.parsed[0] == toolgram.parse("hermes", result.texts[0], ns["tools"])
    if "inc = parser_for(" in source:
        assert ns["inc"].message["tool_calls"]
    if "toolgram.parse(" in source and "msg" in ns:
        assert ns["msg"]["tool_calls"], ns["msg"]


def py_param(index: int) -> Any:
    block = BLOCKS[index]
    marks = [pytest.mark.model, pytest.mark.slow] if py_uses_model(block.source) else []
    return pytest.param(index, id=f"{block.page}:L{block.line}", marks=marks)


@pytest.mark.parametrize("index", [py_param(i) for i in PY])
def test_python_block(index: int, session: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    page = BLOCKS[index].page
    source = BLOCKS[index].source
    if py_uses_model(source):
        pytest.importorskip("openvino_genai")
        from toolgram.runtime.models import ModelUnavailable, smollm2_gguf_path

        try:
            smollm2_gguf_path()
        except ModelUnavailable as e:
            pytest.skip(str(e))
    if "OpenAI(" in source:
        for module in ("openai", "fastapi", "uvicorn"):
            pytest.importorskip(module)
    monkeypatch.chdir(session.cwd)
    for earlier in PY[: PY.index(index)]:
        if BLOCKS[earlier].page == page and earlier not in session.done and not py_uses_model(BLOCKS[earlier].source):
            run_block(session, earlier)
    run_block(session, index)
    check_block(session, index)


# ---------------------------------------------------------------- yaml blocks (not run)


YAML = [b for b in BLOCKS if b.lang in ("yaml", "yml")]


@pytest.mark.parametrize("block", [pytest.param(b, id=f"{b.page}:L{b.line}") for b in YAML])
def test_yaml_commands_exist(block: Block) -> None:
    commands = []
    for number, text in block.lines:
        found = re.match(r"^\s*(?:(?:run|entry):\s*)?((?:toolgram|pip install)\s.*)$", text)
        if found:  # a command line of a `run: |` script, or a pre-commit `entry:`
            command, _ = split_comment(found.group(1))
            commands.append(command)
            if command.startswith("toolgram"):
                check_cli_args(command)
            check_extras(command, f"{block.page}:{number}")
    assert any(c.startswith("toolgram ") for c in commands), f"{block.page}:{block.line}: no toolgram command found"
