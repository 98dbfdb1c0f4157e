"""Write ``openai.json``: the JSON schemas pydantic gives a sample of the OpenAI Python SDK's models.

Run with the SDK installed (``python make.py``; these were made with openai 3.63.0 and pydantic 2.13.4).  Every
model class under ``openai.types`` is collected, sorted by module and name; distinct schemas of 1-30 KB are kept and
every 12th of them written, so the sample spans the SDK (requests, responses, events) without its largest models.
The SDK's models allow extra fields, so most objects carry ``additionalProperties: true``: real-world extra keys.
"""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
from pathlib import Path

import openai
import openai.types
from pydantic import BaseModel


def main() -> None:
    found: dict[str, dict] = {}
    for info in pkgutil.walk_packages(openai.types.__path__, "openai.types."):
        try:
            module = importlib.import_module(info.name)
        except Exception:  # noqa: BLE001 - a module the SDK cannot import here is skipped
            continue
        for name, obj in sorted(vars(module).items()):
            if inspect.isclass(obj) and issubclass(obj, BaseModel) and obj.__module__ == module.__name__:
                try:
                    found[f"{module.__name__}.{name}"] = obj.model_json_schema()
                except Exception:  # noqa: BLE001 - a model pydantic cannot describe is skipped
                    continue
    seen: set[str] = set()
    kept = []
    for key in sorted(found):
        text = json.dumps(found[key], sort_keys=True)
        if text not in seen and 1_000 <= len(text) <= 30_000:
            seen.add(text)
            kept.append(key)
    sample = {key: found[key] for key in kept[::12]}
    out = Path(__file__).with_name("openai.json")
    out.write_text(json.dumps({"openai": openai.__version__, "schemas": sample}, indent=1) + "\n", encoding="utf-8")
    print(f"{len(sample)} of {len(kept)} schemas -> {out}")


if __name__ == "__main__":
    main()
