"""A real llama.cpp server (llama-cpp-python's `llama_cpp.server`) with a small GGUF model, for what
the fake cannot show: real refusals, real slowness, real replies.

Runs where llama-cpp-python is installed (`pip install "llama-cpp-python[server]"`) and
MEMOIR_TEST_MODELS names a folder holding qwen0.5b.gguf and/or smollm2.gguf
(tests/tools/local_model.sh fetches them); skipped, saying which is missing, elsewhere.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from tests.real_llm.llama_server import MODELS, LlamaServer, start_working

FETCH = ("fetch them with tests/tools/local_model.sh qwen0.5b DIR/qwen0.5b.gguf and "
         "tests/tools/local_model.sh smollm2 DIR/smollm2.gguf, then set MEMOIR_TEST_MODELS=DIR")


def model_file(label: str) -> Path:
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip('llama-cpp-python is not installed (pip install "llama-cpp-python[server]")')
    folder = os.environ.get("MEMOIR_TEST_MODELS")
    if not folder:
        pytest.skip(f"MEMOIR_TEST_MODELS is not set: {FETCH}")
    path = Path(folder) / MODELS[label]
    if not path.is_file():
        pytest.skip(f"{path} is missing: {FETCH}")
    return path


def _serve(label: str, tmp_path_factory) -> LlamaServer:
    path = model_file(label)
    log = tmp_path_factory.mktemp(f"llama-{label}") / "server.log"
    return start_working(path, log=log)


@pytest.fixture(scope="session")
def qwen_server(tmp_path_factory):
    server = _serve("qwen", tmp_path_factory)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def smollm2_server(tmp_path_factory):
    server = _serve("smollm2", tmp_path_factory)
    yield server
    server.stop()


@pytest.fixture
def own_smollm2_server(tmp_path_factory):
    """A server of the test's own, for a test that leaves it busy or kills it."""
    server = _serve("smollm2", tmp_path_factory)
    yield server
    server.stop()
