"""The MCP server: RAGSpace's DocSets as tools for coding assistants (stdio, HTTP, the web app)."""
