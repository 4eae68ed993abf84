from hello import app  # noqa: F401
