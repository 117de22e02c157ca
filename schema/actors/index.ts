// The actors area: imports its type, query and mutation files.
