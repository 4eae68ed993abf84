"""A code chunk is found by its file's name and folders, which most of its chunks never say."""

from ragspace.actions import Actions
from ragspace.embedding.embedders import Embedder
from ragspace.ingestion.worker import Ingestor
from ragspace.models import RetrievalMode, SearchQuery
from ragspace.ranking.options import RankingOptions, fusion_only
from ragspace.search.retrieval import RetrievalOptions, Retriever
from ragspace.sources.files import UploadedFile
from ragspace.store import Store
from ragspace.text.languages import PROSE_LANGUAGES

# neither file says "synchronization" or "barrier" in its text: only their paths do
LOCKS = (
    "class Gate:\n    def wait_for_all(self, parties: int) -> None:\n        self.count = parties\n"
)
GUIDE = "# Waiting\n\nEvery party waits at the gate until all have arrived.\n"


def test_code_is_found_by_its_folders_and_file_name_and_prose_is_not(
    service: Actions, ingestor: Ingestor, store: Store, embedder: Embedder
) -> None:
    service.docsets.create("pkg")
    files = {
        "pkg/synchronization/barrier.py": LOCKS,
        "docs/synchronization/barrier.md": GUIDE,
        "pkg/other/gate_helpers.py": "def open_gate() -> None:\n    return None\n",
    }
    service.sources.add_files("pkg", [UploadedFile(n, t.encode()) for n, t in files.items()])
    ingestor.process_all()
    # the chunks' side alone (the file cards hold every file's path: code and prose alike)
    alone = fusion_only(RankingOptions())
    retriever = Retriever(store, embedder, RetrievalOptions(keyword_ranking=alone))
    docset = [store.docsets.named("pkg").id]
    keyword = RetrievalMode.KEYWORD
    hits = retriever.search(SearchQuery(question="synchronization", mode=keyword).within(docset), 5)
    assert [hit.path for hit in hits] == ["pkg/synchronization/barrier.py"]
    # the file's name counts more than a word of its header (both files are named barrier)
    hits = retriever.search(SearchQuery(question="barrier", mode=keyword).within(docset), 5)
    assert [hit.path for hit in hits][:1] == ["pkg/synchronization/barrier.py"]


def test_path_words_and_prose_languages(store: Store) -> None:
    with store.pool.connection() as conn:
        words = conn.execute(
            "select path_words('tokio/tokio/src/sync/mutex.rs'), path_words('lib.rs')"
        ).fetchone()
        prose = conn.execute(
            "select array_agg(l) from unnest(%s::text[]) l where is_prose_language(l)",
            ([*sorted(PROSE_LANGUAGES), "python", "rust"],),
        ).fetchone()
    assert words == ("mutex mutex tokio src sync", "lib lib")
    assert prose is not None and set(prose[0]) == PROSE_LANGUAGES
