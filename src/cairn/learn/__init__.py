"""Sources, extractors (plug-ins) and consolidation batches."""
