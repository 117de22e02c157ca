// The users area: imports its type, query and mutation files.
