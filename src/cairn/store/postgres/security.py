"""Optional isolation by the database itself: one login role per space, row-level security.

With it on, a client connecting as a space's role reads and writes only that space's
rows, even with its own SQL: every table holding a ``space`` column gets a policy that
admits a row (for reading, and for writing through ``WITH CHECK``) only when the
connected role is a member of a role mapped to that row's space. The mapping lives in
``cairn_space_roles``, readable only through the ``SECURITY DEFINER`` function
``cairn_space_allowed``, so a space's role cannot list the other spaces.

Run by the database owner (the role that created Cairn's tables); the owner and
superusers bypass the policies, as PostgreSQL does for table owners. Shared counters
(record keys, event sequence numbers) stay readable and writable by every space role:
they hold numbers, never another space's rows.
"""

from __future__ import annotations

import psycopg
from psycopg import sql

from .schema import TABLES

SPACE_TABLES = TABLES  # every table of the schema carries a space column
SHARED = ("cairn_counters",)
READ_ONLY = ("cairn_schema_migrations",)


def _prepare(conn: psycopg.Connection) -> None:
    """The role-to-space map and the function the policies call (idempotent)."""
    conn.execute("CREATE TABLE IF NOT EXISTS cairn_space_roles (role name NOT NULL, space text COLLATE \"C\" NOT NULL,"
                 " PRIMARY KEY (role, space))")
    conn.execute("REVOKE ALL ON cairn_space_roles FROM PUBLIC")
    conn.execute(
        "CREATE OR REPLACE FUNCTION cairn_space_allowed(row_space text, who name) RETURNS boolean"
        " LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS"
        " $$ SELECT EXISTS (SELECT 1 FROM cairn_space_roles r WHERE r.space = row_space"
        " AND pg_has_role(who, r.role, 'MEMBER')) $$")


def enable_row_level_security(conn: psycopg.Connection) -> None:
    """Turn the per-space policies on (idempotent). ``conn``: the owner's connection."""
    with conn.transaction():
        _prepare(conn)
        for table in SPACE_TABLES:
            name = sql.Identifier(table)
            conn.execute(sql.SQL("ALTER TABLE {} ENABLE ROW LEVEL SECURITY").format(name))
            conn.execute(sql.SQL("DROP POLICY IF EXISTS cairn_space_isolation ON {}").format(name))
            conn.execute(sql.SQL("CREATE POLICY cairn_space_isolation ON {} USING (cairn_space_allowed(space, current_user))"
                                 " WITH CHECK (cairn_space_allowed(space, current_user))").format(name))


def create_space_role(conn: psycopg.Connection, space: str, role: str, password: str | None = None) -> None:
    """Create the login ``role`` (when missing) and give it ``space``: it may then read and
    write that space's rows, and no other's once row-level security is on."""
    with conn.transaction():
        _prepare(conn)
        exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone()
        ident = sql.Identifier(role)
        if not exists:
            conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(ident))
        if password is not None:
            conn.execute(sql.SQL("ALTER ROLE {} PASSWORD {}").format(ident, sql.Literal(password)))
        conn.execute("INSERT INTO cairn_space_roles (role, space) VALUES (%s, %s) ON CONFLICT DO NOTHING", (role, space))
        for table in SPACE_TABLES + SHARED:
            conn.execute(sql.SQL("GRANT SELECT, INSERT, UPDATE, DELETE ON {} TO {}").format(sql.Identifier(table), ident))
        for table in READ_ONLY:
            conn.execute(sql.SQL("GRANT SELECT ON {} TO {}").format(sql.Identifier(table), ident))
        conn.execute(sql.SQL("GRANT EXECUTE ON FUNCTION cairn_space_allowed(text, name) TO {}").format(ident))
