"""Compile options (SPEC section 2), normalised and checked against a format and its tools."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ..errors import OptionError
from ..grammars.spec import FormatSpec
from .schema import Tool

ReasoningMode = Literal["none", "optional", "forced"]
XmlValues = Literal["first_close", "lookahead"]
Whitespace = Literal["canonical", "flexible"]
#: SPEC section 1: ``xml_values`` and ``whitespace``, their values (the first is the default)
XML_VALUES: tuple[str, ...] = ("first_close", "lookahead")
WHITESPACE: tuple[str, ...] = ("canonical", "flexible")
#: the lenient parsers' ``call_ids`` (no grammar changes with it): ``call_<index>`` (SPEC section 4, the
#: default) or the id the model wrote in a call's head
CALL_IDS: tuple[str, ...] = ("index", "model")


@dataclass(frozen=True)
class Options:
    """Resolved options: ``choice`` is auto/required/none/function; ``tools`` are the callable ones."""

    choice: Literal["auto", "required", "none", "function"]
    function: str | None
    parallel: bool
    reasoning: ReasoningMode
    tools: tuple[Tool, ...]
    permissive: bool = False
    #: at most this many calls (``max_tool_calls``); ``None``: no limit beyond ``parallel``
    max_calls: int | None = None
    #: a raw XML value ends at the first closing tag (``first_close``) or only where the next
    #: parameter or the call's end follows it (``lookahead``)
    xml_values: XmlValues = "first_close"
    #: JSON whitespace inside calls: the template's spelling (``canonical``) or llama.cpp's bounded runs
    whitespace: Whitespace = "canonical"
    #: object members in any order (each at most once), where the grammar can say so (SPEC "Argument order")
    any_order: bool = False

    @property
    def needs_call(self) -> bool:
        return self.choice in ("required", "function")


def trigger_captures(spec: FormatSpec, opts: Options) -> bool:
    """In ``auto`` a pattern trigger may start the calls: llama.cpp hands the lazy grammar the text from its
    capture on, with whatever whitespace the same token holds, so the envelope admits it there (SPEC's
    trigger/grammar consistency). Elsewhere the ``whitespace`` option alone decides."""
    return opts.choice == "auto" and spec.pattern_triggered


def parse_tool_choice(choice: Any) -> tuple[str, str | None]:
    """Read ``auto|required|none|NAME|function:NAME`` or an OpenAI ``{"type": "function", ...}`` object."""
    if choice is None:
        return "auto", None
    if isinstance(choice, dict):
        fn = choice.get("function") if isinstance(choice.get("function"), dict) else choice
        name = fn.get("name") if isinstance(fn, dict) else None
        if choice.get("type") not in (None, "function") or not isinstance(name, str):
            raise OptionError(
                "tool_choice object must be {'type': 'function', 'function': {'name': ...}}", "tool_choice"
            )
        return "function", name
    if not isinstance(choice, str) or not choice:
        raise OptionError(f"invalid tool_choice {choice!r}", "tool_choice")
    if choice in ("auto", "required", "none"):
        return choice, None
    if choice.startswith("function:"):
        return "function", choice[len("function:") :]
    return "function", choice


def resolve(
    spec: FormatSpec,
    tools: list[Tool],
    *,
    tool_choice: Any = "auto",
    parallel_tool_calls: bool | None = None,
    reasoning: str | None = None,
    allowed_tools: list[str] | None = None,
    permissive: bool = False,
    max_tool_calls: int | None = None,
    xml_values: str | None = None,
    whitespace: str | None = None,
    any_order: bool = False,
) -> Options:
    """Check and normalise the options for ``spec``; raises :class:`OptionError` with the option's name."""
    choice, function = parse_tool_choice(tool_choice)
    names = [t.name for t in tools]
    callable_tools = list(tools)
    if allowed_tools is not None:
        unknown = [n for n in allowed_tools if n not in names]
        if unknown:
            raise OptionError(
                f"allowed tool(s) {', '.join(map(repr, unknown))} not in tools; tools: {names}", "allowed_tools"
            )
        callable_tools = [t for t in tools if t.name in allowed_tools]
    if choice == "function":
        if function not in names:
            raise OptionError(f"tool_choice names {function!r}, which is not a tool; tools: {names}", "tool_choice")
        callable_tools = [t for t in callable_tools if t.name == function]
        if not callable_tools:
            raise OptionError(f"tool_choice {function!r} is excluded by allowed_tools", "tool_choice")
    if choice != "none" and not callable_tools:
        raise OptionError("no tools to call (empty tools or allowed_tools); use tool_choice 'none'", "tools")
    if reasoning is None:
        mode: str = "optional" if spec.reasoning else "none"
    else:
        mode = reasoning
    if mode not in ("none", "optional", "forced"):
        raise OptionError(f"reasoning must be none, optional or forced, got {mode!r}", "reasoning")
    if mode != "none" and spec.reasoning is None:
        raise OptionError(f"format {spec.id!r} has no reasoning tags; use reasoning 'none'", "reasoning")
    parallel = spec.parallel_default if parallel_tool_calls is None else bool(parallel_tool_calls)
    if max_tool_calls is not None:
        if isinstance(max_tool_calls, bool) or not isinstance(max_tool_calls, int) or max_tool_calls < 1:
            raise OptionError(f"max_tool_calls must be an integer >= 1, got {max_tool_calls!r}", "max_tool_calls")
        if not parallel:
            max_tool_calls = 1
    xml_values = choose(xml_values, XML_VALUES, "xml_values")
    whitespace = choose(whitespace, WHITESPACE, "whitespace")
    return Options(
        choice=choice,
        function=function,
        parallel=parallel,
        reasoning=mode,  # type: ignore[arg-type]
        tools=tuple(callable_tools),
        permissive=permissive,
        max_calls=max_tool_calls,
        xml_values=xml_values,  # type: ignore[arg-type]
        whitespace=whitespace,  # type: ignore[arg-type]
        any_order=_flag(any_order, "any_order"),
    )


def _flag(value: Any, option: str) -> bool:
    if not isinstance(value, bool):
        raise OptionError(f"{option} must be true or false, got {value!r}", option)
    return value


def choose(value: str | None, allowed: tuple[str, ...], option: str) -> str:
    """``value`` checked against ``allowed`` (``None``: the first, the default)."""
    if value is None:
        return allowed[0]
    if value not in allowed:
        raise OptionError(f"{option} must be {' or '.join(allowed)}, got {value!r}", option)
    return value
