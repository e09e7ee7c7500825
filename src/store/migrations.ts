/**
 * Schema migrations, applied in order; `PRAGMA user_version` records how many have run. Append new steps,
 * never edit a shipped one: stores in the field have already run it.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: audit log (append-only, hash-chained), guard state (Γ, τ, quarantine) and tool pins.
  `
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
  // 2: approvals of held interactions (rules with effect: approve), bound to agent, target and argument hash.
  `
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
  // 3: the interaction behind each guard decision (masked, size-capped JSON), so `quadguard replay` can re-decide
  // recorded traffic under another policy. A side table keyed by the audit row id: the chained columns of
  // `audit` are unchanged, so rows written before this migration still verify. Append-only like the log.
  `
  CREATE TABLE audit_interaction (
    id INTEGER PRIMARY KEY,
    body TEXT,
    masked INTEGER NOT NULL CHECK (masked IN (0, 1)),
    truncated INTEGER NOT NULL CHECK (truncated IN (0, 1))
  ) STRICT;
  CREATE TRIGGER audit_interaction_no_update BEFORE UPDATE ON audit_interaction BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;
  CREATE TRIGGER audit_interaction_no_delete BEFORE DELETE ON audit_interaction BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;
  `,
  // 4: model accounting of each decision (calls, tokens, ms), as JSON; null when no model was consulted.
  `
  ALTER TABLE audit ADD COLUMN llm TEXT;
  `,
  // 5: the keyed chain. Each row's MAC (HMAC-SHA256 of its hash with a key kept outside the database); null on rows
  // written before the store had a key. Not part of the hashed columns, so older rows keep their hashes.
  `
  ALTER TABLE audit ADD COLUMN mac TEXT;
  `,
];
