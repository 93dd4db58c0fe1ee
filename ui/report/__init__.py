"""Reports: the report dialog, the Qt PDF renderer and the compare dialog."""
