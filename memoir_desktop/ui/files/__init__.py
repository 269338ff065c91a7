"""The File menu's dialogs: import (memoir, Day One), export (JSON, Markdown, text), backups."""
