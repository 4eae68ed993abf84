"""Gradio front end: thin handlers that call `ragspace.services` and show the result."""
