"""Gradio front end: thin handlers that call `ragspace.actions` and show the result."""
