"""A search with only its keyword side (keyword mode, or hybrid before the vectors are in)
is ranked with every ranking signal that needs no vector, not by its side alone."""

import dataclasses

from ragspace.actions import Actions
from ragspace.embedding.embedders import Embedder
from ragspace.ingestion.worker import IngestOptions, Ingestor
from ragspace.models import RetrievalMode, SearchQuery, VectorTier
from ragspace.ranking.options import RankingOptions, fusion_only
from ragspace.runtime import build_actions, build_chunker
from ragspace.search.keyword_ranking import keyword_only_ranking
from ragspace.search.retrieval import RetrievalOptions, Retriever
from ragspace.settings import Settings
from ragspace.sources.files import UploadedFile
from ragspace.store import Store

# the module the question is about is named for it and says its words once; a helper
# elsewhere says them over and over
TOKENS = (
    "class Lexer:\n"
    "    def next_token(self, text: str) -> str:\n"
    "        return text.split()[0]\n\n"
    "    def stream(self, text: str) -> list[str]:\n"
    "        return text.split()\n"
)
HELPERS = "".join(
    f"def check_{n}(value: str) -> None:\n"
    f"    assert value  # a token stream, token by token: the stream of tokens {n}\n\n"
    for n in range(2)
)
# and other modules, two of which say one of its words once in a longer text
OTHERS = {
    f"util/mod{n}.py": "".join(
        f"def step_{n}_{m}(x: int) -> int:\n    return x + {m}\n\n" for m in range(8)
    )
    + ("def reader() -> None:\n    pass  # reads one token\n" if n < 2 else "")
    for n in range(8)
}
FILES = {"parser/tokens.py": TOKENS, "util/checks.py": HELPERS, **OTHERS}


def _keyword_searchable(
    store: Store, embedder: Embedder, settings: Settings, docset: str, files: dict[str, str]
) -> Actions:
    """A DocSet of these files, keyword-searchable (no vector embedded yet)."""
    service = build_actions(settings, store, embedder)
    ingestor = Ingestor(
        store, build_chunker(settings), embedder, IngestOptions(keywords_first=True)
    )
    service.docsets.create(docset)
    service.sources.add_files(docset, [UploadedFile(n, t.encode()) for n, t in files.items()])
    assert ingestor.process_next() == len(files)  # the keyword passes only, in one batch
    return service


def test_keyword_only_searches_lift_the_file_the_question_names(
    store: Store, embedder: Embedder, settings: Settings
) -> None:
    service = _keyword_searchable(store, embedder, settings, "lexer", FILES)
    assert {d.vector_tier for d in service.documents.all("lexer")} == {VectorTier.KEYWORDS}
    for mode in (RetrievalMode.KEYWORD, RetrievalMode.HYBRID):
        query = SearchQuery(question="token stream", docsets=("lexer",), mode=mode, limit=5)
        hits = service.search.hits(query)
        assert [hit.path for hit in hits][:1] == ["parser/tokens.py"], mode
    # the side alone ranks the helper first: the question's words, many times over
    alone = RetrievalOptions(keyword_ranking=fusion_only(RankingOptions()))
    docset = store.docsets.named("lexer").id
    query = SearchQuery(question="token stream", mode=RetrievalMode.KEYWORD).within([docset])
    hits = Retriever(store, embedder, alone).search(query, 5)
    assert [hit.path for hit in hits][:1] == ["util/checks.py"]


# the class the question names is defined once, in a file not named for it; two other modules
# use it over and over
WALK = "class TreeVisitor:\n    def visit(self, node: object) -> None:\n        self.seen = node\n"
USES = {
    f"de/private{n}.py": "".join(
        f"def read_{n}_{m}(visitor: TreeVisitor) -> TreeVisitor:\n"
        f"    # hand the TreeVisitor on: a TreeVisitor for TreeVisitor values\n"
        f"    return visitor\n\n"
        for m in range(3)
    )
    for n in range(2)
}
VISITOR_FILES = {"core/walk.py": WALK, **USES}


def test_keyword_only_searches_lift_the_definition_of_the_symbol_asked_about(
    store: Store, embedder: Embedder, settings: Settings
) -> None:
    _keyword_searchable(store, embedder, settings, "walk", VISITOR_FILES)
    docset = store.docsets.named("walk").id
    query = SearchQuery(question="TreeVisitor", mode=RetrievalMode.KEYWORD).within([docset])

    def first(keyword_ranking: RankingOptions) -> str:
        retriever = Retriever(store, embedder, RetrievalOptions(keyword_ranking=keyword_ranking))
        return retriever.search(query, 5)[0].path

    assert first(keyword_only_ranking()) == "core/walk.py"
    # without the definitions (as before round 4's last run), or by its side alone, a module
    # that says the name most comes first
    without = dataclasses.replace(keyword_only_ranking(), definition_boost=0.0)
    assert first(without).startswith("de/private")
    assert first(fusion_only(RankingOptions())).startswith("de/private")
