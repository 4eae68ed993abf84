"""The MCP tools that navigate code from the symbol table: definitions, references, the map.

Plain functions of the actions like the other reading tools (`read_tools`), bound to the
app's login gate by `mcp_tools` (and served by `ragspace mcp`); results are JSON text
(`results.to_json`). `app_url` (for the viewer links) is filled in by the server.
"""

from typing import Any

from ragspace.actions import Actions
from ragspace.answering.citations import cite
from ragspace.answering.symbol_answer import location_passage
from ragspace.symbols.records import SymbolLocation
from ragspace_mcp.results import location_data, to_json


def symbol_data(place: SymbolLocation, number: int, app_url: str | None) -> dict[str, Any]:
    """Where a definition or use is, cited like a search hit (url pinned to the commit)."""
    citation = cite(location_passage(place, number))
    return location_data(citation, place.docset, place.title, app_url) | {
        "name": place.name,
        "kind": place.kind,
    }


def find_definition(
    actions: Actions,
    name: str,
    docsets: list[str] | None = None,
    k: int = 10,
    ref: str | None = None,
    app_url: str | None = None,
) -> str:
    """Find where a function, class, method or type is defined in the DocSets' code.

    Reads the symbol table the parser fills while indexing (every definition of the code
    files, tree-sitter grammars for 25 languages). Faster and exact where search is fuzzy:
    use it when you know the name. Read the body with read_document (path, start_line,
    end_line).

    Args:
        name: The symbol: plain (url_for), dotted (Session.request, flask.helpers.url_for), a::b.
        docsets: Names of DocSets to look in (see list_docsets); empty or omitted: all.
        k: At most this many definitions, 1 to 50 (default 10).
        ref: Only this version (GitHub branch, tag or commit) of a versioned DocSet.

    Returns:
        JSON object: name and definitions (docset, title, path, start_line, end_line, url
        pinned to the commit, view_url, ref, resolved_sha, qualified_name, kind, signature,
        doc: the docstring's first line).
    """
    found = actions.symbols.definitions(name, docsets or None, ref or None, int(k))
    definitions = [
        symbol_data(place, n, app_url)
        | {"qualified_name": place.qualified_name, "signature": place.signature, "doc": place.doc}
        for n, place in enumerate(found, start=1)
    ]
    return to_json({"name": name, "definitions": definitions})


def find_references(
    actions: Actions,
    name: str,
    docsets: list[str] | None = None,
    k: int = 20,
    ref: str | None = None,
    app_url: str | None = None,
) -> str:
    """Find where a symbol is used: calls, base classes, type names, in the DocSets' code.

    Matched by name as the parser saw it (not resolved through imports: two functions with
    one name share their uses). Each use says the definition it sits in ("in").

    Args:
        name: The symbol: a plain name (send) or dotted (Session.send: the last part is matched).
        docsets: Names of DocSets to look in (see list_docsets); empty or omitted: all.
        k: At most this many uses, 1 to 50 (default 20); "total" says how many there are.
        ref: Only this version (GitHub branch, tag or commit) of a versioned DocSet.

    Returns:
        JSON object: name, total, references (docset, title, path, start_line: the line of
        the use, url, view_url, kind: call/class/type..., in: the enclosing definition's
        qualified name or "" at the top level, line: the source line).
    """
    found = actions.symbols.references(name, docsets or None, ref or None, int(k))
    uses = [
        symbol_data(place, n, app_url) | {"in": place.qualified_name, "line": place.content.strip()}
        for n, place in enumerate(found.places, start=1)
    ]
    return to_json({"name": found.name, "total": found.total, "references": uses})


def repo_map(
    actions: Actions,
    docset: str,
    max_tokens: int = 2000,
    ref: str | None = None,
) -> str:
    """A map of a DocSet's code: files and definitions with signatures, most important first.

    Start here to learn a repository's shape before searching: which files matter (the
    definitions the most other files use come first, a name several files define sharing its
    uses, tests' own definitions last) and what they define, each
    with its line. Cut to max_tokens.

    Args:
        docset: Name of the DocSet (see list_docsets).
        max_tokens: Budget for the map's text, 0 to 20,000 tokens (default 2,000).
        ref: The version (GitHub branch, tag or commit) of a versioned DocSet.

    Returns:
        JSON object: docset, map (text: "path:" lines, then "line: signature" indented by
        nesting), tokens, files_shown, files_total, definitions_shown, definitions_total,
        truncated.
    """
    built = actions.symbols.repo_map(docset, int(max_tokens), ref or None)
    return to_json(
        {
            "docset": built.docset,
            "map": built.text,
            "tokens": built.tokens,
            "files_shown": built.files_shown,
            "files_total": built.files_total,
            "definitions_shown": built.definitions_shown,
            "definitions_total": built.definitions_total,
            "truncated": built.truncated,
        }
    )


SYMBOL = (find_definition, find_references, repo_map)
