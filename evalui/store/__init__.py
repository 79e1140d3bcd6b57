"""The run store (SQLite or PostgreSQL): schema and migrations, rows, parts, search, claims, counts and group commit."""
