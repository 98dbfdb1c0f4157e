"""Draw the pipeline picture of the README (docs/img/pipeline.png): one format description feeds the compiler
and the parser.

``python scripts/pipeline_figure.py`` rewrites the PNG (needs the ``docs`` extra: matplotlib).
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "docs" / "img" / "pipeline.png"

#: (x, y, width, height, title, detail, colour) in axes units (the figure is 16 x 7)
BOXES = {
    "tools": (0.3, 5.6, 3.0, 1.0, "tools' JSON schemas", "+ tool_choice, parallel, reasoning", "#f2f2f2"),
    "spec": (0.3, 3.0, 3.0, 1.6, "format description",
             "grammars/<format>.py\none FormatSpec: call syntax,\nscope, reasoning, triggers", "#ffe9b3"),
    "compiler": (4.6, 4.6, 3.2, 1.6, "compiler", "schema + description → IR\n→ left-factored dialects", "#cfe3ff"),
    "dialects": (9.0, 4.6, 3.0, 1.9, "grammars", "GBNF (llama.cpp)\nxgrammar EBNF\nLark\nstructural tags", "#cfe3ff"),
    "engines": (13.0, 4.6, 2.8, 1.9, "engines",
                "OpenVINO GenAI\nllama-server, llama-cpp\nvLLM, SGLang\n(toolgram serve)", "#e0d4f7"),
    "parser": (9.0, 1.0, 3.2, 1.6, "parser", "lenient + streaming scanner\nstrict = the Lark grammar", "#d6f0d0"),
    "messages": (13.0, 1.0, 2.8, 1.6, "OpenAI messages", "content, reasoning_content,\ntool_calls, diagnostics",
                 "#d6f0d0"),
}

def _anchor(name: str, side: str) -> tuple[float, float]:
    x, y, w, h, *_ = BOXES[name]
    return {"left": (x, y + h / 2), "right": (x + w, y + h / 2), "top": (x + w / 2, y + h),
            "bottom": (x + w / 2, y)}[side]


def _arrow(ax, start: tuple[float, float], end: tuple[float, float], label: str = "", rad: float = 0.0) -> None:
    ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=18, lw=1.6, color="#444",
                                 connectionstyle=f"arc3,rad={rad}"))
    if label:
        ax.text((start[0] + end[0]) / 2, (start[1] + end[1]) / 2 + 0.15, label, ha="center", va="bottom",
                fontsize=10, style="italic", color="#444")


def draw(out: Path = OUT) -> Path:
    fig, ax = plt.subplots(figsize=(16, 6.4), dpi=100)
    ax.set_xlim(0, 16)
    ax.set_ylim(0.6, 7)
    ax.axis("off")
    for x, y, w, h, title, detail, colour in BOXES.values():
        ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.05,rounding_size=0.15", fc=colour,
                                    ec="#555", lw=1.2))
        ax.text(x + w / 2, y + h - 0.25, title, ha="center", va="top", fontsize=13, weight="bold")
        ax.text(x + w / 2, y + h - 0.65, detail, ha="center", va="top", fontsize=10, linespacing=1.35)
    _arrow(ax, _anchor("tools", "right"), (4.6, 5.7))
    _arrow(ax, _anchor("spec", "right"), (4.6, 5.0))
    _arrow(ax, (1.8, 3.0), _anchor("parser", "left"), rad=0.3)
    ax.text(4.3, 1.9, "the same description", ha="center", fontsize=10, style="italic", color="#444")
    _arrow(ax, _anchor("compiler", "right"), _anchor("dialects", "left"))
    _arrow(ax, _anchor("dialects", "right"), _anchor("engines", "left"))
    _arrow(ax, _anchor("parser", "right"), _anchor("messages", "left"))
    # the model's output goes back to the parser
    _arrow(ax, _anchor("engines", "bottom"), (11.2, 2.6), rad=-0.1)
    ax.text(13.1, 3.55, "model output\n(whole or streamed)", ha="left", fontsize=10, style="italic", color="#444")
    ax.text(6.2, 3.6, "grammar and parser accept the same language", ha="center", fontsize=11, color="#1a5e1a")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, metadata={"Software": None})
    plt.close(fig)
    return out


if __name__ == "__main__":
    print(draw(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT))
