-- The symbol table of each DocSet (issue 40): every definition and reference the parse of a
-- code file finds, next to its chunks. Rows are replaced with the document's chunk set (in
-- the same transaction) and go with it when the document or DocSet is deleted.
-- Idempotent: safe to re-run, and runs unchanged with `supabase db push`.

create table if not exists symbol_definitions (
    document_id bigint not null references documents (id) on delete cascade,
    -- copied from the document so lookups filter by DocSet without a join
    docset_id bigint not null references docsets (id) on delete cascade,
    name text not null,
    qualified_name text not null,
    kind text not null,
    start_line integer not null check (start_line >= 1),
    end_line integer not null,
    signature text not null default '',
    doc text not null default '',
    depth integer not null default 0,
    check (end_line >= start_line)
);
create index if not exists symbol_definitions_name_idx on symbol_definitions (docset_id, name);
create index if not exists symbol_definitions_document_idx
    on symbol_definitions (document_id, start_line);

-- One row per name a document uses, its uses as parallel arrays in line order: a third of
-- the rows (and index entries) one row per use would take, which is most of what storing
-- the table costs at ingestion (bench/symbol_extraction.py).
create table if not exists symbol_references (
    document_id bigint not null references documents (id) on delete cascade,
    docset_id bigint not null references docsets (id) on delete cascade,
    name text not null,
    lines integer[] not null,
    kinds text[] not null,
    -- the innermost definition around each use ('' and 0 at the top level of the file)
    enclosing text[] not null,
    enclosing_lines integer[] not null,
    primary key (document_id, name)
);
create index if not exists symbol_references_name_idx on symbol_references (docset_id, name);
