-- RAGSpace initial schema: DocSets, sources, documents and chunks with vectors.
-- Runs unchanged on the embedded Postgres and on Supabase (`supabase db push`).

create extension if not exists vector;

create table if not exists docsets (
    id bigint generated always as identity primary key,
    name text not null unique check (length(btrim(name)) between 1 and 100),
    description text not null default '',
    -- the model every vector of this DocSet comes from; search never mixes models
    embedding_model text not null,
    embedding_dimensions integer not null check (embedding_dimensions > 0),
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
);

create table if not exists sources (
    id bigint generated always as identity primary key,
    docset_id bigint not null references docsets (id) on delete cascade,
    kind text not null check (kind in ('upload', 'github_repo', 'github_file', 'web')),
    location text not null,
    options jsonb not null default '{}'::jsonb,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
);
create index if not exists sources_docset_idx on sources (docset_id);

create table if not exists documents (
    id bigint generated always as identity primary key,
    docset_id bigint not null references docsets (id) on delete cascade,
    source_id bigint references sources (id) on delete cascade,
    path text not null,
    title text not null default '',
    language text not null default 'text',
    content text not null,
    content_hash text not null,
    embedding_status text not null default 'pending'
        check (embedding_status in ('pending', 'processing', 'done', 'error')),
    error_message text,
    chunk_count integer not null default 0,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    unique (docset_id, path)
);
create index if not exists documents_status_idx on documents (embedding_status, id);
create index if not exists documents_source_idx on documents (source_id);

create table if not exists chunks (
    id bigint generated always as identity primary key,
    document_id bigint not null references documents (id) on delete cascade,
    -- copied from the document so search filters by DocSet without a join
    docset_id bigint not null references docsets (id) on delete cascade,
    ordinal integer not null check (ordinal >= 0),
    content text not null,
    header text not null default '',
    start_line integer not null check (start_line >= 1),
    end_line integer not null,
    metadata jsonb not null default '{}'::jsonb,
    content_hash text not null,
    embedding vector,
    fts tsvector generated always as (
        to_tsvector('english', header || ' ' || content)
    ) stored,
    unique (document_id, ordinal),
    check (end_line >= start_line)
);
create index if not exists chunks_docset_idx on chunks (docset_id);
create index if not exists chunks_fts_idx on chunks using gin (fts);

-- One HNSW index per supported vector size: the local model (384) and
-- OpenAI text-embedding-3-small (1536). Queries repeat the predicate and cast.
create index if not exists chunks_embedding_384_idx on chunks
    using hnsw ((embedding::vector(384)) vector_cosine_ops)
    where vector_dims(embedding) = 384;
create index if not exists chunks_embedding_1536_idx on chunks
    using hnsw ((embedding::vector(1536)) vector_cosine_ops)
    where vector_dims(embedding) = 1536;
