"""What went wrong with the AI companion's model server, and why a memory job waits, in the app's
language. The core says each cause in one word (core/llm/errors.py `explain`: not_running, timeout,
key_refused…; core/jobs/service.py `reason`: queued, answer, not_configured) with an English sentence
for the log and the CLI; the screens say the same in the diarist's language, naming the server's
address and the time limit where they help."""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import QCoreApplication

from memoir_desktop.core.llm.errors import address
from memoir_desktop.core.llm.servers import default_timeout

SETTINGS_PLACE = "Settings → AI companion"


def tr(text: str) -> str:
    return QCoreApplication.translate("llm_words", text)


def problem(kind: str, *, address: str = "", seconds: float | None = None, text: str = "") -> str:
    """A sentence a diarist can act on, for a cause `kind` (unknown kinds say the core's own words)."""
    where = address or tr("the server")
    limit = f"{seconds:g}" if seconds else "?"
    sentences = {
        "not_configured": tr("No AI companion is connected yet. Connect one in Settings → AI companion."),
        "needs_key": tr("Your journal's AI needs its API key on this computer too. Type it in Settings → AI "
                        "companion; until then, another of your computers that has it makes the memories."),
        "not_running": tr("The model server at {where} is not running. Start it, or check the address in "
                           "Settings → AI companion."),
        "unreachable": tr("The server {where} could not be found. Check the address in Settings → AI companion, "
                           "and that this computer is online."),
        "disconnected": tr("The model server at {where} stopped answering: it may have stopped or crashed. "
                            "Check that it is still running."),
        "timeout": tr("The model at {where} took longer than {limit} s to answer. A slow or busy model needs "
                       "more time: raise the time limit in Settings → AI companion."),
        "key_refused": tr("The server at {where} refused the API key. Check the key in Settings → AI companion."),
        "model_unknown": tr("The server at {where} does not know this model. Choose one of its models in "
                             "Settings → AI companion."),
        "no_api": tr("There is no AI server at {where}. Check the address; it usually ends in /v1."),
        "busy": tr("The server at {where} is busy or over its usage limit. memoir tries again later."),
        "server_error": tr("The server at {where} reported an error. memoir tries again later."),
        "refused": tr("The server at {where} refused the request."),
        "too_long": tr("This entry is longer than the model at {where} can read at once."),
        "bad_reply": tr("The AI's reply could not be used. Your entry is safe; you can try again."),
        "unavailable": tr("The AI companion could not be reached. memoir tries again later."),
        "queued": tr("In line: memoir reads it next."),
        "answer": tr("The companion is answering; the entry is remembered with its answer."),
    }
    sentence = sentences.get(kind)
    if sentence is None:
        return text or tr("Something went wrong with the AI companion.")
    return sentence.format(where=where, limit=limit)


def since(iso: str | None) -> str:
    """" (since 14:05)" for a cause that lasts, or nothing."""
    if not iso:
        return ""
    try:
        at = datetime.fromisoformat(iso)
    except ValueError:
        return ""
    return " " + tr("(since {time})").format(time=at.strftime("%H:%M"))


def job_reason(reason: dict | None, *, address: str = "", seconds: float | None = None) -> str:
    """Why a memory job waits or failed (core/jobs/service.py `reason`), as one line for the screen."""
    if not reason:
        return ""
    kind = reason.get("kind") or ""
    line = problem(kind, address=address, seconds=seconds, text=reason.get("text") or "")
    if kind not in ("queued", "answer", "not_configured", "needs_key", "bad_reply"):
        line += since(reason.get("since"))
    return line


def place(settings) -> tuple[str, float]:
    """The configured server's host:port and the seconds memoir waits for it (what the sentences name)."""
    url = settings.llm_base_url or None
    return address(url), (settings.llm_timeout_s or default_timeout(url))


def reason_of(job: dict) -> dict | None:
    """A job's reason (core/jobs/service.py), or one read from a finished try ({state, error_kind, error})."""
    if job.get("reason"):
        return job["reason"]
    if job.get("state") in ("pending", "failed") and (job.get("error_kind") or job.get("error")):
        return {"kind": job.get("error_kind") or ("bad_reply" if job.get("state") == "failed" else "unavailable"),
                "text": job.get("error") or "", "since": None}
    return None
