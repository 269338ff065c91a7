"""Tests against a real local LLM server (llama-cpp-python); skipped where it is not installed."""
