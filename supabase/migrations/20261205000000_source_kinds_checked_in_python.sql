-- A source's kind is checked where source types are registered: it is written from and read
-- back into `ragspace.models.SourceKind`, and `SourceSyncer` serves only the kinds a fetcher
-- names. The column's own list of kinds meant a migration for every new source type.
alter table sources drop constraint if exists sources_kind_check;
