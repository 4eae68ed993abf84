"""The answer pipeline: retrieval to context, the chat model, reranking, citations, prompts."""
