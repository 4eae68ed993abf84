"""A navigation question searched: the chunks the symbol table points at.

"What calls X", "where is X used" and "where is X defined" are answered by `ask` from the
symbol table; `search` (the CLI's, MCP's, the HTTP API's) returns the chunks holding those
places in the table's order, so an agent asking who calls X gets the callers, not X's
definition ranked first by its name (issue 69). The chunks come from a keyword search for the
name (every such chunk holds it), so the hits are ordinary hits with their similarities.
"""

from collections.abc import Sequence
from dataclasses import replace

from ragspace.actions.symbols import SymbolActions
from ragspace.models import Citation, DocSet, Hit, RetrievalMode, ScopedQuery
from ragspace.search.retrieval import Retriever
from ragspace.symbols.names import last_part
from ragspace.symbols.questions import symbol_question

NAME_DEPTH = 50  # chunks holding the name that the places are looked for among


def symbol_hits(
    symbols: SymbolActions,
    retriever: Retriever,
    scoped: ScopedQuery,
    docsets: Sequence[DocSet],
    limit: int,
) -> list[Hit] | None:
    """The chunks at the places the table gives for a navigation question, at most
    `limit`; None when it is not one, or the table knows nothing of the name."""
    question, ref = scoped.query.question, scoped.query.ref
    asked = symbol_question(question)
    if asked is None:
        return None
    answer = symbols.answer(question, docsets, ref, limit)
    if answer is None or not answer.citations:
        return None
    by_name = replace(scoped.query, question=last_part(asked.name), mode=RetrievalMode.KEYWORD)
    chunks = retriever.search(replace(scoped, query=by_name), NAME_DEPTH, measured=True)
    found: list[Hit] = []
    for citation in answer.citations:
        hit = next((c for c in chunks if _holds(c, citation)), None)
        if hit is not None and hit not in found:
            found.append(hit)
    return found[:limit] or None


def _holds(hit: Hit, place: Citation) -> bool:
    """The chunk holds the first line of the place, in the same DocSet's document."""
    same = hit.path == place.path and (not place.docset or hit.docset_name == place.docset)
    return same and hit.start_line <= place.start_line <= hit.end_line
