#ifndef FOLIO_CLIBEDIT_SHIM_H
#define FOLIO_CLIBEDIT_SHIM_H

// libedit's readline-compatible interface, for the folio REPL's line editing,
// history and completion. Debian: libedit-dev (headers under editline/).
#include <stdio.h>
#include <editline/readline.h>

#endif
