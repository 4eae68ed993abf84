-- Keyword search finds the words inside identifiers. PostgreSQL's English parser keeps
-- camelCase, PascalCase and dotted names whole (`getUserName` -> 'getusernam',
-- `logger.getEffectiveLevel` -> 'logger.geteffectivelevel'), so a question asking how to
-- "get the user name" could not match the code that does it, and a search for
-- `getEffectiveLevel` missed every `logger.getEffectiveLevel()`. Each chunk's full-text
-- vector now also holds those identifiers' words (`get user name`, `HTTP Server`) and the
-- camelCase parts of a dotted name whole (`getEffectiveLevel`); the identifier itself stays,
-- so searching for it exactly still matches. snake_case needs nothing: the parser already
-- splits it at the underscores.

create or replace function identifier_words(body text) returns text
language sql immutable strict parallel safe as $$
    select coalesce(string_agg(concat_ws(' ', words, whole_parts), ' '), '')
    from regexp_matches(
             body,
             '([A-Za-z_][A-Za-z0-9_]*(?:[a-z0-9][A-Z]|[A-Z][A-Z][a-z]|\.[A-Za-z_])(?:[A-Za-z0-9_]|\.(?=[A-Za-z_]))*)',
             'g') as m(found),
         -- logger.getEffectiveLevel -> logger get Effective Level
         lateral (select regexp_replace(
                             regexp_replace(
                                 regexp_replace(found[1], '([a-z0-9])([A-Z])', '\1 \2', 'g'),
                                 '([A-Z]+)([A-Z][a-z])', '\1 \2', 'g'),
                             '[._]+', ' ', 'g') as words) as w,
         -- and the camelCase parts of a dotted name whole: getEffectiveLevel
         lateral (select nullif(array_to_string(array(
                             select part from unnest(string_to_array(found[1], '.')) as part
                             where strpos(found[1], '.') > 0
                               and part ~ '[a-z0-9][A-Z]|[A-Z][A-Z][a-z]'), ' '), '')
                         as whole_parts) as d
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
