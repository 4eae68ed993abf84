-- A card per document for file-level keyword search (issue 35): its path, title, section
-- headings and the names and first docstring lines of what it defines. A question that
-- describes a file ("the private import checker", "the patches module's CSV table
-- directive") names the words of its path and definitions more than those of any one chunk,
-- so the file side scores these cards with BM25 and lifts every chunk of a matching file.
-- Idempotent: safe to re-run, and runs unchanged with `supabase db push`.

create table if not exists document_cards (
    document_id bigint primary key references documents (id) on delete cascade,
    -- copied from the document so a search filters by DocSet without a join
    docset_id bigint not null references docsets (id) on delete cascade,
    fts tsvector not null,
    -- indexed words (positions), BM25's length
    words integer not null
);
create index if not exists document_cards_fts_idx
    on document_cards using gin (fts) with (fastupdate = off);
-- with the lengths, so the DocSets' average card length is read from the index alone
create index if not exists document_cards_docset_idx on document_cards (docset_id, words);

-- The card's text. The path's words count three times: like a title field in BM25F, a
-- file's name says more about it than one more definition does. Definitions come from the
-- symbol table where the parse filled it, else from the chunks' `symbol` (line patterns);
-- prose gives its heading paths. Cut at 200,000 characters (a tsvector holds at most 1 MB).
create or replace function document_card_text(doc bigint) returns text
language sql stable parallel safe as $$
    select left(concat_ws(' ',
               repeat(regexp_replace(d.path, '[^A-Za-z0-9]+', ' ', 'g') || ' ', 3),
               d.title,
               (select string_agg(distinct c.metadata ->> 'heading_path', ' ')
                from chunks c where c.document_id = d.id),
               coalesce(
                   (select string_agg(s.name || ' ' || s.doc, ' ' order by s.start_line)
                    from symbol_definitions s where s.document_id = d.id),
                   (select string_agg(distinct c.metadata ->> 'symbol', ' ')
                    from chunks c where c.document_id = d.id))),
               200000)
    from documents d where d.id = doc
$$;

-- Write (or rewrite) a document's card from its stored rows; called in the transaction that
-- swaps its chunks or symbols (ragspace/store/document_cards.py).
create or replace function refresh_document_card(doc bigint) returns void
language sql volatile as $$
    insert into document_cards (document_id, docset_id, fts, words)
    select d.id, d.docset_id, v.fts, tsvector_words(v.fts)
    from documents d
    cross join lateral (select document_card_text(d.id) as body) t
    cross join lateral (
        select to_tsvector('english', t.body || ' ' || identifier_words(t.body)) as fts) v
    where d.id = doc
    on conflict (document_id) do update set fts = excluded.fts, words = excluded.words
$$;

-- every document stored before this migration
select refresh_document_card(d.id)
from documents d
where not exists (select 1 from document_cards c where c.document_id = d.id);
