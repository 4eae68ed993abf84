"""The relevance floor: off-topic questions get "nothing answers this", not passages."""

from pathlib import Path

import pytest
from pydantic import SecretStr

from bench.experiments.relevance_floor import off_topic_questions
from ragspace.actions import Actions
from ragspace.answering.answer import NOTHING_FOUND
from ragspace.embedding.embedders import Embedder
from ragspace.ingestion.worker import Ingestor
from ragspace.models import Hit, SearchQuery
from ragspace.runtime import build_actions
from ragspace.search.retrieval import RelevanceFloor
from ragspace.settings import (
    LOCAL_RELEVANCE_FLOOR_CODE,
    LOCAL_RELEVANCE_FLOOR_PROSE,
    Settings,
    load_settings,
)
from ragspace.sources.files import UploadedFile
from ragspace.store import Store
from ragspace.text.terms import covers

DATA = Path(__file__).parent.parent / "data"
HANDBOOK = ("deployment-guide.md", "glossary.rst")
ON_TOPIC = ["How do I roll back a migration?", "Which endpoint does the load balancer check?"]


def _handbook(settings: Settings, store: Store, embedder: Embedder, ingestor: Ingestor) -> Actions:
    service = build_actions(settings, store, embedder)
    service.docsets.create("handbook")
    service.sources.add_files(
        "handbook", [UploadedFile(n, (DATA / n).read_bytes()) for n in HANDBOOK]
    )
    ingestor.process_all()
    return service


def test_off_topic_questions_are_refused_and_real_ones_answered(
    settings: Settings, store: Store, embedder: Embedder, ingestor: Ingestor
) -> None:
    service = _handbook(settings, store, embedder, ingestor)
    for question in off_topic_questions():
        answer = service.answers.answer(SearchQuery(question=question, docsets=("handbook",)))
        assert answer.text.startswith("Nothing in 'handbook'"), question
        assert answer.citations == [] and answer.passages == []
    for question in ON_TOPIC:
        answer = service.answers.answer(SearchQuery(question=question, docsets=("handbook",)))
        assert answer.passages, question
        assert answer.text != NOTHING_FOUND and not answer.text.startswith("Nothing in")


def test_without_a_floor_off_topic_questions_get_passages(
    settings: Settings, store: Store, embedder: Embedder, ingestor: Ingestor
) -> None:
    unfloored = settings.replace(relevance_floor_prose=0.0, relevance_floor_code=0.0)
    service = _handbook(unfloored, store, embedder, ingestor)
    answered = [
        q
        for q in off_topic_questions()
        if service.answers.answer(SearchQuery(question=q, docsets=("handbook",))).passages
    ]
    # a shared word or a cosine above RAGSPACE_MIN_SIMILARITY: listed without the floor
    assert len(answered) >= 3, answered


def test_floor_settings_default_to_the_calibrated_local_floors() -> None:
    local = (LOCAL_RELEVANCE_FLOOR_PROSE, LOCAL_RELEVANCE_FLOOR_CODE)
    assert load_settings(env_file=None).relevance_floors == local
    keyed = load_settings(env_file=None, openai_api_key=SecretStr("sk-test"))
    assert keyed.relevance_floors == (0.0, 0.0)  # calibrated for MiniLM only
    chosen = load_settings(env_file=None, relevance_floor_code=0.3)
    assert chosen.relevance_floors == (LOCAL_RELEVANCE_FLOOR_PROSE, 0.3)
    with pytest.raises(ValueError, match="less than or equal to 1"):
        load_settings(env_file=None, relevance_floor_prose=1.5)


def _hit(language: str, similarity: float | None, content: str = "x") -> Hit:
    return Hit(
        chunk_id=1,
        document_id=1,
        docset_name="d",
        path="p",
        title="p",
        ordinal=0,
        content=content,
        start_line=1,
        end_line=1,
        metadata={"language": language},
        score=0.1,
        vector_similarity=similarity,
    )


def test_prose_and_code_hits_have_their_own_floor() -> None:
    floor = RelevanceFloor(prose=0.4, code=0.24)
    question = "When do spring tides peak?"
    assert floor.refuses([_hit("markdown", 0.35), _hit("python", 0.2)], question)
    assert not floor.refuses([_hit("markdown", 0.35), _hit("python", 0.25)], question)
    assert not floor.refuses([_hit("rst", 0.41)], question)
    assert not floor.refuses([_hit("python", None)], question)  # keyword-only: no judging
    assert not floor.refuses([], question)
    # a chunk holding every term of the question is evidence whatever its cosine
    covered = _hit("markdown", 0.3, "## Spring tides\nThey peak at new moon.")
    assert not floor.refuses([covered], question)
    assert floor.refuses([covered], "When do spring tides peak in Brittany?")


def test_a_hit_waiting_for_its_vector_is_judged_by_its_words() -> None:
    # found by the keyword side before the vector pass: no cosine to judge, so only a hit
    # holding every term of the question is shown by search (it was hidden before)
    floor = RelevanceFloor(prose=0.4, code=0.24)
    assert floor.admits(
        _hit("markdown", None, "## Spring tides\nThey peak at new moon."), "spring tides"
    )
    assert not floor.admits(_hit("markdown", None, "Neap tides are weaker."), "spring tides")


def test_a_how_many_question_is_covered_by_the_constant_it_names() -> None:
    # "how many" / "how much" ask for a number; only the thing counted must be in the hit
    assert covers("RETRIES = 3", "How many retries?")
    assert not covers("RETRIES = 3", "How many workers?")
    assert covers("Each upload may be 20 MB at most.", "How much can an upload be?")
