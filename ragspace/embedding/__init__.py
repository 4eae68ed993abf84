"""Embedding: the Embedder protocol, the local ONNX model and OpenAI-compatible endpoints."""
