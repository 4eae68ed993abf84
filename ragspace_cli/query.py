"""`ragspace search` and `ragspace ask`: ranked passages and streamed, cited answers."""

import argparse
import sys
import textwrap
from typing import TYPE_CHECKING, Any

from ragspace.answering.citations import cite_hit, version_data, version_text
from ragspace.links import citation_link, view_url
from ragspace.models import Answer, Citation, Hit
from ragspace.settings import load_settings
from ragspace_cli.support import Subcommands, note, opened_actions, print_json

if TYPE_CHECKING:
    from ragspace.models import RetrievalMode

MODES = ("hybrid", "vector", "keyword")  # RetrievalMode's values (a test checks)


def register(commands: Subcommands) -> None:
    """Add the `search` and `ask` commands."""
    search = commands.add_parser("search", help="ranked passages with citations and line ranges")
    search.add_argument("query")
    _docsets_and_mode(search)
    search.add_argument("-k", type=int, default=8, help="how many passages (1-50, default 8)")
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


def _mode(args: argparse.Namespace) -> "RetrievalMode | None":
    from ragspace.models import RetrievalMode

    return RetrievalMode(args.mode) if args.mode else None


def _search(args: argparse.Namespace) -> int:
    app_url = load_settings().server.app_url
    with opened_actions() as actions:
        hits = actions.search.hits(args.query, args.docset, args.k, _mode(args), ref=args.ref)
    if args.json:
        print_json([_hit_json(hit, rank, app_url) for rank, hit in enumerate(hits, 1)])
        return 0
    if not hits:
        note("No matching passages (are the DocSet's documents done embedding?).")
    for rank, hit in enumerate(hits, 1):
        citation = cite_hit(hit, rank)
        version = f"  ·  {version_text(citation)}" if citation.ref else ""
        print(f"[{rank}] {citation.label}  ·  {hit.docset_name}{version}  ·  score {hit.score:.4f}")
        opens = citation.url or citation_view_url(app_url, hit.docset_name, citation)
        for extra in (opens, citation.context):
            if extra:
                print(f"    {extra}")
        print(textwrap.indent(citation.snippet, "    | ", lambda _: True))
        print()
    return 0


def citation_view_url(app_url: str, docset: str, citation: Citation) -> str:
    """The app's viewer at a citation's best-matching lines."""
    return view_url(app_url, citation_link(docset, citation))


def _hit_json(hit: Hit, rank: int, app_url: str) -> dict[str, Any]:
    citation = cite_hit(hit, rank)
    return {
        "rank": rank,
        "docset": hit.docset_name,
        "path": hit.path,
        "title": hit.title,
        "start_line": hit.start_line,
        "end_line": hit.end_line,
        "label": citation.label,
        "url": citation.url,
        "view_url": citation_view_url(app_url, hit.docset_name, citation),
        "context": citation.context,
        "score": hit.score,
        "content": hit.content,
        **version_data(citation),
    }


def _ask(args: argparse.Namespace) -> int:
    rerank = not args.no_rerank
    app_url = load_settings().server.app_url
    with opened_actions() as actions:
        updates = actions.answers.ask(
            args.question, args.docset, mode=_mode(args), rerank=rerank, ref=args.ref
        )
        if args.json:
            *_, last = updates
            assert last.answer is not None
            print_json(_answer_json(last.answer, app_url))
            return 0
        shown = ""
        answer: Answer | None = None
        for update in updates:
            _show(shown, update.text, update.answer)
            shown, answer = update.text, update.answer
    print()
    if answer is not None:
        _print_sources(answer.citations)
    return 0


def _answer_json(answer: Answer, app_url: str) -> dict[str, Any]:
    """The answer as JSON; each citation also carries the viewer link to its lines."""
    data = answer.model_dump(mode="json")
    docsets = {p.number: p.docset_name for p in answer.passages}
    for shown, citation in zip(data["citations"], answer.citations, strict=True):
        docset = docsets.get(citation.number)
        if docset is not None:
            shown["view_url"] = citation_view_url(app_url, docset, citation)
    return data


def _show(shown: str, text: str, answer: Answer | None) -> None:
    """Write what the update adds to what is already on the terminal."""
    if text.startswith(shown):
        sys.stdout.write(text[len(shown) :])
    elif answer is not None and answer.notes:  # the model failed midway: note and passages
        sys.stdout.write("\n\n" + text)
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
        print(f"[{citation.number}] {citation.label}{version}{where}")
