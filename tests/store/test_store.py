"""DocSet CRUD and cascades on the real database."""

import numpy as np
import pytest

from ragspace.errors import ConflictError, NotFoundError
from ragspace.models import ChunkDraft, EmbeddingStatus
from ragspace.store import NewDocument, Store
from ragspace.store.chunk_rows import ChunkSet, copy_chunk_sets, store_vector_pass


def _docset(store: Store, name: str = "docs") -> int:
    return store.docsets.create(name, "desc", "local/test", 384).id


def _document(store: Store, docset_id: int, path: str = "a.md", text: str = "hello") -> int:
    doc = NewDocument(path=path, title=path, language="markdown", content=text, content_hash=text)
    return store.documents.upsert(docset_id, None, [doc])[0]


def _store_chunks(store: Store, document_id: int, docset_id: int, count: int) -> None:
    chunks = [
        ChunkDraft(ordinal=i, content=f"chunk {i}", start_line=i + 1, end_line=i + 1)
        for i in range(count)
    ]
    vectors = np.ones((count, 384), dtype=np.float32)
    store.chunks.replace(document_id, docset_id, chunks, vectors, [f"h{i}" for i in range(count)])


def test_create_rename_describe_list(store: Store) -> None:
    docset_id = _docset(store, "alpha")
    store.docsets.rename(docset_id, "beta")
    store.docsets.describe(docset_id, "new description")
    [docset] = store.docsets.all()
    assert (docset.name, docset.description, docset.embedding_dimensions) == (
        "beta",
        "new description",
        384,
    )
    assert store.docsets.named("beta").id == docset_id


def test_duplicate_names_are_refused(store: Store) -> None:
    _docset(store, "alpha")
    other = _docset(store, "gamma")
    with pytest.raises(ConflictError, match="alpha"):
        _docset(store, "alpha")
    with pytest.raises(ConflictError, match="alpha"):
        store.docsets.rename(other, "alpha")


def test_missing_docset_is_not_found(store: Store) -> None:
    with pytest.raises(NotFoundError, match="nope"):
        store.docsets.named("nope")
    with pytest.raises(NotFoundError):
        store.docsets.delete(12345)


def test_delete_cascades_to_documents_and_chunks(store: Store) -> None:
    keep, drop = _docset(store, "keep"), _docset(store, "drop")
    for docset_id in (keep, drop):
        _store_chunks(store, _document(store, docset_id), docset_id, 3)
    assert store.docsets.get(drop).chunk_count == 3
    store.docsets.delete(drop)
    with store._pool.connection() as conn:
        chunks = conn.execute("select docset_id, count(*) from chunks group by 1").fetchall()
        documents = conn.execute("select docset_id from documents").fetchall()
    assert chunks == [(keep, 3)]
    assert documents == [(keep,)]


def test_replace_chunks_swaps_the_whole_set(store: Store) -> None:
    docset_id = _docset(store)
    document_id = _document(store, docset_id)
    _store_chunks(store, document_id, docset_id, 5)
    _store_chunks(store, document_id, docset_id, 2)
    assert [c.content for c in store.chunks.of_document(document_id)] == ["chunk 0", "chunk 1"]
    document = store.documents.get(document_id)
    assert (document.embedding_status, document.chunk_count) == (EmbeddingStatus.DONE, 2)


def test_unchanged_upload_keeps_its_state(store: Store) -> None:
    docset_id = _docset(store)
    document_id = _document(store, docset_id, text="same")
    _store_chunks(store, document_id, docset_id, 1)
    assert _document(store, docset_id, text="same") == document_id
    assert store.documents.get(document_id).embedding_status == EmbeddingStatus.DONE
    _document(store, docset_id, text="changed")
    assert store.documents.get(document_id).embedding_status == EmbeddingStatus.PENDING


def _term_counts(store: Store, docset_id: int) -> tuple[dict[str, int], dict[str, int]]:
    with store._pool.connection() as conn:
        kept = conn.execute(
            "select lexeme, df from docset_terms where docset_id = %s and df > 0", (docset_id,)
        ).fetchall()
        actual = conn.execute(
            "select lexeme, count(*) from chunks, unnest(tsvector_to_array(fts)) lexeme"
            " where docset_id = %s group by lexeme",
            (docset_id,),
        ).fetchall()
    return dict(kept), dict(actual)


def test_keyword_statistics_follow_every_chunk_change(store: Store) -> None:
    docset_id = _docset(store)
    document_id = _document(store, docset_id)
    texts = ["heartbeat lease expired", "lease renewed by heartbeat", "shard moved"]
    vectors = np.ones((3, 384), dtype=np.float32)
    chunks = [
        ChunkDraft(ordinal=i, content=t, start_line=1, end_line=1) for i, t in enumerate(texts)
    ]
    store.chunks.replace(document_id, docset_id, chunks, vectors, ["a", "b", "c"])
    kept, actual = _term_counts(store, docset_id)
    assert kept == actual
    assert kept["leas"] == 2 and kept["shard"] == 1
    assert _lengths(store, docset_id) == (3, 3 + 3 + 2)  # "by" is a stop word
    with store._pool.connection() as conn:  # a text edited in place: its vector follows
        conn.execute(
            "update chunks set content = 'shard shard moved twice'"
            " where docset_id = %s and content = 'shard moved'",
            (docset_id,),
        )
    kept, actual = _term_counts(store, docset_id)
    assert kept == actual and kept["twice"] == 1
    assert _lengths(store, docset_id) == (3, 3 + 3 + 4)
    store.chunks.replace(document_id, docset_id, chunks[2:], vectors[:1], ["c"])
    kept, actual = _term_counts(store, docset_id)
    assert kept == actual == {"shard": 1, "move": 1}
    assert _lengths(store, docset_id) == (1, 2)


def _chunk_ids_and_statistics_rows(store: Store, document_id: int) -> tuple[object, ...]:
    """The document's chunk ids and the row versions (xmin) of its DocSet's statistics."""
    with store._pool.connection() as conn:
        ids = conn.execute(
            "select array_agg(id order by ordinal) from chunks where document_id = %s",
            (document_id,),
        ).fetchone()
        versions = conn.execute(
            "select (select array_agg(xmin::text order by lexeme) from docset_terms),"
            " (select array_agg(xmin::text) from docset_lengths)"
        ).fetchone()
    assert ids is not None and versions is not None
    return ids[0], *versions


@pytest.mark.parametrize("same_chunks", [True, False])
def test_a_vector_pass_fills_its_keyword_passs_rows_in_place_or_swaps_a_changed_set(
    store: Store, same_chunks: bool
) -> None:
    docset_id = _docset(store)
    document_id = _document(store, docset_id)
    texts = ["heartbeat lease expired", "lease renewed by heartbeat", "shard moved"]
    chunks = [
        ChunkDraft(ordinal=i, content=t, start_line=i + 1, end_line=i + 1)
        for i, t in enumerate(texts)
    ]
    hashes = ["a", "b", "c"]
    with store._pool.connection() as conn, conn.transaction():  # the keyword pass
        copy_chunk_sets(conn, [ChunkSet(document_id, docset_id, chunks, None, hashes)])
    before = _chunk_ids_and_statistics_rows(store, document_id)
    if not same_chunks:  # the document's chunks changed between its two passes
        chunks[2] = chunks[2].model_copy(update={"content": "shard moved twice"})
    vectors = np.eye(3, 384, dtype=np.float32)
    with store._pool.connection() as conn, conn.transaction():
        chunk_set = ChunkSet(document_id, docset_id, chunks, vectors, hashes)
        store_vector_pass(conn, chunk_set, symbols_renewed=False)
    after = _chunk_ids_and_statistics_rows(store, document_id)
    # in place: the same rows, and BM25's statistics not written at all; else a new set
    assert (after == before) is same_chunks
    assert [c.content for c in store.chunks.of_document(document_id)] == [c.content for c in chunks]
    with store._pool.connection() as conn:
        stored = conn.execute(
            "select embedding from chunks where document_id = %s order by ordinal",
            (document_id,),
        ).fetchall()
    assert np.array_equal(np.stack([row[0].to_numpy() for row in stored]), vectors)
    kept, actual = _term_counts(store, docset_id)
    assert kept == actual and _lengths(store, docset_id)[0] == 3


@pytest.mark.parametrize("symbols_renewed", [True, False])
def test_a_vector_pass_in_place_rewrites_the_card_when_the_symbol_rows_were_renewed(
    store: Store, symbols_renewed: bool
) -> None:
    docset_id = _docset(store)
    document_id = _document(store, docset_id)
    chunks = [ChunkDraft(ordinal=0, content="lease heartbeat", start_line=1, end_line=1)]
    with store._pool.connection() as conn, conn.transaction():  # the keyword pass
        copy_chunk_sets(conn, [ChunkSet(document_id, docset_id, chunks, None, ["a"])])
        conn.execute(  # a card that no longer says what the rows say
            "update document_cards set fts = to_tsvector('english', 'stale') where"
            " document_id = %s",
            (document_id,),
        )
    vectors = np.ones((1, 384), dtype=np.float32)
    with store._pool.connection() as conn, conn.transaction():
        chunk_set = ChunkSet(document_id, docset_id, chunks, vectors, ["a"])
        store_vector_pass(conn, chunk_set, symbols_renewed=symbols_renewed)
        row = conn.execute(
            "select fts::text from document_cards where document_id = %s", (document_id,)
        ).fetchone()
    assert row is not None
    assert ("'stale'" in row[0]) is not symbols_renewed


def _lengths(store: Store, docset_id: int) -> tuple[int, int]:
    """The DocSet's kept (chunks, words), checked against its chunks' vectors."""
    with store._pool.connection() as conn:
        kept = conn.execute(
            "select chunks, words from docset_lengths where docset_id = %s", (docset_id,)
        ).fetchone()
        actual = conn.execute(
            "select count(distinct c.id), coalesce(sum(array_length(u.positions, 1)), 0)"
            " from chunks c, unnest(c.fts) u where c.docset_id = %s",
            (docset_id,),
        ).fetchone()
        words = conn.execute(
            "select coalesce(sum(fts_words), 0) from chunks where docset_id = %s", (docset_id,)
        ).fetchone()
    assert kept is not None and actual is not None and words is not None
    assert tuple(kept) == tuple(actual) and words[0] == actual[1]
    return int(kept[0]), int(kept[1])


def test_a_full_text_vectors_words_are_its_positions(store: Store) -> None:
    with store._pool.connection() as conn:
        row = conn.execute(
            "select tsvector_words(to_tsvector('english', 'lease lease leases shard, the end'))"
        ).fetchone()
    assert row == (5,)  # "the" is a stop word
