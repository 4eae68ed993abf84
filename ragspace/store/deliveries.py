"""Webhook deliveries already handled, remembered for a day (replays change nothing)."""

from datetime import timedelta
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

REMEMBERED = timedelta(days=1)


class DeliveryLog:
    """Which webhook deliveries (by id and by body digest) were handled recently."""

    def __init__(self, pool: ConnectionPool[psycopg.Connection[Any]]) -> None:
        self._pool = pool

    def first_time(self, delivery_id: str, body_sha256: str) -> bool:
        """Record the delivery; False when its id or its body was seen within a day.

        The unique keys make this atomic: of two concurrent copies, one insert wins.
        """
        with self._pool.connection() as conn:
            conn.execute(
                "delete from webhook_deliveries where received_at < now() - %s::interval",
                (REMEMBERED,),
            )
            row = conn.execute(
                "insert into webhook_deliveries (delivery_id, body_sha256) values (%s, %s)"
                " on conflict do nothing returning 1",
                (delivery_id, body_sha256),
            ).fetchone()
        return row is not None
