"""The symbol table's SQL: a document's definitions and references swapped in with its
chunks, and the lookups (by name, by document, the repository map's counts)."""

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from ragspace.store.document_cards import refresh_card
from ragspace.store.write_lock import lock_docset_writes
from ragspace.symbols.records import (
    FileSymbols,
    MapEntry,
    NameTarget,
    ReferenceDraft,
    SymbolLocation,
)

# The lines of a definition a lookup returns as its content (a long class is cut).
CONTENT_LINES = 60

_DEFINITION_COPY = (
    "copy symbol_definitions (document_id, docset_id, name, qualified_name, kind,"
    " start_line, end_line, signature, doc, depth) from stdin"
)
_REFERENCE_COPY = (
    "copy symbol_references (document_id, docset_id, name, lines, kinds, enclosing_lines)"
    " from stdin"
)
_DELETE = """
    with gone as (delete from symbol_definitions where document_id = any(%(ids)s))
    delete from symbol_references where document_id = any(%(ids)s)
"""
# where a hit lives, as search returns it: path, version and citation facts
_LOCATION = """
    s.document_id, ds.name as docset, d.path, d.title, d.language,
    coalesce(d.metadata -> 'cite', '{}'::jsonb) as cite,
    nullif(d.ref, '') as ref,
    case when d.ref <> '' then src.sync_state ->> 'commit' end as resolved_sha,
    coalesce(src.last_synced_at, d.updated_at) as indexed_at
"""
_JOINS = """
    join documents d on d.id = s.document_id
    join docsets ds on ds.id = s.docset_id
    left join sources src on src.id = d.source_id
"""
# The definition around a use, found by the first line the use records: the deepest
# definition starting there (any deeper one on that line would enclose the use itself).
_ENCLOSING = """
    select e.qualified_name from symbol_definitions e
    where e.document_id = s.document_id and e.start_line = s.enclosing_line
    order by e.depth desc, e.end_line, e.qualified_name
    limit 1
"""
_LINES = "array_to_string((string_to_array(d.content, E'\\n'))[{first}:{last}], E'\\n')"


def replace_symbols(
    conn: psycopg.Connection[Any], document_id: int, docset_id: int, symbols: FileSymbols | None
) -> None:
    """Swap in a document's symbol rows, inside the caller's transaction (None: no rows)."""
    replace_symbol_sets(conn, [SymbolSet(document_id, docset_id, symbols)])


@dataclass(frozen=True)
class SymbolSet:
    """A document's new symbol rows (None: none), as `replace_symbol_sets` swaps them in."""

    document_id: int
    docset_id: int
    symbols: FileSymbols | None


def replace_symbol_sets(conn: psycopg.Connection[Any], sets: Sequence[SymbolSet]) -> None:
    """Swap in these documents' symbol rows, inside the caller's transaction: one delete
    and one COPY a table for all of them."""
    conn.execute(_DELETE, {"ids": [symbol_set.document_id for symbol_set in sets]})
    definitions = [row for symbol_set in sets for row in _definition_rows(symbol_set)]
    if definitions:
        with conn.cursor().copy(_DEFINITION_COPY) as copy:
            for row in definitions:
                copy.write_row(row)
    references = [row for symbol_set in sets for row in _reference_rows(symbol_set)]
    if references:
        with conn.cursor().copy(_REFERENCE_COPY) as copy:
            for row in references:
                copy.write_row(row)


def _definition_rows(symbol_set: SymbolSet) -> Iterator[tuple[Any, ...]]:
    if symbol_set.symbols is None:
        return
    owner = (symbol_set.document_id, symbol_set.docset_id)
    for d in symbol_set.symbols.definitions:
        place = (d.start_line, d.end_line, d.signature, d.doc, d.depth)
        yield (*owner, d.name, d.qualified_name, d.kind, *place)


def _reference_rows(symbol_set: SymbolSet) -> Iterator[tuple[Any, ...]]:
    if symbol_set.symbols is None:
        return
    uses: dict[str, list[ReferenceDraft]] = {}
    for reference in symbol_set.symbols.references:
        uses.setdefault(reference.name, []).append(reference)
    for name, found in uses.items():
        lines, kinds = _integers([r.line for r in found]), _texts([r.kind for r in found])
        around = _integers([r.enclosing_line for r in found])
        yield (symbol_set.document_id, symbol_set.docset_id, name, lines, kinds, around)


# A file's references are three arrays a row. Written as array literals here, not as lists
# for psycopg to dump (its list dumper inspects every element), they take 40 % less time to
# store: docs/benchmarks-log.md, "Symbol rows stored faster".
def _integers(values: Sequence[int]) -> str:
    """An integer[] literal: `{3,17}`."""
    return "{" + ",".join(map(str, values)) + "}"


def _texts(values: Sequence[str]) -> str:
    """A text[] literal with every element quoted, its quotes and backslashes escaped (so
    empty strings, commas, braces and `NULL` stay what they are): `{"call","a\\"b"}`."""
    return "{" + ",".join('"' + v.translate(_ARRAY_ESCAPES) + '"' for v in values) + "}"


_ARRAY_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"'})


def documents_without_symbols(
    pool: ConnectionPool[psycopg.Connection[Any]],
    languages: Sequence[str],
    after_id: int,
    limit: int,
) -> list[dict[str, Any]]:
    """Done code documents with no symbol rows (ingested before the table existed), by id."""
    query = """
        select d.id, d.docset_id, d.path, d.language, d.content, d.content_hash
        from documents d
        where d.id > %(after)s and d.embedding_status = 'done'
          and d.language = any(%(languages)s)
          and not exists (select 1 from symbol_definitions s where s.document_id = d.id)
          and not exists (select 1 from symbol_references r where r.document_id = d.id)
        order by d.id limit %(limit)s
    """
    params = {"after": after_id, "languages": list(languages), "limit": limit}
    with pool.connection() as conn, conn.cursor(row_factory=dict_row) as cursor:
        return cursor.execute(query.encode(), params).fetchall()


def fill_symbols(
    pool: ConnectionPool[psycopg.Connection[Any]],
    document_id: int,
    docset_id: int,
    content_hash: str,
    symbols: FileSymbols,
) -> bool:
    """Store rows parsed from a document's stored text, unless that text changed since
    (a job then writes its own rows); True when written."""
    with pool.connection() as conn, conn.transaction():
        lock_docset_writes(conn, docset_id)
        row = conn.execute(
            "select content_hash from documents where id = %s for update", (document_id,)
        ).fetchone()
        if row is None or row[0] != content_hash:
            return False
        replace_symbols(conn, document_id, docset_id, symbols)
        refresh_card(conn, document_id)
    return True


class SymbolIndex:
    """Reads the symbol table: definitions and references by name, counts for the map."""

    def __init__(self, pool: ConnectionPool[psycopg.Connection[Any]]) -> None:
        self._pool = pool

    def definitions(
        self, docset_ids: Sequence[int], name: str, ref: str | None, limit: int
    ) -> list[SymbolLocation]:
        """Definitions called `name` (exactly, else case-insensitively: a scan of the
        DocSet's rows, a fallback), the outermost first."""
        lines = _LINES.format(
            first="s.start_line", last=f"least(s.end_line, s.start_line + {CONTENT_LINES - 1})"
        )
        for column in ("s.name", "lower(s.name)"):
            query = f"""
                select s.name, s.qualified_name, s.kind, s.start_line, s.end_line, s.signature,
                       s.doc, {lines} as content, {_LOCATION}
                from symbol_definitions s {_JOINS}
                where s.docset_id = any(%(ids)s) and {column} = %(name)s
                  and (%(ref)s::text is null or d.ref = %(ref)s)
                order by s.depth, d.path, s.start_line
                limit %(limit)s
            """
            key = name if column == "s.name" else name.lower()
            rows = self._rows(
                query, {"ids": list(docset_ids), "name": key, "ref": ref, "limit": limit}
            )
            if rows:
                return [_location(row) for row in rows]
        return []

    def references(
        self, docset_ids: Sequence[int], name: str, ref: str | None, limit: int
    ) -> tuple[list[SymbolLocation], int]:
        """Uses of `name` (its line each, with the definition around it) and how many there are."""
        query = f"""
            with uses as (
                select s.document_id, s.docset_id, s.name, u.line, u.kind, u.enclosing_line,
                       count(*) over () as total
                from symbol_references s
                cross join lateral unnest(s.lines, s.kinds, s.enclosing_lines)
                    as u(line, kind, enclosing_line)
                join documents d on d.id = s.document_id
                where s.docset_id = any(%(ids)s) and s.name = %(name)s
                  and (%(ref)s::text is null or d.ref = %(ref)s)
                order by d.path, u.line
                limit %(limit)s
            )
            select s.name, coalesce(e.qualified_name, '') as qualified_name, s.kind,
                   s.line as start_line, s.line as end_line, '' as signature, '' as doc,
                   {_LINES.format(first="s.line", last="s.line")} as content, s.total,
                   {_LOCATION}
            from uses s
            left join lateral ({_ENCLOSING}) e on true
            {_JOINS}
            order by d.path, s.line
        """
        rows = self._rows(
            query, {"ids": list(docset_ids), "name": name, "ref": ref, "limit": limit}
        )
        total = int(rows[0]["total"]) if rows else 0
        return [_location(row) for row in rows], total

    def map_entries(self, docset_id: int, ref: str | None, max_depth: int = 1) -> list[MapEntry]:
        """Definitions down to `max_depth` with how often their name is referenced in the
        DocSet, and by how many files other than their own (by name: a reference is not
        resolved to one definition; `repo_map.importance` weighs that)."""
        query = """
            with counts as (
                select name, sum(cardinality(lines)) as uses, count(*) as files
                from symbol_references where docset_id = %(id)s group by name)
            select d.path, s.name, s.kind, s.signature, s.start_line, s.end_line, s.depth,
                   s.document_id, s.qualified_name, coalesce(c.uses, 0) as uses,
                   coalesce(c.files, 0) - (exists (
                       select 1 from symbol_references r
                       where r.document_id = s.document_id and r.name = s.name))::int as files
            from symbol_definitions s
            join documents d on d.id = s.document_id
            left join counts c on c.name = s.name
            where s.docset_id = %(id)s and s.depth <= %(depth)s
              and (%(ref)s::text is null or d.ref = %(ref)s)
            order by d.path, s.start_line
        """
        rows = self._rows(query, {"id": docset_id, "depth": max_depth, "ref": ref})
        return [
            MapEntry(
                r["path"],
                r["name"],
                r["kind"],
                r["signature"],
                r["start_line"],
                r["depth"],
                r["uses"],
                referring_files=r["files"],
                end_line=r["end_line"],
                document_id=r["document_id"],
                qualified_name=r["qualified_name"],
            )
            for r in rows
        ]

    def outline(self, docset_id: int, path: str, ref: str) -> list[SymbolLocation]:
        """The definitions of one document (at `ref`, '' for unversioned ones), in line order."""
        query = f"""
            select s.name, s.qualified_name, s.kind, s.start_line, s.end_line, s.signature,
                   s.doc, '' as content, {_LOCATION}
            from symbol_definitions s {_JOINS}
            where s.docset_id = %(id)s and d.path = %(path)s and d.ref = %(ref)s
            order by s.start_line, s.depth
        """
        rows = self._rows(query, {"id": docset_id, "path": path, "ref": ref})
        return [_location(row) for row in rows]

    def targets_among(
        self, docset_id: int, names: Sequence[str], path: str, ref: str, per_name: int
    ) -> dict[str, list[NameTarget]]:
        """For each of `names` defined in the DocSet (at `ref`): its definitions, at most
        `per_name` (those in `path` itself first, then the outermost)."""
        query = """
            select * from (
                select s.name, s.qualified_name, d.path, s.kind, s.depth, s.start_line,
                       s.end_line,
                       row_number() over (
                           partition by s.name
                           order by (d.path = %(path)s) desc, s.depth, d.path, s.start_line
                       ) as place
                from symbol_definitions s join documents d on d.id = s.document_id
                where s.docset_id = %(id)s and s.name = any(%(names)s) and d.ref = %(ref)s
            ) ranked where place <= %(most)s
            order by name, place
        """
        params = {"id": docset_id, "names": list(names), "path": path, "ref": ref}
        found: dict[str, list[NameTarget]] = {}
        for r in self._rows(query, {**params, "most": per_name}):
            target = NameTarget(
                r["name"],
                r["qualified_name"],
                r["path"],
                r["kind"],
                r["depth"],
                r["start_line"],
                r["end_line"],
            )
            found.setdefault(r["name"], []).append(target)
        return found

    def uses_in(self, document_id: int, first: int, last: int) -> dict[tuple[str, int], set[str]]:
        """The kinds (call, class...) of the uses the document's parse recorded on lines
        first-last, by (name, line)."""
        query = """
            select s.name, u.line, u.kind from symbol_references s
            cross join lateral unnest(s.lines, s.kinds) as u(line, kind)
            where s.document_id = %(id)s and u.line between %(first)s and %(last)s
        """
        params = {"id": document_id, "first": first, "last": last}
        found: dict[tuple[str, int], set[str]] = {}
        for r in self._rows(query, params):
            found.setdefault((r["name"], r["line"]), set()).add(r["kind"])
        return found

    def counts(self, docset_id: int) -> tuple[int, int]:
        """How many definitions and references the DocSet's table holds."""
        with self._pool.connection() as conn:
            row = conn.execute(
                "select (select count(*) from symbol_definitions where docset_id = %(id)s),"
                " (select coalesce(sum(cardinality(lines)), 0) from symbol_references"
                " where docset_id = %(id)s)",
                {"id": docset_id},
            ).fetchone()
        assert row is not None
        return int(row[0]), int(row[1])

    def _rows(self, query: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        with self._pool.connection() as conn, conn.cursor(row_factory=dict_row) as cursor:
            return cursor.execute(query.encode(), params).fetchall()


def _location(row: dict[str, Any]) -> SymbolLocation:
    return SymbolLocation(
        document_id=row["document_id"],
        docset=row["docset"],
        path=row["path"],
        title=row["title"],
        name=row["name"],
        qualified_name=row["qualified_name"],
        kind=row["kind"],
        start_line=row["start_line"],
        end_line=row["end_line"],
        content=row["content"] or "",
        signature=row["signature"],
        doc=row["doc"],
        cite=dict(row["cite"] or {}),
        ref=row["ref"],
        resolved_sha=row["resolved_sha"],
        indexed_at=row["indexed_at"],
        language=row["language"],
    )
