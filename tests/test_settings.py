"""Settings come from the environment (with Spaces' names) and never print secrets."""

import pytest

from ragspace.runtime import build_embedder
from ragspace.settings import PROJECT_ROOT, Settings


def test_defaults_need_no_environment() -> None:
    settings = Settings(_env_file=None)
    assert (settings.host, settings.port) == ("127.0.0.1", 7860)
    assert settings.database_url is None
    assert not settings.uses_openai


def test_spaces_variables_are_honoured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADIO_SERVER_NAME", "0.0.0.0")
    monkeypatch.setenv("PORT", "8080")
    settings = Settings(_env_file=None)
    assert (settings.host, settings.port) == ("0.0.0.0", 8080)


def test_env_file_is_read(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / ".env").write_text("RAGSPACE_CODE_CHUNK_SIZE=900\n")
    monkeypatch.chdir(tmp_path)
    assert Settings().code_chunk_size == 900


def test_secrets_are_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-very-secret")
    monkeypatch.setenv("DATABASE_URL", "postgresql://u:pg-secret@db.example.com/postgres")
    settings = Settings(_env_file=None)
    shown = f"{settings!r} {settings} {settings.model_dump()}"
    assert "sk-very-secret" not in shown
    assert "pg-secret" not in shown
    assert settings.uses_openai


def test_openai_key_selects_the_openai_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_EMBEDDING_DIMENSIONS", "256")
    embedder = build_embedder(Settings(_env_file=None))
    assert (embedder.model_id, embedder.dimensions) == ("openai/text-embedding-3-small@256", 256)
    assert build_embedder(Settings(_env_file=None, openai_api_key=None)).dimensions == 384


def test_env_example_is_current() -> None:
    from scripts.write_env_example import render

    assert (PROJECT_ROOT / ".env.example").read_text(encoding="utf-8") == render(), (
        "run `python scripts/write_env_example.py`"
    )
