// Ink prints only its last frame when CI is set; the apps under test must not see it.
delete process.env.CI;
