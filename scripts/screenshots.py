"""Screenshots of every tab for the README, taken in headless Chromium on a populated app.

Run from the repository root: `python -m scripts.screenshots [output folder]`
(default `docs/screenshots`). It starts its own embedded Postgres in a temporary folder, the
local embedder, a background ingestion worker and a local fake chat model (no API key
needed), then walks the journey of the end-to-end tests and photographs each tab at
1280x900, and the chat on a 390 px wide phone; last, the code map of a DocSet of Flask's
source (the checkout in tests/data). `--map-only` takes that one alone.
"""

import shutil
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import expect

from ragspace.actions import Actions
from ragspace.answering.llm import OpenAIChatModel
from ragspace.embedding.embedders import LocalEmbedder
from ragspace.ingestion.worker import Ingestor, WorkerPool
from ragspace.runtime import build_actions, build_chunker
from ragspace.settings import load_settings
from ragspace.store import Database, Store
from ragspace_ui.app import CSS, build_ui
from ragspace_ui.server import launch_on_localhost
from tests.browser import journey
from tests.fakes.chat_server import running_fake_chat
from tests.waiting import wait_for

OUTPUT = Path("docs/screenshots")
SECOND_DOCSET = "samples"
SECOND_DESCRIPTION = "File-type samples: HTML, notebook, PDF and reStructuredText."
SECOND_FILES = [journey.DATA / n for n in ("sample.html", "sample.ipynb", "sample.pdf")]
PHONE = {"width": 390, "height": 844}
MAP_DOCSET = "flask"
MAP_SOURCE = Path(__file__).parent.parent / "tests" / "data" / "checkout" / "src"


def take(output: Path, map_only: bool = False) -> list[Path]:
    """Populate a fresh app, walk the journey and save one PNG per tab, then the code map;
    returns the files."""
    folder = Path(tempfile.mkdtemp(prefix="ragspace-screenshots-"))
    settings = load_settings(env_file=None, data_dir=folder / "data", rerank_timeout_seconds=10)
    database = Database.open(settings)
    try:
        with running_fake_chat() as fake:
            fake.reply = journey.chat_reply
            fake.piece_delay = 0.01
            store = Store(database.pool)
            embedder = LocalEmbedder(batch_size=settings.embedding.local_embedding_batch_size)
            chat = OpenAIChatModel(
                api_key="sk-local-fake", model="gpt-4o-mini", base_url=fake.base_url, timeout=30
            )
            workers = WorkerPool(Ingestor(store, build_chunker(settings), embedder), 1, 0.5)
            actions = build_actions(settings, store, embedder, chat, on_new_work=workers.wake)
            workers.start()
            demo = build_ui(actions)
            url = launch_on_localhost(demo, css=CSS)
            try:
                shots = [] if map_only else _walk(url, output)
                return [*shots, _code_map(url, actions, output / "code-map.png")]
            finally:
                demo.close()
                workers.stop()
    finally:
        database.close()
        shutil.rmtree(folder, ignore_errors=True)


def _walk(url: str, output: Path) -> list[Path]:
    names = ("docsets.png", "status.png", "chat.png", "evaluate.png", "phone-chat.png")
    shots = [output / n for n in names]
    with journey.browser_page() as page:
        page.goto(url)
        journey.create_docset(page, SECOND_DOCSET, SECOND_DESCRIPTION)
        journey.upload_files(page, SECOND_FILES)
        journey.create_docset(page, journey.DOCSET, journey.DESCRIPTION)
        journey.upload_files(page, journey.FILES)
        journey.wait_until_done(page, len(SECOND_FILES) + len(journey.FILES))
        journey.open_tab(page, "DocSets")  # the documents panel, one document in the viewer
        page.get_by_text("Documents of the selected DocSet").click()
        page.locator("#documents-chosen input").click()
        page.get_by_role("option").first.click()
        page.get_by_role("button", name="Open in the viewer").click()
        expect(page.locator("#document-viewer .rs-viewer-head")).to_be_visible()
        journey.screenshot(page, "DocSets", shots[0])
        journey.screenshot(page, "Embedding status", shots[1])
        journey.ask(page, journey.QUESTION, journey.ANSWER_TEXT)
        page.locator("#viewer-pick input").click()  # the first source, open in the viewer
        page.get_by_role("option").first.click()
        expect(page.locator("#source-viewer .rs-focus").first).to_be_visible()
        page.get_by_text("Advanced").click()  # show the retrieval mode and rerank toggle
        journey.screenshot(page, "Chat", shots[2])
        journey.screenshot(page, "Evaluate", shots[3])
        browser = page.context.browser
        assert browser is not None
        phone = browser.new_page(viewport=PHONE, is_mobile=True)  # type: ignore[arg-type]
        phone.goto(url)  # phones open on the Chat tab
        journey.ask(phone, journey.QUESTION, journey.ANSWER_TEXT)
        phone.mouse.move(0, 0)
        phone.screenshot(path=str(shots[4]), full_page=False)
    return shots


def _code_map(url: str, actions: Actions, shot: Path) -> Path:
    """The code map of Flask's source, drawn on the DocSets tab."""
    actions.docsets.create(MAP_DOCSET, "Flask's source, for the code map")
    actions.sources.add_folder(MAP_DOCSET, MAP_SOURCE)
    wait_for(
        lambda: all(d.embedding_status == "done" for d in actions.documents.all(MAP_DOCSET)),
        "Flask's source ingested",
        deadline=900,
    )
    with journey.browser_page() as page:
        page.goto(url)
        journey.open_tab(page, "DocSets")
        select = page.locator("#docset-select input")
        select.click()
        page.get_by_role("option", name=MAP_DOCSET, exact=True).click()
        expect(select).to_have_value(MAP_DOCSET)
        page.get_by_text("Code map of the selected DocSet").click()
        page.get_by_role("button", name="Draw the code map").click()
        expect(page.locator("#repo-map svg")).to_be_visible(timeout=journey.WAIT_MS)
        page.mouse.move(0, 0)
        shot.parent.mkdir(parents=True, exist_ok=True)
        page.locator("#code-map-panel").screenshot(path=str(shot))
    return shot


def main() -> None:
    """Save the screenshots to the folder given, or docs/screenshots."""
    arguments = [a for a in sys.argv[1:] if a != "--map-only"]
    output = Path(arguments[0]) if arguments else OUTPUT
    for path in take(output, map_only="--map-only" in sys.argv[1:]):
        print(path)


if __name__ == "__main__":
    main()
