"""The viewer links a name only where the symbol table resolves that use (issue 67): a
parameter `request` does not link to `Session.request`, a keyword argument `json` not to a
`json` method; `self.request(...)` links to the method of the class around it, a class to
itself; an attribute of an object whose type the table cannot know is a marked guess."""

import re

import pytest

from ragspace.actions import Actions
from ragspace.ingestion.worker import Ingestor
from ragspace.sources.files import UploadedFile
from ragspace_ui.viewer import open_document

SESSIONS = b"""class Session:
    def request(self, method, url, json=None):
        return method

    def get(self, url):
        return self.request("GET", url)

    def send(self, request, **kwargs):
        auth = request.auth
        return self.request(request.method, request.url, json=kwargs)
"""
MODELS = b"""class Response:
    def json(self):
        return {}


class Listing:
    def json(self):
        return []
"""
API = b"""from sessions import Session


def fetch(url, json=None):
    session = Session()
    response = session.get(url, json=json)
    return response.json()
"""
FILES = {"sessions.py": SESSIONS, "models.py": MODELS, "api.py": API}


@pytest.fixture
def docset(service: Actions, ingestor: Ingestor) -> Actions:
    service.docsets.create("http")
    service.sources.add_files("http", [UploadedFile(p, data) for p, data in FILES.items()])
    ingestor.process_all()
    return service


def _lines(shown: str) -> dict[int, str]:
    """Each line's HTML, by number."""
    found = re.findall(r'id="rs-L(\d+)">(.*?)(?=<span class="rs-line |</code>)', shown, re.S)
    return {int(number): html for number, html in found}


def _links(line: str) -> list[tuple[str, str, str]]:
    """(classes, title, text) of each symbol link on a line."""
    return [
        (classes, title, re.sub(r"<[^>]+>", "", text))
        for classes, title, text in re.findall(
            r'<a class="([^"]*)" href="[^"]*" title="([^"]*)">(.*?)</a>', line
        )
    ]


def test_parameters_and_keyword_arguments_do_not_link_to_methods_of_their_name(
    docset: Actions,
) -> None:
    lines = _lines(open_document(docset, "http", "sessions.py"))
    assert _links(lines[9]) == []  # auth = request.auth: the parameter
    assert _links(lines[2]) == []  # the definition's own line, json=None
    # self.request(...) in Session: its own method, resolved; the parameters beside it not
    assert _links(lines[10]) == [("rs-sym", "go to the definition: Session.request", "request")]
    assert _links(lines[6]) == [("rs-sym", "go to the definition: Session.request", "request")]


def test_a_class_resolves_and_an_attribute_of_an_unknown_type_is_a_marked_guess(
    docset: Actions,
) -> None:
    lines = _lines(open_document(docset, "http", "api.py"))
    assert _links(lines[4]) == []  # def fetch(url, json=None)
    assert _links(lines[5]) == [("rs-sym", "go to the definition: Session", "Session")]
    [get] = _links(lines[6])  # session.get(url, json=json): `json` twice, neither a use
    assert get[0] == "rs-sym rs-guess" and get[2] == "get"
    [json] = _links(lines[7])  # response.json(): two classes define json
    assert json[0] == "rs-sym rs-guess" and json[2] == "json"
    assert "a guess: 2 definition(s) named json" in json[1]
