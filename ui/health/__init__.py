"""The Health tab: findings, its widgets and its screenshot."""
