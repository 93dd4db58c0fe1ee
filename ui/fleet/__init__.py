"""The Fleet tab: the grid of hosts and the drill-down into one."""
