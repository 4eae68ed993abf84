-- Scheduled and push-triggered re-sync (issue 15 item 3): a GitHub or web source may
-- carry a re-sync interval; workers claim due sources atomically (FOR UPDATE SKIP
-- LOCKED), so with several worker processes each due sync runs once.
-- Idempotent: safe to re-run, and runs unchanged with `supabase db push`.

-- null: no scheduled re-sync (the default)
alter table sources add column if not exists resync_interval interval;
-- when the next re-sync is due; a GitHub push webhook sets it to now()
alter table sources add column if not exists next_sync_at timestamptz;
-- the worker running the source's sync, and until when its claim holds (a crashed
-- worker's claim lapses; the sync then runs again at the next due time)
alter table sources add column if not exists sync_claimed_by text;
alter table sources add column if not exists sync_claimed_until timestamptz;

do $$
begin
    if not exists (select 1 from pg_constraint where conname = 'sources_resync_interval_check') then
        alter table sources add constraint sources_resync_interval_check
            check (resync_interval is null or resync_interval >= interval '1 minute');
    end if;
end;
$$;

create index if not exists sources_next_sync_idx
    on sources (next_sync_at, id) where next_sync_at is not null;
