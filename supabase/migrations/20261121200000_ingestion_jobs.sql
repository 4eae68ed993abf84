-- Ingestion engine (issue 5): a job queue with leases, an embedding cache by
-- content hash, per-document progress, and DocSets switching embedding model.
-- Idempotent: safe to re-run, and runs unchanged with `supabase db push`.

create table if not exists ingestion_jobs (
    id bigint generated always as identity primary key,
    document_id bigint not null references documents (id) on delete cascade,
    docset_id bigint not null references docsets (id) on delete cascade,
    -- embed: new or changed content; reembed: asked for by a user
    kind text not null default 'embed' check (kind in ('embed', 'reembed')),
    -- force: ignore the embedding cache (e.g. after changing the embedding model)
    force boolean not null default false,
    state text not null default 'queued'
        check (state in ('queued', 'running', 'done', 'error')),
    attempts integer not null default 0 check (attempts >= 0),
    max_attempts integer not null default 3 check (max_attempts >= 1),
    run_after timestamptz not null default now(),
    -- the worker holding (or, once finished, last holding) the job
    lease_owner text,
    lease_expires_at timestamptz,
    heartbeat_at timestamptz,
    last_error text,
    texts_embedded integer not null default 0,
    texts_cached integer not null default 0,
    created_at timestamptz not null default now(),
    started_at timestamptz,
    finished_at timestamptz,
    updated_at timestamptz not null default now()
);
-- at most one waiting job per document; a running one may coexist (content changed meanwhile)
create unique index if not exists ingestion_jobs_one_queued_idx
    on ingestion_jobs (document_id) where state = 'queued';
create index if not exists ingestion_jobs_queue_idx
    on ingestion_jobs (run_after, id) where state = 'queued';
create index if not exists ingestion_jobs_lease_idx
    on ingestion_jobs (lease_expires_at) where state = 'running';
create index if not exists ingestion_jobs_document_idx on ingestion_jobs (document_id, id);
create index if not exists ingestion_jobs_docset_idx on ingestion_jobs (docset_id, state);

create table if not exists embedding_cache (
    model text not null,
    content_hash text not null,
    embedding vector not null,
    created_at timestamptz not null default now(),
    primary key (model, content_hash)
);

alter table documents add column if not exists chunks_embedded integer not null default 0;
alter table documents add column if not exists chunks_total integer not null default 0;
alter table documents add column if not exists started_at timestamptz;
alter table documents add column if not exists finished_at timestamptz;

-- set while a whole-DocSet re-embed moves it to another model; the switch
-- happens once no document of the DocSet is waiting or running
alter table docsets add column if not exists target_embedding_model text;
alter table docsets add column if not exists target_embedding_dimensions integer;

-- Every document that becomes pending gets a queued job, whoever wrote it
-- (uploads, GitHub and web sources, re-embed requests).
create or replace function ragspace_enqueue_pending_document() returns trigger
language plpgsql as $$
begin
    if new.embedding_status = 'pending' then
        insert into ingestion_jobs (document_id, docset_id)
        values (new.id, new.docset_id)
        on conflict (document_id) where state = 'queued' do nothing;
    end if;
    return new;
end;
$$;

drop trigger if exists documents_enqueue_pending on documents;
create trigger documents_enqueue_pending
    after insert or update of embedding_status, content_hash on documents
    for each row when (new.embedding_status = 'pending')
    execute function ragspace_enqueue_pending_document();

-- Documents waiting from before this migration get their job now.
insert into ingestion_jobs (document_id, docset_id)
select d.id, d.docset_id from documents d
where d.embedding_status in ('pending', 'processing')
  and not exists (
      select 1 from ingestion_jobs j
      where j.document_id = d.id and j.state in ('queued', 'running'))
on conflict (document_id) where state = 'queued' do nothing;
