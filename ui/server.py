"""Start the web app: compose the runtime, build the UI, serve until stopped."""

import logging

from ragspace.runtime import open_runtime
from ragspace.settings import Settings
from ui.app import CSS, build_ui

log = logging.getLogger(__name__)


def serve(settings: Settings) -> None:
    """Run the app on the configured host and port; stop everything cleanly on exit."""
    runtime = open_runtime(settings)
    try:
        demo = build_ui(runtime.service)
        demo.queue(default_concurrency_limit=8)
        demo.launch(
            server_name=settings.host,
            server_port=settings.port,
            max_file_size=settings.max_upload_bytes,
            show_error=False,
            css=CSS,
        )
    finally:
        runtime.close()
