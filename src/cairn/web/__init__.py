"""``cairn ui``: a local web app over a JSON API, on the same engine and wire format.

    auth     the one-time login token, cookie sessions, the CSRF token of each session,
             the bearer token for scripts ($CAIRN_UI_TOKEN), Host/Origin checks
    api      the JSON API: one :class:`~.api.Route` per endpoint, answering the documents
             of :mod:`cairn.wire`; errors as ``{"error": {"code", "message"}}``; the
             OpenAPI description generated from the routes and the wire ``TypedDict`` s
    pages    the server-rendered HTML pages (every stored text escaped)
    server   the standard library's threading HTTP server; one engine on one worker
             thread, so calls are serialised and the engine stays on the thread that opened it
    static/  app.js and app.css, served from the package (no build step, no CDN)

One server serves one database and one space (the CLI's ``--db`` and ``--space``): no
route takes a space, so the page cannot reach another. Nothing here needs a dependency
beyond the standard library.
"""
