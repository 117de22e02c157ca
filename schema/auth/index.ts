// The auth area: imports its type, query and mutation files.
