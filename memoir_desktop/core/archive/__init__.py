"""Moving data in and out: backups, memoir's JSON export and import, text and Markdown export."""
