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
