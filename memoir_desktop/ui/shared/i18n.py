"""UI translations: a QTranslator fed from JSON files in `resources/i18n/`.

Why not .ts/.qm: the .qm compiler (lrelease) is not guaranteed where the app is built, and
JSON can be reviewed in a diff and checked by a test (every `tr()` string has a Korean line).
Source strings are English; `ko.json` maps each to Korean. Lookups ignore the Qt context
(class name), so a string moved between widgets keeps its translation. A value may be a list
[singular, plural] for strings with %n (`en.json` uses that; Korean needs one form).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from memoir_desktop.ui.shared.resources import resource

log = logging.getLogger(__name__)

LANGUAGES = ("ko", "en")


class JsonTranslator(QTranslator):
    def __init__(self, table: dict[str, str], language: str, parent=None):
        super().__init__(parent)
        self._table = table
        self._language = language

    @classmethod
    def load_language(cls, language: str, parent=None) -> JsonTranslator:
        path = resource("i18n", f"{language}.json")
        table: dict[str, str] = {}
        try:
            table = json.loads(Path(path).read_text("utf-8"))
        except (OSError, ValueError) as exc:
            # A missing translation file must never stop the journal from opening.
            log.warning("translations for %s unavailable: %s", language, exc)
        table = {k: v for k, v in table.items() if not k.startswith("_")}
        return cls(table, language, parent)

    def translate(self, context, source_text, disambiguation=None, n=-1):
        # None (not "") tells Qt "no translation here", so it falls back to the source text.
        value = self._table.get(source_text)
        if isinstance(value, list):
            value = value[0] if n == 1 or len(value) == 1 else value[1]
        return value or None

    def isEmpty(self) -> bool:
        return not self._table

    def language(self) -> str:
        return self._language


def resolve_language(setting: str | None) -> str:
    """"ko" / "en" as set; "system" means Korean when the system locale is Korean."""
    if setting in LANGUAGES:
        return setting
    return "ko" if QLocale.system().language() == QLocale.Language.Korean else "en"


_installed: JsonTranslator | None = None
_qt_translator: QTranslator | None = None


def _install_qt_strings(app, lang: str) -> None:
    """Qt's own strings (Save, Cancel, Close in standard buttons) from the .qm files Qt ships."""
    global _qt_translator
    if _qt_translator is not None:
        app.removeTranslator(_qt_translator)
        _qt_translator = None
    if lang == "en":
        return
    translator = QTranslator(app)
    if translator.load(f"qtbase_{lang}", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
        app.installTranslator(translator)
        _qt_translator = translator


def install(language: str) -> str:
    """Install the translator for `language` ("system" allowed); returns the language used."""
    global _installed
    app = QCoreApplication.instance()
    lang = resolve_language(language)
    if _installed is not None:
        app.removeTranslator(_installed)
        _installed = None
    translator = JsonTranslator.load_language(lang, app)
    app.installTranslator(translator)
    _installed = translator
    _install_qt_strings(app, lang)
    # Dates and times follow the UI language ("오후 3:12" rather than "3:12 PM").
    QLocale.setDefault(QLocale(QLocale.Language.Korean if lang == "ko" else QLocale.Language.English,
                               QLocale.Country.SouthKorea if lang == "ko" else QLocale.Country.UnitedStates))
    return lang


def current() -> str:
    """The language of the installed translator ("en" when none is installed)."""
    return _installed.language() if _installed is not None else "en"
