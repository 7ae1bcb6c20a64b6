"""Where games are kept: the SQLite and PostgreSQL stores, the writer thread that commits in groups, migrations and backups."""
