"""The Check tab: the worker that runs the check and the scorecard."""
