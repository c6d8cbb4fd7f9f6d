-- The decisions `approve` records and `decisions` reads (src/approve.rs, src/decisions.rs).
-- Applied in order, once each, by `wrangler d1 migrations apply DB`: `npm run dev` applies
-- them to the local database first (--local); before deploying, apply them to the real one
-- with `npx wrangler d1 migrations apply DB --remote`. A change to the table is a new file
-- (0002_….sql), never an edit of this one: a database that applied it will not again.
CREATE TABLE decisions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  subject TEXT NOT NULL,
  approved INTEGER NOT NULL, -- 1 approved, 0 rejected (SQLite has no boolean)
  reason TEXT,
  decided_at INTEGER NOT NULL -- Unix milliseconds
);
-- `decisions` filters by subject, newest first.
CREATE INDEX decisions_by_subject ON decisions (subject, id);
