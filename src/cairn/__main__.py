"""``python -m cairn`` runs the command line.

The garbage collector is paused from here, before the command line's own modules are
imported (argparse, json, pathlib and the CLI): the objects they make live as long as the
process, and collecting while they are made walks them again and again for nothing (about
a dozen collections, 1.5 ms of a recall process). :func:`cairn.cli.run` resumes it once
the command's modules are imported, as it does when it paused the collector itself.
"""

import gc

paused = gc.isenabled()
gc.disable()

from .cli import run  # noqa: E402 - imported with the collector paused (above)

run(paused=paused)
