#!/usr/bin/env bash
# Nightly backup of a Postgres database to a dated, compressed file.
set -euo pipefail

BACKUP_DIR="${BACKUP_DIR:-/var/backups/postgres}"
KEEP_DAYS="${KEEP_DAYS:-14}"

log() {
    printf '%s %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*" >&2
}

dump_database() {
    local database="$1"
    local target="${BACKUP_DIR}/${database}-$(date -u +%Y%m%d).sql.gz"
    log "dumping ${database} to ${target}"
    pg_dump --no-owner "${database}" | gzip -9 > "${target}.tmp"
    mv "${target}.tmp" "${target}"
}

function prune_old {
    log "removing backups older than ${KEEP_DAYS} days"
    find "${BACKUP_DIR}" -name '*.sql.gz' -mtime "+${KEEP_DAYS}" -delete
}

mkdir -p "${BACKUP_DIR}"
for database in "$@"; do
    dump_database "${database}"
done
prune_old
