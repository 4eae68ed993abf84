"""Split documents into chunks with exact 1-based line ranges (`chunker.Chunker`)."""
