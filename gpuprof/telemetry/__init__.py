"""Telemetry: NVML and host sampling, history, recording and replay."""
