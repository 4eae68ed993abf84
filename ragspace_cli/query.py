"""`ragspace search` and `ragspace ask`: ranked passages and streamed, cited answers."""

import argparse
import sys
import textwrap
from typing import TYPE_CHECKING, Any

from ragspace.answering.citations import version_text
from ragspace.models import MAX_SEARCH_LIMIT, SEARCH_LIMIT, Answer, Citation, SearchQuery
from ragspace.settings import load_settings
from ragspace_cli.support import Subcommands, note, opened_actions, print_json
from ragspace_cli.support import shown as safe  # `shown` here is the answer printed so far

if TYPE_CHECKING:  # the presenter pulls in the answer pipeline; `--help` should be instant
    from ragspace.actions.hit_view import HitView

MODES = ("hybrid", "vector", "keyword")  # RetrievalMode's values (a test checks)


def register(commands: Subcommands) -> None:
    """Add the `search` and `ask` commands."""
    search = commands.add_parser("search", help="ranked passages with citations and line ranges")
    search.add_argument("query")
    _docsets_and_mode(search)
    search.add_argument(
        "-k",
        type=int,
        default=SEARCH_LIMIT,
        help=f"how many passages (1-{MAX_SEARCH_LIMIT}, default {SEARCH_LIMIT})",
    )
    search.add_argument(
        "--show-hidden",
        action="store_true",
        help="also list the hits below the relevance floor, marked hidden",
    )
    search.add_argument("--json", action="store_true", help="machine-readable output")
    search.set_defaults(run=_search)

    ask = commands.add_parser("ask", help="a cited answer, streamed as it is written")
    ask.add_argument("question")
    _docsets_and_mode(ask)
    ask.add_argument("--no-rerank", action="store_true", help="keep the fused search order")
    ask.add_argument(
        "--json", action="store_true", help="print the final answer and citations as JSON"
    )
    ask.set_defaults(run=_ask)


def _docsets_and_mode(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--docset",
        action="append",
        metavar="NAME",
        help="search this DocSet (repeat for several; default: all)",
    )
    parser.add_argument("--mode", choices=MODES, help="retrieval mode (default: configured)")
    parser.add_argument(
        "--ref",
        metavar="REF",
        help="only this version (GitHub branch, tag or commit) of a versioned DocSet",
    )


def _query(args: argparse.Namespace, question: str, **fields: Any) -> SearchQuery:
    """The SearchQuery every front end builds, from the command line."""
    from ragspace.models import RetrievalMode

    return SearchQuery(
        question=question,
        docsets=tuple(args.docset or ()),
        mode=RetrievalMode(args.mode) if args.mode else None,
        ref=args.ref,
        **fields,
    )


def _search(args: argparse.Namespace) -> int:
    from ragspace.actions.hit_view import hit_views

    app_url = load_settings().server.app_url
    query = _query(args, args.query, limit=args.k, show_hidden=args.show_hidden)
    with opened_actions() as actions:
        hits = actions.search.hits(query)
    views = hit_views(hits, query.question, app_url)
    if args.json:
        print_json([view.model_dump(mode="json") for view in views])
        return 0
    if not views:
        note(
            "No passages close enough to the question (are the DocSet's documents done "
            "embedding? --show-hidden lists what the relevance floor hid)."
        )
    for view in views:
        _print_hit(view)
    return 0


def _print_hit(view: "HitView") -> None:
    version = f"  ·  {view.version}" if view.ref else ""
    score = "none yet" if view.score is None else f"{view.score:.4f}"
    hidden = "  ·  hidden: below the relevance floor" if view.hidden else ""
    print(
        safe(f"[{view.number}] {view.label}  ·  {view.docset}{version}  ·  score {score}{hidden}")
    )
    for extra in (view.url or view.view_url, view.context):
        if extra:
            print(safe(f"    {extra}"))
    print(textwrap.indent(safe(view.snippet, keep="\n\t"), "    | ", lambda _: True))
    print()


def _ask(args: argparse.Namespace) -> int:
    from ragspace.actions.hit_view import answer_view
    from ragspace.answering.answer import without_sources

    app_url = load_settings().server.app_url
    query = _query(args, args.question, rerank=not args.no_rerank)
    with opened_actions() as actions:
        updates = actions.answers.ask(query)
        if args.json:
            *_, last = updates
            assert last.answer is not None
            print_json(answer_view(last.answer, app_url).model_dump(mode="json"))
            return 0
        shown = ""
        answer: Answer | None = None
        for update in updates:
            # the sources are listed once, below, with their links
            text = without_sources(update.text)
            _show(shown, text, update.answer)
            shown, answer = text, update.answer
    print()
    if answer is not None:
        _print_sources(answer.citations)
    return 0


def _show(shown: str, text: str, answer: Answer | None) -> None:
    """Write what the update adds to what is already on the terminal."""
    if text.startswith(shown):
        sys.stdout.write(safe(text[len(shown) :], keep="\n\t"))
    elif answer is not None and answer.notes:  # the model failed midway: note and passages
        sys.stdout.write("\n\n" + safe(text, keep="\n\t"))
    else:  # the checked text only drops citations of passages the model was not given
        note("\n(Citations of passages that were not retrieved were dropped from the sources.)")
    sys.stdout.flush()


def _print_sources(citations: list[Citation]) -> None:
    if not citations:
        return
    print("\nSources:")
    for citation in citations:
        where = f"  {citation.url}" if citation.url else ""
        version = f"  ({version_text(citation)})" if citation.ref else ""
        print(safe(f"[{citation.number}] {citation.label}{version}{where}"))
