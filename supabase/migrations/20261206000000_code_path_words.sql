-- A code chunk's full-text vector also holds its file's name and folders (issue 68). A
-- question about code names the file's subject more often than any one chunk of it does
-- ("absl::Mutex and MutexLock for synchronization" -> absl/synchronization/mutex.h), and
-- most of a file's chunks never say what the file is called: the path in the chunk's header
-- is one lexeme (`tokio/src/sync/mutex.rs`), found by no word. So the file's stem is indexed
-- twice and the names of its last three folders once (with their camelCase words), as
-- semble's BM25 indexes each chunk; prose keeps its vector (its header carries the page's
-- headings, and docs-dev's keyword side lost on it: bench/experiments/code_keywords.py).
-- The existing code chunks are rewritten once. Idempotent; runs unchanged with
-- `supabase db push`.

-- `tokio/src/sync/mutex.rs` -> 'mutex mutex tokio src sync'
create or replace function path_words(path text) returns text
language sql immutable strict parallel safe as $$
    select concat_ws(' ', stem, stem,
                     nullif(array_to_string(parts[greatest(1, n - 3):n - 1], ' '), ''))
    from (select string_to_array(path, '/') as parts) p
    cross join lateral (select cardinality(p.parts) as n) c
    cross join lateral (select regexp_replace(p.parts[c.n], '\.[^.]*$', '') as stem) s
$$;

-- the languages ragspace/text/languages.py counts as prose (PROSE_LANGUAGES; a test checks)
create or replace function is_prose_language(language text) returns boolean
language sql immutable parallel safe as $$
    select coalesce(language, '') in ('markdown', 'rst', 'text', 'html')
$$;

-- the text a chunk's vector is made of: a code chunk's path (its header's first part) adds
-- its words
create or replace function chunk_full_text(header text, content text, language text)
returns tsvector language sql immutable parallel safe as $$
    select to_tsvector('english', header || ' ' || content || ' '
                                  || identifier_words(header || ' ' || content)
                                  || case when is_prose_language(language) then ''
                                     else ' ' || w.words || ' ' || identifier_words(w.words) end)
    from (select path_words(split_part(header, ' | ', 1)) as words) w
$$;

create or replace function chunks_full_text() returns trigger
language plpgsql as $$
begin
    new.fts := chunk_full_text(new.header, new.content, new.metadata ->> 'language');
    new.fts_words := tsvector_words(new.fts);
    return new;
end;
$$;

-- the trigger also fires when a chunk's language changes (its metadata)
drop trigger if exists chunks_full_text on chunks;
create trigger chunks_full_text before insert or update of header, content, metadata on chunks
    for each row execute function chunks_full_text();

-- code chunks stored before this migration (the statement triggers keep `docset_terms` and
-- `docset_lengths` in step); a chunk already holding its path's words is left alone
update chunks set header = header
where not is_prose_language(metadata ->> 'language')
  and fts is distinct from chunk_full_text(header, content, metadata ->> 'language');
