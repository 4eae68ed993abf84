-- Two embedding tiers (issue 14): every chunk may carry a fast static vector (the
-- distilled MiniLM token table, 384 dims) next to its quality vector (`embedding`).
-- A new document is searchable by its fast vectors seconds after it arrives; the
-- quality model replaces its chunk set in the background. Search ranks each tier on
-- its own and fuses the ranks (cosines of different models are not comparable).
-- Idempotent: safe to re-run, and runs unchanged with `supabase db push`.

alter table chunks add column if not exists fast_embedding vector(384);

-- which tier the vectors of the document's *current* content come from:
-- null (none yet), 'fast' (static only) or 'quality' (the DocSet's model)
alter table documents add column if not exists vector_tier text;
do $$
begin
    if not exists (select 1 from pg_constraint where conname = 'documents_vector_tier_check') then
        alter table documents add constraint documents_vector_tier_check
            check (vector_tier in ('fast', 'quality'));
    end if;
end;
$$;

-- documents embedded before this migration hold quality vectors of their content
update documents set vector_tier = 'quality'
where vector_tier is null and embedding_status = 'done';

-- Only chunks still waiting for their quality vector are in the fast HNSW index, so it
-- stays small and a search over upgraded DocSets never walks it.
create index if not exists chunks_fast_embedding_idx on chunks
    using hnsw (fast_embedding vector_cosine_ops)
    where embedding is null and fast_embedding is not null;
-- answers "does this DocSet still have fast-only chunks?" without touching the rest
create index if not exists chunks_fast_only_idx on chunks (docset_id)
    where embedding is null and fast_embedding is not null;
