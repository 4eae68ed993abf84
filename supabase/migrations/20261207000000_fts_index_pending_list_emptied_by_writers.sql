-- The full-text index takes inserts in GIN's pending list again, and every transaction that
-- writes chunks empties it before it commits (chunk_rows.copy_chunk_sets calls
-- gin_clean_pending_list): the entries of a whole batch are sorted into the index at once
-- instead of one posting tree walk per lexeme of every row. Measured on the pytest
-- checkout's 12,153 chunks in one statement: 5.2-6.0 s with fastupdate off, 3.0-3.7 s with
-- it on and the list emptied (docs/benchmarks.md, "Keyword tier"). Searches still never
-- scan a committed pending list (the reason for 20261121400000), only the entries of a
-- write in flight. The list's limit bounds that too (in kB; 4 MB by default).
alter index if exists chunks_fts_idx set (fastupdate = on, gin_pending_list_limit = 1024);
-- the same for the full-text indexes of large DocSets' own (docset_indexes.py)
do $$
declare
    own record;
begin
    for own in select c.relname from pg_class c
               where c.relkind = 'i' and c.relname like 'chunks\_fts\_docset\_%\_idx' loop
        execute format('alter index %I set (fastupdate = on, gin_pending_list_limit = 1024)',
                       own.relname);
    end loop;
end $$;
