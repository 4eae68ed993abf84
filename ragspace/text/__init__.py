"""Text utilities: languages by file name, terms, token counts, markdown, content hashes."""
