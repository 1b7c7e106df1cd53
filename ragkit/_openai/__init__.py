"""The plumbing every OpenAI-compatible class shares: settings, key, SDK clients, errors,
message mapping (``ragkit.models.ChatOpenAI``, ``ragkit.llms.OpenAI``,
``ragkit.embeddings.OpenAIEmbeddings``)."""
