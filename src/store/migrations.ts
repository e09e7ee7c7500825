/**
 * Schema migrations of both store engines, from one list: each step has a name and its SQL per engine (the
 * dialects differ: STRICT tables and triggers in SQLite, BIGINT/DOUBLE PRECISION and plpgsql in PostgreSQL; the
 * columns, keys and checks are the same). SQLite records how many have run in `PRAGMA user_version`, PostgreSQL
 * in the `quadguard_schema` table. Append new steps, never edit a shipped one: stores in the field have already
 * run it. A new table or column goes into both engines in the same step.
 */
export interface Migration {
  name: string;
  sqlite: string;
  postgres: string;
}

/** PostgreSQL: the trigger function that makes a table append-only (shared by every append-only table). */
const PG_APPEND_ONLY = `
  CREATE OR REPLACE FUNCTION quadguard_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN RAISE EXCEPTION 'audit log is append-only'; END $$;`;

export const MIGRATIONS: readonly Migration[] = [
  {
    name: 'audit log (append-only, hash-chained), guard state (Γ, τ, quarantine) and tool pins',
    sqlite: `
  CREATE TABLE audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    ts INTEGER NOT NULL,
    agent TEXT NOT NULL,
    session TEXT NOT NULL,
    kind TEXT NOT NULL,
    server TEXT,
    tool TEXT,
    uri TEXT,
    recipient TEXT,
    digest TEXT,
    preview TEXT,
    size INTEGER,
    decision TEXT NOT NULL,
    rules TEXT NOT NULL,
    flagged TEXT NOT NULL,
    witness TEXT NOT NULL,
    threat INTEGER,
    rationale TEXT NOT NULL,
    elapsed_ms REAL,
    policy_hash TEXT,
    source TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL
  ) STRICT;
  CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;
  CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;

  CREATE TABLE sticky (
    session TEXT NOT NULL,
    name TEXT NOT NULL,
    value TEXT NOT NULL CHECK (value IN ('true', 'false', 'unknown')),
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (session, name)
  ) STRICT, WITHOUT ROWID;

  CREATE TABLE agents (
    agent TEXT PRIMARY KEY,
    tau REAL NOT NULL CHECK (tau >= 0 AND tau <= 1),
    level INTEGER NOT NULL CHECK (level BETWEEN 0 AND 4),
    quarantined INTEGER NOT NULL DEFAULT 0 CHECK (quarantined IN (0, 1)),
    reason TEXT,
    updated_at INTEGER NOT NULL
  ) STRICT;

  CREATE TABLE pins (
    server TEXT NOT NULL,
    tool TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('approved', 'pending')),
    hash TEXT NOT NULL,
    definition TEXT NOT NULL,
    pending_hash TEXT,
    pending_definition TEXT,
    first_seen INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    approved_by TEXT,
    PRIMARY KEY (server, tool)
  ) STRICT;
  `,
    postgres: `
  ${PG_APPEND_ONLY}
  CREATE TABLE audit (
    id BIGINT PRIMARY KEY,
    ts BIGINT NOT NULL,
    agent TEXT NOT NULL,
    session TEXT NOT NULL,
    kind TEXT NOT NULL,
    server TEXT,
    tool TEXT,
    uri TEXT,
    recipient TEXT,
    digest TEXT,
    preview TEXT,
    size BIGINT,
    decision TEXT NOT NULL,
    rules TEXT NOT NULL,
    flagged TEXT NOT NULL,
    witness TEXT NOT NULL,
    threat INTEGER,
    rationale TEXT NOT NULL,
    elapsed_ms DOUBLE PRECISION,
    policy_hash TEXT,
    source TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL
  );
  CREATE TRIGGER audit_no_update BEFORE UPDATE OR DELETE OR TRUNCATE ON audit EXECUTE FUNCTION quadguard_append_only();
  -- The chain head: one row, locked (SELECT … FOR UPDATE) by every append, so replicas append one at a time and
  -- the chain never forks; its id is the highest id ever used, so a deleted tail shows up as a gap.
  CREATE TABLE audit_head (
    one BOOLEAN PRIMARY KEY DEFAULT true CHECK (one),
    id BIGINT NOT NULL,
    hash TEXT NOT NULL
  );
  INSERT INTO audit_head (one, id, hash) VALUES (true, 0, '${'0'.repeat(64)}');

  CREATE TABLE sticky (
    session TEXT NOT NULL,
    name TEXT NOT NULL,
    value TEXT NOT NULL CHECK (value IN ('true', 'false', 'unknown')),
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (session, name)
  );

  CREATE TABLE agents (
    agent TEXT PRIMARY KEY,
    tau DOUBLE PRECISION NOT NULL CHECK (tau >= 0 AND tau <= 1),
    level INTEGER NOT NULL CHECK (level BETWEEN 0 AND 4),
    quarantined INTEGER NOT NULL DEFAULT 0 CHECK (quarantined IN (0, 1)),
    reason TEXT,
    updated_at BIGINT NOT NULL
  );

  CREATE TABLE pins (
    server TEXT NOT NULL,
    tool TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('approved', 'pending')),
    hash TEXT NOT NULL,
    definition TEXT NOT NULL,
    pending_hash TEXT,
    pending_definition TEXT,
    first_seen BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    approved_by TEXT,
    PRIMARY KEY (server, tool)
  );
  `,
  },
  {
    name: 'approvals of held interactions (rules with effect: approve), bound to agent, target and argument hash',
    sqlite: `
  CREATE TABLE approvals (
    id TEXT PRIMARY KEY,
    created INTEGER NOT NULL,
    expires INTEGER NOT NULL,
    agent TEXT NOT NULL,
    session TEXT NOT NULL,
    kind TEXT NOT NULL,
    server TEXT,
    tool TEXT,
    args_hash TEXT NOT NULL,
    preview TEXT,
    rules TEXT NOT NULL,
    rationale TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'used', 'expired')),
    decided_by TEXT,
    decided_at INTEGER,
    updated_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX approvals_binding ON approvals (agent, args_hash, status);
  CREATE INDEX approvals_updated ON approvals (updated_at);
  `,
    postgres: `
  CREATE TABLE approvals (
    id TEXT PRIMARY KEY,
    created BIGINT NOT NULL,
    expires BIGINT NOT NULL,
    agent TEXT NOT NULL,
    session TEXT NOT NULL,
    kind TEXT NOT NULL,
    server TEXT,
    tool TEXT,
    args_hash TEXT NOT NULL,
    preview TEXT,
    rules TEXT NOT NULL,
    rationale TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'used', 'expired')),
    decided_by TEXT,
    decided_at BIGINT,
    updated_at BIGINT NOT NULL
  );
  CREATE INDEX approvals_binding ON approvals (agent, args_hash, status);
  CREATE INDEX approvals_updated ON approvals (updated_at);
  `,
  },
  {
    // The interaction behind each guard decision (masked, size-capped JSON), so `quadguard replay` can re-decide
    // recorded traffic under another policy. A side table keyed by the audit row id: the chained columns of
    // `audit` are unchanged, so rows written before this migration still verify. Append-only like the log.
    name: 'the recorded interaction of each decision (for replay)',
    sqlite: `
  CREATE TABLE audit_interaction (
    id INTEGER PRIMARY KEY,
    body TEXT,
    masked INTEGER NOT NULL CHECK (masked IN (0, 1)),
    truncated INTEGER NOT NULL CHECK (truncated IN (0, 1))
  ) STRICT;
  CREATE TRIGGER audit_interaction_no_update BEFORE UPDATE ON audit_interaction BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;
  CREATE TRIGGER audit_interaction_no_delete BEFORE DELETE ON audit_interaction BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;
  `,
    postgres: `
  CREATE TABLE audit_interaction (
    id BIGINT PRIMARY KEY,
    body TEXT,
    masked INTEGER NOT NULL CHECK (masked IN (0, 1)),
    truncated INTEGER NOT NULL CHECK (truncated IN (0, 1))
  );
  CREATE TRIGGER audit_interaction_no_update BEFORE UPDATE OR DELETE OR TRUNCATE ON audit_interaction EXECUTE FUNCTION quadguard_append_only();
  `,
  },
  {
    name: 'model accounting of each decision (calls, tokens, ms), as JSON; null when no model was consulted',
    sqlite: `
  ALTER TABLE audit ADD COLUMN llm TEXT;
  `,
    postgres: `
  ALTER TABLE audit ADD COLUMN llm TEXT;
  `,
  },
  {
    // The keyed chain. Each row's MAC (HMAC-SHA256 of its hash with a key kept outside the database); null on rows
    // written before the store had a key. Not part of the hashed columns, so older rows keep their hashes.
    name: 'the keyed chain: an HMAC of each row hash with a key kept outside the database',
    sqlite: `
  ALTER TABLE audit ADD COLUMN mac TEXT;
  `,
    postgres: `
  ALTER TABLE audit ADD COLUMN mac TEXT;
  `,
  },
  {
    // Data flow (docs/data-flow.md): the reads of private data per identity, and keyed-hash fingerprints of what
    // was read (never the data). Rows expire (both tables are swept by `expires`, which a read and its fingerprints
    // share); the key of the fingerprints is per store.
    name: 'data flow: reads of private data per identity and keyed-hash fingerprints of what they returned',
    sqlite: `
  CREATE TABLE flow_key (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    key BLOB NOT NULL
  ) STRICT;
  CREATE TABLE flow_sources (
    id TEXT PRIMARY KEY,
    agent TEXT NOT NULL,
    session TEXT NOT NULL,
    kind TEXT NOT NULL,
    server TEXT,
    tool TEXT,
    uri TEXT,
    at INTEGER NOT NULL,
    expires INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX flow_sources_expires ON flow_sources (expires);
  CREATE TABLE flow_fingerprints (
    agent TEXT NOT NULL,
    hash TEXT NOT NULL,
    source TEXT NOT NULL,
    expires INTEGER NOT NULL,
    PRIMARY KEY (agent, hash, source)
  ) STRICT, WITHOUT ROWID;
  `,
    postgres: `
  CREATE TABLE flow_key (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    key BYTEA NOT NULL
  );
  CREATE TABLE flow_sources (
    id TEXT PRIMARY KEY,
    agent TEXT NOT NULL,
    session TEXT NOT NULL,
    kind TEXT NOT NULL,
    server TEXT,
    tool TEXT,
    uri TEXT,
    at BIGINT NOT NULL,
    expires BIGINT NOT NULL
  );
  CREATE INDEX flow_sources_expires ON flow_sources (expires);
  CREATE TABLE flow_fingerprints (
    agent TEXT NOT NULL,
    hash TEXT NOT NULL,
    source TEXT NOT NULL,
    expires BIGINT NOT NULL,
    PRIMARY KEY (agent, hash, source)
  );
  `,
  },
  {
    // The keyed chain on PostgreSQL: the head row carries the MAC of (id, hash), so cutting the tail and setting
    // the head back needs the key, or a head signed earlier (which the replicas' signed head files catch). SQLite
    // has no head row: its signed head is the file beside the key.
    // The threat watcher's burst window, shared by every process on the store: requests per agent counted in
    // buckets (a tenth of the window each), incremented by one upsert per request. UNLOGGED on PostgreSQL: no WAL
    // and no fsync per request; a crash or a failover empties it, which forgets at most one window of rate.
    name: 'the keyed chain on PostgreSQL (a MAC of the chain head row); the shared burst window',
    sqlite: `
  CREATE TABLE burst (
    agent TEXT NOT NULL,
    bucket INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (agent, bucket)
  ) STRICT, WITHOUT ROWID;
  `,
    postgres: `
  ALTER TABLE audit_head ADD COLUMN mac TEXT;
  CREATE UNLOGGED TABLE burst (
    agent TEXT NOT NULL,
    bucket BIGINT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (agent, bucket)
  );
  `,
  },
  {
    // Data flow that does not grow with traffic: one fingerprint row per identity, hash and origin (the server the
    // data was read from, or the agent that sent the message), refreshed by a re-read instead of one row per read
    // (a text re-read every minute stored up to 4,096 rows each time). The origin keeps what `returning` needs: data
    // read from two servers still has a row naming each. The index on `expires` serves the sweep.
    name: 'data flow: one fingerprint per identity, hash and origin (a re-read refreshes it); fingerprints swept by index',
    sqlite: `
  CREATE TABLE flow_fingerprints_v2 (
    agent TEXT NOT NULL,
    hash TEXT NOT NULL,
    origin TEXT NOT NULL,
    source TEXT NOT NULL,
    expires INTEGER NOT NULL,
    PRIMARY KEY (agent, hash, origin)
  ) STRICT, WITHOUT ROWID;
  INSERT OR REPLACE INTO flow_fingerprints_v2 (agent, hash, origin, source, expires)
    SELECT f.agent, f.hash, COALESCE(s.server, s.uri, ''), f.source, f.expires
    FROM flow_fingerprints f JOIN flow_sources s ON s.id = f.source ORDER BY f.expires;
  DROP TABLE flow_fingerprints;
  ALTER TABLE flow_fingerprints_v2 RENAME TO flow_fingerprints;
  CREATE INDEX flow_fingerprints_expires ON flow_fingerprints (expires);
  `,
    postgres: `
  CREATE TABLE flow_fingerprints_v2 (
    agent TEXT NOT NULL,
    hash TEXT NOT NULL,
    origin TEXT NOT NULL,
    source TEXT NOT NULL,
    expires BIGINT NOT NULL,
    PRIMARY KEY (agent, hash, origin)
  );
  INSERT INTO flow_fingerprints_v2 (agent, hash, origin, source, expires)
    SELECT DISTINCT ON (f.agent, f.hash, COALESCE(s.server, s.uri, '')) f.agent, f.hash, COALESCE(s.server, s.uri, ''), f.source, f.expires
    FROM flow_fingerprints f JOIN flow_sources s ON s.id = f.source
    ORDER BY f.agent, f.hash, COALESCE(s.server, s.uri, ''), f.expires DESC;
  DROP TABLE flow_fingerprints;
  ALTER TABLE flow_fingerprints_v2 RENAME TO flow_fingerprints;
  CREATE INDEX flow_fingerprints_expires ON flow_fingerprints (expires);
  `,
  },
  {
    // Recorded interactions stored once per body: a re-read of the same file in a session recorded the same masked
    // body on every call (up to 64 KiB each). Bodies live in `audit_body` under their SHA-256; a row names its body
    // by digest (`body` stays for rows written before). Append-only like the rest of the log.
    name: 'recorded interactions stored once per body (content-addressed audit_body)',
    sqlite: `
  CREATE TABLE audit_body (
    digest TEXT PRIMARY KEY,
    body TEXT NOT NULL
  ) STRICT;
  CREATE TRIGGER audit_body_no_update BEFORE UPDATE ON audit_body BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;
  CREATE TRIGGER audit_body_no_delete BEFORE DELETE ON audit_body BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;
  ALTER TABLE audit_interaction ADD COLUMN body_digest TEXT;
  `,
    postgres: `
  CREATE TABLE audit_body (
    digest TEXT PRIMARY KEY,
    body TEXT NOT NULL
  );
  CREATE TRIGGER audit_body_no_update BEFORE UPDATE OR DELETE OR TRUNCATE ON audit_body EXECUTE FUNCTION quadguard_append_only();
  ALTER TABLE audit_interaction ADD COLUMN body_digest TEXT;
  `,
  },
  {
    // The audit id of a journaled decision (audit-journal.ts): fixed when the decision is answered, before the row
    // has a place in the chain, so it names this row whatever other processes commit meanwhile. Hashed when set
    // (audit-row.ts `rowHash`), so rows written before keep their hashes.
    name: 'audit rows carry the id they were answered with (ref), independent of their place in the chain',
    sqlite: `
  ALTER TABLE audit ADD COLUMN ref TEXT;
  CREATE UNIQUE INDEX audit_ref ON audit (ref);
  `,
    postgres: `
  ALTER TABLE audit ADD COLUMN ref TEXT;
  CREATE UNIQUE INDEX audit_ref ON audit (ref);
  `,
  },
  {
    // Retention (docs/audit.md): rows before `id` were dropped by `audit prune`; `hash` is row `id`'s, so `audit
    // verify` walks the rest of the chain from there. `mac` (under the audit key) makes the anchor unforgeable.
    name: 'the retention anchor: the last dropped audit row, so the kept chain verifies from it',
    sqlite: `
  CREATE TABLE audit_anchor (
    one INTEGER PRIMARY KEY CHECK (one = 1),
    id INTEGER NOT NULL,
    hash TEXT NOT NULL,
    dropped INTEGER NOT NULL,
    ts INTEGER NOT NULL,
    mac TEXT
  ) STRICT;
  `,
    postgres: `
  CREATE TABLE audit_anchor (
    one BOOLEAN PRIMARY KEY CHECK (one),
    id BIGINT NOT NULL,
    hash TEXT NOT NULL,
    dropped BIGINT NOT NULL,
    ts BIGINT NOT NULL,
    mac TEXT
  );
  `,
  },
  {
    // Data flow kept once per content (issue 30): a read is one row per identity, origin and digest of what was read
    // (a keyed hash of the text), with its expiry; its fingerprints are stored once, as (hash, read), and expire with
    // it. A re-read refreshes one row instead of thousands. `prints` lists a read's fingerprints so the sweep deletes
    // them by key (no second index on the fingerprints). An older store's unexpired reads are carried over, each
    // under a digest of its own ('carried:<id>'); expired ones are dropped.
    name: 'data flow: a read kept once per identity, origin and content; its fingerprints expire with it',
    sqlite: `
  CREATE TABLE flow_reads (
    id INTEGER PRIMARY KEY,
    agent TEXT NOT NULL,
    origin TEXT NOT NULL,
    digest TEXT NOT NULL,
    source TEXT NOT NULL,
    session TEXT NOT NULL,
    kind TEXT NOT NULL,
    server TEXT,
    tool TEXT,
    uri TEXT,
    at INTEGER NOT NULL,
    expires INTEGER NOT NULL,
    prints TEXT NOT NULL,
    UNIQUE (agent, origin, digest)
  ) STRICT;
  CREATE INDEX flow_reads_expires ON flow_reads (expires);
  CREATE TABLE flow_prints (
    hash TEXT NOT NULL,
    read INTEGER NOT NULL,
    PRIMARY KEY (hash, read)
  ) STRICT, WITHOUT ROWID;
  INSERT INTO flow_reads (agent, origin, digest, source, session, kind, server, tool, uri, at, expires, prints)
    SELECT s.agent, COALESCE(s.server, s.uri, ''), 'carried:' || s.id, s.id, s.session, s.kind, s.server, s.tool, s.uri, s.at, MAX(f.expires), group_concat(f.hash, ',')
    FROM flow_fingerprints f JOIN flow_sources s ON s.id = f.source
    WHERE f.expires > CAST(strftime('%s', 'now') AS INTEGER) * 1000
    GROUP BY s.id;
  INSERT OR IGNORE INTO flow_prints (hash, read)
    SELECT f.hash, r.id FROM flow_fingerprints f JOIN flow_reads r ON r.digest = 'carried:' || f.source
    WHERE f.expires > CAST(strftime('%s', 'now') AS INTEGER) * 1000;
  DROP TABLE flow_fingerprints;
  DROP TABLE flow_sources;
  `,
    postgres: `
  CREATE TABLE flow_reads (
    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    agent TEXT NOT NULL,
    origin TEXT NOT NULL,
    digest TEXT NOT NULL,
    source TEXT NOT NULL,
    session TEXT NOT NULL,
    kind TEXT NOT NULL,
    server TEXT,
    tool TEXT,
    uri TEXT,
    at BIGINT NOT NULL,
    expires BIGINT NOT NULL,
    prints TEXT NOT NULL,
    UNIQUE (agent, origin, digest)
  );
  CREATE INDEX flow_reads_expires ON flow_reads (expires);
  CREATE TABLE flow_prints (
    hash TEXT NOT NULL,
    read BIGINT NOT NULL,
    PRIMARY KEY (hash, read)
  );
  INSERT INTO flow_reads (agent, origin, digest, source, session, kind, server, tool, uri, at, expires, prints)
    SELECT s.agent, COALESCE(s.server, s.uri, ''), 'carried:' || s.id, s.id, s.session, s.kind, s.server, s.tool, s.uri, s.at, MAX(f.expires), string_agg(f.hash, ',')
    FROM flow_fingerprints f JOIN flow_sources s ON s.id = f.source
    WHERE f.expires > (extract(epoch FROM now()) * 1000)::bigint
    GROUP BY s.id;
  INSERT INTO flow_prints (hash, read)
    SELECT f.hash, r.id FROM flow_fingerprints f JOIN flow_reads r ON r.digest = 'carried:' || f.source
    WHERE f.expires > (extract(epoch FROM now()) * 1000)::bigint
    ON CONFLICT DO NOTHING;
  DROP TABLE flow_fingerprints;
  DROP TABLE flow_sources;
  `,
  },
  {
    // Slim audit rows (issue 30): the policy hash, the same on every row of a book, is stored once per book in
    // \`audit_book\` and a row names it by id (\`book\`); \`policy_hash\` stays for rows written before. What a row hashes
    // and reads is unchanged (audit-columns.ts): rows written before keep verifying. Append-only like the log.
    name: 'audit rows name their policy book by id (audit_book) instead of repeating its hash',
    sqlite: `
  CREATE TABLE audit_book (
    id INTEGER PRIMARY KEY,
    hash TEXT NOT NULL UNIQUE
  ) STRICT;
  CREATE TRIGGER audit_book_no_update BEFORE UPDATE ON audit_book BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;
  CREATE TRIGGER audit_book_no_delete BEFORE DELETE ON audit_book BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;
  ALTER TABLE audit ADD COLUMN book INTEGER;
  `,
    postgres: `
  CREATE TABLE audit_book (
    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    hash TEXT NOT NULL UNIQUE
  );
  CREATE TRIGGER audit_book_no_update BEFORE UPDATE OR DELETE OR TRUNCATE ON audit_book EXECUTE FUNCTION quadguard_append_only();
  ALTER TABLE audit ADD COLUMN book BIGINT;
  `,
  },
];
