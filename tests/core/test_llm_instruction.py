"""In JSON mode and plain text the model is shown the shape to fill in, not a JSON schema: small
models (Qwen2.5 0.5B, SmolLM2 135M on llama.cpp) answered a schema with the schema itself
(tests/data/llm_servers/llama_cpp.json), so memoir read no fact from them."""

import json
import re

from memoir_desktop.core.llm import LLMClient, modes, prompts
from tests.fakes.fake_llm import FakeLLM


def copies_the_json_it_is_shown(req):
    """A small model's habit: the reply is the last JSON object of the prompt, as written there."""
    shown = re.findall(r"\{.*\}", req["messages"][-1]["content"])
    return shown[-1] if shown else ""


def test_a_model_that_copies_what_it_is_shown_gets_a_shape_it_can_fill():
    server = FakeLLM(capabilities={"json_object"})
    try:
        del server.rules["memoir_check"]  # the probe's request goes to the text rule, instruction and all
        server.on_text(copies_the_json_it_is_shown)
        client = LLMClient(base_url=server.url, api_key=None, model="small", max_retries=0)
        caps = client.probe()
        assert caps.mode == "json_object", caps.tried
    finally:
        server.close()


def test_the_instruction_names_every_field_and_its_choices_without_schema_words():
    text = modes.instruction("memory_operations", prompts.UPDATE_TOOL.parameters)
    shape = json.loads(text.split("Fill in this shape: ", 1)[1])
    assert shape == {"operations": [{"fact": 0, "event": "ADD", "id": None, "text": "..."}]}
    assert "ADD, UPDATE, DELETE, NOOP" in text and "Leave out id, text" in text
    assert '"properties"' not in text and '"type"' not in text
    # Placeholders a model may copy do nothing: no id to mark obsolete, no memory to rank.
    assert modes.example(prompts.GRAPH_OBSOLETE_TOOL.parameters) == {"obsolete": []}
    assert modes.example(prompts.RERANK_TOOL.parameters) == {"relevant": []}
