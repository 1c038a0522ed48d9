// The module apps import: SwiftData's model layer, `import Folio` for
// `import SwiftData`. It is FolioCore — the schema, the graph, the store, the
// context with undo, the dynamic API and the typed layer — re-exported, with
// the macros (`@Model` and the others, Macros.swift) declared on top.
//
// The macros live in a module of their own so that what needs no model
// classes (the folio REPL, tools on the dynamic API) builds FolioCore alone,
// never waiting for swift-syntax, which only the macro plug-in needs.
@_exported import FolioCore
