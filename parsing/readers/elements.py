"""The reader of nested-element calls (:class:`~toolgram.grammars.spec.ElementCall`, MiniMax-M3)."""

from __future__ import annotations

from typing import Any

from ...grammars.spec import ElementCall
from ...grammars.syntax import xml_elements
from ..element_values import convert_element_value
from ..values import dumps_arguments, schema_types
from ._common import NO_STATE, WAIT, Core, Head, Pinned, Reader, esc


class ElementReader(Reader):
    """N ``name_end``, then ``ns<K>value ns</K>`` per argument, up to the scope's ``ns</...>`` close.

    A value is read whole, up to the closing tag of its own element (elements of the same name
    nest), and typed by the schema; a value cut off by the end of input is kept as received."""

    def __init__(self, core: Core, c: ElementCall) -> None:
        super().__init__(core)
        self.c = c
        self.ns = c.ns
        self.schema: Any = None

    def head(self, q: int, bare: bool) -> Head:
        core, c = self.core, self.c
        buf = core.buf
        limit = q + core.max_name + len(c.name_end) + 1
        end = buf.find(c.name_end, q, limit)
        if end < 0:
            if len(buf) < limit and not core.final:
                return WAIT
            return None
        name = buf[q:end]
        if not name or "<" in name or "\n" in name:
            return None
        return name, end + len(c.name_end)

    def start(self) -> None:
        self.core.step = self._params

    def cut(self) -> str | None:
        s = self.st
        if self.core.step == self._value and isinstance(s, Pinned) and s.keep:
            text = s.raw(self.core.buf, len(self.core.buf))
            if schema_types(self.schema, self._root()) == frozenset({"string"}):
                return self.core.member_prefix(s.key) + '"' + esc(text)
            return self.core.member_prefix(s.key) + text
        return None

    def _root(self) -> Any:
        call = self.core.call
        return call.tool if call is not None else None

    def _params(self) -> bool | None:
        """The next argument element, or the end of the call (the scope's closing tag)."""
        core, ns = self.core, self.ns
        if not core.ws():
            return False
        res = core.peek(ns + "</")
        if res == WAIT:
            return False
        if res is True:
            core.end_call()
            return True
        res = core.lit(ns + "<")
        if res == WAIT:
            return False
        if res is False:
            core.bad_call("expected an argument element or the end of the call")
            return True
        core.step = self._key
        return True

    def _key(self) -> bool | None:
        core = self.core
        buf, pos = core.buf, core.pos
        i = buf.find(">", pos, pos + core.max_name + 256)
        bad = next((j for j in range(pos, i if i >= 0 else len(buf)) if buf[j] in "<\n/"), None)
        if bad is not None or (i < 0 and len(buf) - pos > core.max_name + 256):
            core.bad_call("unterminated argument name")
            return True
        if i < 0:
            return False
        key = buf[pos:i]
        core.pos = i + 1
        keep = core.member_key(key)
        call = core.call
        assert call is not None
        props = call.tool.get("properties") if isinstance(call.tool, dict) else None
        self.schema = props.get(key) if isinstance(props, dict) else None
        self.st = Pinned(start=core.pos, at=core.pos + core.base, key=key, keep=keep, scan=core.pos)
        core.step = self._value
        return True

    def _value(self) -> bool | None:
        core = self.core
        s = self.st
        assert isinstance(s, Pinned)
        buf = core.buf
        j, after, s.depth = xml_elements.close_at(buf, self.ns, s.key, s.scan, s.depth, final=core.final)
        if j < 0:
            s.scan = after  # the value stays in the buffer whole (nested tags are matched on it)
            core.pos = len(buf)
            return False
        if s.keep:
            call = core.call
            assert call is not None
            value, diags = convert_element_value(s.raw(buf, j), self.schema, ns=self.ns, lenient=True,
                                                 root=call.tool, name=s.key, offset=s.at,
                                                 hint=call.name in core.loose)
            core.diagnostics.extend(diags)
            core.args(core.member_prefix(s.key) + dumps_arguments(value))
        core.pos = after
        core.step = self._params
        self.st = NO_STATE
        return True
