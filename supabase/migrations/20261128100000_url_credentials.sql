-- Credentials typed into a source URL (https://user:token@host/...) were stored as typed and
-- listed to anyone; the app now strips them before storing. This removes them from rows
-- stored before (idempotent: a cleaned location no longer matches).
update sources
set location = regexp_replace(location, '^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#\\]*@', '\1')
where location ~ '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#\\]*@';
