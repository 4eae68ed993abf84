"""A search with only its keyword side (keyword mode, or hybrid before the vectors are in)
is ranked with every ranking signal that needs no vector, not by its side alone."""

from ragspace.embedding.embedders import Embedder
from ragspace.ingestion.worker import IngestOptions, Ingestor
from ragspace.models import RetrievalMode, VectorTier
from ragspace.ranking.ranker import RankingOptions, fusion_only
from ragspace.runtime import build_actions, build_chunker
from ragspace.search.retrieval import RetrievalOptions, Retriever
from ragspace.settings import Settings
from ragspace.sources.files import UploadedFile
from ragspace.store import Store

# the module the question is about says its words once; its test says them over and over
TOKENS = (
    "class Lexer:\n"
    "    def next_token(self, text: str) -> str:\n"
    "        return text.split()[0]\n\n"
    "    def stream(self, text: str) -> list[str]:\n"
    "        return text.split()\n"
)
TEST_TOKENS = "".join(
    f"def test_token_stream_{n}() -> None:\n"
    f"    assert token_stream('a b') == ['a', 'b']  # token stream {n}\n\n"
    for n in range(6)
)
FILES = {"parser/tokens.py": TOKENS, "tests/test_tokens.py": TEST_TOKENS}


def test_keyword_only_searches_lower_tests_and_lift_the_file_the_question_names(
    store: Store, embedder: Embedder, settings: Settings
) -> None:
    service = build_actions(settings, store, embedder)
    ingestor = Ingestor(
        store, build_chunker(settings), embedder, IngestOptions(keywords_first=True)
    )
    service.docsets.create("lexer")
    service.sources.add_files("lexer", [UploadedFile(n, t.encode()) for n, t in FILES.items()])
    for _ in FILES:  # the keyword passes only
        assert ingestor.process_next()
    assert {d.vector_tier for d in service.documents.all("lexer")} == {VectorTier.KEYWORDS}
    for mode in (RetrievalMode.KEYWORD, RetrievalMode.HYBRID):
        hits = service.search.hits("token stream", ["lexer"], k=5, mode=mode)
        assert [hit.path for hit in hits][:1] == ["parser/tokens.py"], mode
    # the side alone ranks the test first: its words, many times over
    alone = RetrievalOptions(keyword_ranking=fusion_only(RankingOptions()))
    docset = store.docsets.named("lexer").id
    hits = Retriever(store, embedder, alone).search("token stream", [docset], 5)
    assert [hit.path for hit in hits][:1] == ["tests/test_tokens.py"]
