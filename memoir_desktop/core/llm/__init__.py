"""The LLM side of the core: an OpenAI-compatible client, the capability probe, the tolerant
reply reader and the typed tool arguments."""

from memoir_desktop.core.llm.client import LLMBadReply, LLMClient, LLMError, LLMUnavailable, Tool

__all__ = ["LLMBadReply", "LLMClient", "LLMError", "LLMUnavailable", "Tool"]
