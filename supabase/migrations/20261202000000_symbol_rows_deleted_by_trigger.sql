-- The symbol tables' foreign key to `documents` checked every row stored (a lookup and a
-- row lock for each of a file's ~100 rows) and deleted the rows with their document. A
-- statement trigger on `documents` now does the deleting, once per statement; nothing checks
-- each row any more, and none needs to: rows are written only by
-- - a job's swap (store/jobs.py), which has locked its job row (the job's own key cascades
--   from the document, so deleting the document waits for the swap) and, in the same
--   transaction, updates the document row and stores chunks whose key to `documents` stays;
-- - the backfill (store/symbols.py `fill_symbols`), which locks the document row first.
-- A delete that commits first makes the swap fail on the chunks' key (or the backfill find
-- no document); one that commits after finds the swap's rows and deletes them.
-- Idempotent; runs unchanged with `supabase db push`.

alter table symbol_definitions drop constraint if exists symbol_definitions_document_id_fkey;
alter table symbol_references drop constraint if exists symbol_references_document_id_fkey;

create or replace function delete_symbol_rows() returns trigger
language plpgsql as $$
begin
    delete from symbol_definitions s using gone g where s.document_id = g.id;
    delete from symbol_references s using gone g where s.document_id = g.id;
    return null;
end $$;

drop trigger if exists documents_symbol_rows on documents;
create trigger documents_symbol_rows after delete on documents
    referencing old table as gone
    for each statement execute function delete_symbol_rows();
