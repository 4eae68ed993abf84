-- A reference row kept the qualified name of the definition around each use as a text
-- array beside that definition's first line. The name is in the document's definition rows
-- already (found by the line: the index on (document_id, start_line)), so lookups read it
-- from there; building and writing the array was a tenth of the time a file's symbol rows
-- took to extract and store (docs/benchmarks-log.md, "References without enclosing names").
-- Idempotent; runs unchanged with `supabase db push`.

alter table symbol_references drop column if exists enclosing;
