"""Settings come from the environment (with Spaces' names) and never print secrets."""

from dataclasses import replace

import pytest

from ragspace.errors import ConfigError
from ragspace.runtime import build_chat_model, build_embedder, chat_endpoint
from ragspace.settings import AREAS, PROJECT_ROOT, load_settings


def test_defaults_need_no_environment() -> None:
    settings = load_settings(env_file=None)
    assert (settings.server.host, settings.server.port) == ("127.0.0.1", 7860)
    assert settings.database.database_url is None
    assert not settings.uses_openai


def test_spaces_variables_are_honoured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADIO_SERVER_NAME", "0.0.0.0")
    monkeypatch.setenv("PORT", "8080")
    settings = load_settings(env_file=None)
    assert (settings.server.host, settings.server.port) == ("0.0.0.0", 8080)


def test_env_file_is_read(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / ".env").write_text("RAGSPACE_CODE_CHUNK_SIZE=900\n")
    monkeypatch.chdir(tmp_path)
    assert load_settings().chunking.code_chunk_size == 900


def test_secrets_are_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-very-secret")
    monkeypatch.setenv("DATABASE_URL", "postgresql://u:pg-secret@db.example.com/postgres")
    settings = load_settings(env_file=None)
    shown = f"{settings!r} {settings} {settings.model_dump()}"
    assert "sk-very-secret" not in shown
    assert "pg-secret" not in shown
    assert settings.uses_openai


def test_openai_key_selects_the_openai_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_EMBEDDING_DIMENSIONS", "256")
    embedder = build_embedder(load_settings(env_file=None))
    assert (embedder.model_id, embedder.dimensions) == ("openai/text-embedding-3-small@256", 256)
    assert build_embedder(load_settings(env_file=None, openai_api_key=None)).dimensions == 384


def test_a_local_chat_model_keeps_the_local_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ollama or llama.cpp behind OPENAI_BASE_URL answers; the bundled model still embeds."""
    monkeypatch.setenv("OPENAI_API_KEY", "ollama")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:11434/v1")
    monkeypatch.setenv("RAGSPACE_EMBEDDING_PROVIDER", "local")
    settings = load_settings(env_file=None)
    assert not settings.uses_openai
    assert build_embedder(settings).dimensions == 384
    assert build_chat_model(settings) is not None
    assert chat_endpoint(settings) == "gpt-4o-mini at 127.0.0.1:11434"
    monkeypatch.setenv("OPENAI_BASE_URL", "https://user:pw@llm.example.com/v1")
    assert chat_endpoint(load_settings(env_file=None)) == "gpt-4o-mini at llm.example.com"


def test_openai_embeddings_without_a_key_are_refused_in_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RAGSPACE_EMBEDDING_PROVIDER", "openai")
    with pytest.raises(ConfigError, match="needs OPENAI_API_KEY"):
        build_embedder(load_settings(env_file=None, openai_api_key=None))


def test_env_example_is_current() -> None:
    from scripts.write_env_example import render

    assert (PROJECT_ROOT / ".env.example").read_text(encoding="utf-8") == render(), (
        "run `python scripts/write_env_example.py`"
    )


def test_gradio_port_variable_and_precedence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADIO_SERVER_PORT", "7861")
    assert load_settings(env_file=None).server.port == 7861
    monkeypatch.setenv("PORT", "8081")
    monkeypatch.setenv("RAGSPACE_PORT", "9000")
    monkeypatch.setenv("RAGSPACE_HOST", "10.0.0.1")
    monkeypatch.setenv("GRADIO_SERVER_NAME", "0.0.0.0")
    settings = load_settings(env_file=None)
    assert (settings.server.host, settings.server.port) == ("10.0.0.1", 9000)  # our own names win


def test_launch_options_follow_access_settings() -> None:
    from ragspace.access import parse_auth
    from ragspace_ui.server import launch_options

    settings = load_settings(env_file=None, auth="alice:s3cret", mcp_server=False)
    options = launch_options(settings, parse_auth(settings.access.auth))
    assert options["auth"] == [("alice", "s3cret")] and options["mcp_server"] is False
    open_app = launch_options(load_settings(env_file=None), None)
    assert open_app["auth"] is None and open_app["mcp_server"] is True


def test_each_area_reads_ragspace_and_its_field_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGSPACE_VECTOR_SHARE", "0.3")
    monkeypatch.setenv("RAGSPACE_READ_ONLY", "true")
    monkeypatch.setenv("RAGSPACE_WORKER_THREADS", "0")
    monkeypatch.setenv("RAGSPACE_CODE_CHUNK_SIZE", "700")
    settings = load_settings(env_file=None)
    assert settings.retrieval.vector_share == 0.3
    assert settings.access.read_only is True
    assert settings.ingestion.worker_threads == 0
    assert settings.chunking.code_chunk_size == 700


def test_a_field_name_belongs_to_one_area_so_overrides_need_no_area() -> None:
    names = [name for area in AREAS.values() for name in area.model_fields]
    assert len(names) == len(set(names))
    changed = load_settings(env_file=None, read_only=True, vector_share=0.25)
    assert (changed.access.read_only, changed.retrieval.vector_share) == (True, 0.25)
    again = changed.replace(read_only=False)
    assert (again.access.read_only, again.retrieval.vector_share) == (False, 0.25)
    with pytest.raises(TypeError, match="unknown setting 'vectr_share'"):
        load_settings(env_file=None, vectr_share=0.5)


def test_components_default_to_their_settings_and_read_them() -> None:
    """A default is written once, in its setting: a component's own defaults are the settings'
    defaults, and `from_settings` carries a configured value through (issue 65)."""
    from ragspace.access import LoginLimits
    from ragspace.answering.answer import AnswerOptions
    from ragspace.ingestion.worker import IngestOptions
    from ragspace.models import Fusion
    from ragspace.ranking.options import RankingOptions
    from ragspace.runtime import archive_limits
    from ragspace.sources.files import ArchiveLimits
    from ragspace.sources.github_client import GithubConfig
    from ragspace.sources.web_config import WebConfig

    defaults = load_settings(env_file=None, github_token=None)
    assert WebConfig.from_settings(defaults) == WebConfig()
    assert GithubConfig.from_settings(defaults) == GithubConfig()
    assert IngestOptions.from_settings(defaults) == IngestOptions(keywords_first=True)
    assert LoginLimits.from_settings(defaults) == LoginLimits()
    assert RankingOptions.from_settings(defaults.retrieval) == RankingOptions()
    assert archive_limits(defaults) == replace(
        ArchiveLimits(), max_document_chars=archive_limits(defaults).max_document_chars
    )
    answers = AnswerOptions()
    assert (answers.min_similarity, answers.rerank_candidates) == (
        defaults.retrieval.min_similarity,
        defaults.retrieval.rerank_candidates,
    )
    tuned = load_settings(
        env_file=None, web_max_pages=7, github_max_files=9, job_max_attempts=5, prose_chunk_size=321
    )
    rrf = load_settings(env_file=None, fusion="rrf", vector_share=0.25, rrf_k=3, keyword_weight=2)
    ranking = RankingOptions.from_settings(rrf.retrieval)
    assert (ranking.fusion, ranking.vector_share, ranking.rrf_k) == (Fusion.RRF, 0.25, 3)
    assert ranking.keyword_weight == 2.0
    assert WebConfig.from_settings(tuned).max_pages == 7
    assert WebConfig.from_settings(tuned).chunk_chars == 321
    assert GithubConfig.from_settings(tuned).max_files == 9
    assert IngestOptions.from_settings(tuned).max_attempts == 5
    assert LoginLimits.from_settings(load_settings(None, login_free_failures=2)).free_failures == 2
