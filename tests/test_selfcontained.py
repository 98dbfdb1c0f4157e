"""The test suite needs nothing outside the repository (issue 12, "What to build" 4).

- no test refers to the ``shared/`` folder beside the checkout (a user who clones the repository has none);
- the vendored files in ``tests/data`` are the byte-exact copies ``tests/data/SOURCES.md`` describes;
- a copy of the repository's files in a fresh temporary folder passes tests that read the vendored
  templates and renders, with no skip for a missing file.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
DATA = TESTS / "data"

#: references to the folder beside the checkout (split so that this file does not match itself)
OUTSIDE = re.compile("|".join([r"\.\./" + "shared", "shared" + "/upstream", r"""["']shared["']\s*\)?\s*/"""]))

#: fast tests that read tests/data (templates, reference renders, conversation.json), run from the copy
IN_COPY = ["test_runtime_detect.py", "test_compile_renderings.py::test_extraction_matches_reference"]


def _test_sources() -> list[Path]:
    return [p for p in TESTS.rglob("*.py") if DATA not in p.parents]


def test_no_test_refers_to_the_shared_folder() -> None:
    offenders = [f"{p.relative_to(ROOT)}:{i}: {line.strip()}"
                 for p in _test_sources()
                 for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if OUTSIDE.search(line)]
    assert not offenders, "tests must read tests/data, not the shared folder:\n" + "\n".join(offenders)
    q = '"'
    assert OUTSIDE.search(f"UPSTREAM = Path(__file__).resolve().parents[2] / {q}shared{q} / {q}upstream{q}")
    assert OUTSIDE.search("see ../" + "shared/SPEC.md")


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_vendored_files_match_their_sums() -> None:
    listed = {}
    for line in (DATA / "SHA256SUMS").read_text(encoding="utf-8").splitlines():
        digest, name = line.split(maxsplit=1)
        listed[name] = digest
    folders = ("templates", "json-schema-test-suite", "real-world-schemas", "pydantic-schemas")
    present = {p.relative_to(DATA).as_posix() for folder in folders for p in (DATA / folder).rglob("*") if p.is_file()}
    assert present == set(listed), "tests/data/SHA256SUMS must list exactly the vendored files"
    bad = [name for name, digest in listed.items() if _sha256(DATA / name) != digest]
    assert not bad, f"vendored files changed: {bad}"


def test_vendored_files_match_the_upstream_sources() -> None:
    """The 16-digit sha256 prefixes and byte sizes the two vendored SOURCES.md files give."""
    checked, jinja = 0, 0
    for folder in (DATA / "templates", DATA / "templates" / "llama.cpp"):
        text = (folder / "SOURCES.md").read_text(encoding="utf-8")
        rows = re.findall(r"^([0-9a-f]{16})\s+(\d+)\s+(\S+\.jinja)$", text, re.M)  # the integrity block
        rows += [(d, n, f) for f, d, n in re.findall(r"^\| `(\S+\.jinja)` \| ([0-9a-f]{16}) \| (\d+) \|", text, re.M)]
        for digest, size, name in rows:
            path = folder / name
            assert path.stat().st_size == int(size), name
            assert _sha256(path)[:16] == digest, name
            checked += 1
        jinja += len(list(folder.glob("*.jinja")))
    assert checked == jinja == 13 + 71  # every vendored template has its hash in a SOURCES.md


def _repository_files() -> list[str]:
    """The files a clone has: ``git ls-files`` (tracked and not deleted), else the tree minus build output."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
        files = [f for f in out.decode("utf-8").split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        skip = {".git", "__pycache__", ".pytest_cache", ".ruff_cache", "build", "dist"}
        files = [p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*")
                 if p.is_file() and not skip & set(p.relative_to(ROOT).parts) and not p.parts[-2].endswith(".egg-info")]
    return [f for f in files if (ROOT / f).is_file()]


def test_tests_pass_from_a_copy_without_the_shared_folder(tmp_path: Path) -> None:
    copy = tmp_path / "repo"
    for rel in _repository_files():
        target = copy / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / rel, target)
    assert not (tmp_path / "shared").exists()
    for name in IN_COPY:
        assert (copy / "tests" / name.split("::")[0]).is_file(), f"{name} is not in git ls-files"
    # run from the copy's tests/ folder with a safe path, so that `toolgram` is the installed package and
    # every file the tests read comes from the copy
    env = {**os.environ, "PYTHONSAFEPATH": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", *IN_COPY],
                          cwd=copy / "tests", env=env, capture_output=True, text=True, timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    assert re.search(r"\d+ passed", out), out[-3000:]
    # a skip is allowed only for a missing optional engine or model package, never for a missing file
    skips = [line for line in out.splitlines() if line.startswith("SKIPPED")]
    assert not [line for line in skips if re.search(r"not found|shared|No such file", line)], skips
