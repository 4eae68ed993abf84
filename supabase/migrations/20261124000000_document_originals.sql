-- The original bytes of an uploaded PDF (issue 13), so the viewer can link to the file
-- itself at `#page=N`. Only PDFs without an origin URL are kept (GitHub and web PDFs link
-- to their origin); one row per document, gone with it.
-- Idempotent: safe to re-run, and runs unchanged with `supabase db push`.

create table if not exists document_originals (
    document_id bigint primary key references documents (id) on delete cascade,
    media_type text not null,
    content bytea not null
);
