// The roles area: imports its type, query and mutation files.
