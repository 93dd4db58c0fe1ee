"""The Processes tab: model and filter, per-process chart, terminate/kill actions."""
