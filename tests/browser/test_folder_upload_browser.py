"""A folder chosen in a real browser keeps its structure: .gitignore applies, skips explained."""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from ragspace.actions import Actions
from tests.browser.journey import WAIT_MS, OpenPage, create_docset
from tests.ui.test_folder_upload import FOLDER

pytestmark = pytest.mark.browser  # Chromium; deselect with -m 'not browser'


@pytest.mark.parametrize("width", [1280, 390])
def test_a_folder_is_added_with_its_paths_gitignore_and_skip_reasons(
    served: str, service: Actions, tmp_path: Path, width: int, open_page: OpenPage
) -> None:
    for path, data in FOLDER.items():  # the folder as it is on the user's disk
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(data)
    page = open_page(served, width)
    create_docset(page, "proj")
    picker = page.locator("#docset-folder")
    picker.locator("input[type=file]").set_input_files(str(tmp_path / "proj"))
    # the upload finished when both __init__.py files are listed
    expect(picker.get_by_role("cell", name="__init__.py", exact=True)).to_have_count(
        3, timeout=WAIT_MS
    )
    if width == 390:  # the same filters as `ragspace add dir`
        page.get_by_label("Folder: exclude globs").fill("docs/**")
    page.get_by_role("button", name="Add folder").click()
    message = page.locator("#upload-message")
    expect(message).to_contain_text("Added folder proj to proj", timeout=WAIT_MS)
    expect(message).to_contain_text("proj/build/out.txt: ignored by .gitignore")
    expect(message).to_contain_text("proj/logo.png: binary content")
    expect(message).to_contain_text("proj/src/pkg/__init__.py: empty file")
    if width == 390:
        expect(message).to_contain_text("proj/docs/guide.md: excluded by filter docs/**")
    paths = {d.path for d in service.documents.all("proj")}
    guide = {"proj/docs/guide.md"} if width == 1280 else set()
    assert paths == {"proj/.gitignore", "proj/a/__init__.py", "proj/b/__init__.py", *guide}
    # each __init__.py kept its own content: the pairing followed the folder, not the names
    assert service.documents.read("proj", "proj/a/__init__.py").text == "A = 1\n"
    assert service.documents.read("proj", "proj/b/__init__.py").text == "B = 22\n"
