"""Record what a real llama.cpp server answers to each way memoir asks (modes.py): the status code and
body of every refusal, and what a working mode replies, for tests/data/llm_servers/llama_cpp.json.

usage: python tests/tools/record_llama_cpp.py MODELS_DIR [OUT.json]
  MODELS_DIR holds qwen0.5b.gguf and/or smollm2.gguf (tests/tools/local_model.sh fetches them).
Needs llama-cpp-python[server] in this Python. Sends the probe's request and a small extraction
request in each mode, with the same bodies the client builds, straight over HTTP so nothing is
retried or interpreted on the way.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from datetime import date
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from memoir_desktop.core.llm import (  # noqa: E402
    modes,
    probe,
    prompts,  # noqa: E402
)
from tests.real_llm.llama_server import MODELS, start_working  # noqa: E402

ENTRY = ("user: I started learning the cello last month. My sister Mina lives in Busan. "
         "I walk my dog Bori every morning. I don't like coffee any more.")


def requests() -> list[tuple[str, str, dict]]:
    system = prompts.EXTRACTION_SYSTEM.format(categories=", ".join(prompts.FACT_CATEGORIES))
    user = prompts.EXTRACTION_USER.format(today="2026-03-13", weekday="Friday", summary="(none yet)", recent="(none)", new=ENTRY)
    tool = prompts.EXTRACTION_TOOL
    out = []
    for mode in modes.MODES:
        kw = modes.request(mode, probe.PROBE_MESSAGES, probe.PROBE_TOOL, "Echo a word.", probe.PROBE_SCHEMA)
        out.append(("probe", mode, {**kw, "max_tokens": 64}))
        kw = modes.request(mode, [{"role": "system", "content": system}, {"role": "user", "content": user}],
                           tool.name, tool.description, tool.parameters)
        out.append(("extraction", mode, {**kw, "max_tokens": 512}))
    return out


def ask(url: str, body: dict) -> dict:
    start = time.perf_counter()
    try:
        r = httpx.post(url + "/chat/completions", json={"model": "local", **body}, timeout=600)
    except httpx.HTTPError as exc:
        return {"status": None, "error": f"{exc.__class__.__name__}: {exc}",
                "seconds": round(time.perf_counter() - start, 2)}
    row: dict = {"status": r.status_code, "seconds": round(time.perf_counter() - start, 2)}
    try:
        data = r.json()
    except ValueError:
        row["body_text"] = r.text[:4000]
        return row
    if r.status_code != 200:
        row["body"] = data
        return row
    choice = data["choices"][0]
    row.update(message=choice["message"], finish_reason=choice.get("finish_reason"), usage=data.get("usage"))
    return row


def main() -> None:
    folder = Path(sys.argv[1])
    out_path = Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT / "tests" / "data" / "llm_servers" / "llama_cpp.json"
    import llama_cpp

    record: dict = {
        "about": "What llama-cpp-python's OpenAI-compatible server (python -m llama_cpp.server --chat_format chatml "
                 "--n_threads 2) answered to each way memoir asks, recorded by tests/tools/record_llama_cpp.py. "
                 "'probe' is the probe's request (probe.py), 'extraction' a small extraction request "
                 "(prompts.EXTRACTION_TOOL) in the same mode; bodies are the server's own bytes, parsed.",
        "server": f"llama-cpp-python {llama_cpp.__version__}",
        "recorded": date.today().isoformat(),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "note": "'seconds' is wall time on a machine shared with other work, not a benchmark. 'repacking': false "
                "means llama.cpp's weight-repacking kernels crashed the server on this CPU (AMX on a VM), so it "
                "ran without them (tests/real_llm/llama_server.py). The 200 replies depend on memoir's prompts "
                "at the time of recording; the refusals do not.",
        "models": {},
    }
    for label, name in MODELS.items():
        path = folder / name
        if not path.exists():
            continue
        server = start_working(path)
        rows = []
        try:
            record["models"][label] = {"file": name, "repacking": server.extra_bufts, "replies": rows}
            for stage, mode, body in requests():
                if not server.running:  # a crash is recorded once; the next request gets a fresh server
                    server = start_working(path)
                row = {"stage": stage, "mode": mode, **ask(server.url, body)}
                row["server_survived"] = server.running
                rows.append(row)
                print(label, stage, mode, row.get("status"), row.get("seconds"), flush=True)
        finally:
            server.stop()
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(out_path)


if __name__ == "__main__":
    main()
