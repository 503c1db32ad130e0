"""Tag readers: one module per backend behind one interface, chosen by configuration."""
