-- The symbol table of each DocSet (issue 40): every definition and reference the parse of a
-- code file finds, next to its chunks. Rows are replaced with the document's chunk set (in
-- the same transaction) and go with it when the document or DocSet is deleted.
-- Idempotent: safe to re-run, and runs unchanged with `supabase db push`.

create table if not exists symbol_definitions (
    id bigint generated always as identity primary key,
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
create index if not exists symbol_definitions_lower_name_idx
    on symbol_definitions (docset_id, lower(name));
create index if not exists symbol_definitions_document_idx
    on symbol_definitions (document_id, start_line);

create table if not exists symbol_references (
    id bigint generated always as identity primary key,
    document_id bigint not null references documents (id) on delete cascade,
    docset_id bigint not null references docsets (id) on delete cascade,
    name text not null,
    kind text not null,
    line integer not null check (line >= 1),
    -- the innermost definition around the use ('' and 0 at the top level of the file)
    enclosing text not null default '',
    enclosing_line integer not null default 0
);
create index if not exists symbol_references_name_idx on symbol_references (docset_id, name);
create index if not exists symbol_references_document_idx on symbol_references (document_id);
