"""The Telemetry tab: the live plots, overview, topology, replay, recording and the connect dialog."""
