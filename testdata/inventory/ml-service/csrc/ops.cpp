// Host bindings (handled by the C++ scan).
int ops_version() { return 1; }
