-- The symbol tables keep each row's DocSet for lookups without a join, and their foreign key
-- to `docsets` checked it on every row stored: a lookup and a row lock for each of the ~100
-- rows of a file, 14 % of the time to store them (bench/symbol_extraction.py). The key on
-- `document_id` already ties every row to a live DocSet: deleting a DocSet deletes its
-- documents, and with them their symbol rows. Idempotent; runs unchanged with `supabase db push`.

alter table symbol_definitions drop constraint if exists symbol_definitions_docset_id_fkey;
alter table symbol_references drop constraint if exists symbol_references_docset_id_fkey;
