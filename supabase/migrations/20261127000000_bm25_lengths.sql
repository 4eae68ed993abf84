-- Keyword search scores chunks by Okapi BM25: a term's weight saturates with its frequency
-- in the chunk and is normalised by the chunk's length against the average length of the
-- DocSets searched. Both lengths are counted here, in indexed words (the positions a chunk's
-- full-text vector holds), so a search reads them instead of expanding every vector.

-- the number of words a full-text vector indexes (a lexeme stored without positions counts once)
create or replace function tsvector_words(v tsvector) returns integer
language sql immutable strict parallel safe as $$
    select coalesce(sum(coalesce(array_length(positions, 1), 1)), 0)::integer from unnest(v)
$$;

-- A generated column cannot read another one, so this repeats `fts`'s expression
-- (migration 20261125000000_identifier_words.sql); tests/test_store.py checks they agree.
alter table chunks add column fts_words integer generated always as (
    tsvector_words(to_tsvector('english', header || ' ' || content || ' ' || identifier_words(header || ' ' || content)))
) stored;

-- Per-DocSet totals for the average length, kept by statement triggers beside those of
-- `docset_terms` (set-based, so bulk COPY stays fast).
create table if not exists docset_lengths (
    docset_id bigint primary key references docsets (id) on delete cascade,
    chunks bigint not null,
    words bigint not null
);

create or replace function docset_lengths_add() returns trigger language plpgsql as $$
begin
    -- sorted, so concurrent writers lock rows in the same order and cannot deadlock
    insert into docset_lengths as l (docset_id, chunks, words)
    select docset_id, count(*), sum(fts_words)
    from new_chunks
    group by docset_id
    order by docset_id
    on conflict (docset_id) do update
        set chunks = l.chunks + excluded.chunks, words = l.words + excluded.words;
    return null;
end;
$$;

create or replace function docset_lengths_remove() returns trigger language plpgsql as $$
begin
    update docset_lengths as l set chunks = l.chunks - gone.chunks, words = l.words - gone.words
    from (
        select docset_id, count(*) as chunks, sum(fts_words) as words
        from old_chunks
        group by docset_id
        order by docset_id
    ) as gone
    where l.docset_id = gone.docset_id;
    return null;
end;
$$;

create trigger chunks_lengths_insert after insert on chunks
    referencing new table as new_chunks
    for each statement execute function docset_lengths_add();
create trigger chunks_lengths_delete after delete on chunks
    referencing old table as old_chunks
    for each statement execute function docset_lengths_remove();
-- an UPDATE that changes the text is a remove followed by an add
create trigger chunks_lengths_update_old after update on chunks
    referencing old table as old_chunks
    for each statement execute function docset_lengths_remove();
create trigger chunks_lengths_update_new after update on chunks
    referencing new table as new_chunks
    for each statement execute function docset_lengths_add();

-- chunks stored before this migration
insert into docset_lengths (docset_id, chunks, words)
select docset_id, count(*), sum(fts_words)
from chunks
group by docset_id
on conflict (docset_id) do nothing;
