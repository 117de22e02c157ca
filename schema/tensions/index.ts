// The tensions area: imports its type, query and mutation files.
