"""RAGSpace web app entry point (`python app.py`; also the Hugging Face Spaces app file)."""

import sys

from ragspace.errors import ConfigError
from ragspace.logging_setup import configure_logging
from ragspace.settings import load_settings
from ragspace_ui.server import serve


def main() -> None:
    """Read settings, then serve the web app; a configuration error ends it with its message."""
    settings = load_settings()
    configure_logging(settings.server.log_level)
    try:
        serve(settings)
    except ConfigError as exc:
        sys.exit(f"RAGSpace cannot start: {exc}")


if __name__ == "__main__":
    main()
