"""The Telemetry tab's plots: data, items, lines, specs and axis ticks."""
