"""Internal plumbing of ragkit's Google integration (``google`` extra).

Everything that touches the ``google-generativeai`` SDK lives in
:mod:`ragkit._google.client`; the other modules here are pure data mapping
(messages, tool schemas, corpus metadata) and the retry policy. Public classes
live in ``ragkit.models.google``, ``ragkit.embeddings.google``,
``ragkit.stores.google_vectorstore`` and ``ragkit.retrievers.google_aqa``.
"""
