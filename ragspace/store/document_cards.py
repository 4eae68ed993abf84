"""Each document's card (its path, title, headings and definitions as one full-text vector):
rewritten whenever the document's chunks or symbols are swapped, so the file side of search
(keyword_side.FILE_MATCHES) sees the same version of a file as its chunks. The card's text
is built in SQL from the stored rows (migration 20261130000000_document_cards.sql), so the
migration fills it for documents stored before, with the same expression."""

from collections.abc import Sequence
from typing import Any

import psycopg


def refresh_card(conn: psycopg.Connection[Any], document_id: int) -> None:
    """Rewrite the document's card from its current rows, inside the caller's transaction."""
    refresh_cards(conn, [document_id])


def refresh_cards(conn: psycopg.Connection[Any], document_ids: Sequence[int]) -> None:
    """Rewrite these documents' cards, in one statement, inside the caller's transaction."""
    conn.execute(
        "select refresh_document_card(id) from unnest(%s::bigint[]) as id order by id",
        (list(document_ids),),
    )
