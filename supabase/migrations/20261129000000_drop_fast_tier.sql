-- The fast tier goes (issue 37): its static vectors scored vector-only Recall@5 0.406 (docs)
-- and 0.275 (code) against the model's 0.8-0.9, took a minute to build at first start and
-- 11 % of ingestion time. What stays is the keyword pass: a new document's chunks are stored
-- without vectors at once, found by keyword search until the vector pass fills `embedding`.
-- documents.vector_tier now reads null (nothing searchable yet), 'keywords' (chunks in,
-- vectors to come) or 'quality' (vectors in). Idempotent; runs unchanged with `supabase db push`.
--
-- Dropping the column is a catalogue change (no table rewrite); its 1.5 kB a chunk is given
-- back as rows are rewritten (re-sync, re-embed) or by a VACUUM FULL the operator chooses.

drop index if exists chunks_fast_embedding_idx;
drop index if exists chunks_fast_only_idx;
alter table chunks drop column if exists fast_embedding;

alter table documents drop constraint if exists documents_vector_tier_check;
update documents set vector_tier = 'keywords' where vector_tier = 'fast';
alter table documents add constraint documents_vector_tier_check
    check (vector_tier in ('keywords', 'quality'));

-- The claim first walks the queue for jobs of documents with nothing searchable yet (their
-- keyword pass), probing each job's document: this small index holds only those documents,
-- so a probe needs no table read, and once every document is searchable it is empty.
create index if not exists documents_unsearchable_idx on documents (id) where vector_tier is null;
