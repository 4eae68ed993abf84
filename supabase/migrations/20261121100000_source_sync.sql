-- Source sync state and per-document metadata (commit, blob sha, URL, page map, ETag).
-- Idempotent: safe to run again on the embedded Postgres and on Supabase.

alter table documents add column if not exists metadata jsonb not null default '{}'::jsonb;

-- what the last sync resolved (commit SHA, skipped counts...) and why it failed, if it did
alter table sources add column if not exists sync_state jsonb not null default '{}'::jsonb;
alter table sources add column if not exists error_message text;
alter table sources add column if not exists last_synced_at timestamptz;
