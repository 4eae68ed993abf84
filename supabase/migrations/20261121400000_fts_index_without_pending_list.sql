-- Full-text index without GIN's pending list: with fastupdate on, inserts are queued
-- in an unsorted list that every search scans until (auto)vacuum merges it, which made
-- keyword search tens of milliseconds slower right after an ingestion. Inserts now pay
-- the (small, next to HNSW) cost of updating the index directly.
alter index if exists chunks_fts_idx set (fastupdate = off);
select gin_clean_pending_list('chunks_fts_idx'::regclass);
