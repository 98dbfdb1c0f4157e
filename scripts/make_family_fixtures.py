#!/usr/bin/env python3
"""Generate the issue-9 family fixtures under tests/data/families/.

For every template of llama.cpp's collection (tests/data/templates/llama.cpp/*.jinja) this renders a
fixed conversation (FORMATS-NEXT §0.3: system + user + one assistant tool-call turn, with one call and
with two calls) in the vendored HF-style environment (rendered/render.py), cuts the assistant turn out,
cuts its end-of-turn marker off, and writes one JSON file per template plus index.json. It also writes
the hand-written model-output cases of FORMATS-NEXT's test tables to cases/<format id>.json.

usage: python scripts/make_family_fixtures.py [--check]
  --check   regenerate in memory and exit 1 if a checked-in file differs (nothing is written)

See tests/data/families/README.md for the meaning of every field.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import jinja2

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "tests" / "data" / "templates" / "llama.cpp"
OUT = ROOT / "tests" / "data" / "families"

# Format ids fixed by issue 9, the six existing ones, and the ids proposed here for the extra families.
# Issue 9 leaves GLM's variants to us: glm4 is the newline variant (GLM-4.5/4.6, Laguna-XS), glm4_7 the compact
# one (GLM-4.7-Flash, Spark2.5, Laguna-S: no newline between name, argument tags and the close). DSML likewise:
# deepseek_dsml is V3.2's <｜DSML｜function_calls> section, deepseek_v4 V4's <｜DSML｜tool_calls> (same calls).
ISSUE9_IDS = [
    "gpt_oss", "deepseek_v3_1", "deepseek_r1", "deepseek_dsml", "kimi_k2", "glm4", "glm4_7", "mistral", "mistral_args",
    "deepseek_v4",
    "minimax_m2", "nemotron", "granite", "lfm2", "command_r7b", "apertus", "apriel", "functionary_v3_1",
    "functionary_v3_2", "gemma4",
]
EXISTING_IDS = ["hermes", "qwen3_coder", "seed_oss", "llama3_json", "pythonic", "llama4_pythonic"]
PROPOSED_IDS = [
    "kimi_k3", "minimax_m1", "minimax_m3", "minicpm5", "solar_open", "gigachat3", "gigachat3_1", "ling3", "hy3",
    "muse_glimmer", "command_r_plus", "firefunction_v2",
]
KNOWN_IDS = ISSUE9_IDS + EXISTING_IDS + PROPOSED_IDS

SYSTEM = {"role": "system", "content": "You are a helpful assistant."}
USER_ONE = {"role": "user", "content": "Weather in Paris for 2 days?"}
USER_TWO = {"role": "user", "content": "Weather in Paris for 2 days, and the time in Tokyo?"}
EXPECTED_CALLS = [
    {"name": "get_weather", "arguments": {"city": "Paris", "days": 2}},
    {"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}},
]

DS_EOS = "<｜end▁of▁sentence｜>"
FN = "FORMATS-NEXT"
RENDER_ONLY = "template render (not established in FORMATS-NEXT)"

# Per template: family (FORMATS-NEXT §8.2), proposed format id, variant options, end-of-turn marker and where
# that fact comes from, optional render settings / cut settings, call ids the format writes, notes.
# eot: the marker cut off the end of the raw turn (None: the template writes no end marker after the turn).
# header: for templates whose history rendering of the assistant turn differs from the generation prompt,
#   the role header (a prefix of both) after which the turn is cut (last occurrence in the full render).
# settings: extra template variables used for every render of that template (chosen so the prefix holds).
# ids_written: ids that appear in the rendered turn, per call (None: the format writes no ids).
T: dict[str, dict] = {
    "Apertus-8B-Instruct": dict(
        family="wrapped JSON, name-as-key (§7.5)", format="apertus", variant={},
        eot=None, eot_basis=f"{FN} §7.5: the turn closes with <|assistant_end|> only when the next user message "
        "starts; tool outputs follow <|tools_suffix|> inline inside the same assistant turn",
        notes=["end of generation after <|tools_suffix|> is (not established)"]),
    "Apriel-1.6-15b-Thinker-fixed": dict(
        family="wrapped JSON (§7.6)", format="apriel",
        variant={"version": "1.6", "reasoning_close": "[BEGIN FINAL RESPONSE]"},
        header="<|begin_assistant|>\n", eot=None,
        eot_basis="template render: the last assistant message gets no end marker; in history (a message follows) "
        "the template writes \"\\n<|end|>\" (rendered/other/Apriel-1.6-15b-Thinker-fixed.single.txt)",
        notes=["the generation prompt opens reasoning ('Here are my reasoning steps:\\n'); the history form of the "
               "turn has no reasoning, so the turn is cut after the role header <|begin_assistant|>\\n",
               "the last assistant message is rendered without \"id\" keys; earlier (history) messages carry "
               "\"id\": \"call00001\" (template's add_tool_id is switched off for loop.last)"]),
    "Bielik-11B-v3.0-Instruct": dict(family="Hermes", format="hermes", eot="<|im_end|>", eot_basis=RENDER_ONLY),
    "ByteDance-Seed-OSS": dict(family="XML function/parameter (<seed:tool_call>)", format="seed_oss",
                               eot="<seed:eos>", eot_basis=RENDER_ONLY),
    "Cohere2MoE": dict(
        family="wrapped JSON (Cohere action, §7.4)", format="command_r7b", variant={"variant": "cohere2moe"},
        header="<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>", settings={"reasoning": False},
        eot="<|END_OF_TURN_TOKEN|>", eot_basis=f"{FN} §7.4", ids_written=["0", "1"],
        notes=["history drops the <|START_THINKING|><|END_THINKING|> block the generation prompt ends with "
               "(reasoning=false), so the turn is cut after the role header",
               "tool_call_id is a conversation-wide counter rendered as a string"]),
    "CohereForAI-c4ai-command-r-plus-tool_use": dict(
        family="JSON_NATIVE, markdown Action list (§7.6)", format="command_r_plus",
        header="<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>", turn_ends_before="<|START_OF_TURN_TOKEN|><|SYSTEM_TOKEN|>",
        eot=None, eot_basis="template render: a tool-call message gets no <|END_OF_TURN_TOKEN|>; the template's "
        "tool-use instruction block (<|START_OF_TURN_TOKEN|><|SYSTEM_TOKEN|>Write 'Action:'...) follows the "
        "conversation, so the turn is cut before it",
        notes=["arguments pretty-printed with tojson(indent=4)|indent(8); no \"\\n\" before the closing fence",
               "proposed id (not in issue 9's list)"]),
    "CohereForAI-c4ai-command-r7b-12-2024-tool_use": dict(
        family="wrapped JSON (Cohere action, §7.4)", format="command_r7b", variant={"variant": "command_r7b"},
        eot="<|END_OF_TURN_TOKEN|>", eot_basis=f"{FN} §7.4", ids_written=["0", "1"],
        generation_prompt="<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|><|START_THINKING|><|END_THINKING|>",
        notes=["the template always ends with <|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|><|START_THINKING|>"
               "<|END_THINKING|>, even with add_generation_prompt=false (it is after_end_of_turn here)",
               "tool_call_id is a conversation-wide counter rendered as a string"]),
    "GLM-4.6": dict(
        family="GLM <arg_key>/<arg_value> (§4)", format="glm4", variant={},
        eot=None, eot_basis=f"{FN} §4: nothing after an assistant message; stop tokens <|endoftext|>, <|user|>, "
        "<|observation|> (GLM-4-9B; for GLM-4.5/4.6 (not established from a primary source))",
        notes=["turn starts with \"\\n<think></think>\\n\" (the generation prompt is only <|assistant|>)"]),
    "GLM-4.7-Flash": dict(
        family="GLM <arg_key>/<arg_value> (§4)", format="glm4_7", variant={},
        settings={"enable_thinking": False}, eot=None,
        eot_basis=f"{FN} §4: nothing after an assistant message; the next role token (<|user|>, <|observation|>) "
        "is a stop token (exo PR #2061 for GLM-4.7)",
        notes=["rendered with enable_thinking=false: the default generation prompt <|assistant|><think> does not "
               "match the history form <|assistant|></think>"]),
    "GigaChat3-10B-A1.8B": dict(
        family="other (GigaChat 3)", format="gigachat3",
        variant={"version": "3", "call_header": "function call<|role_sep|>\n"},
        parallel=False, eot="<|message_sep|>", eot_basis=RENDER_ONLY,
        notes=["the call is a separate message: the turn starts with the empty assistant message's "
               "<|message_sep|>\\n\\n, then 'function call<|role_sep|>\\n{...}'",
               "only the first call of a message is rendered (two calls render the same text as one): parallel "
               "not renderable"]),
    "GigaChat3.1-10B-A1.8B": dict(
        family="other (GigaChat 3.1)", format="gigachat3_1",
        variant={"version": "3.1", "call_marker": "<|function_call|>"},
        parallel=False, eot="<|message_sep|>", eot_basis=RENDER_ONLY,
        notes=["only the first call of a message is rendered: parallel not renderable"]),
    "HuggingFaceTB-SmolLM3-3B": dict(family="none", format=None, eot="<|im_end|>", eot_basis=RENDER_ONLY,
                                     notes=["assistant tool calls are not rendered (empty turn)"]),
    "Kimi-K2-Instruct": dict(
        family="Kimi-K2 (§3)", format="kimi_k2", variant={"id_counter": "conversation"}, mutable=True,
        eot="<|im_end|>", eot_basis=f"{FN} §3", ids_written=["functions.get_weather:0", "functions.get_time:1"],
        notes=["needs the mutable SandboxedEnvironment (list.append); ids come from a conversation-wide counter, "
               "tool_call.id is ignored"]),
    "Kimi-K2-Thinking": dict(
        family="Kimi-K2 (§3)", format="kimi_k2", variant={"id_counter": "conversation"}, mutable=True,
        eot="<|im_end|>", eot_basis=f"{FN} §3", ids_written=["functions.get_weather:0", "functions.get_time:1"],
        notes=["needs the mutable SandboxedEnvironment (list.append)", "turn starts with an empty <think></think>"]),
    "Kimi-K3": dict(
        family="other (XTML, §8)", format="kimi_k3", eot="<|end_of_msg|>", eot_basis=RENDER_ONLY,
        notes=["turn starts by closing the think block the generation prompt opened and an empty response block",
               "calls carry index=\"1\", index=\"2\" attributes and typed arguments (type=\"string\"/\"number\"); "
               "the message close <|close|>message<|sep|> stays in the turn"]),
    "LFM2-8B-A1B": dict(family="LFM2 (§7.3)", format="lfm2", variant={"version": "2"}, eot="<|im_end|>",
                        eot_basis=f"{FN} §7.3",
                        notes=["template does not render tool_calls (the call text must already be in content)"]),
    "LFM2.5-8B-A1B": dict(family="LFM2 (§7.3)", format="lfm2", variant={"version": "2.5"}, eot="<|im_end|>",
                          eot_basis=f"{FN} §7.3",
                          notes=["strings rendered in single quotes without escaping"]),
    "LFM2.5-Instruct": dict(family="LFM2 (§7.3)", format="lfm2", variant={"version": "2.5"}, eot="<|im_end|>",
                            eot_basis=f"{FN} §7.3",
                            notes=["template does not render tool_calls (the call text must already be in content)"]),
    "MiMo-VL": dict(family="Hermes", format="hermes", eot="<|im_end|>", eot_basis=RENDER_ONLY),
    "MiniMax-M1": dict(family="other (JSON lines in <tool_calls>, §8)", format="minimax_m1",
                       eot="<end_of_sentence>", eot_basis=RENDER_ONLY),
    "MiniMax-M2": dict(
        family="<invoke name>/<parameter name> XML (§6)", format="minimax_m2", header="]~b]ai\n",
        eot="[e~[", eot_basis=f"{FN} §6",
        notes=["the generation prompt ]~b]ai\\n<think>\\n forces reasoning open; the history form of the turn "
               "has no reasoning block, so the turn is cut after ]~b]ai\\n and starts with \"\\n\"",
               "llama.cpp's auto-parser rejects the template's own two-call form (§6, §9.2)"]),
    "MiniMax-M3": dict(family="other (namespaced ]<]minimax[>[, §8)", format="minimax_m3", eot="[e~[",
                       eot_basis=f"{FN} §6 (turn tokens shared with M2, EOG 'minimax-m2/m3')",
                       notes=["turn starts by closing reasoning: </mm:think>"]),
    "Mistral-Small-3.2-24B-Instruct-2506": dict(
        family="Mistral NAME[ARGS] (§5.2)", format="mistral_args", variant={"call_id": True},
        eot="</s>", eot_basis=f"{FN} §5", ids_written=["call00001", "call00002"]),
    "NVIDIA-Nemotron-3-Nano-30B-A3B-BF16": dict(
        family="XML function/parameter", format="qwen3_coder", settings={"enable_thinking": False},
        eot="<|im_end|>", eot_basis=RENDER_ONLY,
        notes=["rendered with enable_thinking=false: the default generation prompt ends <think>\\n, the history "
               "form has <think></think>"]),
    "NVIDIA-Nemotron-Nano-v2": dict(
        family="wrapped JSON (§7.1)", format="nemotron", header="<SPECIAL_11>Assistant\n",
        eot="<SPECIAL_12>", eot_basis=f"{FN} §7.1 (end of message \\n<SPECIAL_12>\\n)",
        notes=["generation prompt opens <think>\\n; history strips reasoning, so the turn is cut after "
               "<SPECIAL_11>Assistant\\n",
               "as the last message the template writes </TOOLCALL><SPECIAL_12> with no \"\\n\" before <SPECIAL_12>"]),
    "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use": dict(family="Hermes", format="hermes", eot="<|im_end|>",
                                                          eot_basis=RENDER_ONLY),
    "NousResearch-Hermes-3-Llama-3.1-8B-tool_use": dict(family="Hermes", format="hermes", eot="<|im_end|>",
                                                        eot_basis=RENDER_ONLY),
    "Qwen-QwQ-32B": dict(
        family="Hermes", format="hermes", header="<|im_start|>assistant\n", eot="<|im_end|>", eot_basis=RENDER_ONLY,
        notes=["generation prompt is <|im_start|>assistant\\n<think>\\n</think>; the history form has no think "
               "block, so the turn is cut after <|im_start|>assistant\\n"]),
    "Qwen-Qwen2.5-7B-Instruct": dict(family="Hermes", format="hermes", eot="<|im_end|>", eot_basis=RENDER_ONLY),
    "Qwen-Qwen3-0.6B": dict(family="Hermes", format="hermes", eot="<|im_end|>", eot_basis=RENDER_ONLY,
                            notes=["turn starts with an empty <think>\\n\\n</think>\\n\\n: the template writes it "
                                   "only when the tool-call message is the last message; in history (rendered/"
                                   "other/Qwen-Qwen3-0.6B.single.txt) the turn has no think block"]),
    "Qwen3-Coder": dict(family="XML function/parameter", format="qwen3_coder", eot="<|im_end|>", eot_basis=RENDER_ONLY),
    "Qwen3.5-4B": dict(family="XML function/parameter", format="qwen3_coder", eot="<|im_end|>", eot_basis=RENDER_ONLY,
                       notes=["turn starts by closing the reasoning the generation prompt opened: \\n</think>\\n\\n"]),
    "Reka-Edge": dict(family="Hermes", format="hermes", eot="<sep>", eot_basis=RENDER_ONLY,
                      notes=["turn starts with a space; calls not separated; \"\\n\\n\" before <sep>"]),
    "Spark2.5": dict(family="GLM (compact, §8)", format="glm4_7", variant={},
                     settings={"enable_thinking": False}, eot=DS_EOS, eot_basis=RENDER_ONLY,
                     notes=["rendered with enable_thinking=false (default generation prompt ends <think>, history "
                            "has </think>)"]),
    "StepFun3.5-Flash": dict(family="XML function/parameter", format="qwen3_coder", eot="<|im_end|>",
                             eot_basis=RENDER_ONLY, notes=["calls not separated"]),
    "deepseek-ai-DeepSeek-R1-Distill-Llama-8B": dict(
        family="DeepSeek R1 fenced JSON (§2.2)", format="deepseek_r1", header="<｜Assistant｜>", eot=DS_EOS,
        eot_basis=f"{FN} §2.2", args="str", empty_content=None,
        notes=["arguments passed as JSON strings (the template concatenates them); content must be None",
               "generation prompt forces <think>\\n open; history has no reasoning, so the turn is cut after "
               "<｜Assistant｜>",
               "ONE call: the template writes no <｜tool▁calls▁end｜> and no end-of-sentence (it closes the "
               "section only after the second call); end_of_turn is null for the one-call turn",
               "llama.cpp finds no tool format for this template (§9.1: tool_mode NONE)"]),
    "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B": dict(
        family="DeepSeek R1 fenced JSON (§2.2)", format="deepseek_r1", header="<｜Assistant｜>", eot=DS_EOS,
        eot_basis=f"{FN} §2.2", empty_content=None,
        notes=["content must be None", "generation prompt <｜Assistant｜><think>\\n</think> (enable_thinking "
               "undefined); history has no reasoning, so the turn is cut after <｜Assistant｜>"]),
    "deepseek-ai-DeepSeek-V3.1": dict(family="DeepSeek V3.1 (§2.1)", format="deepseek_v3_1", eot=DS_EOS,
                                      eot_basis=f"{FN} §2.1"),
    "deepseek-ai-DeepSeek-V3.2": dict(
        family="DeepSeek DSML (§2.3)", format="deepseek_dsml", variant={"block": "function_calls"},
        header="<｜Assistant｜>", eot=DS_EOS, eot_basis=f"{FN} §2.3",
        notes=["non-thinking generation prompt is <｜Assistant｜><think></think>, history writes "
               "<｜Assistant｜></think>\\n\\n, so the turn is cut after <｜Assistant｜> and starts with </think>"]),
    "deepseek-ai-DeepSeek-V4": dict(family="DeepSeek DSML (§2.3)", format="deepseek_v4",
                                    variant={"block": "tool_calls"}, eot=DS_EOS, eot_basis=f"{FN} §2.3"),
    "deepseek-ai-DeepSeek-V4-Flash-0731": dict(family="DeepSeek DSML (§2.3)", format="deepseek_v4",
                                               variant={"block": "tool_calls"}, eot=DS_EOS, eot_basis=f"{FN} §2.3"),
    "fireworks-ai-llama-3-firefunction-v2": dict(
        family="wrapped JSON (functools, §7.6)", format="firefunction_v2", eot="<|eot_id|>", eot_basis=RENDER_ONLY,
        generation_prompt="<|start_header_id|>assistant<|end_header_id|>\n\n",
        notes=["the template always appends the assistant header, even with add_generation_prompt=false",
               "turn starts with a space: ' functools[...]'", "proposed id (not in issue 9's list)"]),
    "google-gemma-2-2b-it": dict(family="none", format=None,
                                 notes=["no tools; the template raises 'System role not supported'"]),
    "google-gemma-4-31B-it": dict(
        family="other (Gemma 4)", format="gemma4", header="<|turn>model\n", eot="<|tool_response>",
        eot_basis=RENDER_ONLY,
        notes=["generation prompt <|turn>model\\n<|channel>thought\\n<channel|> (empty thought); history has "
               "none, so the turn is cut after <|turn>model\\n",
               "the template ends a tool-call message with <|tool_response>, not <turn|>"]),
    "google-gemma-4-31B-it-interleaved": dict(
        family="other (Gemma 4)", format="gemma4", header="<|turn>model\n", eot="<turn|>", eot_basis=RENDER_ONLY,
        notes=["generation prompt <|turn>model\\n<|channel>thought\\n<channel|>; history has none, so the turn is "
               "cut after <|turn>model\\n"]),
    "ibm-granite-granite-3.3-2B-Instruct": dict(
        family="wrapped JSON (instructed only, §7.2)", format="granite", eot="<|end_of_text|>", eot_basis=f"{FN} §7.2",
        notes=["the template never renders assistant tool_calls; expected output <|tool_call|>[{...}] is "
               "(not rendered by any template here)"]),
    "ibm-granite-granite-4.0": dict(family="Hermes (§7.2)", format="hermes", eot="<|end_of_text|>",
                                    eot_basis=f"{FN} §7.2"),
    "ibm-granite-granite-4.1": dict(family="Hermes (§7.2)", format="hermes", eot="<|end_of_text|>",
                                    eot_basis=f"{FN} §7.2"),
    "inclusionai-ling-3.0-flash": dict(
        family="GLM (newline, §8)", format="ling3", variant={"glm4_variant": "newline"}, eot="<|role_end|>",
        eot_basis=RENDER_ONLY,
        notes=["no separator between </arg_value> and the next <arg_key> (unlike GLM-4.6); llama.cpp has a "
               "dedicated ling3 parser", "turn starts with </think> (generation prompt ends <think>)"]),
    "llama-cpp-deepseek-r1": dict(
        family="DeepSeek R1 fenced JSON (§2.2)", format="deepseek_r1", header="<｜Assistant｜>", eot=DS_EOS,
        eot_basis=f"{FN} §2.2", empty_content=None,
        notes=["content must be None", "generation prompt forces <think>\\n open; history has no reasoning"]),
    "llama-cpp-rwkv-world": dict(family="none", format=None, eot=None, eot_basis="no tools",
                                 notes=["no tools; renders ' \\n\\n' for the assistant turn"]),
    "meetkai-functionary-medium-v3.1": dict(family="Functionary v3.1", format="functionary_v3_1", eot="<|eom_id|>",
                                            eot_basis=f"{FN} §8.2"),
    "meetkai-functionary-medium-v3.2": dict(
        family="Functionary v3.2", format="functionary_v3_2", eot="<|eot_id|>", eot_basis=f"{FN} §8.2", args="str",
        notes=["arguments passed as JSON strings (template needs them)",
               "the generation prompt ends with '>>>', so the turn starts with the first call's name"]),
    "meta-llama-Llama-3.1-8B-Instruct": dict(
        family="Llama 3 JSON", format="llama3_json", parallel=False, eot="<|eot_id|>", eot_basis=f"{FN} §8.2",
        notes=["two calls: the template raises 'This model only supports single tool-calls at once!'"]),
    "meta-llama-Llama-3.2-3B-Instruct": dict(
        family="Llama 3 JSON", format="llama3_json", parallel=False, eot="<|eot_id|>", eot_basis=f"{FN} §8.2",
        notes=["two calls: the template raises 'This model only supports single tool-calls at once!'"]),
    "meta-llama-Llama-3.3-70B-Instruct": dict(
        family="Llama 3 JSON", format="llama3_json", parallel=False, eot="<|eot_id|>", eot_basis=f"{FN} §8.2",
        notes=["two calls: the template raises 'This model only supports single tool-calls at once!'"]),
    "microsoft-Phi-3.5-mini-instruct": dict(family="none", format=None, eot="<|end|>", eot_basis=RENDER_ONLY,
                                            notes=["no tools; the assistant turn renders empty"]),
    "mistral-v3-Mistral-Large-Instruct-2407-from-test-chat-template": dict(
        family="Mistral JSON list (§5.1)", format="mistral", variant={"space_after_tool_calls": True},
        header="[/INST]", eot="</s>", eot_basis=f"{FN} §5", ids_written=["call00001", "call00002"],
        notes=["the system prompt moves (prepended to the last user message only when it is the last message), "
               "so the prefix render is not a prefix of the full render; the turn is cut after the last [/INST]",
               "no generation prompt: the model continues after [/INST]"]),
    "mistralai-Ministral-3-14B-Reasoning-2512": dict(
        family="Mistral NAME[ARGS] (§5.2)", format="mistral_args", variant={"call_id": False}, eot="</s>",
        eot_basis=f"{FN} §5"),
    "mistralai-Mistral-Nemo-Instruct-2407": dict(
        family="Mistral JSON list (§5.1)", format="mistral", variant={"space_after_tool_calls": False},
        header="[/INST]", eot="</s>", eot_basis=f"{FN} §5", ids_written=["call00001", "call00002"],
        notes=["the system prompt moves, so the prefix render is not a prefix of the full render; the turn is "
               "cut after the last [/INST]", "no generation prompt: the model continues after [/INST]"]),
    "moonshotai-Kimi-K2": dict(
        family="Kimi-K2 (§3)", format="kimi_k2", variant={"id_counter": "message"}, eot="<|im_end|>",
        eot_basis=f"{FN} §3", ids_written=["functions.get_weather:0", "functions.get_time:1"],
        notes=["ids from the per-message loop.index0"]),
    "muse-glimmer": dict(
        family="invoke XML (atem:), harmony-like recipients (§8)", format="muse_glimmer", eot="<|eot|>",
        eot_basis=RENDER_ONLY,
        notes=["one call per message: two calls render as two messages joined by <|eom|><|start|>assistant",
               "proposed id (not in issue 9's list)"]),
    "openai-gpt-oss-120b": dict(
        family="Harmony (§1)", format="gpt_oss", parallel=False, eot="<|call|>", eot_basis=f"{FN} §1.2",
        notes=["the template renders only tool_calls[0] (one call per message; <|call|> ends generation): "
               "parallel not renderable in one turn (see rendered/openai-gpt-oss-120b.parallel_split.txt)",
               "template writes 'commentary json'; models write '<|constrain|>json' (§1.1)"]),
    "openbmb-MiniCPM5-1B": dict(family="other (XML, §8)", format="minicpm5", eot="<|im_end|>", eot_basis=RENDER_ONLY),
    "poolside-Laguna-S-2.1": dict(family="GLM (compact, §8)", format="glm4_7", variant={},
                                  eot="</assistant>", eot_basis=RENDER_ONLY,
                                  notes=["turn starts with </think> (generation prompt ends <think>)"]),
    "poolside-Laguna-XS-2.1": dict(family="GLM (newline, §8)", format="glm4", variant={},
                                   eot="</assistant>", eot_basis=RENDER_ONLY),
    "poolside-Laguna-XS.2": dict(family="GLM (newline, §8)", format="glm4", variant={},
                                 eot="</assistant>", eot_basis=RENDER_ONLY),
    "tencent-Hy3": dict(family="GLM (namespaced, §8)", format="hy3", eot="<｜hy_eos:opensource｜>",
                        eot_basis=RENDER_ONLY),
    "unsloth-Apriel-1.5": dict(
        family="wrapped JSON (§7.6)", format="apriel", variant={"version": "1.5"}, eot="<|end|>",
        eot_basis=RENDER_ONLY,
        notes=["the last assistant message is rendered without \"id\" keys (add_tool_id is switched off for "
               "loop.last); history messages carry \"id\" — llama.cpp's parser rejects the form with ids (§9.2)",
               "after <|end|> the template writes \"\\n</s>\""]),
    "unsloth-mistral-Devstral-Small-2507": dict(
        family="Mistral NAME[ARGS] (§5.2)", format="mistral_args", variant={"call_id": False}, eot="</s>",
        eot_basis=f"{FN} §5"),
    "upstage-Solar-Open-100B": dict(family="other (§8)", format="solar_open", eot="<|calls|>", eot_basis=RENDER_ONLY,
                                    ids_written=["call00001", "call00002"],
                                    notes=["the id comes before the name: <|tool_call:begin|>ID<|tool_call:name|>"]),
}


def load_render_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("toolgram_fixture_render", TEMPLATES / "rendered" / "render.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def parse_sources() -> dict[str, tuple[str, str]]:
    out = {}
    for line in (TEMPLATES / "SOURCES.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("| `") and line.count("|") >= 6:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            name = cells[0].strip("`")
            if name.endswith(".jinja"):
                out[name[: -len(".jinja")]] = (cells[3], cells[4])
    return out


def template_names() -> list[str]:
    return sorted(p.name[: -len(".jinja")] for p in TEMPLATES.glob("*.jinja"))


def _render(R: ModuleType, template, messages: list, cfg: dict, agp: bool, extra: dict | None) -> str:
    """rendered/render.py's render() with the template compiled once (same context, same variables)."""
    ctx = dict(messages=copy.deepcopy(messages), tools=R.TOOLS, add_generation_prompt=agp,
               bos_token=cfg.get("bos", ""), eos_token=cfg.get("eos", ""))
    ctx.update(cfg.get("ctx", {}))
    if extra:
        ctx.update(extra)
    return template.render(**ctx)


def split_eot(raw: str, eot: str | None) -> tuple[str, str | None, str]:
    """Cut the end-of-turn marker (last occurrence) off a raw turn: (turn, end_of_turn, after_end_of_turn)."""
    if eot is None or eot not in raw:
        return raw, None, ""
    i = raw.rindex(eot)
    return raw[:i], eot, raw[i + len(eot):]


def build_template(R: ModuleType, envs: dict, name: str, cfgs: dict, sources: dict) -> dict:
    info = T[name]
    rcfg = dict(cfgs.get(name, {}))
    args_mode = info.get("args", rcfg.get("args", "dict"))
    ids = rcfg.get("ids", ["call00001", "call00002"])
    empty = info.get("empty_content", rcfg.get("empty_content", ""))
    env = envs["mutable"] if info.get("mutable") else envs["immutable"]
    src = env.from_string((TEMPLATES / f"{name}.jinja").read_text(encoding="utf-8"))
    settings = info.get("settings")
    rec: dict = {
        "template": f"{name}.jinja",
        "family": info["family"],
        "sources_md": {"family_column": sources.get(name, ("", ""))[0],
                       "handler_column": sources.get(name, ("", ""))[1]},
        "format": info["format"],
        "variant": info.get("variant", {}),
        "render": {
            "environment": "mutable SandboxedEnvironment" if info.get("mutable") else "ImmutableSandboxedEnvironment",
            "bos_token": rcfg.get("bos", ""), "eos_token": rcfg.get("eos", ""),
            "extra_context": {**rcfg.get("ctx", {}), **(settings or {})},
            "arguments": "json_string" if args_mode == "str" else "dict",
            "assistant_content": empty,
            "call_ids": ids,
        },
    }
    prefix = None
    try:
        base = _render(R, src, [SYSTEM, USER_ONE], rcfg, False, settings)
        prefix = _render(R, src, [SYSTEM, USER_ONE], rcfg, True, settings)
    except jinja2.exceptions.TemplateError as e:  # recorded in the fixture (Gemma 2 refuses the system role)
        rec["render_error"] = f"{type(e).__name__}: {e}"
    gp = info.get("generation_prompt")
    if prefix is not None and gp is None and prefix.startswith(base):
        gp = prefix[len(base):]  # "" when the template has no generation prompt (Mistral: continue after [/INST])
    if prefix is not None and gp is not None:
        assert prefix.endswith(gp), (name, gp)
    rec["generation_prompt"] = gp
    header = info.get("header")
    method = None if prefix is None else "assistant_header" if header else "prefix"
    rec["cut"] = {"method": method, "assistant_header": header,
                  "turn_follows": header if header else gp, "turn_ends_before": info.get("turn_ends_before")}
    if header and gp:
        assert header in gp, (name, header, gp)

    renders_calls = False
    turns = {}
    for key, n_calls in (("one_call", 1), ("two_calls", 2)):
        user = USER_ONE if n_calls == 1 else USER_TWO
        calls = [R.call(ids[i], EXPECTED_CALLS[i]["name"], EXPECTED_CALLS[i]["arguments"], args_mode)
                 for i in range(n_calls)]
        if prefix is None or (n_calls == 2 and info.get("parallel", True) is False):
            turns[key] = None
            continue
        msgs = [SYSTEM, user, {"role": "assistant", "content": empty, "tool_calls": calls}]
        try:
            full = _render(R, src, msgs, rcfg, False, settings)
            pre = _render(R, src, [SYSTEM, user], rcfg, True, settings)
        except jinja2.exceptions.TemplateError as e:  # Llama 3.x refuse two calls
            turns[key] = None
            rec.setdefault("render_errors", {})[key] = f"{type(e).__name__}: {e}"
            continue
        if header is None:
            assert full.startswith(pre), f"{name}: prefix render is not a prefix; set a header"
            raw = full[len(pre):]
        else:
            last_user = full.rindex(user["content"])
            i = full.index(header, last_user)
            raw = full[i + len(header):]
            if info.get("turn_ends_before"):
                raw = raw[: raw.index(info["turn_ends_before"])]
            assert user["content"] not in raw
        turn, eot, after = split_eot(raw, info.get("eot"))
        has_calls = all(c["name"] in turn for c in EXPECTED_CALLS[:n_calls])
        renders_calls = renders_calls or has_calls
        exp = []
        for i in range(n_calls):
            c = {"name": EXPECTED_CALLS[i]["name"], "arguments": EXPECTED_CALLS[i]["arguments"]}
            w = info.get("ids_written")
            if w:
                assert w[i] in turn, (name, w[i])
                c["id"] = w[i]
            exp.append(c)
        turns[key] = {
            "turn": turn,
            "end_of_turn": eot,
            "after_end_of_turn": after,
            "expected": {"content": None, "reasoning": None, "calls": exp if has_calls else []},
        }
    rec["renders_calls"] = renders_calls
    if not renders_calls:
        for v in turns.values():
            if v is not None:
                v["expected"]["calls"] = []
    rec["parallel"] = bool(renders_calls and turns.get("two_calls") and turns["two_calls"]["expected"]["calls"])
    rec["end_of_turn"] = {"marker": info.get("eot"), "basis": info.get("eot_basis")}
    rec["one_call"] = turns.get("one_call")
    rec["two_calls"] = turns.get("two_calls")
    rec["notes"] = info.get("notes", [])
    return rec


def build_all() -> dict[str, str]:
    """Return {relative path: file text} for every generated file."""
    R = load_render_module()
    envs = {"immutable": R.make_env(), "mutable": R.make_env(mutable=True)}
    cfgs = json.loads((TEMPLATES / "rendered" / "render_cfg.json").read_text(encoding="utf-8"))
    sources = parse_sources()
    names = template_names()
    missing = sorted(set(names) - set(T))
    extra = sorted(set(T) - set(names))
    assert not missing and not extra, (missing, extra)
    files: dict[str, str] = {}
    index = {}
    for name in names:
        rec = build_template(R, envs, name, cfgs, sources)
        files[f"{name}.json"] = dump(rec)
        index[f"{name}.jinja"] = {"format": rec["format"], "family": rec["family"],
                                  "renders_calls": rec["renders_calls"], "parallel": rec["parallel"]}
    files["index.json"] = dump(index)
    from_cases = build_cases()
    for fmt, data in from_cases.items():
        files[f"cases/{fmt}.json"] = dump(data)
    return files


def dump(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, indent=1) + "\n"


# ----------------------------------------------------------------------------------------------------------------
# Hand-written model outputs from FORMATS-NEXT's test tables (llama.cpp tests/test-chat.cpp at 0c1e57098 unless the
# source says otherwise). "input" is the model output after the generation prompt. "reconstructed": FORMATS-NEXT
# abbreviates the input ("…", "the same with …"); the text here is rebuilt from that description in the family's
# established syntax and must not be cited as upstream bytes.

def _call(name, arguments, id_=None):
    c = {"name": name, "arguments": arguments}
    if id_ is not None:
        c["id"] = id_
    return c


def _case(source, template, input_, expected_calls, content=None, reasoning=None, settings=None, note=None,
          reconstructed=False, upstream_result=None):
    c = {"source": source, "template": template, "settings": settings or {}, "input": input_,
         "reconstructed": reconstructed,
         "expected": {"content": content, "reasoning": reasoning, "calls": expected_calls}}
    if upstream_result is not None:
        c["upstream_result"] = upstream_result
    if note:
        c["note"] = note
    return c


TC = "tests/test-chat.cpp:"
SF = "special_function"
A1 = {"arg1": 1}
DSK = {"begin": "<｜tool▁calls▁begin｜>", "cb": "<｜tool▁call▁begin｜>", "sep": "<｜tool▁sep｜>",
       "ce": "<｜tool▁call▁end｜>", "end": "<｜tool▁calls▁end｜>"}
FENCE = "```"


def _dsml_invoke(name, params):
    body = "".join(f'<｜DSML｜parameter name="{k}" string="{s}">{v}</｜DSML｜parameter>\n' for k, s, v in params)
    return f'<｜DSML｜invoke name="{name}">\n{body}</｜DSML｜invoke>\n'


def _dsml(*invokes):
    return "<｜DSML｜function_calls>\n" + "".join(invokes) + "</｜DSML｜function_calls>"


KIMI_SF0 = "<|tool_call_begin|>functions.special_function:0<|tool_call_argument_begin|>{\"arg1\": 1}<|tool_call_end|>"
KIMI_SEC = "<|tool_calls_section_begin|>" + KIMI_SF0 + "<|tool_calls_section_end|>"
COHERE_SF = ("<|START_ACTION|>[\n    {\"tool_call_id\": \"0\", \"tool_name\": \"special_function\", "
             "\"parameters\": {\"arg1\": 1}}\n]<|END_ACTION|>")


def build_cases() -> dict[str, dict]:
    th_on = {"reasoning": "on"}
    th_off = {"reasoning": "off"}
    cases: dict[str, list] = {
        "gpt_oss": [
            _case(TC + "6457", "openai-gpt-oss-120b",
                  " to=functions.special_function<|channel|>analysis<|message|>{\"arg1\": 1}", [_call(SF, A1)]),
            _case(TC + "6464", "openai-gpt-oss-120b",
                  "<|channel|>analysis to=functions.special_function<|message|>{\"arg1\": 1}", [_call(SF, A1)]),
            _case(TC + "6471", "openai-gpt-oss-120b",
                  " to=functions.special_function<|channel|>analysis <|constrain|>json<|message|>{\"arg1\": 1}",
                  [_call(SF, A1)]),
            _case(TC + "6486-6487", "openai-gpt-oss-120b",
                  "<|channel|>analysis<|message|>I'm\nthinking<|end|><|start|>assistant to=functions.special_function"
                  "<|channel|>analysis<|message|>{\"arg1\": 1}", [_call(SF, A1)], reasoning="I'm\nthinking"),
            _case(TC + "6495-6497", "openai-gpt-oss-120b",
                  "<|channel|>analysis<|message|>Thinking about edit...<|end|><|start|>assistant<|channel|>commentary "
                  "to=functions.edit <|constrain|>json<|message|>{\"oldString\": \"if (part < railCount - 1) {\", "
                  "\"newString\": \"if (part < 4) {\", \"replaceAll\": false}",
                  [_call("edit", {"oldString": "if (part < railCount - 1) {", "newString": "if (part < 4) {",
                                  "replaceAll": False})], reasoning="Thinking about edit..."),
            _case(TC + "6548-6549", "openai-gpt-oss-120b",
                  "<|channel|>analysis<|message|>I will execute python to say hello<|end|><|start|>assistant "
                  "to=container.exec<|channel|>commentary<|message|>python3 -c 'print(\"hello\")'", [],
                  content="", reasoning="I will execute python to say hello",
                  note="unsolicited recipient (container.exec) is consumed and dropped"),
        ],
        "deepseek_v3_1": [
            _case(TC + "3920-3922", "deepseek-ai-DeepSeek-V3.1",
                  DSK["begin"] + DSK["cb"] + "get_time" + DSK["sep"] + "{\"city\": \"XYZCITY\"}" + DSK["ce"]
                  + DSK["end"],
                  [_call("get_time", {"city": "XYZCITY"})], settings=th_off),
            _case(TC + "3953-3955", "deepseek-ai-DeepSeek-V3.1",
                  "REASONING</think>" + DSK["begin"] + DSK["cb"] + "get_time" + DSK["sep"] + "{\"city\": \"Tokyo\"}"
                  + DSK["ce"] + DSK["end"], [_call("get_time", {"city": "Tokyo"})], reasoning="REASONING",
                  settings={**th_on, "generation_prompt_ends": "<think>"}),
            _case(TC + "3965-3968", "deepseek-ai-DeepSeek-V3.1",
                  "REASONING</think>CONTENT" + DSK["begin"] + DSK["cb"] + "get_time" + DSK["sep"]
                  + "{\"city\": \"Paris\"}" + DSK["ce"] + DSK["cb"] + "get_weather" + DSK["sep"]
                  + "{\"city\": \"Paris\"}" + DSK["ce"] + DSK["end"],
                  [_call("get_time", {"city": "Paris"}), _call("get_weather", {"city": "Paris"})],
                  content="CONTENT", reasoning="REASONING", settings={**th_on, "parallel": True}),
            _case(TC + "3983", "deepseek-ai-DeepSeek-V3.1", "REASONING</think>\nCONTENT", [], content="CONTENT",
                  reasoning="REASONING", settings=th_on,
                  note="the test writes \"REASONING\\n\"; compared after stripping (FORMATS-NEXT §0.2)"),
        ],
        "deepseek_r1": [
            _case(TC + "6029-6031", "llama-cpp-deepseek-r1",
                  "</think>" + DSK["begin"] + DSK["cb"] + "function" + DSK["sep"] + "special_function\n" + FENCE
                  + "json\n{\"arg1\": 1}" + FENCE + DSK["ce"] + DSK["end"], [_call(SF, A1)],
                  settings={"generation_prompt_ends": "<think>\n"},
                  note="no newline between the JSON and the closing fence (template, vLLM, SGLang, xgrammar put one)"),
            _case(TC + "6070-6072", "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B",
                  DSK["begin"] + DSK["cb"] + "function" + DSK["sep"] + "special_function\n" + FENCE
                  + "json\n{\"arg1\": 1}" + FENCE + DSK["ce"] + DSK["end"], [_call(SF, A1)], settings=th_off,
                  note="no newline between the JSON and the closing fence"),
            _case(TC + "6024", "llama-cpp-deepseek-r1", "</think>Hello, world!\nWhat's up?", [],
                  content="Hello, world!\nWhat's up?", settings={"generation_prompt_ends": "<think>\n"}),
        ],
        "deepseek_dsml": [
            _case(TC + "4022-4028", "deepseek-ai-DeepSeek-V3.2",
                  "Let me check the time</think>\n\n" + _dsml(_dsml_invoke("get_time", [("city", "true", "Tokyo")])),
                  [_call("get_time", {"city": "Tokyo"})], reasoning="Let me check the time", settings=th_on),
            _case(TC + "4036-4041", "deepseek-ai-DeepSeek-V3.2",
                  _dsml(_dsml_invoke(SF, [("arg1", "false", "1")])), [_call(SF, A1)], settings=th_off),
            _case(TC + "4049-4057", "deepseek-ai-DeepSeek-V3.2",
                  "Calling both</think>\n\n" + _dsml(_dsml_invoke("get_time", [("city", "true", "Paris")]),
                                                     _dsml_invoke("get_weather", [("city", "true", "Paris")])),
                  [_call("get_time", {"city": "Paris"}), _call("get_weather", {"city": "Paris"})],
                  reasoning="Calling both", settings={**th_on, "parallel": True}, reconstructed=True),
            _case(TC + "4069-4075", "deepseek-ai-DeepSeek-V3.2",
                  "Thinking about it</think>Let me call the function.\n\n" + _dsml(
                      _dsml_invoke(SF, [("arg1", "false", "1")])),
                  [_call(SF, A1)], content="Let me call the function.", reasoning="Thinking about it",
                  settings=th_on, reconstructed=True),
        ],
        "kimi_k2": [
            _case(TC + "4974-4976", "Kimi-K2-Thinking", KIMI_SEC, [_call(SF, A1, "functions.special_function:0")]),
            _case(TC + "4983-4985", "Kimi-K2-Thinking", "<think>I'm thinking about this</think>" + KIMI_SEC,
                  [_call(SF, A1, "functions.special_function:0")], reasoning="I'm thinking about this"),
            _case(TC + "4993-4995", "Kimi-K2-Thinking", "Hello, world!\nWhat's up?" + KIMI_SEC,
                  [_call(SF, A1, "functions.special_function:0")], content="Hello, world!\nWhat's up?"),
            _case(TC + "5001-5005", "Kimi-K2-Thinking",
                  "<|tool_calls_section_begin|>" + KIMI_SF0 + "<|tool_call_begin|>functions.special_function_with_opt:1"
                  "<|tool_call_argument_begin|>{\"arg1\": 1, \"arg2\": 2}<|tool_call_end|><|tool_calls_section_end|>",
                  [_call(SF, A1, "functions.special_function:0"),
                   _call("special_function_with_opt", {"arg1": 1, "arg2": 2}, "functions.special_function_with_opt:1")],
                  settings={"parallel": True}, reconstructed=True),
            _case(TC + "5084-5088", "Kimi-K2-Thinking",
                  "<think>I need to call two functions<|tool_calls_section_begin|>" + KIMI_SF0
                  + "<|tool_call_begin|>functions.python:1<|tool_call_argument_begin|>{\"code\": \"print('hey')\"}"
                  "<|tool_call_end|><|tool_calls_section_end|>",
                  [_call(SF, A1, "functions.special_function:0"), _call("python", {"code": "print('hey')"},
                                                                         "functions.python:1")],
                  reasoning="I need to call two functions", settings={"parallel": True}, reconstructed=True,
                  note="calls inside unclosed <think>; python's arguments taken from line 5103 ('same two calls')"),
            _case(TC + "5103-5105", "Kimi-K2-Thinking",
                  "<think>I need to call two functions<|tool_call_begin|>functions.special_function:0"
                  "<|tool_call_argument_begin|>{\"arg1\": 1}<|tool_call_begin|>functions.python:1"
                  "<|tool_call_argument_begin|>{\"code\": \"print('hey')\"}",
                  [_call(SF, A1, "functions.special_function:0"), _call("python", {"code": "print('hey')"},
                                                                         "functions.python:1")],
                  reasoning="I need to call two functions", settings={"parallel": True},
                  note="no section markers and no <|tool_call_end|> at all, inside unclosed <think>"),
        ],
        "glm4": [
            _case(TC + "4389-4392", "GLM-4.6",
                  "<tool_call>special_function\n<arg_key>arg1</arg_key>\n<arg_value>1</arg_value>\n</tool_call>",
                  [_call(SF, A1)]),
        ],
        "glm4_7": [
            _case(TC + "4419-4422", "GLM-4.7-Flash",
                  "<tool_call>special_function<arg_key>arg1</arg_key><arg_value>1</arg_value></tool_call>",
                  [_call(SF, A1)], settings=th_off),
            _case(TC + "4430-4434", "GLM-4.7-Flash",
                  "I'm\nthinking</think><tool_call>special_function<arg_key>arg1</arg_key><arg_value>1</arg_value>"
                  "</tool_call>", [_call(SF, A1)], reasoning="I'm\nthinking", settings=th_on),
            _case(TC + "4442-4448", "GLM-4.7-Flash",
                  "<tool_call>special_function<arg_key>arg1</arg_key><arg_value>1</arg_value></tool_call><tool_call>"
                  "special_function_with_opt<arg_key>arg1</arg_key><arg_value>1</arg_value><arg_key>arg2</arg_key>"
                  "<arg_value>2</arg_value></tool_call>",
                  [_call(SF, A1), _call("special_function_with_opt", {"arg1": 1, "arg2": 2})],
                  settings={"parallel": True}),
            _case(TC + "4468-4471", "GLM-4.7-Flash",
                  "Let me read the diff content.</think><tool_call>read_file_diff_md</tool_call>",
                  [_call("read_file_diff_md", {})], reasoning="Let me read the diff content.",
                  settings=th_on,
                  note="llama.cpp #20650: no argument tags when no argument is required"),
            _case(TC + "4630-4635", "GLM-4.7-Flash",
                  "Thinking.\n</think><tool_call>get_weather<arg_key>city</arg_key><arg_value>Tokyo</arg_value>"
                  "</tool_call>\n", [_call("get_weather", {"city": "Tokyo"})], reasoning="Thinking.",
                  settings=th_on,
                  upstream_result="the test asserts std::runtime_error but only runs with a template filter; the "
                  "parser at 0c1e57098 accepts the input (FORMATS-NEXT §4, §9.2): treat the test as stale",
                  note="expected = what llama.cpp's parser returns at this commit"),
        ],
        "mistral": [
            _case(TC + "5917", "mistralai-Mistral-Nemo-Instruct-2407",
                  "[TOOL_CALLS][{\"name\": \"special_function\", \"arguments\": {\"arg1\": 1}, \"id\": \"123456789\"}]",
                  [_call(SF, A1, "123456789")]),
            _case("vLLM tests/tool_parsers/test_mistral_tool_parser.py@ff583b3 "
                  "test_extract_tool_calls_pre_v11_tokenizer[single_tool_weather]", None,
                  "[TOOL_CALLS] [{\"name\": \"get_current_weather\", \"arguments\":{\"city\": \"San Francisco\", "
                  "\"state\": \"CA\", \"unit\": \"celsius\"}}]",
                  [_call("get_current_weather", {"city": "San Francisco", "state": "CA", "unit": "celsius"})],
                  settings={"space_after_tool_calls": True},
                  note="no \"id\": vLLM accepts it; llama.cpp's auto-parser requires the id field (§5.1, §9.2)"),
        ],
        "mistral_args": [
            _case(TC + "6254", "Mistral-Small-3.2-24B-Instruct-2506",
                  "[TOOL_CALLS]special_function[CALL_ID]123456789[ARGS]{\"arg1\": 1}", [_call(SF, A1, "123456789")],
                  settings={"call_id": True}),
            _case(TC + "6260-6261", "Mistral-Small-3.2-24B-Instruct-2506",
                  "[TOOL_CALLS]special_function[CALL_ID]000000001[ARGS]{\"arg1\": 1}[TOOL_CALLS]"
                  "special_function_with_opt[CALL_ID]000000002[ARGS]{\"arg1\": 1, \"arg2\": 2}",
                  [_call(SF, A1, "000000001"), _call("special_function_with_opt", {"arg1": 1, "arg2": 2}, "000000002")],
                  settings={"call_id": True, "parallel": True}),
            _case(TC + "6290", "unsloth-mistral-Devstral-Small-2507",
                  "Hello, world!\nWhat's up?[TOOL_CALLS]special_function[ARGS]{\"arg1\": 1}", [_call(SF, A1)],
                  content="Hello, world!\nWhat's up?", settings={"call_id": False}),
            _case(TC + "2660-2662", "mistralai-Ministral-3-14B-Reasoning-2512",
                  "[THINK]Let me think about [TOOL_CALLS]special_function[ARGS]{\"arg1\":1} and more[/THINK]"
                  "[TOOL_CALLS]special_function[ARGS]{\"arg1\": 1}", [_call(SF, A1)],
                  reasoning="Let me think about [TOOL_CALLS]special_function[ARGS]{\"arg1\":1} and more",
                  settings={"call_id": False, **th_on}, note="a [TOOL_CALLS] inside reasoning must not trigger"),
        ],
        "minimax_m2": [
            _case(TC + "5443", "MiniMax-M2", "\n</think>\n\nHello, world!\nWhat's up?", [],
                  content="Hello, world!\nWhat's up?", settings={"generation_prompt_ends": "<think>\n"}),
            _case(TC + "5447", "MiniMax-M2",
                  "Let's call a tool:\n</think>\n\n<minimax:tool_call>\n<invoke name=\"empty_args\">\n</invoke>\n"
                  "</minimax:tool_call>", [_call("empty_args", {})], reasoning="Let's call a tool:",
                  settings={"generation_prompt_ends": "<think>\n"}),
            _case(TC + "5454-5456", "MiniMax-M2",
                  "\n</think>\n\n<minimax:tool_call>\n<invoke name=\"special_function\">\n<parameter name=\"arg1\">1"
                  "</parameter>\n</invoke>\n</minimax:tool_call>", [_call(SF, A1)],
                  settings={"generation_prompt_ends": "<think>\n"}),
        ],
        "nemotron": [
            _case(TC + "5852", "NVIDIA-Nemotron-Nano-v2",
                  "I'm\nthinking\n</think>\n<TOOLCALL>[{\"name\": \"special_function\", \"arguments\": {\"arg1\": 1}}]"
                  "</TOOLCALL>", [_call(SF, A1)], reasoning="I'm\nthinking",
                  settings={"generation_prompt_ends": "<think>\n"}),
            _case(TC + "5858", "NVIDIA-Nemotron-Nano-v2",
                  "I'm\nthinking\n</think>\n\n<TOOLCALL>[{\"name\": \"special_function\", "
                  "\"arguments\": {\"arg1\": 1}}]</TOOLCALL>\n", [_call(SF, A1)], reasoning="I'm\nthinking",
                  settings={"generation_prompt_ends": "<think>\n"}, reconstructed=True,
                  note="FORMATS-NEXT: 'the same with \\n\\n before and \\n after the block'"),
        ],
        "hermes": [
            _case(TC + "3411-3414", "ibm-granite-granite-4.0",
                  "<tool_call>\n{\"name\": \"special_function\", \"arguments\": {\"arg1\": 1}}\n</tool_call>",
                  [_call(SF, A1)]),
            _case(TC + "3434-3437", "ibm-granite-granite-4.1",
                  "<tool_call>\n{\"name\": \"special_function\", \"arguments\": {\"arg1\": 1}}\n</tool_call>",
                  [_call(SF, A1)], note="FORMATS-NEXT §7.2 gives the same input for both Granite 4 tests"),
        ],
        "lfm2": [
            _case(TC + "2022", "LFM2-8B-A1B", "<|tool_call_start|>[special_function(arg1=1)]<|tool_call_end|>",
                  [_call(SF, A1)], note="test_lfm2_parser runs for all three LFM2 templates"),
            _case(TC + "2034", "LFM2-8B-A1B", "<|tool_call_start|>[toggle(enabled=True)]<|tool_call_end|>",
                  [_call("toggle", {"enabled": True})], reconstructed=True,
                  note="FORMATS-NEXT quotes only the list; markers added"),
            _case(TC + "2057-2058", "LFM2-8B-A1B",
                  "<|tool_call_start|>[Calendar.create_event(title=\"demo\", participants=[\"Alice\", \"Bob\"], "
                  "metadata={\"priority\": \"high\", \"reminder\": true})]<|tool_call_end|>",
                  [_call("Calendar.create_event", {"title": "demo", "participants": ["Alice", "Bob"],
                                                   "metadata": {"priority": "high", "reminder": True}})],
                  reconstructed=True, note="dotted name kept; JSON literal true inside a Python call; markers added"),
            _case(TC + "2090", "LFM2-8B-A1B",
                  "<|tool_call_start|>[python(code=\"print(\\\"hi\\\")\")]<|tool_call_end|>",
                  [_call("python", {"code": "print(\"hi\")"})], reconstructed=True,
                  note="string escapes decoded; markers added"),
            _case(TC + "2098", "LFM2-8B-A1B",
                  "Let me check the time.<|tool_call_start|>[get_time(city=\"Paris\")]<|tool_call_end|>",
                  [_call("get_time", {"city": "Paris"})], content="Let me check the time."),
            _case(TC + "2106", "LFM2-8B-A1B",
                  "<|tool_call_start|>[special_function(arg1=1), special_function_with_opt(arg1=1, arg2=2)]"
                  "<|tool_call_end|>", [_call(SF, A1), _call("special_function_with_opt", {"arg1": 1, "arg2": 2})],
                  settings={"parallel": True}, reconstructed=True, note="markers added"),
        ],
        "command_r7b": [
            _case(TC + "2837-2841", "CohereForAI-c4ai-command-r7b-12-2024-tool_use",
                  "<|START_THINKING|>I'm\nthinking<|END_THINKING|>" + COHERE_SF, [_call(SF, A1, "0")],
                  reasoning="I'm\nthinking", settings={**th_on, "variant": "command_r7b"}),
            _case(TC + "2856-2860", "CohereForAI-c4ai-command-r7b-12-2024-tool_use",
                  "<|START_THINKING|><|END_THINKING|>" + COHERE_SF, [_call(SF, A1, "0")],
                  settings={"variant": "command_r7b"}, reconstructed=True,
                  note="FORMATS-NEXT: 'same with empty thinking'"),
            _case(TC + "2904-2907", "Cohere2MoE", "I'm\nthinking<|END_THINKING|>" + COHERE_SF, [_call(SF, A1, "0")],
                  reasoning="I'm\nthinking",
                  settings={"variant": "cohere2moe", "generation_prompt_ends": "<|START_THINKING|>"},
                  reconstructed=True, note="action list elided in FORMATS-NEXT ('[…]'); the 2837 list is used"),
        ],
        "apertus": [
            _case(TC + "5424", "Apertus-8B-Instruct", "<|tools_prefix|>[{\"special_function\": {\"arg1\": 1}}]"
                  "<|tools_suffix|>", [_call(SF, A1)]),
        ],
        "apriel": [
            _case(TC + "6192", "unsloth-Apriel-1.5",
                  "<tool_calls>[{\"name\": \"special_function\", \"arguments\": {\"arg1\": 1}}]</tool_calls>",
                  [_call(SF, A1)]),
        ],
        "command_r_plus": [
            _case(TC + "5895-5898", "CohereForAI-c4ai-command-r-plus-tool_use",
                  "Action:\n```json\n[{\"tool_name\": \"special_function\", \"parameters\": {\"arg1\": 1}}]\n```",
                  [_call(SF, A1)]),
        ],
    }
    out = {}
    for fmt, lst in cases.items():
        assert fmt in KNOWN_IDS, fmt
        out[fmt] = {
            "format": fmt,
            "tools": "llama.cpp test-chat.cpp test tools (special_function(arg1: integer), special_function_with_opt"
                     "(arg1, arg2: integer), python(code: string), get_time/get_weather(city: string), ...); their "
                     "schemas are (not established) in FORMATS-NEXT: argument types here follow the expected values",
            "cases": lst,
        }
    return out


def main(argv: list[str]) -> int:
    files = build_all()
    if "--check" in argv:
        bad = [p for p, text in files.items()
               if not (OUT / p).is_file() or (OUT / p).read_text(encoding="utf-8") != text]
        for p in bad:
            print(f"differs: tests/data/families/{p}", file=sys.stderr)
        return 1 if bad else 0
    for p, text in files.items():
        path = OUT / p
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    print(f"wrote {len(files)} files to {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
