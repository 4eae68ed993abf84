-- A vector pass gives its keyword pass's chunks their vectors in place (an UPDATE of the
-- `embedding` column, chunk_rows.fill_vectors) instead of deleting and copying them again.
-- The statement triggers that keep `docset_terms` and `docset_lengths` (BM25's document
-- frequencies and lengths) in step with an UPDATE took every lexeme of every updated chunk
-- away and added it back, whatever the UPDATE changed. Now one trigger per table counts
-- only the rows whose full-text vector (or DocSet) the UPDATE changed, so an UPDATE that
-- leaves the text alone leaves the statistics alone. (Postgres allows no column list on a
-- trigger with transition tables, hence the comparison.) Idempotent; runs unchanged with
-- `supabase db push`.

create or replace function docset_terms_update() returns trigger language plpgsql as $$
begin
    -- sorted, so concurrent writers lock rows in the same order and cannot deadlock
    update docset_terms as t set df = t.df - gone.df
    from (
        select o.docset_id, lexeme, count(*) as df
        from old_chunks o join new_chunks n on n.id = o.id
        cross join unnest(tsvector_to_array(o.fts)) as lexeme
        where o.fts is distinct from n.fts or o.docset_id <> n.docset_id
        group by o.docset_id, lexeme
        order by o.docset_id, lexeme
    ) as gone
    where t.docset_id = gone.docset_id and t.lexeme = gone.lexeme;
    insert into docset_terms as t (docset_id, lexeme, df)
    select n.docset_id, lexeme, count(*)
    from new_chunks n join old_chunks o on o.id = n.id
    cross join unnest(tsvector_to_array(n.fts)) as lexeme
    where o.fts is distinct from n.fts or o.docset_id <> n.docset_id
    group by n.docset_id, lexeme
    order by n.docset_id, lexeme
    on conflict (docset_id, lexeme) do update set df = t.df + excluded.df;
    return null;
end;
$$;

create or replace function docset_lengths_update() returns trigger language plpgsql as $$
begin
    update docset_lengths as l set chunks = l.chunks - gone.chunks, words = l.words - gone.words
    from (
        select o.docset_id, count(*) as chunks, sum(o.fts_words) as words
        from old_chunks o join new_chunks n on n.id = o.id
        where o.fts is distinct from n.fts or o.docset_id <> n.docset_id
        group by o.docset_id
        order by o.docset_id
    ) as gone
    where l.docset_id = gone.docset_id;
    insert into docset_lengths as l (docset_id, chunks, words)
    select n.docset_id, count(*), sum(n.fts_words)
    from new_chunks n join old_chunks o on o.id = n.id
    where o.fts is distinct from n.fts or o.docset_id <> n.docset_id
    group by n.docset_id
    order by n.docset_id
    on conflict (docset_id) do update
        set chunks = l.chunks + excluded.chunks, words = l.words + excluded.words;
    return null;
end;
$$;

drop trigger if exists chunks_terms_update_old on chunks;
drop trigger if exists chunks_terms_update_new on chunks;
drop trigger if exists chunks_terms_update on chunks;
create trigger chunks_terms_update after update on chunks
    referencing old table as old_chunks new table as new_chunks
    for each statement execute function docset_terms_update();

drop trigger if exists chunks_lengths_update_old on chunks;
drop trigger if exists chunks_lengths_update_new on chunks;
drop trigger if exists chunks_lengths_update on chunks;
create trigger chunks_lengths_update after update on chunks
    referencing old table as old_chunks new table as new_chunks
    for each statement execute function docset_lengths_update();
