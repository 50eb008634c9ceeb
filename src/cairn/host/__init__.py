"""The host loop: triage of each user message, agent-host hooks and their set-up."""
