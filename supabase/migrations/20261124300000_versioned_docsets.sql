-- Versioned DocSets (issue 15): one GitHub repository may be indexed at several refs
-- (v2.x, v3.0, main) side by side in one DocSet. Each ref is its own source (its
-- resolved commit and sync time live on the source); its documents carry the ref name,
-- so the same path exists once per ref. Uploads and web pages have no ref ('').
-- Idempotent: safe to re-run, and runs unchanged with `supabase db push`.

alter table documents add column if not exists ref text not null default '';

-- documents of GitHub sources synced before this migration: the ref their source resolved
update documents d set ref = s.sync_state ->> 'ref'
from sources s
where d.source_id = s.id
  and s.kind in ('github_repo', 'github_file')
  and d.ref = ''
  and coalesce(s.sync_state ->> 'ref', '') <> '';

-- a path is unique per DocSet and ref (it was per DocSet); the new index also serves
-- "which documents of this DocSet are at this ref" (the search filter's lookups use the
-- primary key, the ref listing reads sources)
do $$
begin
    if exists (select 1 from pg_constraint where conname = 'documents_docset_id_path_key') then
        alter table documents drop constraint documents_docset_id_path_key;
    end if;
    if not exists (select 1 from pg_constraint where conname = 'documents_docset_ref_path_key') then
        alter table documents add constraint documents_docset_ref_path_key
            unique (docset_id, ref, path);
    end if;
end;
$$;
