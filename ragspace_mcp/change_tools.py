"""The MCP tools that change DocSets: create one, add GitHub and web sources, sync, remove.

Registered only when the app is not read-only (the actions refuse changes anyway). Like the
reading tools (`read_tools`), each is a plain function of the actions, testable alone.
"""

from ragspace.actions import Actions
from ragspace.actions.source_requests import (
    DEFAULT_DEPTH,
    DEFAULT_MAX_PAGES,
    github_request,
    web_request,
)
from ragspace_mcp.results import docset_data, progress_data, report_data, to_json


def create_docset(actions: Actions, name: str, description: str = "") -> str:
    """Create an empty DocSet (a named collection) to add GitHub or website sources to.

    Args:
        name: The DocSet's name, e.g. "fastapi-docs" (unique, at most 100 characters).
        description: What the DocSet contains, shown to people and assistants.

    Returns:
        JSON object of the new DocSet.
    """
    return to_json(docset_data(actions, actions.docsets.create(name, description)))


def add_github_source(
    actions: Actions,
    docset: str,
    location: str,
    ref: str = "",
    include: str = "",
    exclude: str = "",
) -> str:
    """Add a GitHub repository (or one file) to a DocSet and fetch it.

    Embedding continues in the background: poll job_status with the source_id.

    Args:
        docset: Name of an existing DocSet (create_docset makes one).
        location: "owner/repo", "https://github.com/owner/repo" or ".../blob/<ref>/<path>".
        ref: Branch, tag or commit; empty means the default branch.
        include: Glob patterns to keep, comma-separated (e.g. "docs/**, *.py"); empty keeps all.
        exclude: Glob patterns to leave out, comma-separated (e.g. "tests/**").

    Returns:
        JSON object: source_id (for job_status and sync_source), resolved commit, and
        counts of new, unchanged, removed, skipped and unreadable files.
    """
    report = actions.sources.add(docset, *github_request(location, ref, include, exclude))
    return to_json(report_data(report))


def add_website_source(
    actions: Actions,
    docset: str,
    url: str,
    depth: int = DEFAULT_DEPTH,
    max_pages: int = DEFAULT_MAX_PAGES,
    path_prefix: str = "",
) -> str:
    """Crawl a documentation website into a DocSet; embedding follows in the background.

    Args:
        docset: Name of an existing DocSet (create_docset makes one).
        url: The start page, e.g. "https://docs.example.com/".
        depth: How many links deep to follow from the start page.
        max_pages: Most pages to fetch.
        path_prefix: Only follow pages whose path starts with this, e.g. "/docs/".

    Returns:
        JSON object: source_id (for job_status and sync_source) and counts of new,
        unchanged, removed, skipped and unreadable pages.
    """
    report = actions.sources.add(docset, *web_request(url, depth, max_pages, path_prefix))
    return to_json(report_data(report))


def sync_source(actions: Actions, source_id: int) -> str:
    """Fetch a GitHub or website source again; only what changed is re-embedded.

    Fetching happens in this call; embedding the changes runs in the background: poll
    job_status with the source_id until done is true. Files gone upstream are removed.

    Args:
        source_id: The source's id, from list_docsets or the add_*_source result.

    Returns:
        JSON object: source_id (for job_status), resolved commit, counts of new, unchanged,
        removed, skipped and unreadable items, and progress (as job_status returns it).
    """
    report = actions.sources.resync(int(source_id))
    progress = actions.documents.ingestion_status(source_id=report.source_id)
    return to_json(report_data(report) | {"progress": progress_data(progress)})


def remove_documents(actions: Actions, docset: str, paths: list[str]) -> str:
    """Remove documents from a DocSet; their chunks leave search at once. Cannot be undone.

    Args:
        docset: Name of the DocSet (see list_docsets).
        paths: The documents' paths, as given by list_documents, search or ask.

    Returns:
        JSON object: removed (the paths removed). A path the DocSet does not hold is an
        error naming it (the others are still removed).
    """
    return to_json({"removed": actions.documents.remove(docset, list(paths))})


CHANGE = (create_docset, add_github_source, add_website_source, sync_source, remove_documents)
