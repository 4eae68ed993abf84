"""RAGSpace web app entry point (`python app.py`; also the Hugging Face Spaces app file)."""

from ragspace.logging_setup import configure_logging
from ragspace.settings import load_settings
from ui.server import serve


def main() -> None:
    """Read settings, then serve the web app."""
    settings = load_settings()
    configure_logging(settings.log_level)
    serve(settings)


if __name__ == "__main__":
    main()
