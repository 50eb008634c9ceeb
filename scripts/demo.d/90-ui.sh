# Part 9: the same memories in a browser (`cairn ui`, docs/ui.md). Not started here: it serves until Ctrl-C.
step "See and curate these memories in a browser"
printf 'Run:  .venv/bin/cairn --db %s ui\n' "$CAIRN_DB"
printf 'It prints http://127.0.0.1:8765/login?token=... : open that URL once (the token works once).\n'
printf 'Records, search, evidence, history with undo, the conflicted queue, a recall box, maintenance review and retention; docs/ui.md.\n'
