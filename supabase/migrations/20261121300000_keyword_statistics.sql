-- Per-DocSet document frequencies of full-text lexemes, for IDF-weighted keyword search.
-- Maintained by statement-level triggers on chunks (set-based, so bulk COPY stays fast).

create table if not exists docset_terms (
    docset_id bigint not null references docsets (id) on delete cascade,
    lexeme text not null,
    df integer not null,
    primary key (docset_id, lexeme)
);

create or replace function docset_terms_add() returns trigger language plpgsql as $$
begin
    -- sorted, so concurrent writers lock rows in the same order and cannot deadlock
    insert into docset_terms as t (docset_id, lexeme, df)
    select docset_id, lexeme, count(*)
    from new_chunks, unnest(tsvector_to_array(fts)) as lexeme
    group by docset_id, lexeme
    order by docset_id, lexeme
    on conflict (docset_id, lexeme) do update set df = t.df + excluded.df;
    return null;
end;
$$;

create or replace function docset_terms_remove() returns trigger language plpgsql as $$
begin
    update docset_terms as t set df = t.df - gone.df
    from (
        select docset_id, lexeme, count(*) as df
        from old_chunks, unnest(tsvector_to_array(fts)) as lexeme
        group by docset_id, lexeme
        order by docset_id, lexeme
    ) as gone
    where t.docset_id = gone.docset_id and t.lexeme = gone.lexeme;
    return null;
end;
$$;

drop trigger if exists chunks_terms_insert on chunks;
create trigger chunks_terms_insert after insert on chunks
    referencing new table as new_chunks
    for each statement execute function docset_terms_add();

drop trigger if exists chunks_terms_delete on chunks;
create trigger chunks_terms_delete after delete on chunks
    referencing old table as old_chunks
    for each statement execute function docset_terms_remove();

-- an UPDATE that changes the text is a remove followed by an add
drop trigger if exists chunks_terms_update_old on chunks;
drop trigger if exists chunks_terms_update_new on chunks;
create trigger chunks_terms_update_old after update on chunks
    referencing old table as old_chunks
    for each statement execute function docset_terms_remove();
create trigger chunks_terms_update_new after update on chunks
    referencing new table as new_chunks
    for each statement execute function docset_terms_add();

-- chunks stored before this migration
insert into docset_terms (docset_id, lexeme, df)
select docset_id, lexeme, count(*)
from chunks, unnest(tsvector_to_array(fts)) as lexeme
group by docset_id, lexeme
on conflict (docset_id, lexeme) do nothing;
