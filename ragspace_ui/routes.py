"""HTTP routes beside Gradio's: a document's stored original file (an uploaded PDF).

The viewer links to it at `#page=N`, which browsers' PDF viewers open at that page. The
access guard (`guard.py`) stands in front of these routes as of every other one.
"""

from pathlib import PurePosixPath
from urllib.parse import quote, urlencode

from fastapi.responses import PlainTextResponse, Response
from starlette.requests import Request
from starlette.routing import BaseRoute, Route

from ragspace.actions import Actions
from ragspace.errors import DatabaseUnavailableError, NotFoundError, RagspaceError

ORIGINAL_PATH = "/ragspace/original"


def original_url(docset: str, path: str, page: int | None = None) -> str:
    """The link to a document's original file, relative to the app's page."""
    url = ORIGINAL_PATH.lstrip("/") + "?" + urlencode({"docset": docset, "path": path})
    return url + (f"#page={page}" if page else "")


def app_routes(actions: Actions) -> list[BaseRoute]:
    """The routes to hand to the app (`app_kwargs={"routes": ...}`)."""

    def original(request: Request) -> Response:
        docset = request.query_params.get("docset", "")
        path = request.query_params.get("path", "")
        try:
            found = actions.documents.read_original(docset, path)
        except NotFoundError:
            return PlainTextResponse("No original file is kept for this document.", 404)
        except DatabaseUnavailableError as exc:
            return PlainTextResponse(str(exc), 503)
        except RagspaceError as exc:
            return PlainTextResponse(str(exc), 400)
        name = quote(PurePosixPath(path).name)
        headers = {
            "Content-Disposition": f"inline; filename*=UTF-8''{name}",
            "X-Content-Type-Options": "nosniff",
            "Cache-Control": "private, no-store",
        }
        return Response(found.content, media_type=found.media_type, headers=headers)

    return [Route(ORIGINAL_PATH, original, methods=["GET"])]
