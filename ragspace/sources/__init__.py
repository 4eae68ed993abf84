"""Sources turn something a user points at into documents (path, title, language, text)."""
