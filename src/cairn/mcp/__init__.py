"""Cairn as an MCP server (``cairn mcp``): a thin adapter over the engine and the wire format.

    registry     the tool registry: one decorated function per tool, argument checking,
                 errors turned into tool errors with the CLI's one-line reason
    schema       input schemas (helpers) and output schemas read from the wire TypedDicts
    render       the labelled text content of each reply (memories quoted as data)
    tools_read   memory_recall, memory_search, memory_explain, memory_show,
                 memory_timeline, memory_history (readOnlyHint)
    tools_write  memory_remember, memory_correct, memory_relate, memory_feedback,
                 memory_pin; memory_forget, memory_undo (destructiveHint)
    server       the SDK's low-level Server over the registry, its instructions and its
                 one prompt (recall_context); the stdio transport
    http         streamable HTTP behind a bearer token, Host/Origin checks, size limits

One server serves one database and one space (the CLI's global ``--db`` and ``--space``):
no tool takes a space, so a client cannot reach another. The ``mcp`` SDK is an optional
extra (``cairn-memory[mcp]``); nothing outside this package imports it, and this package
is imported only by ``cairn mcp``, so other commands start without it.

Adding a tool is one function with the :func:`~.registry.tool` decorator in a tool
module (see :mod:`.registry`).
"""
