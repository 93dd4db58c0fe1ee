"""CLI sub-commands; each module has ``register(subparsers)`` and keeps heavy imports lazy."""
