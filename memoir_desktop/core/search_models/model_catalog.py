"""Stronger search models the user may choose to download: what they are, where from, and fetching them.

Nothing here is fetched unless the user asks (Settings → Search). Each model comes from its public
home on the Hugging Face Hub, at a named revision. Every file is checked against what the Hub
publishes for it — the SHA-256 of a large (LFS) file, the git blob id of a small one — and its size;
a download goes to a partial file that the next try continues (model_files.download) and is renamed
into place only once verified, so a cut line, a cancelled download or a killed app never leaves a
half model that could be loaded. The model's folder gets a manifest last: a folder without one is
not installed.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import platform
import shutil
import tempfile
import threading
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from memoir_desktop.core.search_models import model_engine, model_files
from memoir_desktop.core.search_models.cross_encoder import CrossEncoder, CrossEncoderUnavailable
from memoir_desktop.core.search_models.model_files import ModelUnavailable, Progress
from memoir_desktop.core.search_models.onnx_embedder import EmbedderUnavailable, OnnxEmbedder

MANIFEST = "manifest.json"
HUB = "https://huggingface.co"
# One download at a time: two (a second window, a retry clicked early) would write one partial file.
_installing = threading.Lock()


@dataclass(frozen=True)
class CatalogModel:
    key: str  # folder name under the models folder, and the settings value
    kind: str  # "reranker" | "embedder"
    title: str
    repo: str  # owner/name on the Hub
    revision: str
    # local name -> the repository paths to take it from, first present wins (the int8 build that
    # suits this processor first, the full-precision one last)
    files: dict[str, tuple[str, ...]]
    size_mb: int  # what the download weighs, roughly, for the offer
    license: str
    # an embedder: how its vectors are made (onnx_embedder.py) and the similarities that mean
    # something for it (search/floor.py, Embedder.related_threshold, pipeline/graph.py)
    pooling: str = ""
    query_prefix: str = ""
    doc_prefix: str = ""
    calibration: dict | None = None


def cpu_flags() -> set[str]:
    """The processor's feature flags where the system tells them (Linux), else none."""
    try:
        text = Path("/proc/cpuinfo").read_text("utf-8", "ignore")
    except OSError:
        return set()
    line = next((ln for ln in text.splitlines() if ln.startswith("flags")), "")
    return set(line.partition(":")[2].split())


def _int8_onnx(flags: set[str] | None = None) -> tuple[str, ...]:
    """The model files to look for, best for this processor first. Signed int8 weights ran 30 pairs
    in 93 ms p50 where unsigned took 190 (an AVX-512 VNNI Xeon, eval/bench_rerank.py); without VNNI the
    signed kind can saturate on AVX2, which is why the AVX2 build is unsigned. Any of them runs on
    any x86 processor (onnxruntime picks its kernels at run time): the choice is speed, not whether."""
    if platform.machine().lower() in ("arm64", "aarch64"):
        fast: tuple[str, ...] = ("onnx/model_qint8_arm64.onnx",)
    else:
        flags = cpu_flags() if flags is None else flags
        if flags & {"avx512_vnni", "avx_vnni"}:
            fast = ("onnx/model_qint8_avx512_vnni.onnx", "onnx/model_quint8_avx2.onnx")
        elif "avx512f" in flags:
            fast = ("onnx/model_qint8_avx512.onnx", "onnx/model_quint8_avx2.onnx")
        else:
            fast = ("onnx/model_quint8_avx2.onnx",)
    return fast + ("onnx/model_quantized.onnx", "onnx/model.onnx")


RERANKER = CatalogModel(
    key="reranker-mminilm-l12", kind="reranker",
    title="mMiniLMv2-L12-H384 (mMARCO), multilingual cross-encoder",
    repo="cross-encoder/mmarco-mMiniLMv2-L12-H384-v1", revision="main",
    files={"model.onnx": _int8_onnx(), "tokenizer.json": ("tokenizer.json",)},
    size_mb=135, license="Apache-2.0")

# The model the memoir seed used. Its cosine similarities spread wider than e5's (unrelated pairs sit
# near 0.3-0.45, paraphrases 0.6-0.8 in its published evaluations), so e5's floor (0.82) would hide
# everything. These values come from that published range, not from a calibration here: the model
# cannot be downloaded on the machines this was built on. `python -m memoir_desktop.eval.relevance_floor`
# recalibrates them where it can be.
BGE_M3 = CatalogModel(
    key="bge-m3", kind="embedder", title="BGE-M3, multilingual (BAAI)",
    repo="Xenova/bge-m3", revision="main",
    files={"model.onnx": ("onnx/model_quantized.onnx",), "tokenizer.json": ("tokenizer.json",)},
    size_mb=590, license="MIT", pooling="cls",
    calibration={"floor": {"z": 3.0, "minimum": 0.45, "small_store": 0.62, "small_z": 1.5},
                 "related": 0.75, "merge": 0.9, "topic": 0.7})

CATALOG = {m.key: m for m in (RERANKER, BGE_M3)}


def embedder_model(name: str) -> CatalogModel | None:
    """The catalog's embedder of that settings name, if it is one."""
    model = CATALOG.get(name)
    return model if model is not None and model.kind == "embedder" else None


def calibration(name: str) -> dict:
    model = CATALOG.get(name)
    return dict(model.calibration or {}) if model is not None else {}


def load_embedder(model: CatalogModel, where: Path | None = None):
    """The model's OnnxEmbedder (from its installed folder, or `where`); EmbedderUnavailable says why not."""
    where = where or installed(model)
    if where is None:
        raise EmbedderUnavailable(f"{model.title} is not downloaded")
    return OnnxEmbedder(where, pooling=model.pooling or "cls", query_prefix=model.query_prefix,
                        doc_prefix=model.doc_prefix)


def hub() -> str:
    """The Hub's address; MEMOIR_MODEL_HUB points elsewhere (a mirror, or a test's file server)."""
    return (os.environ.get("MEMOIR_MODEL_HUB") or HUB).rstrip("/")


def _host(url: str) -> str:
    return urllib.parse.urlsplit(url).netloc or url


def folder(model: CatalogModel) -> Path:
    return model_files.models_dir() / model.key


def installed(model: CatalogModel) -> Path | None:
    """The model's folder when it is complete (its manifest lists files that are all there)."""
    where = folder(model)
    try:
        manifest = json.loads((where / MANIFEST).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    for name, size in manifest.get("sizes", {}).items():
        path = where / name
        if not path.is_file() or path.stat().st_size != size:
            return None
    return where


def remove(model: CatalogModel) -> None:
    """Delete the model's files (the manifest first: a half-deleted folder is not installed)."""
    where = folder(model)
    (where / MANIFEST).unlink(missing_ok=True)
    if where.is_dir():
        for path in where.iterdir():
            if path.is_file():
                path.unlink(missing_ok=True)
        try:
            where.rmdir()
        except OSError:
            pass


def _listing(model: CatalogModel) -> dict[str, dict]:
    url = (f"{hub()}/api/models/{model.repo}/tree/{urllib.parse.quote(model.revision, safe='')}"
           "?recursive=true")
    with urllib.request.urlopen(urllib.request.Request(url, headers={"User-Agent": "memoir-desktop"}),
                                timeout=model_files.TIMEOUT_S) as response:
        items = json.load(response)
    return {i["path"]: i for i in items if isinstance(i, dict) and i.get("type", "file") == "file"}


def _git_blob_id(path: Path) -> str:
    digest = hashlib.sha1(f"blob {path.stat().st_size}\0".encode())
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(model_files.CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def _verified(path: Path, item: dict) -> bool:
    lfs = item.get("lfs") or {}
    size = lfs.get("size", item.get("size"))
    if size is not None and path.stat().st_size != int(size):
        return False
    if lfs.get("oid"):
        return model_files.sha256_of(path) == lfs["oid"]
    return bool(item.get("oid")) and _git_blob_id(path) == item["oid"]


def install(model: CatalogModel, *, progress: Progress | None = None,
            cancelled: Callable[[], bool] | None = None) -> Path:
    """Fetch the model's files into its folder and return it (already installed: no download).

    `progress(done, total)` counts bytes over all files. Raises ModelUnavailable with a reason a
    user can read; a partial download is kept for the next try, a file failing its check is not.
    """
    with _installing:
        return installed(model) or _install(model, progress, cancelled)


def _install(model: CatalogModel, progress: Progress | None, cancelled: Callable[[], bool] | None) -> Path:
    try:
        listing = _listing(model)
    except (OSError, ValueError, http.client.HTTPException) as exc:
        raise ModelUnavailable(f"could not reach {hub()} to fetch the model: {exc}", kind="offline",
                               host=_host(hub())) from exc
    chosen: dict[str, tuple[str, dict]] = {}
    for name, candidates in model.files.items():
        remote = next((c for c in candidates if c in listing), None)
        if remote is None:
            raise ModelUnavailable(f"{model.repo} no longer offers {name} (looked for {', '.join(candidates)})",
                                   kind="missing", host=_host(hub()))
        chosen[name] = (remote, listing[remote])
    sizes = {name: int((item.get("lfs") or {}).get("size", item.get("size") or 0)) for name, (_, item) in chosen.items()}
    engine = model_engine.plan()  # the installers lack the engine: it comes along (model_engine.py)
    total = sum(sizes.values()) + sum(w.size for w in engine)
    model_engine.install(engine, (lambda done: progress(done, total)) if progress else None, cancelled)
    before = sum(w.size for w in engine)
    where = folder(model)
    where.mkdir(parents=True, exist_ok=True)
    for name, (remote, item) in chosen.items():
        target = where / name
        if target.is_file() and _verified(target, item):
            before += sizes[name]
            continue
        partial = where / f"{model_files.PARTIAL_PREFIX}{name}"
        url = f"{hub()}/{model.repo}/resolve/{urllib.parse.quote(model.revision, safe='')}/{remote}"
        offset = before

        def step(done: int, _total: int, offset: int = offset) -> None:
            if progress:
                progress(offset + done, total)

        try:
            model_files.download(url, partial, step, cancelled)
        except (OSError, ValueError, http.client.HTTPException) as exc:
            kept = partial.stat().st_size if partial.exists() else 0
            resume = f"; {kept >> 20} MB kept, the next try continues from there" if kept else ""
            raise ModelUnavailable(f"could not fetch {name} from {hub()}: {exc}{resume}",
                                   kind="cut" if kept else "offline", kept_mb=kept >> 20, host=_host(hub())) from exc
        if not _verified(partial, item):
            partial.unlink(missing_ok=True)  # never continued, never loaded
            raise ModelUnavailable(f"the downloaded {name} does not match what {model.repo} publishes "
                                   "(checksum differs); it was deleted, try again", kind="checksum")
        os.replace(partial, target)
        before += sizes[name]
    manifest = {"repo": model.repo, "revision": model.revision, "sizes": sizes,
                "files": {name: remote for name, (remote, _) in chosen.items()}}
    (where / MANIFEST).write_text(json.dumps(manifest, indent=1), "utf-8")
    if progress:
        progress(total, total)
    return where


def install_from(model: CatalogModel, source: Path) -> Path:
    """Install the model from a folder the user already has (a machine that never goes online: a
    copy of the model's repository, or a folder with model.onnx and tokenizer.json). Nothing can be
    checked against the Hub here, so the files are checked by loading them."""
    source = Path(source).expanduser()
    picked = {}
    for name, candidates in model.files.items():
        found = next((source / c for c in (name, *candidates) if (source / c).is_file()), None)
        if found is None:
            raise ModelUnavailable(f"{source} holds no {name} (looked for {', '.join((name, *candidates))})",
                                   kind="missing", host=str(source))
        picked[name] = found
    with _installing:
        where = folder(model)
        where.parent.mkdir(parents=True, exist_ok=True)
        staged = Path(tempfile.mkdtemp(dir=where.parent, prefix=f".installing-{model.key}-"))
        try:
            for name, path in picked.items():
                shutil.copyfile(path, staged / name)
            _check_loads(model, staged, source)
            sizes = {name: (staged / name).stat().st_size for name in picked}
            manifest = {"repo": model.repo, "source": "local folder", "sizes": sizes,
                        "files": {name: str(path) for name, path in picked.items()}}
            (staged / MANIFEST).write_text(json.dumps(manifest, indent=1), "utf-8")
            remove(model)
            shutil.rmtree(where, ignore_errors=True)
            os.replace(staged, where)
        finally:
            shutil.rmtree(staged, ignore_errors=True)
    return where


def _check_loads(model: CatalogModel, staged: Path, source: Path) -> None:
    """Raise ModelUnavailable unless the staged files load as the model's kind (an installed model
    stays as it was)."""
    try:
        if model.kind == "embedder":
            load_embedder(model, staged)
        else:
            CrossEncoder(staged)
    except (CrossEncoderUnavailable, EmbedderUnavailable) as exc:
        what = "search model" if model.kind == "embedder" else "reranker"
        raise ModelUnavailable(f"the files in {source} are not a usable {what}: {exc}") from exc


def describe(model: CatalogModel) -> dict:
    """For Settings: what the offer says, and whether it is already here."""
    return {"key": model.key, "kind": model.kind, "title": model.title, "size_mb": model.size_mb,
            "license": model.license, "home": f"{HUB}/{model.repo}", "installed": installed(model) is not None}

