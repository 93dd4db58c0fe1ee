"""The Recommend tab: the workload form, result model, plot, details and price update bar."""
