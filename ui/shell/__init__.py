"""The window's shell: the app, the main window, menus, the feature context and registry, settings, theme, workers and small shared widgets."""
