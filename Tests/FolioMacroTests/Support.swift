import FolioMacros
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// Every Folio macro, by the name its declaration in `Folio/Model/Macros.swift`
/// gives it, with the conformances the compiler would pass to its extension role.
let folioMacros: [String: MacroSpec] = [
    "Model": MacroSpec(type: ModelMacro.self, conformances: [type("PersistentModel"), type("Observable")]),
    "_PersistedProperty": MacroSpec(type: PersistedPropertyMacro.self),
    "Attribute": MacroSpec(type: SchemaMarkerMacro.self),
    "Relationship": MacroSpec(type: SchemaMarkerMacro.self),
    "Transient": MacroSpec(type: SchemaMarkerMacro.self),
    "ModelActor": MacroSpec(type: ModelActorMacro.self, conformances: [type("ModelActor")]),
    "Unique": MacroSpec(type: UniqueMacro.self),
    "Index": MacroSpec(type: IndexMacro.self),
]

private func type(_ name: String) -> TypeSyntax {
    TypeSyntax(IdentifierTypeSyntax(name: .identifier(name)))
}

/// `assertMacroExpansion` reporting through Swift Testing: each mismatch is an
/// issue recorded at the line of the test that made the assertion.
func assertExpansion(
    _ source: String,
    expandedSource: String,
    diagnostics: [DiagnosticSpec] = [],
    macros: [String: MacroSpec] = folioMacros,
    applyFixIts: [String]? = nil,
    fixedSource: String? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) {
    assertMacroExpansion(
        source,
        expandedSource: expandedSource,
        diagnostics: diagnostics,
        macroSpecs: macros,
        applyFixIts: applyFixIts,
        fixedSource: fixedSource,
        failureHandler: { spec in
            Issue.record(
                Comment(rawValue: spec.message),
                sourceLocation: SourceLocation(
                    fileID: spec.location.fileID, filePath: spec.location.filePath,
                    line: spec.location.line, column: spec.location.column))
        },
        fileID: fileID, filePath: filePath, line: line, column: column
    )
}
