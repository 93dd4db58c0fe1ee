"""Job profiles: the profile dialog, status strip, summary and the list of recorded profiles."""
