"""`ragspace symbols` and `ragspace map`: definitions and uses by name, a DocSet's code map."""

import argparse
import dataclasses

from ragspace.answering.citations import cite, line_range
from ragspace.answering.symbol_answer import location_passage
from ragspace.symbols.records import SymbolLocation
from ragspace_cli.support import Subcommands, note, opened_actions, print_json, shown


def register(commands: Subcommands) -> None:
    """Add the `symbols` and `map` commands."""
    symbols = commands.add_parser(
        "symbols", help="where a function, class or type is defined (--refs: where it is used)"
    )
    symbols.add_argument("docset", help="the DocSet to look in")
    symbols.add_argument("name", help="url_for, Session.request, ns::Type ...")
    symbols.add_argument("--refs", action="store_true", help="list the uses instead")
    symbols.add_argument("--ref", metavar="REF", help="only this version of a versioned DocSet")
    symbols.add_argument("-k", type=int, default=20, help="at most this many (1-50, default 20)")
    symbols.add_argument("--json", action="store_true", help="machine-readable output")
    symbols.set_defaults(run=_symbols)

    repo_map = commands.add_parser(
        "map",
        help="files and their definitions, most used by other files first, within a budget",
    )
    repo_map.add_argument("docset", help="the DocSet to map")
    repo_map.add_argument("--tokens", type=int, default=2000, help="budget (default 2,000)")
    repo_map.add_argument("--ref", metavar="REF", help="this version of a versioned DocSet")
    repo_map.add_argument("--json", action="store_true", help="machine-readable output")
    repo_map.set_defaults(run=_map)


def _symbols(args: argparse.Namespace) -> int:
    with opened_actions() as actions:
        if args.refs:
            found = actions.symbols.references(args.name, [args.docset], args.ref, args.k)
            places, total = found.places, found.total
        else:
            places = actions.symbols.definitions(args.name, [args.docset], args.ref, args.k)
            total = len(places)
    if args.json:
        print_json({"total": total, "places": [_json(p) for p in places]})
        return 0
    if not places:
        note(f"No {'uses' if args.refs else 'definition'} of {args.name!r} in {args.docset!r}.")
        return 0
    for number, place in enumerate(places, start=1):
        where = f"{place.path}:{line_range(place.start_line, place.end_line)}"
        if args.refs:
            inside = place.qualified_name or "(top level)"
            print(shown(f"{where}  {place.kind} in {inside}"))
            print(shown(f"    | {place.content.strip()}", keep="\t"))
        else:
            print(shown(f"{where}  {place.kind} {place.qualified_name}"))
            print(shown(f"    {place.signature}", keep="\t"))
            if place.doc:
                print(shown(f"    {place.doc}", keep="\t"))
        url = cite(location_passage(place, number)).url
        if url:
            print(shown(f"    {url}"))
    if total > len(places):
        note(f"{total - len(places)} more not shown (-k to see more).")
    return 0


def _json(place: SymbolLocation) -> dict[str, object]:
    data = dataclasses.asdict(place)
    data["url"] = cite(location_passage(place, 1)).url
    return data


def _map(args: argparse.Namespace) -> int:
    with opened_actions() as actions:
        built = actions.symbols.repo_map(args.docset, args.tokens, args.ref)
    if args.json:
        print_json(dataclasses.asdict(built) | {"truncated": built.truncated})
        return 0
    if not built.text:
        note(f"No definitions in {args.docset!r} (code files are parsed when ingested).")
        return 0
    print(shown(built.text, keep="\n\t"))
    note(
        f"{built.definitions_shown} of {built.definitions_total} definitions, "
        f"{built.files_shown} of {built.files_total} files, {built.tokens} tokens."
    )
    return 0
