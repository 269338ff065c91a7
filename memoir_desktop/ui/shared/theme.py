"""Themes: system, light or dark. One style sheet, its colours chosen from the theme.

System keeps the platform style and palette; light and dark use Fusion with a fixed palette,
so both look the same on every desktop.

Every colour of the app is named here, once per theme: the palette is built from these names, the
style sheet's $names are filled from them, and a widget that paints or writes rich text asks
`colour(name)`. Each pair a diarist reads is chosen for WCAG 2.2 AA (tests/ui/test_accessibility_walk.py
measures it on the rendered window): text at 4.5:1 on every ground it sits on (placeholders,
timestamps on the user's own bubbles and the words of a memory's history included), edges of
controls, check boxes, icons and the focus ring at 3:1.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path
from string import Template

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from memoir_desktop.ui.shared.resources import resource

THEMES = ("system", "light", "dark")

_LIGHT = {
    # grounds
    "window": "#f0f0f3", "base": "#ffffff", "alternate_base": "#f5f5f8", "button": "#f7f7f9",
    "canvas": "#f6f6f8", "user_bg": "#d9e8ff", "pending_bg": "#e9eef6", "assistant_bg": "#ffffff",
    "ops_bg": "#f0f3fa", "notice_bg": "#fff6dc", "banner_bg": "#fff6dc", "card_bg": "#ffffff",
    "badge_bg": "#e6ecf8", "tooltip_bg": "#ffffe8", "hover_bg": "#e8edf7",
    # words
    "text": "#1d1d22", "muted": "#5c606b", "placeholder": "#5c606b", "disabled": "#8a8f99",
    "badge_fg": "#2c4475", "link": "#2f5fc4", "highlighted_text": "#ffffff", "badge_forgotten_fg": "#ffffff",
    # lines and marks
    "border": "#dcdce2", "control_border": "#767b86", "accent": "#2f5fc4", "focus": "#2f5fc4",
    "highlight": "#3b6fd8", "check_mark": "#ffffff", "mark_bg": "#ffe08a",
    # what happened to a memory
    "add": "#187a42", "update": "#955800", "delete": "#b03526",
    # charts: series told apart by colour and by pattern; the calendar's five shades, fewer to more
    "series_a": "#2f6fb8", "series_b": "#b5541b", "series_c": "#187a42",
    "shade_0": "#e4e8ee", "shade_1": "#b7d3f2", "shade_2": "#78aee6", "shade_3": "#3b82d0", "shade_4": "#1f5fa8",
    "faded": "#8e8e96",
}
_DARK = {
    "window": "#232428", "base": "#1b1c1f", "alternate_base": "#26282c", "button": "#2d2f34",
    "canvas": "#1e1f23", "user_bg": "#24406b", "pending_bg": "#2e3440", "assistant_bg": "#2a2c31",
    "ops_bg": "#24272e", "notice_bg": "#3a3322", "banner_bg": "#3a3322", "card_bg": "#2a2c31",
    "badge_bg": "#33405a", "tooltip_bg": "#2d2f34", "hover_bg": "#353944",
    "text": "#e6e6e6", "muted": "#b0b6c0", "placeholder": "#a7adb8", "disabled": "#80858f",
    "badge_fg": "#d3e0fa", "link": "#8cb2ff", "highlighted_text": "#ffffff", "badge_forgotten_fg": "#1b1c1f",
    "border": "#3a3d44", "control_border": "#858a94", "accent": "#8cb2ff", "focus": "#8cb2ff",
    "highlight": "#3b6fd8", "check_mark": "#1b1c1f", "mark_bg": "#6b5617",
    "add": "#5cc98a", "update": "#f0a840", "delete": "#ff8a7a",
    "series_a": "#6fa8f0", "series_b": "#f0a05a", "series_c": "#5cc98a",
    "shade_0": "#34373e", "shade_1": "#2c4a6e", "shade_2": "#3b6aa3", "shade_3": "#5b8fd6", "shade_4": "#8cb8f2",
    "faded": "#8e8e96",
}

# Categories of the memory graph (Tableau 10): the same hues in both themes, told apart by name too.
CATEGORY_COLOURS = {"person": "#4e79a7", "place": "#59a14f", "organization": "#9c755f", "food": "#f28e2b",
                    "activity": "#e15759", "preference": "#b07aa1", "pet": "#edc948", "event": "#76b7b2",
                    "thing": "#9d9792", "tag": "#d4a6c8"}
SPARE_CATEGORY_COLOURS = ("#ff9da7", "#86bcb6", "#d4a6c8", "#8cd17d", "#b6992d", "#499894")

_system_style: str | None = None

# The marks the style sheet draws (a check box's tick, a list's arrows), in the theme's colours. A style
# sheet takes images from files only: they are written once per run, from these shapes.
_MARKS = {
    "check": ('<path d="M3 7.5 6 10.5 11 4" fill="none" stroke="{c}" stroke-width="2.2" '
              'stroke-linecap="round" stroke-linejoin="round"/>', "check_mark", 14),
    "arrow": ('<path d="M1.5 3.5 5 7 8.5 3.5" fill="none" stroke="{c}" stroke-width="1.8" '
              'stroke-linecap="round" stroke-linejoin="round"/>', "muted", 10),
    "arrow_up": ('<path d="M1.5 6.5 5 3 8.5 6.5" fill="none" stroke="{c}" stroke-width="1.8" '
                 'stroke-linecap="round" stroke-linejoin="round"/>', "muted", 10),
}
_marks_dir: Path | None = None


def _mark_files(dark: bool) -> dict[str, str]:
    global _marks_dir
    if _marks_dir is None:
        _marks_dir = Path(tempfile.mkdtemp(prefix="memoir-marks-"))
        atexit.register(shutil.rmtree, _marks_dir, True)
    c = _DARK if dark else _LIGHT
    files = {}
    for name, (shape, colour_name, size) in _MARKS.items():
        path = _marks_dir / f"{name}-{'dark' if dark else 'light'}.svg"
        if not path.exists():
            path.write_text(f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {size} {size}" width="{size}" '
                            f'height="{size}">{shape.format(c=c[colour_name])}</svg>', "utf-8")
        files[f"{name}_image"] = path.as_posix()
    return files


def _palette(dark: bool) -> QPalette:
    c = _DARK if dark else _LIGHT
    p = QPalette()
    roles = {QPalette.Window: "window", QPalette.WindowText: "text", QPalette.Base: "base",
             QPalette.AlternateBase: "alternate_base", QPalette.Text: "text", QPalette.Button: "button",
             QPalette.ButtonText: "text", QPalette.Highlight: "highlight",
             QPalette.HighlightedText: "highlighted_text", QPalette.ToolTipBase: "tooltip_bg",
             QPalette.ToolTipText: "text", QPalette.PlaceholderText: "placeholder", QPalette.Link: "link",
             QPalette.BrightText: "badge_forgotten_fg"}
    for role, name in roles.items():
        p.setColor(role, QColor(c[name]))
    for role in (QPalette.Text, QPalette.ButtonText, QPalette.WindowText):
        p.setColor(QPalette.Disabled, role, QColor(c["disabled"]))
    return p


def is_dark(app: QApplication) -> bool:
    return app.palette().color(QPalette.Window).lightness() < 128


def colours(dark: bool | None = None) -> dict[str, str]:
    """The current theme's colours by name (`dark` None: as the application's palette is now)."""
    if dark is None:
        app = QApplication.instance()
        dark = bool(app is not None and is_dark(app))
    return dict(_DARK if dark else _LIGHT)


def colour(name: str) -> QColor:
    """One colour of the current theme (see `colours`)."""
    return QColor(colours()[name])


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
    names = dict(_DARK if dark else _LIGHT)
    names.update(_mark_files(dark))
    return template.safe_substitute(names)
