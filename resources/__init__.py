"""Data files: catalogs, icons, stylesheets, translations."""
