"""Rewrite references to modules that moved (structure round 3) in Python and Markdown files.

`python scripts/module_moves.py PATH...` rewrites dotted module names (`ragspace.worker` ->
`ragspace.ingestion.worker`) and file paths (`ragspace/worker.py` ->
`ragspace/ingestion/worker.py`) in place. Idempotent: a rewritten name is never rewritten
again, so it is safe to run over a branch made before the moves (the moves themselves are
`git mv`, done once).
"""

import re
import sys
from pathlib import Path

# old dotted module -> new dotted module
MOVES: dict[str, str] = {
    "ragspace.worker": "ragspace.ingestion.worker",
    "ragspace.scheduler": "ragspace.ingestion.scheduler",
    "ragspace.embedding_passes": "ragspace.ingestion.embedding_passes",
    "ragspace.job_chunks": "ragspace.ingestion.job_chunks",
    "ragspace.symbol_backfill": "ragspace.ingestion.symbol_backfill",
    "ragspace.leases": "ragspace.ingestion.leases",
    "ragspace.retrieval": "ragspace.search.retrieval",
    "ragspace.hit_reasons": "ragspace.actions.hit_reasons",
    "ragspace.embeddings": "ragspace.embedding.embedders",
    "ragspace.merged_calls": "ragspace.embedding.merged_calls",
    "ragspace.native_memory": "ragspace.embedding.native_memory",
    "ragspace.languages": "ragspace.text.languages",
    "ragspace.terms": "ragspace.text.terms",
    "ragspace.tokens": "ragspace.text.tokens",
    "ragspace.markdown_text": "ragspace.text.markdown_text",
    "ragspace.hashing": "ragspace.text.hashing",
    "ragspace.extract": "ragspace.sources.extract",
    "ragspace.push_events": "ragspace.sources.push_events",
    "ragspace.url_credentials": "ragspace.sources.url_credentials",
    "ragspace_ui.mcp_catalog": "ragspace_mcp.catalog",
    "ragspace_ui.mcp_change_tools": "ragspace_mcp.change_tools",
    "ragspace_ui.mcp_data": "ragspace_mcp.results",
    "ragspace_ui.mcp_http": "ragspace_mcp.http_server",
    "ragspace_ui.mcp_inputs": "ragspace_mcp.inputs",
    "ragspace_ui.mcp_read_tools": "ragspace_mcp.read_tools",
    "ragspace_ui.mcp_server": "ragspace_mcp.annotations",
    "ragspace_ui.mcp_standalone": "ragspace_mcp.tool_server",
    "ragspace_ui.mcp_symbol_tools": "ragspace_mcp.symbol_tools",
}


SUFFIXES = {".py", ".md", ".toml", ".sh", ".txt"}
SELF = Path(__file__).resolve()


def _path(dotted: str) -> str:
    return dotted.replace(".", "/") + ".py"


def _pattern(old: str) -> re.Pattern[str]:
    # not preceded by a name character or a dot (so `ragspace.ingestion.worker` is left
    # alone), not followed by a name character
    return re.compile(rf"(?<![\w.]){re.escape(old)}(?!\w)")


_RULES: list[tuple[re.Pattern[str], str]] = []
for _old, _new in MOVES.items():
    _RULES.append((_pattern(_path(_old)), _path(_new)))
    _RULES.append((_pattern(_old), _new))


def rewrite(text: str) -> str:
    """The text with every moved module's dotted name and file path replaced."""
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    return text


def main(paths: list[str]) -> int:
    for name in paths:
        for path in [Path(name)] if Path(name).is_file() else sorted(Path(name).rglob("*")):
            if path.suffix not in SUFFIXES or ".venv" in path.parts or path.resolve() == SELF:
                continue
            try:
                old = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue
            new = rewrite(old)
            if new != old:
                path.write_text(new, encoding="utf-8")
                print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
