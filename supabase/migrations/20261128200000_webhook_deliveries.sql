-- GitHub webhook deliveries handled in the last day: a replayed delivery (the same
-- X-GitHub-Delivery id, or the same signed body under another id, since the signature
-- covers the body only) is answered without re-syncing anything.
create table if not exists webhook_deliveries (
    delivery_id text primary key,
    body_sha256 text not null unique,
    received_at timestamptz not null default now()
);
create index if not exists webhook_deliveries_received_at on webhook_deliveries (received_at);
