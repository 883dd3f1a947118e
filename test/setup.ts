// Ink prints only its last frame when CI is set; the apps under test must not see it.
delete process.env.CI;

// Deadlines of the product that tests meet, raised for a loaded machine (a test of the deadline
// itself sets it back): the schema check's 5 s.
process.env.OMP_EVAL_SCHEMA_CHECK_MS ??= String(60_000 * (Number(process.env.OMP_EVAL_TEST_SLOW) || 1));
// The history file's lock: 2 s (two writers of a test, each held up by the load).
process.env.OMP_EVAL_HISTORY_LOCK_MS ??= String(60_000 * (Number(process.env.OMP_EVAL_TEST_SLOW) || 1));
// A completion's 10 s (jedi's first answer, a Jupyter server's kernel under load).
process.env.OMP_EVAL_COMPLETE_TIMEOUT_MS ??= String(60_000 * (Number(process.env.OMP_EVAL_TEST_SLOW) || 1));
