-- A chunk's full-text vector and its length in words were two generated columns, and a
-- generated column cannot read another one: every chunk stored ran `to_tsvector` and
-- `identifier_words` (regular expressions over its whole text) twice. A trigger now computes
-- the vector once and counts its words from it. The columns keep their values; the triggers
-- that keep `docset_terms` and `docset_lengths` read the rows as this one leaves them.
-- Idempotent; runs unchanged with `supabase db push`.

alter table chunks alter column fts drop expression if exists;
alter table chunks alter column fts_words drop expression if exists;

create or replace function chunks_full_text() returns trigger
language plpgsql as $$
begin
    new.fts := to_tsvector('english', new.header || ' ' || new.content || ' '
                                      || identifier_words(new.header || ' ' || new.content));
    new.fts_words := tsvector_words(new.fts);
    return new;
end;
$$;

drop trigger if exists chunks_full_text on chunks;
create trigger chunks_full_text before insert or update of header, content on chunks
    for each row execute function chunks_full_text();
