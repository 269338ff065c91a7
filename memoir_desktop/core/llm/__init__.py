"""The LLM side of the core: the gate every request passes (purposes and privacy), an
OpenAI-compatible client, the capability probe, the tolerant reply reader and the typed tool
arguments."""

from memoir_desktop.core.llm.client import LLMBadReply, LLMClient, LLMError, LLMUnavailable, Tool
from memoir_desktop.core.llm.gate import Clearance, Gate, PrivacyLens, PrivateRefused
from memoir_desktop.core.llm.purposes import PURPOSES, Purpose, UnregisteredPurpose

__all__ = ["PURPOSES", "Clearance", "Gate", "LLMBadReply", "LLMClient", "LLMError", "LLMUnavailable",
           "PrivacyLens", "PrivateRefused", "Purpose", "Tool", "UnregisteredPurpose"]
