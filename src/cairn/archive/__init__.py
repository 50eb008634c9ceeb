"""Preserved raw sources and label vocabularies: the exact evidence behind memory.

* :mod:`.formats` — reading a source type into numbered records split by channel;
* :mod:`.catalog` — the metadata-only catalog entry (exactly the seed's fields);
* :mod:`.raw` — the private raw store on disk (0700 directories, 0400 files, containment);
* :mod:`.verify` — every check, each failure named, before anything is read;
* :mod:`.rehydrate` — the smallest turn range, labelled untrusted quoted evidence;
* :mod:`.labels` — per-space topic/entity vocabularies: strict at ingestion, warnings at
  query time.

Nothing here touches the database: the engine (``cairn.engine.archiving`` and
``cairn.engine.labelling``) links archived sources to episodes through the event log.
"""
