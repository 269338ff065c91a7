"""Themes: system, light or dark. One style sheet, its colours chosen from the theme.

System keeps the platform style and palette; light and dark use Fusion with a fixed palette,
so both look the same on every desktop.
"""

from __future__ import annotations

from string import Template

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from memoir_desktop.ui.shared.resources import resource

THEMES = ("system", "light", "dark")

_LIGHT = {
    "canvas": "#f6f6f8", "user_bg": "#d9e8ff", "pending_bg": "#e9eef6", "assistant_bg": "#ffffff",
    "border": "#dcdce2", "accent": "#3b6fd8", "ops_bg": "#f0f3fa", "muted": "#6b6f7b", "notice_bg": "#fff6dc",
    "banner_bg": "#fff6dc", "card_bg": "#ffffff", "badge_bg": "#e6ecf8", "badge_fg": "#34508a",
    "add": "#1e8a4c", "update": "#b26a00", "delete": "#c0392b",
}
_DARK = {
    "canvas": "#1e1f23", "user_bg": "#2b4a7a", "pending_bg": "#2e3440", "assistant_bg": "#2a2c31",
    "border": "#3a3d44", "accent": "#7aa5ff", "ops_bg": "#24272e", "muted": "#9aa0ab", "notice_bg": "#3a3322",
    "banner_bg": "#3a3322", "card_bg": "#2a2c31", "badge_bg": "#33405a", "badge_fg": "#c7d6f5",
    "add": "#5cc98a", "update": "#f0a840", "delete": "#ef6b5b",
}

_system_style: str | None = None


def _palette(dark: bool) -> QPalette:
    p = QPalette()
    if dark:
        roles = {QPalette.Window: "#232428", QPalette.WindowText: "#e6e6e6", QPalette.Base: "#1b1c1f",
                 QPalette.AlternateBase: "#26282c", QPalette.Text: "#e6e6e6", QPalette.Button: "#2d2f34",
                 QPalette.ButtonText: "#e6e6e6", QPalette.Highlight: "#3b6fd8",
                 QPalette.HighlightedText: "#ffffff", QPalette.ToolTipBase: "#2d2f34",
                 QPalette.ToolTipText: "#e6e6e6", QPalette.PlaceholderText: "#8a8f99", QPalette.Link: "#7aa5ff"}
    else:
        roles = {QPalette.Window: "#f0f0f3", QPalette.WindowText: "#1d1d22", QPalette.Base: "#ffffff",
                 QPalette.AlternateBase: "#f5f5f8", QPalette.Text: "#1d1d22", QPalette.Button: "#f4f4f6",
                 QPalette.ButtonText: "#1d1d22", QPalette.Highlight: "#3b6fd8",
                 QPalette.HighlightedText: "#ffffff", QPalette.ToolTipBase: "#ffffe8",
                 QPalette.ToolTipText: "#1d1d22", QPalette.PlaceholderText: "#8a8f99", QPalette.Link: "#3b6fd8"}
    for role, colour in roles.items():
        p.setColor(role, QColor(colour))
    p.setColor(QPalette.Disabled, QPalette.Text, QColor("#8a8f99"))
    p.setColor(QPalette.Disabled, QPalette.ButtonText, QColor("#8a8f99"))
    return p


def is_dark(app: QApplication) -> bool:
    return app.palette().color(QPalette.Window).lightness() < 128


def apply_theme(app: QApplication, theme: str) -> None:
    global _system_style
    if _system_style is None:
        _system_style = app.style().name()
    hints = app.styleHints()
    if theme in ("light", "dark"):
        app.setStyle("Fusion")
        app.setPalette(_palette(theme == "dark"))
        if hasattr(hints, "setColorScheme"):
            hints.setColorScheme(Qt.ColorScheme.Dark if theme == "dark" else Qt.ColorScheme.Light)
    else:
        if hasattr(hints, "unsetColorScheme"):
            hints.unsetColorScheme()
        app.setStyle(_system_style)
        app.setPalette(app.style().standardPalette())
    app.setStyleSheet(stylesheet(is_dark(app)))


def stylesheet(dark: bool) -> str:
    template = Template(resource("qss", "app.qss").read_text("utf-8"))
    return template.safe_substitute(_DARK if dark else _LIGHT)
