-- Reranking per DocSet (issue 19, lead 3): whether the chat model reorders the passages of
-- answers over this DocSet, and the evaluation that backed the choice. Reranking after
-- hybrid fusion helps some collections and hurts others; the Evaluate tab measures it on
-- the DocSet's own questions and saves the choice here.
-- Idempotent: safe to re-run, and runs unchanged with `supabase db push`.

-- true: reranked whenever a chat model is configured (the behaviour before this column)
alter table docsets add column if not exists rerank boolean not null default true;
-- what the choice rests on, as shown to the user (null: never evaluated, the default)
alter table docsets add column if not exists rerank_evidence text;
