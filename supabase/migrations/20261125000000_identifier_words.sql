-- Keyword search finds the words inside identifiers. PostgreSQL's English parser keeps
-- camelCase, PascalCase and dotted names whole (`getUserName` -> 'getusernam',
-- `self.max_retries` -> 'self.max'), so a question asking how to "get the user name" could
-- not match the code that does it. Each chunk's full-text vector now also holds those
-- identifiers' words (`get user name`, `self max retries`, `HTTP Server`); the identifier
-- itself stays too, so searching for it exactly still matches. snake_case needs nothing:
-- the parser already splits it at the underscores.

create or replace function identifier_words(body text) returns text
language sql immutable strict parallel safe as $$
    select coalesce(string_agg(
        regexp_replace(
            regexp_replace(
                regexp_replace(m[1], '([a-z0-9])([A-Z])', '\1 \2', 'g'),  -- userName
                '([A-Z]+)([A-Z][a-z])', '\1 \2', 'g'),                      -- HTTPServer
            '[._]+', ' ', 'g'),                                              -- self.max_retries
        ' '), '')
    from regexp_matches(
        body, '([A-Za-z_][A-Za-z0-9_]*(?:[a-z0-9][A-Z]|[A-Z][A-Z][a-z]|\.[A-Za-z_])[A-Za-z0-9_.]*)',
        'g') as m
$$;

-- A generated column's expression cannot be changed in place before PostgreSQL 17: the
-- column is added again (this rewrites `chunks` once) with its index.
alter table chunks drop column fts;
alter table chunks add column fts tsvector generated always as (
    to_tsvector('english', header || ' ' || content || ' ' || identifier_words(header || ' ' || content))
) stored;
create index chunks_fts_idx on chunks using gin (fts) with (fastupdate = off);

-- the per-DocSet document frequencies counted the old vectors
delete from docset_terms;
insert into docset_terms (docset_id, lexeme, df)
select docset_id, lexeme, count(*)
from chunks, unnest(tsvector_to_array(fts)) as lexeme
group by docset_id, lexeme;
