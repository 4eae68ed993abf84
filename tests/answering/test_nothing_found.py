"""A "nothing found" answer says what is true of the DocSets searched (issue 67, item 8)."""

from ragspace.actions import Actions
from ragspace.answering.answer import NOTHING_FOUND
from ragspace.answering.nothing_found import Coverage, nothing_found_text
from ragspace.ingestion.worker import Ingestor
from ragspace.models import SearchQuery
from ragspace.sources.files import UploadedFile

OFF_TOPIC = "What is the airspeed velocity of an unladen swallow?"


def test_each_reason_is_said_as_it_is_and_none_blames_embedding_wrongly() -> None:
    none = nothing_found_text([], existing=0, selected=False)
    assert "no DocSets yet" in none and "embedding" not in none
    assert "can be searched" in nothing_found_text([], existing=2, selected=False)
    empty = nothing_found_text([Coverage("ops")], existing=1, selected=True)
    assert "'ops'" in empty and "no documents yet" in empty
    embedding = nothing_found_text(
        [Coverage("ops", done=3, waiting=5), Coverage("wiki", done=2)], existing=2, selected=True
    )
    assert "only 5 of 10 documents are embedded (5 still embedding)" in embedding
    assert "'ops', 'wiki'" in embedding
    embedded = nothing_found_text([Coverage("ops", done=4)], existing=3, selected=True)
    assert "4 documents, all embedded" in embedded and "still" not in embedded
    assert "search other DocSets" in embedded
    every = nothing_found_text([Coverage("a", done=1), Coverage("b", done=1)], 2, False)
    assert "Nothing in all DocSets (2 documents, all embedded)" in every
    failed = nothing_found_text([Coverage("ops", done=2, failed=1)], existing=1, selected=True)
    assert "1 of 3 documents failed to embed" in failed and "all embedded" not in failed


def test_the_answer_action_says_why_nothing_answers(service: Actions, ingestor: Ingestor) -> None:
    nothing = service.answers.answer(SearchQuery(question=OFF_TOPIC))
    assert "no DocSets yet" in nothing.text and nothing.passages == []
    service.docsets.create("ops")
    files = [UploadedFile("a.md", b"# Backups\n\nTake a nightly backup with pg_dump.\n")]
    service.sources.add_files("ops", files)
    waiting = service.answers.answer(SearchQuery(question=OFF_TOPIC, docsets=("ops",)))
    assert "only 0 of 1 documents are embedded (1 still embedding)" in waiting.text
    ingestor.process_all()
    embedded = service.answers.answer(SearchQuery(question=OFF_TOPIC, docsets=("ops",)))
    assert "Nothing in 'ops' (1 document, all embedded)" in embedded.text
    assert embedded.text != NOTHING_FOUND and embedded.citations == []
