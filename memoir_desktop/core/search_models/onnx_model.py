"""Opening a downloaded ONNX model folder (`model.onnx` + `tokenizer.json`) the way every one of
memoir's runners needs it: the reranker (cross_encoder.py) and the larger embedder
(onnx_embedder.py).

Each failure raises the caller's own error type with a sentence a user can read (incomplete, the
engine missing, a corrupt or foreign file, inputs it does not have).
"""

from __future__ import annotations

from pathlib import Path

from memoir_desktop.core.search_models import model_engine

MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"


def open_model(folder: Path, *, what: str, error: type[Exception], max_tokens: int, threads: int):
    """(tokenizer with truncation and padding, onnxruntime session, its input names) for `folder`.
    `what` names the model in messages ("the reranker model")."""
    folder = Path(folder)
    for name in (MODEL_FILE, TOKENIZER_FILE):
        if not (folder / name).is_file():
            raise error(f"{what} is incomplete ({name} is missing)")
    model_engine.activate()  # an engine fetched with the model, where the app came without one
    try:
        # After activate(), which may put a fetched engine on the path; in the try: it may be absent.
        import onnxruntime as ort
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise error(f"{what}'s engine is not installed ({exc.name})") from exc
    tokenizer = Tokenizer.from_file(str(folder / TOKENIZER_FILE))
    tokenizer.enable_truncation(max_tokens)
    pad_token = (tokenizer.padding or {}).get("pad_token") or next(
        (t for t in ("<pad>", "[PAD]") if tokenizer.token_to_id(t) is not None), None)
    pad_id = tokenizer.token_to_id(pad_token) if pad_token else 0
    tokenizer.enable_padding(pad_id=pad_id or 0, pad_token=pad_token or "[PAD]")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # Spinning threads fight the UI and the writer for two cores (the embedder found the same).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        session = ort.InferenceSession(str(folder / MODEL_FILE), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own types for a corrupt or foreign file
        raise error(f"{what} could not be loaded: {exc}") from exc
    inputs = {i.name for i in session.get_inputs()}
    missing = {"input_ids", "attention_mask"} - inputs
    if missing:
        raise error(f"{what} lacks the inputs {sorted(missing)}")
    return tokenizer, session, inputs
