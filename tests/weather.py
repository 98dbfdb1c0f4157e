"""The weather tools the model tests ask SmolLM2 about (generation, serving, OpenVINO adapters)."""

from __future__ import annotations

from typing import Any

TOOLS: list[dict[str, Any]] = [
    {"type": "function", "function": {
        "name": "get_weather", "description": "Get the current weather in a city",
        "parameters": {"type": "object", "properties": {
            "location": {"type": "string", "maxLength": 24},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
            "required": ["location"]}}},
    {"type": "function", "function": {
        "name": "get_forecast", "description": "Weather forecast for the next days",
        "parameters": {"type": "object", "properties": {
            "location": {"type": "string", "maxLength": 24},
            "days": {"type": "integer", "minimum": 1, "maximum": 7}},
            "required": ["location", "days"]}}},
]
SCHEMAS: dict[str, Any] = {t["function"]["name"]: t["function"]["parameters"] for t in TOOLS}

#: a tool whose schema holds a keyword no grammar enforces over strings (``uniqueItems``): strict compiling refuses
#: it at ``$[0].function.parameters.properties.tags.uniqueItems``, ``permissive`` relaxes it
TAG_TAGS: dict[str, Any] = {"type": "array", "items": {"type": "string", "maxLength": 12}, "maxItems": 3,
                            "uniqueItems": True}
TAG_TOOLS: list[dict[str, Any]] = [{"type": "function", "function": {"name": "tag_city", "parameters": {
    "type": "object", "properties": {"city": {"type": "string", "maxLength": 24}, "tags": TAG_TAGS},
    "required": ["city", "tags"]}}}]
#: what the relaxed grammar enforces: the same schema without ``uniqueItems``
TAG_RELAXED: dict[str, Any] = {**TAG_TOOLS[0]["function"]["parameters"], "properties": {
    "city": {"type": "string", "maxLength": 24}, "tags": {k: v for k, v in TAG_TAGS.items() if k != "uniqueItems"}}}
